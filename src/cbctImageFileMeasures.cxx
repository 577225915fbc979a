// How much pixel data each format's files hold (see cbctImageFileContents.h for what is measured).
#include "cbctImageFileMeasures.h"

#include "cbctInputChecks.h"

#include <itksys/SystemTools.hxx>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cbct::detail
{

namespace
{
constexpr std::uint64_t Saturated = std::numeric_limits<std::uint64_t>::max();
// Header text read at most (MetaImage and NRRD headers, with a LIST of files, are far smaller).
constexpr std::size_t MaximumHeaderBytes = std::size_t(64) << 20;
// Data files of a LIST or pattern at most (one per slice).
constexpr std::uint64_t MaximumDataFiles = 1000000;
/** The most directories (pages) a TIFF may have: far more projections than any scan. */
constexpr std::size_t MaximumTiffDirectories = 100000;

std::uint64_t
Add(std::uint64_t a, std::uint64_t b)
{
  return a > Saturated - b ? Saturated : a + b;
}

std::string
Lower(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool
EndsWith(const std::string & text, const std::string & suffix)
{
  const std::string a = Lower(text), b = Lower(suffix);
  return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0;
}

std::string
DirectoryOf(const std::string & path)
{
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

/** `name` relative to the directory of `header` (as the formats define it), unless absolute. */
std::string
Beside(const std::string & header, const std::string & name)
{
  if (!name.empty() && name[0] == '/')
    return name;
  return DirectoryOf(header) + name;
}

/** The size of an existing file; throws naming the header that names a missing one. */
std::uint64_t
FileSize(const std::string & path, const std::string & header)
{
  struct stat s;
  if (stat(path.c_str(), &s) != 0 || !S_ISREG(s.st_mode))
  {
    if (path == header)
      ThrowBadParameter("image file " + path, "missing or not a regular file", "an existing image file");
    ThrowBadParameter("data file " + path + " named by the header " + header, "missing",
                      "an existing file (the header's data are kept there)");
  }
  return static_cast<std::uint64_t>(s.st_size);
}

/** Up to `count` bytes of `path` from `offset` (fewer at the end of the file). */
std::string
ReadAt(const std::string & path, std::uint64_t offset, std::size_t count)
{
  std::string bytes;
  std::ifstream in(path, std::ios::binary);
  if (!in || offset > static_cast<std::uint64_t>(std::numeric_limits<std::streamoff>::max()))
    return bytes;
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in)
    return bytes;
  bytes.resize(count);
  in.read(&bytes[0], static_cast<std::streamsize>(count));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

/** Bytes of the zlib or gzip stream starting at `offset` in `path` once inflated, counted up to
 * `limit` (then limit + 1 is returned); a damaged stream counts what inflated before the damage. */
std::uint64_t
InflatedSize(const std::string & path, std::uint64_t offset, std::uint64_t limit)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return 0;
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in)
    return 0;
  z_stream stream;
  std::memset(&stream, 0, sizeof(stream));
  if (inflateInit2(&stream, 15 + 32) != Z_OK) // 15 + 32: zlib or gzip, detected from the header
    return 0;
  std::vector<unsigned char> input(1 << 16), output(1 << 18);
  std::uint64_t total = 0;
  bool done = false;
  while (!done && total <= limit)
  {
    in.read(reinterpret_cast<char *>(input.data()), static_cast<std::streamsize>(input.size()));
    const auto got = static_cast<uInt>(in.gcount());
    if (got == 0)
      break;
    stream.next_in = input.data();
    stream.avail_in = got;
    while (stream.avail_in > 0 && total <= limit)
    {
      stream.next_out = output.data();
      stream.avail_out = static_cast<uInt>(output.size());
      const int status = inflate(&stream, Z_NO_FLUSH);
      total = Add(total, output.size() - stream.avail_out);
      if (status == Z_STREAM_END)
      {
        // gzip allows several members one after the other.
        if (stream.avail_in > 0 && inflateReset(&stream) == Z_OK)
          continue;
        done = true;
        break;
      }
      if (status != Z_OK && status != Z_BUF_ERROR)
      {
        done = true; // damaged: what inflated so far
        break;
      }
      if (status == Z_BUF_ERROR && stream.avail_in == 0)
        break;
    }
  }
  inflateEnd(&stream);
  return std::min(total, Add(limit, 1));
}

/** The content of `path` (gzip-compressed or not: zlib reads both) from `offset`, counted up to
 * `limit` bytes (then limit + 1). */
std::uint64_t
ContentSize(const std::string & path, std::uint64_t offset, std::uint64_t limit)
{
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return 0;
  if (offset > 0 && lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
  {
    close(fd);
    return 0;
  }
  gzFile file = gzdopen(fd, "rb"); // owns fd from here
  if (file == nullptr)
  {
    close(fd);
    return 0;
  }
  std::vector<char> buffer(1 << 18);
  std::uint64_t total = 0;
  while (total <= limit)
  {
    const int got = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got <= 0)
      break;
    total = Add(total, static_cast<std::uint64_t>(got));
  }
  gzclose(file);
  return std::min(total, Add(limit, 1));
}

/** Number of white-space separated values in `path` from `offset` (gzip or plain), up to `limit`
 * (then limit + 1). `hexDigits`: count hexadecimal digits instead, two per byte (NRRD's hex). */
std::uint64_t
CountValues(const std::string & path, std::uint64_t offset, std::uint64_t limit, bool hexDigits = false)
{
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return 0;
  if (offset > 0 && lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0)
  {
    close(fd);
    return 0;
  }
  gzFile file = gzdopen(fd, "rb");
  if (file == nullptr)
  {
    close(fd);
    return 0;
  }
  std::vector<char> buffer(1 << 18);
  std::uint64_t count = 0;
  bool inValue = false;
  while (count <= limit)
  {
    const int got = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got <= 0)
      break;
    for (int i = 0; i < got; ++i)
    {
      const auto c = static_cast<unsigned char>(buffer[i]);
      if (hexDigits)
        count += std::isxdigit(c) ? 1 : 0;
      else
      {
        const bool separator = std::isspace(c) || c == ',';
        if (!separator && !inValue)
          ++count;
        inValue = !separator;
      }
    }
  }
  gzclose(file);
  if (hexDigits)
    count /= 2;
  return std::min(count, Add(limit, 1));
}

/** Lines of a text header from the start of `path`, each with the offset just past its end of line. */
struct HeaderLine
{
  std::string text;
  std::uint64_t next;
};

std::vector<HeaderLine>
ReadHeaderLines(const std::string & path, const std::function<bool(const std::string &)> & last)
{
  std::vector<HeaderLine> lines;
  std::ifstream in(path, std::ios::binary);
  std::string text;
  std::uint64_t position = 0;
  while (position < MaximumHeaderBytes && std::getline(in, text))
  {
    position += text.size() + (in.eof() ? 0 : 1);
    if (!text.empty() && text.back() == '\r')
      text.pop_back();
    lines.push_back({ text, position });
    if (last(text))
      break;
  }
  return lines;
}

std::string
Trim(const std::string & text)
{
  return Trimmed(text);
}

/** Data files named by a pattern "FORMAT MIN MAX STEP [SUBDIM]" (MetaImage's and NRRD's): FORMAT has
 * one integer conversion (%d, %i or %u with an optional width, e.g. %03d). Anything else, or more
 * than MaximumDataFiles names, throws. No printf: the format comes from a file. */
std::vector<std::string>
PatternFiles(const std::string & header, const std::string & field, const std::string & value)
{
  std::istringstream words(value);
  std::string format;
  long long first = 0, last = 0, step = 0;
  words >> format >> first >> last >> step;
  auto bad = [&](const std::string & why) {
    ThrowBadParameter(field + " of " + header, "'" + value + "'", "FORMAT MIN MAX STEP with one %d in FORMAT (" + why + ")");
  };
  if (words.fail())
    bad("four fields");
  const auto percent = format.find('%');
  if (percent == std::string::npos)
    bad("no % in FORMAT");
  std::size_t end = percent + 1;
  std::size_t width = 0;
  bool zeros = false;
  if (end < format.size() && format[end] == '0')
  {
    zeros = true;
    ++end;
  }
  while (end < format.size() && std::isdigit(static_cast<unsigned char>(format[end])) && width < 64)
    width = width * 10 + static_cast<std::size_t>(format[end++] - '0');
  if (end >= format.size() || (format[end] != 'd' && format[end] != 'i' && format[end] != 'u') || width > 32)
    bad("a %d, %i or %u conversion");
  const std::string before = format.substr(0, percent), after = format.substr(end + 1);
  if (after.find('%') != std::string::npos || before.find('%') != std::string::npos)
    bad("one conversion only");
  if (step == 0 || (last - first) / step < 0 || static_cast<std::uint64_t>((last - first) / step) >= MaximumDataFiles)
    bad("a non-zero STEP from MIN to MAX, at most a million files");
  std::vector<std::string> files;
  for (long long i = first; step > 0 ? i <= last : i >= last; i += step)
  {
    std::string number = std::to_string(i < 0 ? -i : i);
    const std::size_t digits = number.size() + (i < 0 ? 1 : 0);
    if (digits < width)
      number = (zeros ? std::string(width - digits, '0') + number : number);
    if (i < 0)
      number = "-" + number;
    if (!zeros && digits < width)
      number = std::string(width - digits, ' ') + number;
    files.push_back(Beside(header, before + number + after));
  }
  return files;
}

/** Fills the data files' sizes into `m` for data that start at `offsets[i]` in `files[i]`. */
enum class Encoding
{
  Raw,
  Compressed, // zlib or gzip stream
  Ascii,
  Hex,
  Unmeasured
};

void
MeasureFiles(Measurement & m, const std::string & header, const std::vector<std::string> & files, std::uint64_t offset,
             Encoding encoding, bool dataAtEnd, std::uint64_t skipAfterDecoding, std::uint64_t lineSkip)
{
  m.measured = encoding != Encoding::Unmeasured;
  m.found = 0;
  // The file named as short: the first that holds less than its share (one slice per file).
  const std::uint64_t share = files.empty() ? 0 : m.expected / files.size();
  for (const std::string & file : files)
  {
    const std::uint64_t size = FileSize(file, header);
    m.dataFiles.push_back(file);
    if (!m.measured)
      continue;
    std::uint64_t start = offset;
    if (lineSkip > 0)
    {
      // Skip whole lines, as NRRD's "line skip" does (in the file, before decoding).
      std::ifstream in(file, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(std::min(start, size)));
      std::string line;
      for (std::uint64_t l = 0; l < lineSkip && std::getline(in, line); ++l)
        start += line.size() + (in.eof() ? 0 : 1);
    }
    const std::uint64_t limit = Add(m.expected, skipAfterDecoding);
    std::uint64_t found = 0;
    switch (encoding)
    {
      case Encoding::Raw:
        found = dataAtEnd ? size : (size > start ? size - start : 0);
        break;
      case Encoding::Compressed:
        found = InflatedSize(file, start, limit);
        break;
      case Encoding::Ascii:
        found = CountValues(file, start, limit);
        break;
      case Encoding::Hex:
        found = CountValues(file, start, limit, true);
        break;
      case Encoding::Unmeasured:
        break;
    }
    if (encoding != Encoding::Raw)
      found = found > skipAfterDecoding ? found - skipAfterDecoding : 0;
    m.found = Add(m.found, found);
    if (m.shortFile.empty() && found < share)
      m.shortFile = file;
    offset = 0; // the header's own offset applies to its own file only
  }
  if (m.shortFile.empty() && !files.empty())
    m.shortFile = files.front();
}

bool
IsTrue(const std::string & value)
{
  return !value.empty() && (value[0] == 'T' || value[0] == 't' || value[0] == '1');
}

/** The unsigned integer of sizeof(T) bytes at `at` of `b`, little- or big-endian. */
template <typename T>
T
GetUnsigned(const std::string & b, std::size_t at, bool little)
{
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
  {
    const auto byte = static_cast<T>(static_cast<unsigned char>(b[at + (little ? i : sizeof(T) - 1 - i)]));
    v = static_cast<T>(v | (byte << (8 * i)));
  }
  return v;
}

std::uint16_t
Get16(const std::string & b, std::size_t at, bool little)
{
  return GetUnsigned<std::uint16_t>(b, at, little);
}

std::uint32_t
Get32(const std::string & b, std::size_t at, bool little)
{
  return GetUnsigned<std::uint32_t>(b, at, little);
}

std::uint64_t
Get64(const std::string & b, std::size_t at, bool little)
{
  return GetUnsigned<std::uint64_t>(b, at, little);
}
} // namespace

