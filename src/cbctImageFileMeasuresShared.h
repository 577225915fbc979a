#ifndef cbctImageFileMeasuresShared_h
#define cbctImageFileMeasuresShared_h

// What the image formats' measures (cbctImageFileMeasures<Format>.cxx) share: file sizes and bytes
// read at an offset, compressed and text data counted, header lines, data files named by a list or a
// pattern, and numbers decoded from header bytes. Private to the library.
#include "cbctImageFileMeasures.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace cbct::detail::file_measures
{

// Sizes are added saturated: a header's huge size is refused, never wrapped around.
constexpr std::uint64_t Saturated = std::numeric_limits<std::uint64_t>::max();
// Header text read at most (MetaImage and NRRD headers, with a LIST of files, are far smaller).
constexpr std::size_t MaximumHeaderBytes = std::size_t(64) << 20;
// Data files of a LIST or pattern at most (one per slice).
constexpr std::uint64_t MaximumDataFiles = 1000000;

/** a + b, saturated at Saturated. */
std::uint64_t
Add(std::uint64_t a, std::uint64_t b);

/** `text` in lower case (ASCII). */
std::string
Lower(std::string text);

/** Whether `text` ends with `suffix`, ignoring case. */
bool
EndsWith(const std::string & text, const std::string & suffix);

/** The directory part of `path` with its final '/', or empty. */
std::string
DirectoryOf(const std::string & path);

/** `name` relative to the directory of `header` (as the formats define it), unless absolute. */
std::string
Beside(const std::string & header, const std::string & name);

/** The size of an existing file; throws naming the header that names a missing one. */
std::uint64_t
FileSize(const std::string & path, const std::string & header);

/** Up to `count` bytes of `path` from `offset` (fewer at the end of the file). */
std::string
ReadAt(const std::string & path, std::uint64_t offset, std::size_t count);

/** Bytes of the zlib or gzip stream starting at `offset` in `path` once inflated, counted up to
 * `limit` (then limit + 1 is returned); a damaged stream counts what inflated before the damage. */
std::uint64_t
InflatedSize(const std::string & path, std::uint64_t offset, std::uint64_t limit);

/** The content of `path` (gzip-compressed or not: zlib reads both) from `offset`, counted up to
 * `limit` bytes (then limit + 1). */
std::uint64_t
ContentSize(const std::string & path, std::uint64_t offset, std::uint64_t limit);

/** Number of white-space separated values in `path` from `offset` (gzip or plain), up to `limit`
 * (then limit + 1). `hexDigits`: count hexadecimal digits instead, two per byte (NRRD's hex). */
std::uint64_t
CountValues(const std::string & path, std::uint64_t offset, std::uint64_t limit, bool hexDigits = false);

/** Lines of a text header from the start of `path`, each with the offset just past its end of line. */
struct HeaderLine
{
  std::string text;
  std::uint64_t next;
};

std::vector<HeaderLine>
ReadHeaderLines(const std::string & path, const std::function<bool(const std::string &)> & last);

/** `text` without leading and trailing white space. */
std::string
Trim(const std::string & text);

/** Data files named by a pattern "FORMAT MIN MAX STEP [SUBDIM]" (MetaImage's and NRRD's): FORMAT has
 * one integer conversion (%d, %i or %u with an optional width, e.g. %03d). Anything else, or more
 * than MaximumDataFiles names, throws. No printf: the format comes from a file. */
std::vector<std::string>
PatternFiles(const std::string & header, const std::string & field, const std::string & value);

/** How a data file stores its values. */
enum class Encoding
{
  Raw,
  Compressed, // zlib or gzip stream
  Ascii,
  Hex,
  Unmeasured
};

/** Fills the data files' sizes into `m`: the data start at `offset` in the first file (at 0 in the
 * others), or end with the file (`dataAtEnd`); `skipAfterDecoding` bytes of decoded data and
 * `lineSkip` lines of the file are not pixel data. */
void
MeasureFiles(Measurement & m, const std::string & header, const std::vector<std::string> & files, std::uint64_t offset,
             Encoding encoding, bool dataAtEnd, std::uint64_t skipAfterDecoding, std::uint64_t lineSkip);

/** Whether a header's boolean value is true: T, t or 1 first. */
bool
IsTrue(const std::string & value);

/** The unsigned integer of 2, 4 or 8 bytes at `at` of `b`, little- or big-endian. */
std::uint16_t
Get16(const std::string & b, std::size_t at, bool little);

std::uint32_t
Get32(const std::string & b, std::size_t at, bool little);

std::uint64_t
Get64(const std::string & b, std::size_t at, bool little);

} // namespace cbct::detail::file_measures

#endif
