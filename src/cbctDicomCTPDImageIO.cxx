#include "cbctDicomCTPDImageIO.h"

#include "cbctDicomCTPDFile.h"
#include "cbctDicomDataSet.h"

#include <itkMetaDataObject.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace cbct
{

DicomCTPDImageIO::DicomCTPDImageIO()
{
  this->SetNumberOfDimensions(2);
  for (const char * extension : { ".dcm", ".DCM", ".ima", ".IMA" })
    this->AddSupportedReadExtension(extension);
}

bool
DicomCTPDImageIO::IsDicomCTPD(const std::string & path)
{
  if (!DicomDataSet::HasPart10Preamble(path))
    return false;
  try
  {
    const DicomDataSet set = DicomDataSet::ParseHeader(path);
    return set.Has(0x70291010u) && set.Has(0x70311001u);
  }
  catch (...)
  {
  }
  // Damaged: claimed when its start holds (7029,1010) NumberofDetectorRows (tag bytes, little endian),
  // so that reading it says what is wrong rather than that no reader knows it.
  std::FILE * file = std::fopen(path.c_str(), "rb");
  if (file == nullptr)
    return false;
  std::vector<unsigned char> start(64 * 1024);
  start.resize(std::fread(start.data(), 1, start.size(), file));
  std::fclose(file);
  static const unsigned char tag[4] = { 0x29, 0x70, 0x10, 0x10 };
  for (std::size_t i = 0; i + 4 <= start.size(); ++i)
    if (std::memcmp(start.data() + i, tag, 4) == 0)
      return true;
  return false;
}

bool
DicomCTPDImageIO::CanReadFile(const char * fileName)
{
  return fileName != nullptr && IsDicomCTPD(fileName);
}

void
DicomCTPDImageIO::ReadImageInformation()
{
  m_Header = DicomCTPDFile::Read(m_FileName);
  const DicomCTPDFile & h = m_Header;
  this->SetMetaDataDictionary(itk::MetaDataDictionary());
  itk::MetaDataDictionary & d = this->GetMetaDataDictionary();
  const auto number = [&](const char * key, double value) { itk::EncapsulateMetaData<double>(d, key, value); };
  const auto text = [&](const char * key, const std::string & value) {
    if (!value.empty())
      itk::EncapsulateMetaData<std::string>(d, key, value);
  };
  number("NumberofDetectorRows", h.detectorRows);
  number("NumberofDetectorColumns", h.detectorColumns);
  number("DetectorElementTransverseSpacing", h.columnSpacing);
  number("DetectorElementAxialSpacing", h.rowSpacing);
  text("DetectorShape", h.detectorShape);
  number("DetectorFocalCenterAngularPosition", h.focalCenterAngle);
  number("DetectorFocalCenterAxialPosition", h.focalCenterAxial);
  number("DetectorFocalCenterRadialDistance", h.focalCenterRadius);
  number("ConstantRadialDistance", h.constantRadialDistance);
  number("DetectorCentralElementColumn", h.centralColumn);
  number("DetectorCentralElementRow", h.centralRow);
  number("SourceAngularPositionShift", h.sourceAngularShift);
  number("SourceAxialPositionShift", h.sourceAxialShift);
  number("SourceRadialDistanceShift", h.sourceRadialShift);
  text("FlyingFocalSpotMode", h.flyingFocalSpotMode);
  if (h.angularSteps > 0)
    number("NumberofSourceAngularSteps", h.angularSteps);
  if (h.numberOfSpectra > 0)
    number("NumberofSpectra", h.numberOfSpectra);
  number("SpectrumIndex", h.spectrumIndex);
  text("TypeofProjectionData", h.projectionDataType);
  text("TypeofProjectionGeometry", h.projectionGeometryType);
  text("LogFlag", h.logFlag);
  if (!h.photonStatistics.empty())
    itk::EncapsulateMetaData<std::vector<float>>(d, "PhotonStatistics", h.photonStatistics);
  if (h.waterAttenuation > 0.)
    number("WaterAttenuationCoefficient", h.waterAttenuation);
  number("RescaleSlope", h.rescaleSlope);
  number("RescaleIntercept", h.rescaleIntercept);
  if (h.hasInstanceNumber)
    number("InstanceNumber", static_cast<double>(h.instanceNumber));

  this->SetNumberOfDimensions(2);
  this->SetPixelType(itk::IOPixelEnum::SCALAR);
  this->SetNumberOfComponents(1);
  this->SetComponentType(h.SignedPixels() ? itk::IOComponentEnum::SHORT : itk::IOComponentEnum::USHORT);
  const unsigned int sizes[2] = { h.detectorColumns, h.detectorRows };
  const double spacings[2] = { h.columnSpacing, h.rowSpacing };
  for (unsigned int dim = 0; dim < 2; ++dim)
  {
    this->SetDimensions(dim, sizes[dim]);
    this->SetSpacing(dim, spacings[dim]);
    this->SetOrigin(dim, -0.5 * (sizes[dim] - 1.) * spacings[dim]);
  }
}

void
DicomCTPDImageIO::Read(void * buffer)
{
  // ReadImageInformation()'s header (read again when the file name changed since); ReadPixels() checks
  // that the file still holds the pixels where the header put them.
  if (m_Header.file != m_FileName)
    m_Header = DicomCTPDFile::Read(m_FileName);
  const DicomCTPDFile & h = m_Header;
  if (h.detectorColumns != this->GetDimensions(0) || h.detectorRows != this->GetDimensions(1) ||
      h.SignedPixels() != (this->GetComponentType() == itk::IOComponentEnum::SHORT))
    itkExceptionMacro(<< "DICOM-CT-PD file " << m_FileName << ": its detector, " << h.detectorColumns << " x "
                      << h.detectorRows << ", is not the image's (" << this->GetDimensions(0) << " x "
                      << this->GetDimensions(1) << ")");
  h.ReadPixels(buffer);
}

void
DicomCTPDImageIO::WriteImageInformation()
{
  itkExceptionMacro(<< "DicomCTPDImageIO does not write DICOM-CT-PD files");
}

void
DicomCTPDImageIO::Write(const void *)
{
  itkExceptionMacro(<< "DicomCTPDImageIO does not write DICOM-CT-PD files");
}

void
DicomCTPDImageIO::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
}

} // namespace cbct
