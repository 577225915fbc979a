#ifndef cbctVarianCompressedPixels_h
#define cbctVarianCompressedPixels_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <string>

namespace cbct
{

/** \class VarianCompressedPixels
 * \brief Varian's lossless difference compression of projection pixels, as XIM (TrueBeam, ProBeam,
 * Halcyon, Edge) and HND (OBI) files store it: decoded straight into the image's buffer.
 *
 * The stream: a lookup table of 2-bit codes, four to a byte, lowest bits first, one for each pixel
 * after the first row but the last (code 0: the difference takes 1 byte, 1: 2 bytes, 2: 4 bytes; 3
 * does not occur); then the buffer: the first row and the first pixel of the second row as int32,
 * then each following pixel's difference, signed little-endian of the coded width. Pixel i is
 *   p[i] = d[i] + p[i-1] + p[i-width] - p[i-width-1]   (32-bit arithmetic that wraps),
 * so a decoded value is a 32-bit pattern: XIM reads it as int32, HND as uint32.
 *
 * Nothing here trusts the stream: BufferBytes() walks the table once (a byte at a time, through a
 * 256-entry table) and says how many bytes the buffer must hold, refusing a code 3; Decode() checks
 * the sizes it is given against that before it writes a pixel, then runs without further checks.
 * Errors are itk::ExceptionObject naming `file`.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT VarianCompressedPixels
{
public:
  /** The number of differences (coded pixels): width*height - width - 1. Throws unless width >= 1,
   * height >= 2 and width*height < 2^62 (it never overflows). */
  static std::uint64_t
  DifferenceCount(std::uint64_t width, std::uint64_t height, const std::string & file);
  /** The bytes of lookup table Varian writes: 2 bits for each of the width*(height-1) pixels after
   * the first row, rounded up to a byte (one more code than there are differences: the last is not
   * used). A table of ceil(differences / 4) bytes is complete too. */
  static std::uint64_t
  LookupTableBytes(std::uint64_t width, std::uint64_t height);
  /** The bytes the buffer holds for a table of `lookupTableBytes` describing `differences`
   * differences: 4*(width+1) + the differences' widths. Throws (naming `file`) when the table is too
   * short for `differences` codes or holds a code 3 among them. */
  static std::uint64_t
  BufferBytes(const unsigned char * lookupTable,
              std::uint64_t lookupTableBytes,
              std::uint64_t width,
              std::uint64_t differences,
              const std::string & file);
  /** Decodes the width*height pixels into `pixels`. `buffer` holds `bufferBytes` bytes; throws
   * (naming `file`) unless that is at least BufferBytes(). Bytes past those are not read. */
  static void
  Decode(const unsigned char * lookupTable,
         std::uint64_t lookupTableBytes,
         const unsigned char * buffer,
         std::uint64_t bufferBytes,
         std::uint64_t width,
         std::uint64_t height,
         std::uint32_t * pixels,
         const std::string & file);
};

} // namespace cbct

#endif
