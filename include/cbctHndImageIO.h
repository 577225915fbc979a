#ifndef cbctHndImageIO_h
#define cbctHndImageIO_h

#include "ConeBeamCTExport.h"

#include <itkImageIOBase.h>

#include <cstdint>

namespace cbct
{

/** \class HndImageIO
 * \brief Reads Varian OBI projections: HND (compressed) and HNC (uncompressed) files, told apart by
 * their extension (.hnd, .hnc, any case), every header field in the image's MetaDataDictionary.
 *
 * Both start with the same header fields (488 bytes, little-endian; the rest of the header is not
 * read): sFileType[32], FileLength, sChecksumSpec[4], nCheckSum, sCreationDate[8], sCreationTime[8],
 * sPatientID[16], nPatientSer, sSeriesID[16], nSeriesSer, sSliceID[16], nSliceSer, SizeX, SizeY,
 * dSliceZPos, sModality[16], nWindow, nLevel, nPixelOffset, sImageType[4], then 40 doubles:
 * dGantryRtn, dSAD, dSFD, dCollX1, dCollX2, dCollY1, dCollY2, dCollRtn, dFieldX, dFieldY, dBladeX1,
 * dBladeX2, dBladeY1, dBladeY2, dIDUPosLng, dIDUPosLat, dIDUPosVrt, dIDUPosRtn, dPatientSupportAngle,
 * dTableTopEccentricAngle, dCouchVrt, dCouchLng, dCouchLat, dIDUResolutionX, dIDUResolutionY,
 * dImageResolutionX, dImageResolutionY, dEnergy, dDoseRate, dXRayKV, dXRayMA, dMetersetExposure,
 * dAcqAdjustment, dCTProjectionAngle, dCTNormChamber, dGatingTimeTag, dGating4DInfoX,
 * dGating4DInfoY, dGating4DInfoZ, dGating4DInfoTime (s: characters, n/Size/FileLength: uint32,
 * d: double). Each is stored under its field name: strings as std::string (up to the first NUL,
 * characters that do not print dropped), integers as unsigned int, doubles as double.
 *
 * - HND: a 1024-byte header, then Varian's compressed pixels (VarianCompressedPixels: the lookup
 *   table of ceil(SizeX * (SizeY - 1) / 4) bytes, then the buffer up to the end of the file).
 *   Pixel type uint32.
 * - HNC: a 512-byte header, then SizeX * SizeY uint16 pixels. Pixel type uint16.
 *
 * Grid: spacing dIDUResolutionX and dIDUResolutionY (mm; refused unless > 0); origin such that the
 * detector's centre is at (0, 0) mm. The header has no documented magic (sFileType is not checked):
 * CanReadFile() goes by the extension, and ReadImageInformation() checks the sizes instead. The data
 * after the header must be what SizeX and SizeY say: for HND at least what the lookup table says and
 * at most 4 bytes more (one unused difference), for HNC exactly 2 * SizeX * SizeY bytes; a file cut
 * short, a lookup-table code 3 or a size the file cannot hold gives one itk::ExceptionObject naming
 * the file and what is wrong. Reading only: CanWriteFile() is false.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HndImageIO : public itk::ImageIOBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(HndImageIO);

  using Self = HndImageIO;
  using Superclass = itk::ImageIOBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(HndImageIO, itk::ImageIOBase);

  /** True for an existing file named .hnd or .hnc (any case). Never throws. */
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

  /** Header sizes of the two kinds of file. */
  static constexpr std::uint64_t HndHeaderBytes = 1024;
  static constexpr std::uint64_t HncHeaderBytes = 512;

  /** Whether the file is an HND (compressed) rather than an HNC (after ReadImageInformation()). */
  bool
  GetCompressed() const
  {
    return m_Compressed;
  }

protected:
  HndImageIO();
  ~HndImageIO() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  bool m_Compressed = true;
  std::uint64_t m_DataBytes = 0; // after the header
};

} // namespace cbct

#endif