namespace
{
/** Whether `text` is printable: ASCII from space to '~', tabs, and well-formed UTF-8 sequences (file
 * names and comments in other scripts), no control characters. */
bool
IsPrintableText(const std::string & text)
{
  for (std::size_t i = 0; i < text.size();)
  {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\t' || (c >= 0x20 && c < 0x7f))
    {
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (length == 0 || (length == 3 && c >= 0xf0) || i + length > text.size())
      return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80)
        return false;
    i += length;
  }
  return true;
}

/** The numbers of a header value (whitespace-separated, each read whole), or an empty vector with
 * `ok` false when one is not a number. */
std::vector<double>
Numbers(const std::string & value, bool & ok)
{
  std::vector<double> numbers;
  std::istringstream words(value);
  std::string word;
  ok = true;
  while (words >> word)
  {
    char * end = nullptr;
    const double x = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0')
    {
      ok = false;
      return {};
    }
    numbers.push_back(x);
  }
  return numbers;
}

/** A MetaImage header line's key: the text before '=', trimmed (all of it when there is no '='). */
std::string
MetaImageKey(const std::string & line)
{
  return Trim(line.substr(0, line.find('=')));
}

/** A MetaImage header's lines, up to and including ElementDataFile (the last field; the data follow). */
std::vector<HeaderLine>
MetaImageHeaderLines(const std::string & path)
{
  return ReadHeaderLines(path, [](const std::string & line) { return MetaImageKey(line) == "ElementDataFile"; });
}
} // namespace

