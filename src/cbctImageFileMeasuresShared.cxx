// What the image formats' measures share (cbctImageFileMeasuresShared.h).
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cbct::detail::file_measures
{

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

std::string
Beside(const std::string & header, const std::string & name)
{
  if (!name.empty() && name[0] == '/')
    return name;
  return DirectoryOf(header) + name;
}

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

std::uint64_t
CountValues(const std::string & path, std::uint64_t offset, std::uint64_t limit, bool hexDigits)
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

namespace
{
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
} // namespace

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

} // namespace cbct::detail::file_measures
