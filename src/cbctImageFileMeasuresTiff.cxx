// TIFF: every directory's tags checked before ITK's TIFFImageIO reads them, and the pixel data the
// strips or tiles of every page hold.
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <map>
#include <set>

namespace cbct::detail
{
using namespace file_measures;

namespace
{
/** The most directories (pages) a TIFF may have: far more projections than any scan. */
constexpr std::size_t MaximumTiffDirectories = 100000;
} // namespace

void
CheckTiffTags(const std::string & path)
{
  // Tags that libtiff reads with a fixed number of values, and that ITK 5.2's TIFFImageIO copies
  // that many values of, whatever the file holds (DateTime: 20 characters from a string libtiff
  // keeps at its own length).
  static const std::map<std::uint16_t, std::pair<const char *, std::uint64_t>> fixed = {
    { 297, { "PageNumber", 2 } },       { 306, { "DateTime", 20 } },
    { 318, { "WhitePoint", 2 } },       { 319, { "PrimaryChromaticities", 6 } },
    { 321, { "HalftoneHints", 2 } },    { 336, { "DotRange", 2 } },
    { 404, { "VersionYear", 4 } },      { 529, { "YCbCrCoefficients", 3 } },
    { 530, { "YCbCrSubsampling", 2 } }, { 532, { "ReferenceBlackWhite", 6 } },
    { 33305, { "MatrixWorldToScreen", 16 } }, { 33306, { "MatrixWorldToCamera", 16 } },
    { 33421, { "CFARepeatPatternDim", 2 } },  { 34732, { "ImageLayer", 2 } },
    { 50706, { "DNGVersion", 4 } },     { 50707, { "DNGBackwardVersion", 4 } },
    { 50713, { "BlackLevelRepeatDim", 2 } },  { 50718, { "DefaultScale", 2 } },
    { 50719, { "DefaultCropOrigin", 2 } },    { 50720, { "DefaultCropSize", 2 } },
    { 50729, { "AsShotWhiteXY", 2 } },  { 50736, { "LensInfo", 4 } },
    { 50781, { "RawDataUniqueID", 16 } }, { 50829, { "ActiveArea", 4 } }
  };
  const std::uint64_t size = FileSize(path, path);
  const std::string head = ReadAt(path, 0, 16);
  const bool little = head.compare(0, 2, "II") == 0;
  if (head.size() < 8 || (!little && head.compare(0, 2, "MM") != 0))
    return; // not a TIFF; or MeasureTiff() or the reader says what is wrong
  const std::uint16_t version = Get16(head, 2, little);
  if (version != 42 && version != 43)
    return; // not a TIFF
  const bool big = version == 43;
  if (big && head.size() < 16)
    return;
  const std::size_t entryBytes = big ? 20 : 12, countBytes = big ? 8 : 2, offsetBytes = big ? 8 : 4;
  std::uint64_t next = big ? Get64(head, 8, little) : Get32(head, 4, little);
  std::set<std::uint64_t> visited;
  // What makes a directory a page of the stack, as the first one says: ITK 5.2 sizes the image from
  // the first directory and counts the pages by their subfile type, then writes every page past the
  // end of its buffer when another is larger or a reduced-resolution image (found by
  // cbctFuzzProjectionFile). A stack of projections has pages alike.
  static const std::map<std::uint16_t, const char *> pageTags = {
    { 254, "NewSubfileType" }, { 255, "SubfileType" },    { 256, "ImageWidth" },  { 257, "ImageLength" },
    { 258, "BitsPerSample" },  { 277, "SamplesPerPixel" }, { 339, "SampleFormat" }
  };
  std::map<std::uint16_t, std::string> firstPage;
  std::size_t directory = 0;
  while (next != 0 && Add(next, countBytes) <= size)
  {
    // libtiff 4 in ITK 5.2 follows a chain that loops back for as long as the process runs (its
    // CanReadFile() counts the directories: found by cbctFuzzProjectionFile,
    // regressions/cbctFuzzProjectionFile/tiff_directory_loop.tif).
    if (!visited.insert(next).second || visited.size() > MaximumTiffDirectories)
      ThrowBadParameter("TIFF file " + path,
                        visited.size() > MaximumTiffDirectories ? "more than " + std::to_string(MaximumTiffDirectories) + " directories"
                                                                : "a directory chain that loops back to offset " + std::to_string(next),
                        "a chain of directories that ends (one per projection)");
    ++directory;
    std::map<std::uint16_t, std::string> page;
    const std::string countField = ReadAt(path, next, countBytes);
    const std::uint64_t entries = big ? Get64(countField, 0, little) : Get16(countField, 0, little);
    if (entries > size / entryBytes)
      return;
    const std::string table = ReadAt(path, next + countBytes, static_cast<std::size_t>(entries * entryBytes + offsetBytes));
    if (table.size() < entries * entryBytes + offsetBytes)
      return;
    for (std::uint64_t e = 0; e < entries; ++e)
    {
      const std::string entry = table.substr(static_cast<std::size_t>(e * entryBytes), entryBytes);
      // An ASCII value of one character (or none) that is not NUL: ITK takes the strlen() of it, past
      // the end of the one byte libtiff keeps for an unknown tag (found by cbctFuzzProjectionFile).
      if (Get16(entry, 2, little) == 2)
      {
        const std::uint64_t count = big ? Get64(entry, 4, little) : Get32(entry, 4, little);
        if (count == 0 || (count == 1 && entry[big ? 12 : 8] != '\0'))
          ThrowBadParameter("tag " + std::to_string(Get16(entry, 0, little)) + " of TIFF file " + path,
                            "an ASCII value of " + std::to_string(count) + " characters without its closing NUL",
                            "text ending with NUL, as TIFF defines it");
      }
      if (pageTags.count(Get16(entry, 0, little)) > 0)
        page[Get16(entry, 0, little)] = entry.substr(2); // type, count and value (or where it is)
      if (Get16(entry, 0, little) == 254) // bit 0: a reduced-resolution image, bit 2: a mask
      {
        const std::uint16_t type = Get16(entry, 2, little);
        const std::uint64_t kind = type == 3 ? Get16(entry, big ? 12 : 8, little) : big ? Get64(entry, 12, little) : Get32(entry, 8, little);
        if ((kind & 5) != 0)
          ThrowBadParameter("TIFF file " + path, "a reduced-resolution image or a mask (NewSubfileType " + std::to_string(kind) + ")",
                            "directories that are all pages alike, of one size and one sample format (a stack of images)");
      }
      const auto found = fixed.find(Get16(entry, 0, little));
      if (found == fixed.end())
        continue;
      const char * name = found->second.first;
      const std::uint64_t required = found->second.second;
      const std::uint64_t count = big ? Get64(entry, 4, little) : Get32(entry, 4, little);
      const std::string subject = std::string("tag ") + std::to_string(found->first) + " (" + name + ") of TIFF file " + path;
      if (found->first != 306 && count < required)
        ThrowBadParameter(subject, std::to_string(count) + " values long", std::to_string(required) + ", as TIFF defines it");
      if (found->first == 306) // ASCII: libtiff keeps the string up to its first NUL (and adds one)
      {
        const std::string text = count <= offsetBytes ? entry.substr(big ? 12 : 8, static_cast<std::size_t>(count))
                                                      : ReadAt(path, big ? Get64(entry, 12, little) : Get32(entry, 8, little),
                                                               static_cast<std::size_t>(std::min<std::uint64_t>(count, 64)));
        const std::size_t length = std::min(text.find('\0'), text.size());
        if (length + 1 < required)
          ThrowBadParameter(subject, "'" + text.substr(0, length) + "' (" + std::to_string(length) + " characters)",
                            "a date of 19 characters, YYYY:MM:DD HH:MM:SS, as TIFF defines it");
      }
    }
    if (directory == 1)
      firstPage = page;
    for (const auto & tag : pageTags)
    {
      const auto here = page.find(tag.first), there = firstPage.find(tag.first);
      const bool same = (here == page.end()) == (there == firstPage.end()) && (here == page.end() || here->second == there->second);
      if (!same)
        ThrowBadParameter("TIFF file " + path, "a directory (" + std::to_string(directory) + ") whose " + tag.second +
                                                 " differs from the first one's",
                          "directories that are all pages alike, of one size and one sample format (a stack of images)");
    }
    const std::string link = table.substr(static_cast<std::size_t>(entries * entryBytes), offsetBytes);
    next = big ? Get64(link, 0, little) : Get32(link, 0, little);
  }
}

Measurement
MeasureTiff(const std::string & path)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  const std::string head = ReadAt(path, 0, 16);
  m.measured = true;
  m.unit = "bytes of file";
  m.subject = "TIFF file " + path;
  m.shortFile = path;
  m.found = size;
  m.expected = 8;
  if (head.size() < 8)
  {
    m.why = "a TIFF header";
    return m;
  }
  const bool little = head[0] == 'I';
  const std::uint16_t magic = Get16(head, 2, little);
  const bool big = magic == 43;
  const std::size_t offsetBytes = big ? 8 : 4;
  const std::size_t entryBytes = big ? 20 : 12;
  const std::size_t countBytes = big ? 8 : 2;
  if (big && head.size() < 16)
  {
    m.expected = 16;
    m.why = "a BigTIFF header";
    return m;
  }
  std::uint64_t next = big ? Get64(head, 8, little) : Get32(head, 4, little);
  std::uint64_t required = big ? 16 : 8;
  m.why = "where its directories place their entries and pixel data";
  std::set<std::uint64_t> visited;
  auto readValues = [&](std::uint16_t type, std::uint64_t count, const std::string & entry, std::vector<std::uint64_t> & out) {
    const std::size_t width = type == 3 ? 2 : type == 4 || type == 13 ? 4 : type == 16 || type == 18 ? 8 : 0;
    if (width == 0 || count == 0)
      return;
    const std::uint64_t bytes = count * width;
    if (count > size || bytes > size) // more values than the file has bytes: cut short or damaged
    {
      required = std::max(required, Add(size, 1));
      return;
    }
    std::string values;
    if (bytes <= offsetBytes)
      values = entry.substr(big ? 12 : 8, offsetBytes); // the value field itself
    else
    {
      const std::uint64_t at = big ? Get64(entry, 12, little) : Get32(entry, 8, little);
      required = std::max(required, Add(at, bytes));
      if (Add(at, bytes) > size)
        return;
      values = ReadAt(path, at, static_cast<std::size_t>(bytes));
    }
    for (std::uint64_t i = 0; i < count && (i + 1) * width <= values.size(); ++i)
    {
      const std::size_t at = static_cast<std::size_t>(i * width);
      out.push_back(width == 2 ? Get16(values, at, little) : width == 4 ? Get32(values, at, little) : Get64(values, at, little));
    }
  };
  while (next != 0 && visited.insert(next).second && visited.size() <= 1000000)
  {
    required = std::max(required, Add(next, countBytes));
    if (Add(next, countBytes) > size)
      break;
    const std::string countField = ReadAt(path, next, countBytes);
    const std::uint64_t entries = big ? Get64(countField, 0, little) : Get16(countField, 0, little);
    const std::uint64_t tableEnd = Add(Add(next, countBytes), Add(entries * entryBytes, offsetBytes));
    required = std::max(required, entries > size ? Add(size, 1) : tableEnd);
    if (entries > size || tableEnd > size)
      break;
    const std::string table = ReadAt(path, next + countBytes, static_cast<std::size_t>(entries * entryBytes + offsetBytes));
    std::vector<std::uint64_t> offsets, counts;
    for (std::uint64_t e = 0; e < entries; ++e)
    {
      const std::string entry = table.substr(static_cast<std::size_t>(e * entryBytes), entryBytes);
      const std::uint16_t tag = Get16(entry, 0, little), type = Get16(entry, 2, little);
      const std::uint64_t count = big ? Get64(entry, 4, little) : Get32(entry, 4, little);
      if (tag == 273 || tag == 324) // StripOffsets, TileOffsets
        readValues(type, count, entry, offsets);
      else if (tag == 279 || tag == 325) // StripByteCounts, TileByteCounts
        readValues(type, count, entry, counts);
    }
    for (std::size_t i = 0; i < std::min(offsets.size(), counts.size()); ++i)
      required = std::max(required, Add(offsets[i], counts[i]));
    const std::string link = table.substr(static_cast<std::size_t>(entries * entryBytes), offsetBytes);
    next = big ? Get64(link, 0, little) : Get32(link, 0, little);
  }
  m.expected = required;
  return m;
}

} // namespace cbct::detail
