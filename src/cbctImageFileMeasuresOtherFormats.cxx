// The pixel data of the formats whose header is short and fixed, one function each: VTK legacy,
// GIPL, MRC, BMP, PNG, JPEG and HDF5.
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <algorithm>

namespace cbct::detail
{
using namespace file_measures;

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