void
CheckMetaImageHeader(const std::string & path)
{
  const auto lines = MetaImageHeaderLines(path);
  if (lines.empty() || MetaImageKey(lines.back().text) != "ElementDataFile")
    ThrowBadParameter("ElementDataFile in " + path, "missing", "LOCAL or the name of the data file, last in the header");
  // ITK 5.2's MetaIO parses the header twice (ReadImageInformation, then Read) and a header it reads
  // differently the second time (a key given twice, NDims after the arrays it sizes) had it write
  // past the buffer ITK sized from the first reading (heap corruption found by cbctFuzzProjectionFile:
  // regressions/cbctFuzzProjectionFile/metaio_keys_twice.mha). So, before ITK reads it: one "Key =
  // Value" per line in printable text, each key once, NDims from 1 to 10 before the arrays, and each
  // array as long as NDims says.
  std::set<std::string> seen;
  long long dimensions = 0;
  const std::map<std::string, int> arrays = { { "DimSize", 1 },        { "ElementSpacing", 1 }, { "ElementSize", 1 },
                                              { "Offset", 1 },         { "Position", 1 },       { "Origin", 1 },
                                              { "CenterOfRotation", 1 }, { "TransformMatrix", 2 }, { "Rotation", 2 },
                                              { "Orientation", 2 } };
  for (std::size_t i = 0; i < lines.size(); ++i)
  {
    const std::string & text = lines[i].text;
    const std::string where = "line " + std::to_string(i + 1) + " of the header of " + path;
    if (Trim(text).empty())
      continue;
    if (!IsPrintableText(text))
      ThrowBadParameter(where, "holding control characters or bytes that are not text", "a header of printable text");
    const auto equals = text.find('=');
    const std::string key = equals == std::string::npos ? std::string() : Trim(text.substr(0, equals));
    if (key.empty())
      ThrowBadParameter(where, "'" + Trimmed(text).substr(0, 80) + "'", "Key = Value");
    // MetaIO copies a key it does not know into a 255-byte field name with strcpy: a longer key
    // overflows it (found by cbctFuzzProjectionFile: regressions/cbctFuzzProjectionFile/metaio_long_key.mha).
    if (key.size() > 254)
      ThrowBadParameter(where, "a key of " + std::to_string(key.size()) + " characters ('" + key.substr(0, 40) + "...')",
                        "a header field name of at most 254 characters");
    if (!seen.insert(key).second)
      ThrowBadParameter(key + " in " + path, "given twice (" + where + ")", "each header field once");
    const std::string value = Trim(text.substr(equals + 1));
    if (key == "NDims")
    {
      char * end = nullptr;
      dimensions = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || dimensions < 1 || dimensions > 10)
        ThrowBadParameter("NDims in " + path, "'" + value + "'", "a number of dimensions from 1 to 10");
      continue;
    }
    const auto array = arrays.find(key);
    if (array == arrays.end())
      continue;
    if (dimensions == 0)
      ThrowBadParameter(key + " in " + path, "before NDims", "NDims first: it sizes " + key);
    bool ok = false;
    const auto numbers = Numbers(value, ok);
    const long long count = array->second == 1 ? dimensions : dimensions * dimensions;
    if (!ok || static_cast<long long>(numbers.size()) != count)
      ThrowBadParameter(key + " in " + path, "'" + value.substr(0, 80) + "'",
                        std::to_string(count) + " numbers (NDims " + std::to_string(dimensions) + ")");
  }
}

