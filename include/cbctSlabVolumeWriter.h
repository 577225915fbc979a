#ifndef cbctSlabVolumeWriter_h
#define cbctSlabVolumeWriter_h

#include "ConeBeamCTExport.h"

#include <itkImage.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cbct
{

/** \class SlabVolumeWriter
 * \brief Writes a volume slab by slab along y (the rotation axis), never holding it whole: the
 * output of a reconstruction larger than memory.
 *
 * Three layouts take slabs:
 * - MetaImage (.mha, .mhd + .raw), through ITK's streamed writing: each slab is pasted into its
 *   place in the file (itk::ImageFileWriter's IO region);
 * - NRRD (.nrrd, .nhdr + .raw): ITK's NRRD writer does not paste, so the header is written here
 *   (NRRD0004: type float, space left-posterior-superior, space directions and origin, raw
 *   little-endian data, the image's string metadata as key:=value lines) and each slab's rows are
 *   written at their offsets;
 * - a TIFF stack of one file per slice, the way micro-CT reconstructions are kept: a name with one
 *   printf integer conversion such as DIR/slice_%04d.tif. A slice is perpendicular to the rotation
 *   axis: the x-z plane at one y (files numbered from 0 along y), 32-bit float, so that each slab
 *   gives whole slices.
 * Every file is written beside its place and moved there once the whole volume is written
 * (cbct::AtomicOutput): an interrupted run leaves no partial file under the output's name (the slices
 * of a stack are moved in order, the last slice last).
 *
 * Usage: construct with the path and the volume's grid and metadata (an image whose largest possible
 * region is the volume; its buffer is not read), Write() each slab (whole along x and z, any rows of
 * y, each row once, in any order), then Commit(). Commit() refuses a volume with rows never written.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT SlabVolumeWriter
{
public:
  using ImageType = itk::Image<float, 3>;

  /** Whether `path` is a TIFF slice stack: a .tif or .tiff name holding one printf integer
   * conversion (%d, %04d, %i, %5u ...). */
  static bool
  IsSliceStack(const std::string & path);
  /** Whether `path` names a layout written slab by slab (MetaImage, NRRD, a TIFF slice stack). */
  static bool
  WritesSlabs(const std::string & path);
  /** The file of slice `y` of a slice stack `pattern`. */
  static std::string
  SliceFile(const std::string & pattern, long long y);

  /** Throws itk::ExceptionObject when `path` is not a layout written by slabs or its directory
   * cannot be written. */
  SlabVolumeWriter(const std::string & path, const ImageType * volume);
  ~SlabVolumeWriter();
  SlabVolumeWriter(const SlabVolumeWriter &) = delete;
  SlabVolumeWriter &
  operator=(const SlabVolumeWriter &) = delete;

  /** Files Commit() must not replace (the run's inputs). */
  void
  SetProtectedFiles(const std::vector<std::string> & files);

  /** Writes the buffered region of `slab` (whole along x and z). */
  void
  Write(const ImageType * slab);

  /** Bytes of voxels written so far, and of the whole volume. */
  std::uint64_t
  BytesWritten() const;
  std::uint64_t
  VolumeBytes() const;

  /** Moves the files into place once every row of y has been written. */
  void
  Commit();

private:
  class Layout;
  class MetaImageLayout;
  class NrrdLayout;
  class SliceStackLayout;
  std::unique_ptr<Layout> m_Layout;
  ImageType::Pointer m_Information;
  std::vector<bool> m_RowsWritten;
  std::uint64_t m_BytesWritten = 0;
};

} // namespace cbct

#endif
