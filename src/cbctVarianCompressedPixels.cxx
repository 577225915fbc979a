#include "cbctVarianCompressedPixels.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <array>

namespace cbct
{

namespace
{
/** Per lookup-table byte: the bytes its four differences take (0 when one of its codes is 3). */
const std::array<std::uint8_t, 256> &
BytesOfCodes()
{
  static const std::array<std::uint8_t, 256> table = [] {
    std::array<std::uint8_t, 256> t{};
    for (unsigned v = 0; v < 256; ++v)
    {
      unsigned sum = 0;
      for (unsigned j = 0; j < 4; ++j)
      {
        const unsigned code = (v >> (2 * j)) & 3u;
        if (code == 3)
        {
          sum = 0;
          break;
        }
        sum += 1u << code;
      }
      t[v] = static_cast<std::uint8_t>(sum);
    }
    return t;
  }();
  return table;
}

/** Per lookup-table byte: where each of its four differences starts (from the first), the shift
 * that sign-extends it from a 32-bit load, and the bytes the four take. */
struct CodeLayout
{
  std::uint8_t offset[4];
  std::uint8_t shift[4];
  std::uint8_t bytes;
};

const std::array<CodeLayout, 256> &
LayoutOfCodes()
{
  static const std::array<CodeLayout, 256> table = [] {
    std::array<CodeLayout, 256> t{};
    for (unsigned v = 0; v < 256; ++v)
    {
      unsigned at = 0;
      for (unsigned j = 0; j < 4; ++j)
      {
        const unsigned code = std::min((v >> (2 * j)) & 3u, 2u); // 3 never reaches the decoder
        t[v].offset[j] = static_cast<std::uint8_t>(at);
        t[v].shift[j] = static_cast<std::uint8_t>(32 - (8u << code));
        at += 1u << code;
      }
      t[v].bytes = static_cast<std::uint8_t>(at);
    }
    return t;
  }();
  return table;
}

inline std::uint32_t
Load32(const unsigned char * in)
{
  return std::uint32_t(in[0]) | std::uint32_t(in[1]) << 8 | std::uint32_t(in[2]) << 16 | std::uint32_t(in[3]) << 24;
}

/** The difference of code `code` (0, 1 or 2) at `in`, as a 32-bit pattern; advances `in`. */
inline std::uint32_t
Difference(unsigned code, const unsigned char *& in)
{
  if (code == 0)
  {
    const auto d = static_cast<std::int8_t>(in[0]);
    in += 1;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(d));
  }
  if (code == 1)
  {
    const auto d = static_cast<std::int16_t>(static_cast<std::uint16_t>(in[0] | in[1] << 8));
    in += 2;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(d));
  }
  const std::uint32_t d = Load32(in);
  in += 4;
  return d;
}

[[noreturn]] void
BadCode(std::uint64_t difference, const std::string & file)
{
  ThrowBadParameter("lookup-table code of pixel " + std::to_string(difference) + " after the first row of " + file, 3,
                    "0, 1 or 2 (a difference of 1, 2 or 4 bytes): the compressed pixels are damaged");
}
} // namespace

std::uint64_t
VarianCompressedPixels::DifferenceCount(std::uint64_t width, std::uint64_t height, const std::string & file)
{
  constexpr std::uint64_t limit = std::uint64_t(1) << 31;
  if (width < 1 || width >= limit || height >= limit)
    ThrowBadParameter("width of " + file, width, "1 to 2^31 - 1 pixels");
  if (height < 2)
    ThrowBadParameter("height of the compressed image of " + file, height,
                      "at least 2 rows (the first row and a pixel of the second are stored whole)");
  return width * height - width - 1;
}

std::uint64_t
VarianCompressedPixels::LookupTableBytes(std::uint64_t width, std::uint64_t height)
{
  return (width * (height - 1) + 3) / 4;
}