Measurement
MeasureMetaImage(const std::string & path, std::uint64_t expected, std::uint64_t values)
{
  Measurement m;
  const auto lines = MetaImageHeaderLines(path);
  std::string dataFile;
  std::uint64_t dataStart = 0;
  long long headerSize = 0;
  std::uint64_t compressedSize = 0;
  bool compressed = false, binary = true;
  std::size_t dataLine = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
  {
    const auto equals = lines[i].text.find('=');
    if (equals == std::string::npos)
      continue;
    const std::string key = Trim(lines[i].text.substr(0, equals));
    const std::string value = Trim(lines[i].text.substr(equals + 1));
    if (key == "CompressedData")
      compressed = IsTrue(value);
    else if (key == "BinaryData")
      binary = IsTrue(value);
    else if (key == "CompressedDataSize")
    {
      char * end = nullptr;
      const long long bytes = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || bytes < 0)
        ThrowBadParameter("CompressedDataSize in " + path, "'" + value + "'", "a number of bytes >= 0");
      compressedSize = static_cast<std::uint64_t>(bytes);
    }
    else if (key == "HeaderSize")
    {
      char * end = nullptr;
      headerSize = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || headerSize < -1)
        ThrowBadParameter("HeaderSize in " + path, "'" + value + "'", "-1 (data at the end) or a number of bytes >= 0");
    }
    else if (key == "ElementDataFile")
    {
      dataFile = value;
      dataStart = lines[i].next;
      dataLine = i;
    }
  }
  if (dataFile.empty())
    ThrowBadParameter("ElementDataFile in " + path, "missing", "LOCAL or the name of the data file, last in the header");

  std::vector<std::string> files;
  const std::string lower = Lower(dataFile);
  if (lower == "local")
    files.push_back(path);
  else if (dataFile.compare(0, 4, "LIST") == 0)
  {
    // One file name per line after the header (MetaIO reads them to the end of the file).
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(dataStart));
    std::string line;
    while (files.size() < MaximumDataFiles && std::getline(in, line))
    {
      const std::string name = Trim(line);
      if (!name.empty())
        files.push_back(Beside(path, name));
    }
    if (files.empty())
      ThrowBadParameter("ElementDataFile LIST in " + path, "without file names", "one data file name per line after it");
  }
  else if (dataFile.find('%') != std::string::npos && dataFile.find(' ') != std::string::npos)
    files = PatternFiles(path, "ElementDataFile", dataFile);
  else
    files.push_back(Beside(path, dataFile));
  (void)dataLine;

  const bool local = files.size() == 1 && files.front() == path;
  std::uint64_t offset = local ? dataStart : 0;
  if (headerSize > 0)
    offset = static_cast<std::uint64_t>(headerSize);
  m.subject = "pixel data of " + (local ? path : files.size() == 1 ? files.front() : "the data files of " + path);
  if (!binary)
  {
    m.expected = values;
    m.unit = "values";
    m.why = "as the header " + path + " says (ASCII data)";
    MeasureFiles(m, path, files, offset, Encoding::Ascii, false, 0, 0);
  }
  else
  {
    if (compressed && compressedSize > 0)
    {
      // MetaIO allocates CompressedDataSize bytes before it reads them: the files must hold them.
      std::uint64_t available = 0;
      for (std::size_t i = 0; i < files.size(); ++i)
      {
        const std::uint64_t size = FileSize(files[i], path);
        const std::uint64_t start = i == 0 ? offset : 0;
        available += size > start ? size - start : 0;
      }
      if (available < compressedSize)
      {
        m.measured = true;
        m.expected = compressedSize;
        m.found = available;
        m.unit = "bytes of compressed data";
        m.why = "CompressedDataSize in the header " + path;
        m.shortFile = files.front();
        m.dataFiles = files;
        return m;
      }
    }
    m.expected = expected;
    m.why = "as the header " + path + " says" + std::string(compressed ? ", once inflated" : "");
    MeasureFiles(m, path, files, offset, compressed ? Encoding::Compressed : Encoding::Raw, headerSize == -1 && !compressed, 0, 0);
  }
  return m;
}

