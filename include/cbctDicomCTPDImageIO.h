#ifndef cbctDicomCTPDImageIO_h
#define cbctDicomCTPDImageIO_h

#include "ConeBeamCTExport.h"
#include "cbctDicomCTPDFile.h"

#include <itkImageIOBase.h>

namespace cbct
{

/** \class DicomCTPDImageIO
 * \brief Reads one DICOM-CT-PD projection file (DicomCTPDFile) as a 2D image: the detector's columns
 * along u, its rows along v (v growing with the format's z), the stored 16-bit values (unsigned short,
 * or short for PixelRepresentation 1) before RescaleSlope and RescaleIntercept, the element widths
 * (7029,1002) and (7029,1006) as spacing and the grid centred on (0, 0) mm. Every field DicomCTPDFile
 * reads goes into the MetaDataDictionary under its keyword (numbers as double, text as std::string,
 * PhotonStatistics as std::vector<float>).
 *
 * CanReadFile() is true for a DICOM Part 10 file whose data set holds (7029,1010) NumberofDetectorRows
 * and (7031,1001) DetectorFocalCenterAngularPosition, and for one whose first 64 KiB hold the tag
 * (7029,1010) but cannot be parsed (a damaged projection: ReadImageInformation() then says what is
 * wrong); other DICOM files are left to other readers. Reading only: CanWriteFile() is false.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DicomCTPDImageIO : public itk::ImageIOBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DicomCTPDImageIO);

  using Self = DicomCTPDImageIO;
  using Superclass = itk::ImageIOBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(DicomCTPDImageIO, itk::ImageIOBase);

  /** Never throws (see the class's description). */
  bool
  CanReadFile(const char * fileName) override;
  void
  ReadImageInformation() override;
  void
  Read(void * buffer) override;

  bool
  CanWriteFile(const char *) override
  {
    return false;
  }
  void
  WriteImageInformation() override;
  void
  Write(const void * buffer) override;

  /** Whether `path` is a DICOM-CT-PD projection file, as CanReadFile() decides. Never throws. */
  static bool
  IsDicomCTPD(const std::string & path);

protected:
  DicomCTPDImageIO();
  ~DicomCTPDImageIO() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  DicomCTPDFile m_Header; // ReadImageInformation()'s, for Read()
};

} // namespace cbct

#endif
