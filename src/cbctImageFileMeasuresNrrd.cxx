// NRRD (.nrrd, .nhdr): the pixel data its files hold (attached or detached, one file, a list or a
// pattern; raw, gzip, ASCII or hex).
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace cbct::detail
{
using namespace file_measures;

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

} // namespace cbct::detail