Measurement
MeasureNrrd(const std::string & path, std::uint64_t expected, std::uint64_t values)
{
  Measurement m;
  bool blank = false;
  const auto lines = ReadHeaderLines(path, [&blank](const std::string & line) {
    blank = line.empty();
    return blank;
  });
  if (lines.empty() || lines.front().text.compare(0, 4, "NRRD") != 0)
    ThrowBadParameter("first line of " + path, "'" + (lines.empty() ? std::string() : lines.front().text.substr(0, 40)) + "'",
                      "NRRD000N (a NRRD header)");
  std::string encoding = "raw", dataFile;
  long long byteSkip = 0, lineSkip = 0;
  std::size_t dataFileLine = 0;
  std::uint64_t dataStart = lines.back().next; // after the blank line (attached data)
  for (std::size_t i = 1; i < lines.size(); ++i)
  {
    const std::string & text = lines[i].text;
    if (text.empty() || text[0] == '#' || text.find(":=") != std::string::npos)
      continue;
    const auto colon = text.find(':');
    if (colon == std::string::npos)
      continue;
    std::string field = Lower(text.substr(0, colon));
    field.erase(std::remove(field.begin(), field.end(), ' '), field.end());
    const std::string value = Trim(text.substr(colon + 1));
    auto number = [&](const char * name) {
      char * end = nullptr;
      const long long v = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || v < -1)
        ThrowBadParameter(std::string(name) + " in " + path, "'" + value + "'", "an integer >= -1");
      return v;
    };
    if (field == "encoding")
      encoding = Lower(value);
    else if (field == "byteskip")
      byteSkip = number("byte skip");
    else if (field == "lineskip")
      lineSkip = number("line skip");
    else if (field == "datafile")
    {
      dataFile = value;
      dataFileLine = i;
    }
  }
  std::vector<std::string> files;
  if (dataFile.empty())
    files.push_back(path);
  else if (dataFile.compare(0, 4, "LIST") == 0)
  {
    // The file names follow, one per line, to the end of the header file.
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(lines[dataFileLine].next));
    std::string line;
    while (files.size() < MaximumDataFiles && std::getline(in, line))
    {
      const std::string name = Trim(line);
      if (!name.empty())
        files.push_back(Beside(path, name));
    }
    if (files.empty())
      ThrowBadParameter("data file LIST in " + path, "without file names", "one data file name per line after it");
  }
  else if (dataFile.find('%') != std::string::npos && dataFile.find(' ') != std::string::npos)
    files = PatternFiles(path, "data file", dataFile);
  else
    files.push_back(Beside(path, dataFile));

  const bool attached = dataFile.empty();
  if (attached && !blank)
    ThrowBadParameter("header of " + path, "without the blank line that ends it", "a blank line before attached data");
  Encoding kind = Encoding::Unmeasured;
  if (encoding == "raw")
    kind = Encoding::Raw;
  else if (encoding == "gzip" || encoding == "gz")
    kind = Encoding::Compressed;
  else if (encoding == "txt" || encoding == "text" || encoding == "ascii")
    kind = Encoding::Ascii;
  else if (encoding == "hex")
    kind = Encoding::Hex;
  m.subject = "pixel data of " + (attached ? path : files.size() == 1 ? files.front() : "the data files of " + path);
  m.expected = kind == Encoding::Ascii ? values : expected;
  m.unit = kind == Encoding::Ascii ? "values" : "bytes";
  m.why = "as the header " + path + " says (encoding " + encoding + ")";
  const bool atEnd = kind == Encoding::Raw && byteSkip == -1;
  const std::uint64_t rawSkip = kind == Encoding::Raw && byteSkip > 0 ? static_cast<std::uint64_t>(byteSkip) : 0;
  const std::uint64_t decodedSkip = kind != Encoding::Raw && byteSkip > 0 ? static_cast<std::uint64_t>(byteSkip) : 0;
  // The byte skip applies in every data file, after the line skip.
  if (rawSkip > 0 || lineSkip > 0)
  {
    m.measured = kind != Encoding::Unmeasured;
    std::uint64_t total = 0;
    for (const std::string & file : files)
    {
      Measurement one;
      one.expected = m.expected;
      MeasureFiles(one, path, { file }, attached ? dataStart : 0, kind, atEnd, decodedSkip, static_cast<std::uint64_t>(lineSkip));
      if (kind == Encoding::Raw)
        one.found = one.found > rawSkip ? one.found - rawSkip : 0;
      total = Add(total, one.found);
      m.dataFiles.push_back(file);
      if (m.shortFile.empty() || one.found == 0)
        m.shortFile = file;
    }
    m.found = total;
    return m;
  }
  MeasureFiles(m, path, files, attached ? dataStart : 0, kind, atEnd, decodedSkip, 0);
  return m;
}

