#ifndef cbctXimImageIO_h
#define cbctXimImageIO_h

#include "ConeBeamCTExport.h"

#include <itkImageIOBase.h>

#include <cstdint>

namespace cbct
{

/** \class XimImageIO
 * \brief Reads Varian XIM projections (TrueBeam, ProBeam, Halcyon, Edge): a 2D image whose every
 * property goes into the image's MetaDataDictionary under its own name.
 *
 * The file (little-endian): an 8-byte format identifier ("VMS.XI" and two non-printing bytes: what
 * CanReadFile() checks, whatever the extension), int32 format version, width, height, bits per
 * pixel, bytes per pixel and compression flag; the pixels, uncompressed (int32 buffer size, then
 * width*height pixels) or compressed (int32 lookup-table size, the table, int32 buffer size, the
 * buffer: see VarianCompressedPixels; then int32 uncompressed size); the histogram (int32 bin count,
 * the bins); the properties (int32 count, then per property int32 name length, the name, int32
 * type and the value).
 *
 * Pixel type: int32 for compressed files (the decoder's 32-bit values) and for uncompressed files of
 * 4 bytes per pixel; uint16 for uncompressed files of 2 bytes per pixel.
 *
 * Metadata: each property under its own name (KVSourceRtn, GantryRtn, KVSourceVrt, KVDetectorVrt,
 * KVDetectorLat, KVDetectorLng, KVNormChamber, PixelWidth, PixelHeight, KVKiloVolts,
 * KVMilliAmperes, ...), in the file's units (cm, degrees), typed by the property's type: int32 ->
 * int, double -> double, string -> std::string (trailing NULs dropped), double array ->
 * std::vector<double>, int32 array -> std::vector<int>. A name given twice keeps its last value.
 *
 * Grid: spacing from PixelWidth and PixelHeight, which XIM gives in cm (x10 to mm; a file without
 * them, or with a value that is not > 0, is refused: no grid can be made up); origin such that the
 * detector's centre is at (0, 0) mm (-(size - 1) / 2 * spacing). Lateral detector shifts
 * (KVDetectorLat) are left to the geometry, as ScannerScan says.
 *
 * Every size the file states is checked against the file before it is used (the lookup table
 * against width*height, the buffers against the file and against what the table says, every
 * property against what is left), so a damaged file gives one itk::ExceptionObject naming the file
 * and what is wrong, and nothing larger than the file can fill is allocated. Reading only:
 * CanWriteFile() is false.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT XimImageIO : public itk::ImageIOBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(XimImageIO);

  using Self = XimImageIO;
  using Superclass = itk::ImageIOBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(XimImageIO, itk::ImageIOBase);

  /** True when the file starts with XIM's format identifier. Never throws. */
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

  /** Whether the pixels are compressed (after ReadImageInformation()). */
  bool
  GetCompressed() const
  {
    return m_Compressed;
  }

protected:
  XimImageIO();
  ~XimImageIO() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  bool m_Compressed = false;
  std::uint32_t m_BytesPerPixel = 0;
  std::uint64_t m_PixelDataOffset = 0; // the lookup table (compressed) or the pixels (uncompressed)
  std::uint64_t m_LookupTableBytes = 0;
  std::uint64_t m_CompressedBytes = 0;
};

} // namespace cbct

#endif
