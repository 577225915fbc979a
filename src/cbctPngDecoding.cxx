#include "cbctPngDecoding.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>

namespace cbct::detail
{

namespace
{

// Plain data only: libpng's errors leave DecodeRows() by longjmp, which must skip no destructor.
struct DecodeState
{
  char message[512];
  bool headerRead;
  bool decoded;
  png_bytep row;
};

void
OnPngError(png_structp png, png_const_charp message)
{
  auto * state = static_cast<DecodeState *>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message != nullptr ? message : "unknown error");
  png_longjmp(png, 1);
}

// Warnings (an unknown ancillary chunk, extra compressed data, ...) are what ITK's reader accepts too.
void
OnPngWarning(png_structp, png_const_charp)
{}

/** Decodes `file` from its start into `state`: C only from here, with setjmp. */
void
DecodeRows(std::FILE * file, DecodeState * state)
{
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, OnPngError, OnPngWarning);
  if (png == nullptr)
  {
    std::snprintf(state->message, sizeof state->message, "libpng could not start (out of memory)");
    return;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr)
  {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(state->message, sizeof state->message, "libpng could not start (out of memory)");
    return;
  }
  if (setjmp(png_jmpbuf(png)))
  {
    // state is memory that libpng also reaches (its error pointer): its fields hold their last values.
    png_free(png, state->row);
    state->row = nullptr;
    png_destroy_read_struct(&png, &info, nullptr);
    return;
  }
  // A CRC mismatch is damage whatever the chunk: libpng's default only warns about ancillary ones.
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_init_io(png, file);
  png_read_info(png, info);
  state->headerRead = true;

  // The transformations of ITK's PNGImageIO (ReadImageInformation() and Read()), so that the same
  // code of libpng runs here first.
  png_uint_32 width = 0, height = 0;
  int bitDepth = 0, colorType = 0;
  png_get_IHDR(png, info, &width, &height, &bitDepth, &colorType, nullptr, nullptr, nullptr);
  if (colorType == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb(png);
  if (colorType == PNG_COLOR_TYPE_GRAY && bitDepth < 8)
    png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS))
    png_set_tRNS_to_alpha(png);
  if (bitDepth > 8)
    png_set_swap(png);
  if (png_get_valid(png, info, PNG_INFO_sBIT))
  {
    png_color_8p bits = nullptr;
    png_get_sBIT(png, info, &bits);
    png_set_shift(png, bits);
  }
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);

  // One row, read height times per pass (png_read_image() would need the whole image in memory).
  state->row = static_cast<png_bytep>(png_malloc(png, png_get_rowbytes(png, info)));
  for (int pass = 0; pass < passes; ++pass)
    for (png_uint_32 y = 0; y < height; ++y)
      png_read_row(png, state->row, nullptr);
  png_read_end(png, nullptr); // the chunks after the pixels, up to IEND, and their CRCs
  state->decoded = true;
  png_free(png, state->row);
  state->row = nullptr;
  png_destroy_read_struct(&png, &info, nullptr);
}

} // namespace

PngDecoding
DecodePng(const std::string & path)
{
  PngDecoding result;
  std::FILE * file = std::fopen(path.c_str(), "rb");
  if (file == nullptr)
  {
    result.error = "cannot be opened";
    return result;
  }
  DecodeState state{};
  DecodeRows(file, &state);
  std::fclose(file);
  result.headerRead = state.headerRead;
  result.decoded = state.decoded;
  if (!state.decoded)
    result.error = state.message[0] != '\0' ? state.message : "unknown error";
  return result;
}

} // namespace cbct::detail