namespace
{
/** The header and the data file of a NIfTI or Analyze image: .nii(.gz) holds both; .hdr(.gz) and
 * .img(.gz) are a pair. */
struct NiftiFiles
{
  std::string header, data;
  bool pair = false;
};

NiftiFiles
FindNiftiFiles(const std::string & path)
{
  NiftiFiles f{ path, path, false };
  auto stem = [](const std::string & p, const std::string & suffix) { return p.substr(0, p.size() - suffix.size()); };
  auto existing = [](const std::string & base, const std::vector<std::string> & suffixes) {
    for (const std::string & s : suffixes)
      if (itksys::SystemTools::FileExists(base + s, true))
        return base + s;
    return base + suffixes.front();
  };
  for (const char * suffix : { ".hdr.gz", ".hdr", ".img.gz", ".img" })
    if (EndsWith(path, suffix))
    {
      const std::string base = stem(path, suffix);
      f.header = existing(base, { ".hdr", ".hdr.gz", ".HDR", ".HDR.GZ" });
      f.data = existing(base, { ".img", ".img.gz", ".IMG", ".IMG.GZ" });
      f.pair = true;
      break;
    }
  return f;
}

/** The first 540 bytes of a NIfTI header (fewer when the file is shorter), inflated when it is
 * gzip-compressed. */
std::string
ReadNiftiHeader(const std::string & header)
{
  std::string bytes(540, '\0');
  gzFile file = gzopen(header.c_str(), "rb");
  int got = file ? gzread(file, &bytes[0], static_cast<unsigned>(bytes.size())) : -1;
  if (file)
    gzclose(file);
  bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return bytes;
}

double
FloatAt(const std::string & b, std::size_t at, bool little)
{
  const std::uint32_t raw = Get32(b, at, little);
  float value;
  std::memcpy(&value, &raw, sizeof(value));
  return value;
}

double
DoubleAt(const std::string & b, std::size_t at, bool little)
{
  const std::uint64_t raw = Get64(b, at, little);
  double value;
  std::memcpy(&value, &raw, sizeof(value));
  return value;
}
} // namespace

void
CheckNiftiHeader(const std::string & path)
{
  const NiftiFiles files = FindNiftiFiles(path);
  const std::string bytes = ReadNiftiHeader(files.header);
  // NIfTI-2 by its size field; anything else of 348 bytes or more as NIfTI-1 or Analyze, whatever its
  // size field says (ITK's reader does not insist on it), in the byte order that makes dim[0] 1..7.
  const bool two = bytes.size() >= 540 && (Get32(bytes, 0, true) == 540 || Get32(bytes, 0, false) == 540);
  const bool one = !two && bytes.size() >= 348;
  if (!one && !two)
    return; // MeasureNifti() says what is wrong with the header's size
  bool little = Get32(bytes, 0, true) == 540;
  if (one)
  {
    const auto dim0 = static_cast<std::int16_t>(Get16(bytes, 40, true));
    little = (dim0 >= 1 && dim0 <= 7) || Get32(bytes, 0, true) == 348;
  }
  // Spacing, origin and the voxel-to-world matrices: ITK takes an SVD of the matrix they make, and
  // vnl aborts the process on a non-finite one. Above 1e15 mm, float products may overflow to Inf.
  auto check = [&](const char * field, std::size_t at, int count) {
    for (int i = 0; i < count; ++i)
    {
      const std::size_t where = at + static_cast<std::size_t>(i) * (one ? 4 : 8);
      const double value = one ? FloatAt(bytes, where, little) : DoubleAt(bytes, where, little);
      if (!(std::fabs(value) <= 1e15))
        ThrowBadParameter(std::string(field) + (count > 1 ? "[" + std::to_string(i) + "]" : "") + " in the NIfTI header " + files.header,
                          value, "a finite value of at most 1e15 in magnitude (spacing, origin and orientation)");
    }
  };
  const std::int64_t dimensions = one ? static_cast<std::int16_t>(Get16(bytes, 40, little)) : static_cast<std::int64_t>(Get64(bytes, 16, little));
  check("pixdim", one ? 76 : 104, static_cast<int>(std::clamp<std::int64_t>(dimensions, 0, 7) + 1));
  const bool nifti = two || bytes.compare(344, 3, "n+1") == 0 || bytes.compare(344, 3, "ni1") == 0;
  if (!nifti)
    return; // Analyze 7.5: those bytes hold other fields
  const auto qform = one ? static_cast<std::int16_t>(Get16(bytes, 252, little)) : static_cast<std::int32_t>(Get32(bytes, 344, little));
  const auto sform = one ? static_cast<std::int16_t>(Get16(bytes, 254, little)) : static_cast<std::int32_t>(Get32(bytes, 348, little));
  if (qform > 0)
    check("quatern_b, quatern_c, quatern_d, qoffset_x, qoffset_y, qoffset_z", one ? 256 : 352, 6);
  if (sform > 0)
    check("srow_x, srow_y, srow_z", one ? 280 : 400, 12);
}

