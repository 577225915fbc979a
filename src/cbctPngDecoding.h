#ifndef cbctPngDecoding_h
#define cbctPngDecoding_h

// A PNG file decoded whole with libpng before ITK reads it, for ImageFileContents (private to the
// library). ITK 5.2's PNGImageIO::ReadImageInformation() calls libpng without an error handler of
// its own (no setjmp): on a damaged chunk (a bad chunk type or length, a bad IHDR, a CRC error in a
// critical chunk) libpng has nowhere to jump to and calls abort(), which ends the whole process (found
// by cbctFuzzProjectionFile; ITK fixed it after 5.2). Decoding the file here first, with an error
// handler that returns, turns every such file into an error message; a file that decodes here also
// passes ITK's reader, which uses the same libpng with the same limits and transformations.
#include <string>

namespace cbct::detail
{

/** What decoding a PNG file whole found. */
struct PngDecoding
{
  /** The signature and the chunks up to the first IDAT (IHDR, PLTE, ...) were read without error:
   * ITK's PNGImageIO::ReadImageInformation() may read the file. */
  bool headerRead = false;
  /** The whole file decoded: every row of pixels, the chunks after them up to IEND, and every
   * chunk's CRC (any CRC mismatch, in critical and ancillary chunks alike, is an error). */
  bool decoded = false;
  /** libpng's message for the first error ("IDAT: CRC error", "Not enough image data", ...). */
  std::string error;
};

/** Decodes the PNG file `path` whole (one row at a time: it allocates one row of pixels, not the
 * image) with the transformations ITK's PNGImageIO applies. Never throws and never aborts. */
PngDecoding
DecodePng(const std::string & path);

} // namespace cbct::detail

#endif