std::uint64_t
VarianCompressedPixels::BufferBytes(const unsigned char * lookupTable,
                                    std::uint64_t lookupTableBytes,
                                    std::uint64_t width,
                                    std::uint64_t differences,
                                    const std::string & file)
{
  if (lookupTableBytes < (differences + 3) / 4)
    ThrowBadParameter("lookup table of " + file, std::to_string(lookupTableBytes) + " bytes",
                      "at least " + std::to_string((differences + 3) / 4) + " bytes (2 bits for each of the " +
                        std::to_string(differences) + " compressed pixels)");
  const auto & bytesOf = BytesOfCodes();
  std::uint64_t total = 4 * (width + 1);
  const std::uint64_t whole = differences / 4;
  for (std::uint64_t b = 0; b < whole; ++b)
  {
    const std::uint8_t bytes = bytesOf[lookupTable[b]];
    if (bytes == 0)
      for (unsigned j = 0; j < 4; ++j)
        if (((lookupTable[b] >> (2 * j)) & 3u) == 3u)
          BadCode(4 * b + j, file);
    total += bytes;
  }
  for (std::uint64_t k = 4 * whole; k < differences; ++k)
  {
    const unsigned code = (lookupTable[k / 4] >> (2 * (k % 4))) & 3u;
    if (code == 3)
      BadCode(k, file);
    total += 1u << code;
  }
  return total;
}

void
VarianCompressedPixels::Decode(const unsigned char * lookupTable,
                               std::uint64_t lookupTableBytes,
                               const unsigned char * buffer,
                               std::uint64_t bufferBytes,
                               std::uint64_t width,
                               std::uint64_t height,
                               std::uint32_t * pixels,
                               const std::string & file)
{
  const std::uint64_t differences = DifferenceCount(width, height, file);
  const std::uint64_t needed = BufferBytes(lookupTable, lookupTableBytes, width, differences, file);
  if (bufferBytes < needed)
    ThrowBadParameter("compressed pixel data of " + file, std::to_string(bufferBytes) + " bytes",
                      std::to_string(needed) + " bytes (as its lookup table says): the data are cut short");

  for (std::uint64_t i = 0; i <= width; ++i)
    pixels[i] = Load32(buffer + 4 * i);
  const unsigned char * in = buffer + 4 * (width + 1);
  // p: the pixel being decoded; up: the pixel above it. p[j] = d + p[j-1] + up[j] - up[j-1].
  std::uint32_t * p = pixels + width + 1;
  const std::uint32_t * up = pixels + 1;
  const std::uint64_t whole = differences / 4;
  // Four differences per table byte, without a branch on their widths (a projection's noise mixes
  // 1- and 2-byte differences at random, which a branch per pixel mispredicts): each is a 32-bit
  // load at its offset, sign-extended by a shift. Only while 16 bytes (the most four can take) are
  // left, so that no load reads past the buffer; the rest one by one.
  const auto & layouts = LayoutOfCodes();
  const unsigned char * const end = buffer + needed;
  std::uint64_t b = 0;
  for (; b < whole && end - in >= 16; ++b, p += 4, up += 4)
  {
    const CodeLayout & layout = layouts[lookupTable[b]];
    for (int j = 0; j < 4; ++j) // int: p[j - 1] reaches back one pixel
    {
      const auto d = static_cast<std::uint32_t>(static_cast<std::int32_t>(Load32(in + layout.offset[j]) << layout.shift[j]) >> layout.shift[j]);
      p[j] = d + p[j - 1] + (up[j] - up[j - 1]);
    }
    in += layout.bytes;
  }
  for (; b < whole; ++b, p += 4, up += 4)
  {
    const unsigned codes = lookupTable[b];
    for (int j = 0; j < 4; ++j)
    {
      const std::uint32_t d = Difference((codes >> (2 * j)) & 3u, in);
      p[j] = d + p[j - 1] + (up[j] - up[j - 1]);
    }
  }
  for (std::uint64_t k = 4 * whole; k < differences; ++k, ++p, ++up)
  {
    const std::uint32_t d = Difference((lookupTable[k / 4] >> (2 * (k % 4))) & 3u, in);
    p[0] = d + p[-1] + (up[0] - up[-1]);
  }
}

} // namespace cbct
