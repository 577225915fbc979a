#include "cbctDicomCTPDScan.h"

#include "cbctDicomCTPDFile.h"
#include "cbctDicomCTPDImageIO.h"
#include "cbctDicomDataSet.h"
#include "cbctLineIntegralSupport.h"
#include "cbctMicroCTScanSupport.h"
#include "cbctWorkerErrors.h"

#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace cbct
{
namespace
{

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

std::string
Number(double value)
{
  std::ostringstream text;
  text << std::setprecision(10) << value;
  return text.str();
}

/** The DICOM files of `path` (a folder: its plain files that start with a DICOM preamble, by name; a
 * file: itself), and how many other files the folder holds. */
std::vector<std::string>
DicomFilesOf(const std::string & path, std::size_t & skipped)
{
  skipped = 0;
  if (!itksys::SystemTools::FileIsDirectory(path))
  {
    if (!itksys::SystemTools::FileExists(path, true))
      Fail(path + " does not exist");
    return { path };
  }
  std::vector<std::string> files;
  for (const std::string & name : detail::FilesInFolder(path))
  {
    const std::string file = detail::JoinPath(path, name);
    if (DicomDataSet::HasPart10Preamble(file))
      files.push_back(file);
    else
      ++skipped;
  }
  if (files.empty())
    Fail("folder " + path + " holds no DICOM file (" + std::to_string(skipped) +
         " other files); expected DICOM-CT-PD projections, one per file");
  return files;
}

/** Throws unless `file`'s detector field `what` equals the first file's. */
void
Same(const std::string & tag, double first, double value, const std::string & firstFile, const std::string & file)
{
  if (value != first)
    Fail(tag + " of DICOM-CT-PD file " + file + " is " + Number(value) + "; expected " + Number(first) + " as in " +
         firstFile + ": every projection of a scan has the same detector");
}

} // namespace

bool
DicomCTPDScan::Recognizes(const std::string & path)
{
  try
  {
    if (!itksys::SystemTools::FileIsDirectory(path))
      return DicomCTPDImageIO::IsDicomCTPD(path);
    // The first three DICOM files by name: one damaged file does not hide the scan (Open() then says
    // what is wrong with it).
    int looked = 0;
    for (const std::string & name : detail::FilesInFolder(path))
    {
      const std::string file = detail::JoinPath(path, name);
      if (!DicomDataSet::HasPart10Preamble(file))
        continue;
      if (DicomCTPDImageIO::IsDicomCTPD(file))
        return true;
      if (++looked == 3)
        break;
    }
  }
  catch (...)
  {
  }
  return false;
}

DicomCTPDScan::Pointer
DicomCTPDScan::Open(const std::string & path)
{
  Pointer scan = new Self;
  scan->UnRegister();
  std::size_t skipped = 0;
  std::vector<std::string> files = DicomFilesOf(path, skipped);

  // Every header, several files at a time (a scan has tens of thousands).
  std::vector<DicomCTPDFile> headers(files.size());
  ParallelizeArray(0, files.size(), [&](itk::SizeValueType k) { headers[k] = DicomCTPDFile::Read(files[k]); });

  // The order: InstanceNumber when every file has a distinct one, else the names'.
  std::vector<std::size_t> order(files.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  bool numbered = std::all_of(headers.begin(), headers.end(), [](const DicomCTPDFile & h) { return h.hasInstanceNumber; });
  if (numbered)
  {
    std::map<long, std::size_t> seen;
    for (std::size_t k = 0; k < headers.size() && numbered; ++k)
    {
      const auto [at, fresh] = seen.emplace(headers[k].instanceNumber, k);
      if (!fresh)
      {
        scan->AddToLog("InstanceNumber " + std::to_string(headers[k].instanceNumber) + " in " + files[at->second] +
                       " and " + files[k] + ": the projections are taken in the order of their file names");
        numbered = false;
      }
    }
  }
  if (numbered)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return headers[a].instanceNumber < headers[b].instanceNumber; });

  const DicomCTPDFile & first = headers[order.front()];
  const std::string & firstFile = first.file;
  std::vector<std::string> sorted;
  sorted.reserve(files.size());
  for (const std::size_t k : order)
  {
    const DicomCTPDFile & h = headers[k];
    Same("(7029,1010) NumberofDetectorRows", first.detectorRows, h.detectorRows, firstFile, h.file);
    Same("(7029,1011) NumberofDetectorColumns", first.detectorColumns, h.detectorColumns, firstFile, h.file);
    Same("(7029,1002) DetectorElementTransverseSpacing", first.columnSpacing, h.columnSpacing, firstFile, h.file);
    Same("(7029,1006) DetectorElementAxialSpacing", first.rowSpacing, h.rowSpacing, firstFile, h.file);
    Same("(7031,1031) ConstantRadialDistance", first.constantRadialDistance, h.constantRadialDistance, firstFile, h.file);
    Same("(7031,1033) DetectorCentralElement's column", first.centralColumn, h.centralColumn, firstFile, h.file);
    Same("(7031,1033) DetectorCentralElement's row", first.centralRow, h.centralRow, firstFile, h.file);
    Same("(7033,1063) SpectrumIndex", first.spectrumIndex, h.spectrumIndex, firstFile, h.file);
    if (h.detectorShape != first.detectorShape)
      Fail("(7029,100B) DetectorShape of DICOM-CT-PD file " + h.file + " is " + h.detectorShape + "; expected " +
           first.detectorShape + " as in " + firstFile + ": every projection of a scan has the same detector");
    if (h.detectorRowsFastest != first.detectorRowsFastest || h.signedPixels != first.signedPixels)
      Fail("the pixel layout of DICOM-CT-PD file " + h.file + " ((0028,0010) Rows, (0028,0011) Columns, (0028,0103) "
           "PixelRepresentation) differs from that of " + firstFile + "; expected one layout for the whole scan");
    sorted.push_back(h.file);
  }

  scan->m_Rows = first.detectorRows;
  scan->m_Columns = first.detectorColumns;
  scan->m_ConstantRadialDistance = first.constantRadialDistance;
  scan->m_DetectorShape = first.detectorShape;
  scan->m_FlyingFocalSpotMode = first.flyingFocalSpotMode;
  scan->m_WaterAttenuation = first.waterAttenuation;

  const double d0 = first.constantRadialDistance;
  const double columns = first.detectorColumns, rows = first.detectorRows;
  const double du = first.columnSpacing, dv = first.rowSpacing;
  const double offsetX = -(first.centralColumn - 0.5 * (columns + 1.)) * du;
  auto geometry = ThreeDCircularProjectionGeometry::New();
  if (first.detectorShape == "CYLINDRICAL")
    geometry->SetRadiusCylindricalDetector(d0);
  bool flying = false;
  scan->m_Views.reserve(order.size());
  for (std::size_t n = 0; n < order.size(); ++n)
  {
    const DicomCTPDFile & h = headers[order[n]];
    View view;
    view.focalCenterAngle = h.focalCenterAngle;
    view.focalCenterAxial = h.focalCenterAxial;
    view.focalCenterRadius = h.focalCenterRadius;
    view.sourceAngularShift = h.sourceAngularShift;
    view.sourceAxialShift = h.sourceAxialShift;
    view.sourceRadialShift = h.sourceRadialShift;
    view.rescaleSlope = h.rescaleSlope;
    view.rescaleIntercept = h.rescaleIntercept;
    scan->m_Views.push_back(view);
    flying = flying || h.sourceAngularShift != 0. || h.sourceAxialShift != 0. || h.sourceRadialShift != 0.;

    const double spot = h.focalCenterRadius + h.sourceRadialShift;
    ThreeDCircularProjectionGeometry::Parameters p;
    p.gantryAngle = ThreeDCircularProjectionGeometry::WrapAngle(-h.focalCenterAngle);
    p.sourceToIsocenterDistance = spot * std::cos(h.sourceAngularShift);
    p.sourceOffsetX = -spot * std::sin(h.sourceAngularShift);
    p.sourceOffsetY = h.focalCenterAxial + h.sourceAxialShift;
    p.sourceToDetectorDistance = p.sourceToIsocenterDistance - h.focalCenterRadius + d0;
    p.projectionOffsetX = offsetX;
    p.projectionOffsetY = h.focalCenterAxial + (h.centralRow - 0.5 * (rows + 1.)) * dv;
    try
    {
      geometry->AddProjectionInRadians(p);
    }
    catch (const itk::ExceptionObject & e)
    {
      Fail("DICOM-CT-PD file " + h.file + ": its geometry cannot be used (" + e.GetDescription() + ")");
    }
  }
  scan->SetGeometry(geometry);
  scan->SetProjectionFiles(std::move(sorted));
  scan->SetDetectorGrid({ { du, dv } }, { { -0.5 * (columns - 1.) * du, -0.5 * (rows - 1.) * dv } });
  scan->SetFormat("DICOM-CT-PD (AAPM/Mayo CT projection data, " + first.detectorShape + " detector)");

  std::ostringstream log;
  log << files.size() << " DICOM-CT-PD projections of " << first.detectorColumns << " columns x " << first.detectorRows
      << " rows (" << Number(du) << " x " << Number(dv) << " mm), " << first.detectorShape
      << " detector, ordered by " << (numbered ? "InstanceNumber" : "file name")
      << (skipped > 0 ? ", " + std::to_string(skipped) + " files without a DICOM preamble skipped" : std::string());
  scan->AddToLog(log.str());
  scan->AddToLog("pixels: (0028,0010) Rows x (0028,0011) Columns = " +
                 std::string(first.detectorRowsFastest ? "detector columns x rows (each column's rows together)"
                                                       : "detector rows x columns (each row's columns together)") +
                 "; v grows with z (the format's row 1, the farthest from the table, is the last)");
  scan->AddToLog("GantryAngle = -DetectorFocalCenterAngularPosition; SourceToIsocenterDistance = "
                 "DetectorFocalCenterRadialDistance (" + Number(first.focalCenterRadius) +
                 " mm in the first file); the detector at ConstantRadialDistance " + Number(d0) +
                 " mm from the focal centre" +
                 (first.detectorShape == "CYLINDRICAL" ? " (RadiusCylindricalDetector " + Number(d0) + " mm)" : std::string()));
  scan->AddToLog("DetectorCentralElement (" + Number(first.centralColumn) + ", " + Number(first.centralRow) +
                 ") -> ProjectionOffsetX " + Number(offsetX) +
                 " mm, ProjectionOffsetY = DetectorFocalCenterAxialPosition + " +
                 Number((first.centralRow - 0.5 * (rows + 1.)) * dv) + " mm");
  scan->AddToLog(std::string("flying focal spot: ") +
                 (first.flyingFocalSpotMode.empty() ? "(7033,100E) absent" : first.flyingFocalSpotMode) +
                 (flying ? "; the focal spot's shifts applied per projection (SourceOffsetX, SourceOffsetY, "
                           "SourceToIsocenterDistance)"
                         : "; no shift in any file"));
  if (first.angularSteps > 0)
    scan->AddToLog("NumberofSourceAngularSteps " + std::to_string(first.angularSteps) + " per turn");
  if (!first.projectionDataType.empty())
    scan->AddToLog("TypeofProjectionData " + first.projectionDataType);
  scan->AddToLog("LogFlag " + (first.logFlag.empty() ? std::string("absent (line integrals, as the format defines)") : first.logFlag));
  if (first.waterAttenuation > 0.)
  {
    std::ostringstream water;
    water << std::setprecision(7) << first.waterAttenuation; // a float tag's digits
    scan->AddToLog("water attenuation " + water.str() + " mm^-1: HU = 1000 (mu - " + water.str() + ") / " + water.str());
  }
  return scan;
}

