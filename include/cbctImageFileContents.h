#ifndef cbctImageFileContents_h
#define cbctImageFileContents_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cbct
{

/** \class ImageFileContents
 * \brief What an image file's header promises and what its files hold: a truncated file is found
 * before its pixels are read, whatever the format's reader would do with it.
 *
 * ITK's readers differ on a file cut short: NRRD, PNG and HDF5 fail, but MetaImage (LOCAL or
 * detached data, raw or compressed), NIfTI (.nii, .nii.gz, .hdr/.img), TIFF, VTK, GIPL, JPEG and BMP
 * print a warning at most and hand back an image whose missing part is zeros or garbage. Inspect()
 * reads the header with the ImageIO that ITK picks for the file (so both agree on the format and the
 * pixel type), then measures the data the format's own way:
 *
 * - MetaImage: ElementDataFile LOCAL (data after the header), a file, LIST or a file-name pattern;
 *   HeaderSize; CompressedData (the zlib stream is inflated and counted); ASCII data (values counted).
 * - NRRD: attached or detached data (a file, LIST or a pattern), line and byte skips; raw, gzip,
 *   ASCII and hex encodings (bzip2 is left to the NRRD reader, which fails on short data).
 * - NIfTI-1, NIfTI-2 and Analyze: .nii, .nii.gz, .hdr + .img (or .img.gz), from vox_offset.
 * - TIFF and BigTIFF: every directory and every strip or tile must lie inside the file.
 * - VTK legacy (binary or ASCII), GIPL (or .gipl.gz), MRC, BMP (uncompressed), PNG (its chunks up to
 *   IEND), JPEG (the end-of-image marker), HDF5 and MINC2 (the end-of-file address of the superblock).
 *
 * A PNG file is also decoded whole with libpng before ITK's reader sees it (Intact(), Damage()):
 * ITK 5.2's PNGImageIO lets libpng abort the process on a damaged chunk (see src/cbctPngDecoding.h).
 *
 * Other formats (DICOM, MINC1, JPEG 2000, LSM, BioRad, Stimulate, GE, Bruker) are not measured here:
 * Measured() is false and their reader's own checks apply. So are the vendor projection formats of
 * ConeBeamCT (Varian XIM, HND and HNC: formats "Xim" and "Hnd"), whose readers check every size
 * against the file: a file cut short or whose sizes disagree throws here already (in the reader's
 * ReadImageInformation()), a damaged lookup table when the pixels are read.
 *
 * Uncompressed sizes are compared: a compressed stream is inflated (up to one byte more than the
 * header promises), so inspecting a compressed file costs about one decompression.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ImageFileContents
{
public:
  /** Reads the header of the image file `path` and measures its data. Throws itk::ExceptionObject
   * when no ITK ImageIO reads the file, when the header is malformed, or when a data file it names
   * is missing. A short or damaged file does not throw here: see Complete(), Intact() and
   * CheckComplete(). */
  static ImageFileContents
  Inspect(const std::string & path);

  /** The format: the name of ITK's ImageIO without "ImageIO" (MetaImage, Nrrd, Nifti, TIFF, ...). */
  const std::string &
  Format() const
  {
    return m_Format;
  }
  /** Every file the image is read from: the header first, then its data files. */
  const std::vector<std::string> &
  Files() const
  {
    return m_Files;
  }
  /** Size along each axis, and the components of a pixel and their size in bytes. */
  const std::vector<std::uint64_t> &
  Dimensions() const
  {
    return m_Dimensions;
  }
  unsigned int
  Components() const
  {
    return m_Components;
  }
  unsigned int
  ComponentBytes() const
  {
    return m_ComponentBytes;
  }
  /** Number of pixels (the product of the dimensions; saturates at UINT64_MAX). */
  std::uint64_t
  Pixels() const;
  /** "32 x 32 x 10 pixels of float" */
  std::string
  Description() const;

  /** Whether the data were measured (false for formats not measured here). */
  bool
  Measured() const
  {
    return m_Measured;
  }
  /** What the header promises and what the files hold, in Unit(): "bytes", "values" for ASCII
   * data, "bytes of file" for a format whose header says where its data lie (TIFF, PNG, HDF5). */
  std::uint64_t
  Expected() const
  {
    return m_Expected;
  }
  std::uint64_t
  Found() const
  {
    return m_Found;
  }
  const std::string &
  Unit() const
  {
    return m_Unit;
  }
  /** The file found short (the header itself for attached data). */
  const std::string &
  ShortFile() const
  {
    return m_ShortFile;
  }

  /** False when the files hold less than the header promises. */
  bool
  Complete() const
  {
    return !m_Measured || m_Found >= m_Expected;
  }
  /** False when the file does not decode (PNG only: a bad chunk, a CRC mismatch, pixel data that
   * do not inflate); Damage() says what the decoder found. A damaged file's Dimensions() are empty
   * when even its header did not decode. */
  bool
  Intact() const
  {
    return m_Damage.empty();
  }
  const std::string &
  Damage() const
  {
    return m_Damage;
  }

  /** Throws itk::ExceptionObject naming the file, what was found and what was expected when the
   * image is not Complete(), e.g. "pixel data of p.mha is 13456 bytes; expected 40960 bytes (32 x 32
   * x 10 pixels of float, as its header says): the file is cut short"; or, complete but not
   * Intact(), "PNG file p.png is damaged (libpng: IDAT: CRC error); expected ...". */
  void
  CheckComplete() const;

  /** Inspect(path).CheckComplete(), and the contents. */
  static ImageFileContents
  InspectAndCheck(const std::string & path);

  // Set by the format's measurement (public for the measuring functions in the .cxx).
  struct Measurement
  {
    bool measured = false;
    std::uint64_t expected = 0;
    std::uint64_t found = 0;
    std::string unit = "bytes";
    std::string shortFile;
    std::string subject; // "pixel data of FILE", "TIFF file FILE"
    std::string why;     // what the expected size comes from
    std::vector<std::string> dataFiles;
  };

private:
  std::string m_Path;
  std::string m_Format;
  std::vector<std::string> m_Files;
  std::vector<std::uint64_t> m_Dimensions;
  unsigned int m_Components = 1;
  unsigned int m_ComponentBytes = 0;
  std::string m_ComponentName;
  bool m_Measured = false;
  std::uint64_t m_Expected = 0;
  std::uint64_t m_Found = 0;
  std::string m_Unit = "bytes";
  std::string m_ShortFile;
  std::string m_Subject;
  std::string m_Why;
  std::string m_Damage;
};

} // namespace cbct

#endif
