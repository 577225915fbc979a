// MetaImage (.mha, .mhd): the header checked before ITK's MetaIO reads it, and the pixel data its
// files hold (LOCAL, one file, a LIST or a pattern of files; raw, compressed or ASCII).
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace cbct::detail
{
using namespace file_measures;

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

} // namespace cbct::detail