void
DicomCTPDScan::ToLineIntegrals(ProjectionsType * readings) const
{
  detail::CheckReadingsShape(readings, m_Columns, m_Rows, m_Views.size(), "DICOM-CT-PD scan");
  detail::ConvertEachProjection(readings, [&](std::size_t k, float * slice, std::size_t pixels) {
    const double slope = m_Views[k].rescaleSlope, intercept = m_Views[k].rescaleIntercept;
    for (std::size_t i = 0; i < pixels; ++i)
      slice[i] = static_cast<float>(slice[i] * slope + intercept);
    return 0;
  });
  this->AddToLog("line integrals = stored value x (0028,1053) RescaleSlope + (0028,1052) RescaleIntercept, per file "
                 "(the first: x " + Number(m_Views.front().rescaleSlope) + " + " + Number(m_Views.front().rescaleIntercept) + ")");
}

itk::ImageIOBase::Pointer
DicomCTPDScan::ProjectionImageIO() const
{
  return DicomCTPDImageIO::New().GetPointer();
}

std::vector<float>
DicomCTPDScan::PhotonStatistics(unsigned int k) const
{
  if (k >= this->ProjectionFiles().size())
    Fail("DICOM-CT-PD scan: projection " + std::to_string(k) + " of " + std::to_string(this->ProjectionFiles().size()));
  return DicomCTPDFile::Read(this->ProjectionFiles()[k]).photonStatistics;
}

void
DicomCTPDScan::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Projections: " << m_Views.size() << ", detector " << m_Columns << " x " << m_Rows << " ("
     << m_DetectorShape << ")" << std::endl;
}

} // namespace cbct
