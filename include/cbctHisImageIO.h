#ifndef cbctHisImageIO_h
#define cbctHisImageIO_h

#include "ConeBeamCTExport.h"

#include <itkImageIOBase.h>

#include <cstdint>
#include <string>

namespace cbct
{

/** \class HisImageIO
 * \brief Reads the Heimann/PerkinElmer HIS files that Elekta XVI writes (one file per projection,
 * or several frames in one file), as an ITK ImageIO: any itk::ImageFileReader opens them once
 * HisImageIOFactory is registered.
 *
 * \par Layout (little endian)
 * \verbatim
 *  offset size  field                 stored in the MetaDataDictionary as
 *   0     2     file type (0x7000)    HIS_FileType
 *   2     2     header size (68)      HIS_HeaderSize
 *   4     2     header version        HIS_HeaderVersion
 *   6     4     file size             HIS_FileSize       (as written; not trusted, the file's is used)
 *  10     2     image header size     HIS_ImageHeaderSize
 *  12     2     ULX                   HIS_ULX            (bounding rectangle of the image, pixels)
 *  14     2     ULY                   HIS_ULY
 *  16     2     BRX                   HIS_BRX
 *  18     2     BRY                   HIS_BRY
 *  20     2     number of frames      HIS_NumberOfFrames
 *  22     2     correction            HIS_Correction     (0 none; or of 1 offset, 2 gain, 4 bad pixel)
 *  24     8     integration time      HIS_IntegrationTime (double, microseconds)
 *  32     2     type of numbers       HIS_TypeOfNumbers
 *  34    34     (padding to 68)
 *  68     image header size bytes     (the acquisition's own header: skipped)
 *  then   frames x height x width unsigned 16-bit pixels, row after row, frame after frame
 * \endverbatim
 * Width = BRX - ULX + 1 columns (u), height = BRY - ULY + 1 rows (v), as Heimann's and plastimatch's
 * readers count them (RTK's reader swaps the two, which only matters for a non-square panel). Every
 * value is stored as an int, but HIS_FileSize (unsigned int) and HIS_IntegrationTime (double).
 *
 * \par Frames
 * A file of one frame is a 2D image; a file of several frames is a 3D image (u, v, frame), frame
 * spacing 1 and origin 0, as RTK reads it.
 *
 * \par Pixel size
 * HIS carries none. The XVI panel is 409.6 mm square (1024 pixels of 0.4 mm; binned 2x2 to 512 of
 * 0.8 mm), so the spacing is 409.6 mm / the number of pixels on each axis (RTK's choice, which
 * assumes the file covers the whole panel), and the origin puts the detector's centre at (0, 0).
 * A scan reader (ElektaXVIScan) states its own grid; this one is for a file opened alone.
 *
 * \par Checks
 * Before any allocation: the magic 0x7000, a header size of 68, width and height from ULX..BRX and
 * ULY..BRY at least 1 (BRX < ULX is refused), at least one frame, and header + image header +
 * frames x width x height x 2 bytes within the file's actual size (a file larger than that is read;
 * one shorter is refused). Each failure is one itk::ExceptionObject naming the file and the field.
 * Files are claimed by their extension (.his, any case), so that a damaged HIS file gets this
 * reader's message rather than "no ImageIO found".
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HisImageIO : public itk::ImageIOBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(HisImageIO);

  using Self = HisImageIO;
  using Superclass = itk::ImageIOBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(HisImageIO, itk::ImageIOBase);

  /** Size of the fixed file header, bytes. */
  static constexpr unsigned int FileHeaderSize = 68;
  /** The file type that marks a HIS file. */
  static constexpr std::uint16_t FileTypeMagic = 0x7000;
  /** Width of the XVI panel (mm) that the pixel spacing is derived from. */
  static constexpr double PanelWidth = 409.6;

  /** The fixed header's fields, and what was derived from them and the file. */
  struct Header
  {
    std::uint16_t fileType = 0;
    std::uint16_t headerSize = 0;
    std::uint16_t headerVersion = 0;
    std::uint32_t fileSize = 0;
    std::uint16_t imageHeaderSize = 0;
    std::uint16_t ulx = 0;
    std::uint16_t uly = 0;
    std::uint16_t brx = 0;
    std::uint16_t bry = 0;
    std::uint16_t numberOfFrames = 0;
    std::uint16_t correction = 0;
    double integrationTime = 0.;
    std::uint16_t typeOfNumbers = 0;

    unsigned int width = 0;         // BRX - ULX + 1
    unsigned int height = 0;        // BRY - ULY + 1
    std::uint64_t dataOffset = 0;   // 68 + image header size
    std::uint64_t dataBytes = 0;    // frames x width x height x 2
    std::uint64_t actualFileSize = 0;
  };

  /** Reads and checks the header of `path` (every check of the class comment); throws
   * itk::ExceptionObject naming the file and what is wrong. Reads 68 bytes, never the pixels. */
  static Header
  ReadHeader(const std::string & path);

  /** The header of the file of the last ReadImageInformation(). */
  const Header &
  GetHeader() const
  {
    return m_Header;
  }

  bool
  CanReadFile(const char * fileName) override;
  void
  ReadImageInformation() override;
  void
  Read(void * buffer) override;

  /** HIS is read only. */
  bool
  CanWriteFile(const char *) override
  {
    return false;
  }
  void
  WriteImageInformation() override
  {}
  void
  Write(const void * buffer) override;

protected:
  HisImageIO();
  ~HisImageIO() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  Header m_Header;
};

} // namespace cbct

#endif