Measurement
MeasureNifti(const std::string & path, std::uint64_t expected)
{
  Measurement m;
  const NiftiFiles files = FindNiftiFiles(path);
  const std::string header = files.header, data = files.data;
  const bool pair = files.pair;
  FileSize(header, path);
  const std::string bytes = ReadNiftiHeader(header);
  if (bytes.size() < 348)
    ThrowBadParameter("NIfTI header " + header, std::to_string(bytes.size()) + " bytes long", "348 bytes or more");
  std::uint64_t offset = 0;
  std::uint64_t headerBytes = 348;
  if (Get32(bytes, 0, true) == 348 || Get32(bytes, 0, false) == 348)
  {
    const bool little = Get32(bytes, 0, true) == 348;
    const std::uint32_t raw = Get32(bytes, 108, little);
    float voxOffset;
    std::memcpy(&voxOffset, &raw, sizeof(voxOffset));
    if (!(voxOffset >= 0.f) || voxOffset > 1e15f)
      ThrowBadParameter("vox_offset in " + header, voxOffset, "a byte offset >= 0");
    offset = static_cast<std::uint64_t>(voxOffset);
  }
  else if (Get32(bytes, 0, true) == 540 || Get32(bytes, 0, false) == 540)
  {
    if (bytes.size() < 540)
      ThrowBadParameter("NIfTI-2 header " + header, std::to_string(bytes.size()) + " bytes long", "540 bytes");
    const bool little = Get32(bytes, 0, true) == 540;
    const auto voxOffset = static_cast<std::int64_t>(Get64(bytes, 168, little));
    if (voxOffset < 0)
      ThrowBadParameter("vox_offset in " + header, voxOffset, "a byte offset >= 0");
    offset = static_cast<std::uint64_t>(voxOffset);
    headerBytes = 540;
  }
  else
    ThrowBadParameter("sizeof_hdr of " + header, Get32(bytes, 0, true), "348 (NIfTI-1, Analyze) or 540 (NIfTI-2)");
  if (!pair)
    offset = std::max(offset, headerBytes);
  m.measured = true;
  m.expected = expected;
  m.subject = "pixel data of " + data;
  m.why = "as the header " + header + " says";
  m.shortFile = data;
  if (pair)
    m.dataFiles.push_back(data);
  FileSize(data, header);
  const std::uint64_t content = ContentSize(data, 0, Add(expected, offset));
  m.found = content > offset ? content - offset : 0;
  return m;
}

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

Measurement
MeasureVtk(const std::string & path, std::uint64_t expected, std::uint64_t values)
{
  Measurement m;
  bool binary = false;
  const auto lines = ReadHeaderLines(path, [&binary](const std::string & line) {
    const std::string word = line.substr(0, line.find(' '));
    if (word == "BINARY")
      binary = true;
    return word == "LOOKUP_TABLE" || word == "VECTORS" || word == "TENSORS" || word == "COLOR_SCALARS";
  });
  if (lines.empty())
    ThrowBadParameter("VTK file " + path, "empty", "a VTK legacy file");
  const std::uint64_t start = lines.back().next;
  m.subject = "pixel data of " + path;
  m.why = "as its header says";
  m.expected = binary ? expected : values;
  m.unit = binary ? "bytes" : "values";
  MeasureFiles(m, path, { path }, start, binary ? Encoding::Raw : Encoding::Ascii, false, 0, 0);
  return m;
}

Measurement
MeasureGipl(const std::string & path, std::uint64_t expected)
{
  Measurement m;
  FileSize(path, path);
  constexpr std::uint64_t header = 256;
  m.measured = true;
  m.expected = expected;
  m.subject = "pixel data of " + path;
  m.why = "as its header says";
  m.shortFile = path;
  const std::uint64_t content = ContentSize(path, 0, Add(expected, header));
  m.found = content > header ? content - header : 0;
  return m;
}

Measurement
MeasureMrc(const std::string & path, std::uint64_t expected)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  const std::string head = ReadAt(path, 0, 1024);
  m.measured = true;
  m.expected = expected;
  m.subject = "pixel data of " + path;
  m.why = "as its header says";
  m.shortFile = path;
  std::uint64_t offset = 1024;
  if (head.size() >= 216)
  {
    const bool little = static_cast<unsigned char>(head[212]) != 0x11; // machine stamp 0x11 0x11: big-endian
    offset = Add(offset, Get32(head, 92, little)); // the extended header
  }
  m.found = size > offset ? size - offset : 0;
  return m;
}

Measurement
MeasureBmp(const std::string & path)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  const std::string head = ReadAt(path, 0, 54);
  if (head.size() < 34)
    return m; // the BMP reader rejects it
  const std::uint32_t dataOffset = Get32(head, 10, true);
  const auto width = static_cast<std::int32_t>(Get32(head, 18, true));
  const auto height = static_cast<std::int32_t>(Get32(head, 22, true));
  const std::uint16_t bits = Get16(head, 28, true);
  const std::uint32_t compression = Get32(head, 30, true);
  if ((compression != 0 && compression != 3) || width <= 0 || height == 0 || bits == 0)
    return m; // run-length encoded: left to the BMP reader
  const std::uint64_t stride = ((static_cast<std::uint64_t>(width) * bits + 31) / 32) * 4;
  const std::uint64_t rows = static_cast<std::uint64_t>(height < 0 ? -static_cast<std::int64_t>(height) : height);
  m.measured = true;
  m.unit = "bytes of file";
  m.subject = "BMP file " + path;
  m.why = "its pixel rows from byte " + std::to_string(dataOffset);
  m.expected = Add(dataOffset, stride * rows);
  m.found = size;
  m.shortFile = path;
  return m;
}

Measurement
MeasurePng(const std::string & path)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  m.measured = true;
  m.unit = "bytes of file";
  m.subject = "PNG file " + path;
  m.why = "its chunks up to IEND";
  m.shortFile = path;
  m.found = size;
  std::uint64_t at = 8; // the signature
  m.expected = at;
  while (Add(at, 12) <= size)
  {
    const std::string chunk = ReadAt(path, at, 8);
    const std::uint64_t length = Get32(chunk, 0, false);
    const std::string type = chunk.substr(4, 4);
    at = Add(at, Add(length, 12));
    m.expected = at;
    if (type == "IEND" || at > size)
      return m;
  }
  m.expected = Add(at, 12); // at least an IEND chunk more
  return m;
}

Measurement
MeasureJpeg(const std::string & path)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  m.measured = true;
  m.unit = "bytes of file";
  m.subject = "JPEG file " + path;
  m.shortFile = path;
  m.found = size;
  // The end-of-image marker FF D9 ends the file (some writers pad it with zeros).
  const std::uint64_t tail = std::min<std::uint64_t>(size, 4096);
  std::string end = ReadAt(path, size - tail, static_cast<std::size_t>(tail));
  while (!end.empty() && end.back() == '\0')
    end.pop_back();
  const bool complete = end.size() >= 2 && static_cast<unsigned char>(end[end.size() - 2]) == 0xFF &&
                        static_cast<unsigned char>(end[end.size() - 1]) == 0xD9;
  m.expected = complete ? size : Add(size, 2);
  m.why = "at least its end-of-image marker FF D9 after the last scan";
  return m;
}

Measurement
MeasureHdf5(const std::string & path)
{
  Measurement m;
  const std::uint64_t size = FileSize(path, path);
  static const std::string signature("\x89HDF\r\n\x1a\n", 8);
  for (std::uint64_t at = 0; at < size; at = at == 0 ? 512 : at * 2)
  {
    const std::string block = ReadAt(path, at, 64);
    if (block.size() < 9 || block.compare(0, 8, signature) != 0)
      continue;
    const unsigned version = static_cast<unsigned char>(block[8]);
    std::size_t eofAt = 0, baseAt = 0, offsets = 0;
    if (version <= 1 && block.size() >= 14)
    {
      offsets = static_cast<unsigned char>(block[13]);
      baseAt = version == 0 ? 24 : 28;
      eofAt = baseAt + 2 * offsets;
    }
    else if (version >= 2 && block.size() >= 10)
    {
      offsets = static_cast<unsigned char>(block[9]);
      baseAt = 12;
      eofAt = baseAt + 2 * offsets;
    }
    if ((offsets != 4 && offsets != 8) || eofAt + offsets > block.size())
      return m; // left to the HDF5 library
    auto address = [&](std::size_t where) {
      return offsets == 8 ? Get64(block, where, true) : static_cast<std::uint64_t>(Get32(block, where, true));
    };
    m.measured = true;
    m.unit = "bytes of file";
    m.subject = "HDF5 file " + path;
    m.why = "the end-of-file address of its superblock";
    m.shortFile = path;
    m.found = size;
    m.expected = Add(address(baseAt), address(eofAt));
    return m;
  }
  return m;
}

} // namespace cbct::detail
