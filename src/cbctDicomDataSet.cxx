#include "cbctDicomDataSet.h"

#include "cbctInputChecks.h"

#include <itkMacro.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include <sys/stat.h>

namespace cbct
{

namespace
{
constexpr std::uint32_t ItemTag = 0xFFFEE000u;
constexpr std::uint32_t ItemDelimiterTag = 0xFFFEE00Du;
constexpr std::uint32_t SequenceDelimiterTag = 0xFFFEE0DDu;
constexpr std::uint32_t Undefined = 0xFFFFFFFFu;
constexpr std::uint64_t PreambleBytes = 132; // 128 bytes, then "DICM"

/** Thrown when the bytes given end before the file does: the caller reads more and parses again. */
struct MoreBytesNeeded
{};

std::string
TagText(std::uint32_t tag)
{
  std::ostringstream text;
  text << '(' << std::hex << std::uppercase << std::setfill('0') << std::setw(4) << (tag >> 16) << ',' << std::setw(4)
       << (tag & 0xFFFFu) << ')';
  return text.str();
}

std::uint16_t
U16(const unsigned char * b)
{
  return static_cast<std::uint16_t>(b[0] | (b[1] << 8));
}

std::uint32_t
U32(const unsigned char * b)
{
  return std::uint32_t(b[0]) | (std::uint32_t(b[1]) << 8) | (std::uint32_t(b[2]) << 16) | (std::uint32_t(b[3]) << 24);
}

/** VRs whose explicit encoding has two reserved bytes and a 32-bit length (PS3.5 table 7.1-1). */
bool
HasLongLength(const std::string & vr)
{
  static const char * const longs[] = { "OB", "OD", "OF", "OL", "OV", "OW", "SQ", "SV", "UC", "UN", "UR", "UT", "UV" };
  for (const char * v : longs)
    if (vr == v)
      return true;
  return false;
}

/** The VR of the standard and DICOM-CT-PD tags the reader decodes, for an implicit syntax (PS3.6 and
 * the format's dictionary); "" for others (their bytes as they are). */
std::string
DictionaryVR(std::uint32_t tag)
{
  switch (tag)
  {
    case 0x00180061u: // HUCalibrationFactor (the format's first version)
    case 0x00281052u: // RescaleIntercept
    case 0x00281053u: // RescaleSlope
      return "DS";
    case 0x00200013u: // InstanceNumber
    case 0x00280008u: // NumberOfFrames
      return "IS";
    case 0x00280002u: // SamplesPerPixel
    case 0x00280010u: // Rows
    case 0x00280011u: // Columns
    case 0x00280100u: // BitsAllocated
    case 0x00280101u: // BitsStored
    case 0x00280102u: // HighBit
    case 0x00280103u: // PixelRepresentation
    case 0x70291010u: // NumberofDetectorRows
    case 0x70291011u: // NumberofDetectorColumns
    case 0x70331013u: // NumberofSourceAngularSteps
    case 0x70331061u: // NumberofSpectra
    case 0x70331063u: // SpectrumIndex
      return "US";
    default:
      return std::string();
  }
}

/** Reading position in the bytes given, and where they and the file end. */
class Cursor
{
public:
  Cursor(const unsigned char * bytes, std::uint64_t size, std::uint64_t fileSize, const std::string & name)
    : m_Bytes(bytes)
    , m_Size(size)
    , m_FileSize(fileSize)
    , m_Name(name)
  {}

  [[noreturn]] void
  Fail(const std::string & what, const std::string & expected) const
  {
    ThrowBadParameter("DICOM file " + m_Name + ": " + what, "at byte " + std::to_string(m_Position), expected);
  }

  /** Throws unless `bytes` more lie in the bytes given (MoreBytesNeeded when the file goes on). */
  void
  Require(std::uint64_t bytes, const std::string & what) const
  {
    if (bytes <= m_Size - m_Position)
      return;
    if (m_Size < m_FileSize && m_Position + bytes <= m_FileSize)
      throw MoreBytesNeeded{};
    itkGenericExceptionMacro(<< "DICOM file " << m_Name << " is cut short: it ends at byte " << m_FileSize << ", inside "
                             << what << " (" << bytes << " bytes from byte " << m_Position << ")");
  }
  const unsigned char *
  Take(std::uint64_t bytes, const std::string & what)
  {
    this->Require(bytes, what);
    const unsigned char * at = m_Bytes + m_Position;
    m_Position += bytes;
    return at;
  }
  bool
  AtEnd() const
  {
    return m_Position == m_Size;
  }
  bool
  AtEndOfFile() const
  {
    return m_Position == m_FileSize;
  }
  std::uint64_t
  Position() const
  {
    return m_Position;
  }
  std::uint64_t
  Size() const
  {
    return m_Size;
  }
  std::uint64_t
  FileSize() const
  {
    return m_FileSize;
  }
  const unsigned char *
  Bytes() const
  {
    return m_Bytes;
  }

private:
  const unsigned char * m_Bytes;
  std::uint64_t m_Size;
  std::uint64_t m_FileSize;
  std::string m_Name;
  std::uint64_t m_Position = 0;
};

/** An element's header as read: tag, VR ("" when implicit) and length (Undefined: 0xFFFFFFFF). */
struct Header
{
  std::uint32_t tag = 0;
  std::string vr;
  std::uint32_t length = 0;
};

Header
ReadHeader(Cursor & c, bool explicitVR)
{
  Header h;
  const unsigned char * t = c.Take(4, "an element's tag");
  h.tag = (std::uint32_t(U16(t)) << 16) | U16(t + 2);
  const std::string which = "element " + TagText(h.tag);
  if ((h.tag >> 16) == 0xFFFEu || !explicitVR) // items and delimiters have no VR in any syntax
  {
    h.length = U32(c.Take(4, which + "'s length"));
    return h;
  }
  const unsigned char * v = c.Take(2, which + "'s VR");
  if (!(v[0] >= 'A' && v[0] <= 'Z' && v[1] >= 'A' && v[1] <= 'Z'))
    c.Fail(which + "'s VR", "two capital letters (explicit VR)");
  h.vr.assign(reinterpret_cast<const char *>(v), 2);
  if (HasLongLength(h.vr))
  {
    c.Take(2, which + "'s reserved bytes");
    h.length = U32(c.Take(4, which + "'s length"));
  }
  else
    h.length = U16(c.Take(2, which + "'s length"));
  return h;
}

void SkipValue(Cursor & c, const Header & h, bool explicitVR, unsigned int depth);

/** The elements of an item of undefined length, up to its delimiter. */
void
SkipItemElements(Cursor & c, bool explicitVR, unsigned int depth)
{
  for (;;)
  {
    const Header h = ReadHeader(c, explicitVR);
    if (h.tag == ItemDelimiterTag)
    {
      if (h.length != 0)
        c.Fail("item delimiter (FFFE,E00D) of length " + std::to_string(h.length), "length 0");
      return;
    }
    if (h.tag == ItemTag || h.tag == SequenceDelimiterTag)
      c.Fail("item or sequence delimiter " + TagText(h.tag) + " among an item's elements", "an element or (FFFE,E00D)");
    SkipValue(c, h, explicitVR, depth);
  }
}

/** A sequence of undefined length: its items, up to its delimiter. The items of a UN sequence are
 * encoded implicitly (PS3.5 section 6.2.2). */
void
SkipSequenceItems(Cursor & c, bool explicitVR, unsigned int depth)
{
  if (depth > DicomDataSet::MaximumNesting)
    c.Fail("sequences nested " + std::to_string(depth) + " deep", "at most " + std::to_string(DicomDataSet::MaximumNesting));
  for (;;)
  {
    const Header h = ReadHeader(c, false);
    if (h.tag == SequenceDelimiterTag)
    {
      if (h.length != 0)
        c.Fail("sequence delimiter (FFFE,E0DD) of length " + std::to_string(h.length), "length 0");
      return;
    }
    if (h.tag != ItemTag)
      c.Fail("element " + TagText(h.tag) + " in a sequence", "an item (FFFE,E000) or the delimiter (FFFE,E0DD)");
    if (h.length == Undefined)
      SkipItemElements(c, explicitVR, depth + 1);
    else
      c.Take(h.length, "an item of " + std::to_string(h.length) + " bytes");
  }
}

void
SkipValue(Cursor & c, const Header & h, bool explicitVR, unsigned int depth)
{
  if (h.length != Undefined)
  {
    c.Take(h.length, "the value of element " + TagText(h.tag) + " (" + std::to_string(h.length) + " bytes)");
    return;
  }
  // Undefined length: a sequence (SQ, or UN holding one, or any element of an implicit syntax).
  if (explicitVR && h.vr != "SQ" && h.vr != "UN")
    c.Fail("element " + TagText(h.tag) + " of VR " + h.vr + " and undefined length",
           "a defined length (only sequences may leave it undefined)");
  SkipSequenceItems(c, explicitVR && h.vr == "SQ", depth + 1);
}

} // namespace

DicomDataSet
DicomDataSet::Parse(const unsigned char * bytes,
                    std::uint64_t size,
                    std::uint64_t fileSize,
                    const std::string & name,
                    bool & complete)
{
  complete = false;
  if (size > fileSize)
    itkGenericExceptionMacro(<< "DICOM file " << name << ": " << size << " bytes given of a file of " << fileSize);
  DicomDataSet set;
  set.m_Name = name;
  Cursor c(bytes, size, fileSize, name);
  try
  {
    if (fileSize < PreambleBytes)
      ThrowBadParameter("DICOM file " + name, std::to_string(fileSize) + " bytes long",
                        "a DICOM Part 10 file: a 128-byte preamble and \"DICM\" at least");
    const unsigned char * preamble = c.Take(PreambleBytes, "the preamble");
    if (std::memcmp(preamble + 128, "DICM", 4) != 0)
      ThrowBadParameter("DICOM file " + name + ": bytes 128 to 131", "not \"DICM\"",
                        "\"DICM\" (a DICOM Part 10 file, PS3.10 section 7.1)");

    // File Meta Information: explicit VR little endian, group 0002.
    bool sawMeta = false;
    while (!c.AtEnd())
    {
      if (c.Size() - c.Position() < 2)
      {
        if (c.Size() < fileSize)
          throw MoreBytesNeeded{};
        break;
      }
      if (U16(c.Bytes() + c.Position()) != 0x0002u)
        break;
      const Header h = ReadHeader(c, true);
      if (h.length == Undefined)
        c.Fail("meta element " + TagText(h.tag) + " of undefined length", "a defined length");
      const unsigned char * value = c.Take(h.length, "the value of meta element " + TagText(h.tag));
      sawMeta = true;
      if (h.tag == 0x00020010u)
      {
        std::string uid(reinterpret_cast<const char *>(value), h.length);
        while (!uid.empty() && (uid.back() == '\0' || uid.back() == ' '))
          uid.pop_back();
        set.m_TransferSyntax = uid;
      }
    }
    if (c.AtEnd() && c.Size() < fileSize)
      throw MoreBytesNeeded{};
    if (!sawMeta || set.m_TransferSyntax.empty())
      ThrowBadParameter("DICOM file " + name + ": Transfer Syntax UID (0002,0010)", "missing",
                        "the File Meta Information (group 0002) to name the transfer syntax");
    if (set.m_TransferSyntax == "1.2.840.10008.1.2")
      set.m_Explicit = false;
    else if (set.m_TransferSyntax == "1.2.840.10008.1.2.1")
      set.m_Explicit = true;
    else
      ThrowBadParameter("DICOM file " + name + ": Transfer Syntax UID (0002,0010)", Trimmed(set.m_TransferSyntax),
                        "1.2.840.10008.1.2 (implicit VR little endian) or 1.2.840.10008.1.2.1 (explicit VR little "
                        "endian): the projections uncompressed, as DICOM-CT-PD stores them");

    // The data set, up to Pixel Data.
    while (!c.AtEndOfFile())
    {
      if (c.AtEnd())
        throw MoreBytesNeeded{};
      const Header h = ReadHeader(c, set.m_Explicit);
      if ((h.tag >> 16) == 0xFFFEu || (h.tag >> 16) == 0x0002u)
        c.Fail("element " + TagText(h.tag) + " in the data set", "data elements (no item, delimiter or meta element)");
      if (set.m_Elements.count(h.tag) != 0)
        c.Fail("element " + TagText(h.tag) + " a second time", "each element once");
      if (h.tag == PixelDataTag)
      {
        if (h.length == Undefined)
          ThrowBadParameter("DICOM file " + name + ": Pixel Data (7FE0,0010)", "encapsulated (undefined length)",
                            "uncompressed pixels (a defined length)");
        set.m_HasPixelData = true;
        set.m_PixelOffset = c.Position();
        set.m_PixelLength = h.length;
        if (set.m_PixelOffset + set.m_PixelLength > fileSize)
          itkGenericExceptionMacro(<< "DICOM file " << name << " is cut short: it ends at byte " << fileSize
                                   << ", inside Pixel Data (7FE0,0010) (" << set.m_PixelLength << " bytes from byte "
                                   << set.m_PixelOffset << ")");
        Element e;
        e.tag = h.tag;
        e.vr = h.vr;
        e.offset = set.m_PixelOffset;
        e.length = h.length;
        set.m_Elements.emplace(h.tag, e);
        break;
      }
      Element e;
      e.tag = h.tag;
      e.vr = set.m_Explicit ? h.vr : DictionaryVR(h.tag);
      e.offset = c.Position();
      e.undefinedLength = h.length == Undefined;
      SkipValue(c, h, set.m_Explicit, 0);
      e.length = c.Position() - e.offset;
      set.m_Elements.emplace(h.tag, e);
    }
  }
  catch (const MoreBytesNeeded &)
  {
    return DicomDataSet();
  }
  const std::uint64_t kept = set.m_HasPixelData ? set.m_PixelOffset : c.Position();
  set.m_Bytes.assign(bytes, bytes + kept);
  complete = true;
  return set;
}

DicomDataSet
DicomDataSet::ParseHeader(const std::string & path)
{
  std::FILE * file = std::fopen(path.c_str(), "rb");
  struct stat status;
  if (file == nullptr || fstat(fileno(file), &status) != 0 || !S_ISREG(status.st_mode))
  {
    if (file != nullptr)
      std::fclose(file);
    ThrowBadParameter("DICOM file " + path, "not readable", "a readable regular file");
  }
  const auto fileSize = static_cast<std::uint64_t>(status.st_size);
  std::vector<unsigned char> bytes;
  // 16 KiB hold a DICOM-CT-PD header (the Mayo files': about 6 KiB with 736 photon counts).
  std::uint64_t want = std::min<std::uint64_t>(fileSize, 16 * 1024);
  for (;;)
  {
    const std::uint64_t had = bytes.size();
    bytes.resize(want);
    if (want > had && std::fread(bytes.data() + had, 1, want - had, file) != want - had)
    {
      std::fclose(file);
      ThrowBadParameter("DICOM file " + path, "unreadable at byte " + std::to_string(had), "a readable file");
    }
    bool complete = false;
    DicomDataSet set;
    try
    {
      set = Parse(bytes.data(), bytes.size(), fileSize, path, complete);
    }
    catch (...)
    {
      std::fclose(file);
      throw;
    }
    if (complete)
    {
      std::fclose(file);
      return set;
    }
    want = std::min<std::uint64_t>(fileSize, 4 * want);
  }
}

bool
DicomDataSet::HasPart10Preamble(const std::string & path)
{
  std::FILE * file = std::fopen(path.c_str(), "rb");
  if (file == nullptr)
    return false;
  struct stat status;
  unsigned char start[PreambleBytes];
  const bool dicom = fstat(fileno(file), &status) == 0 && S_ISREG(status.st_mode) &&
                     std::fread(start, 1, PreambleBytes, file) == PreambleBytes && std::memcmp(start + 128, "DICM", 4) == 0;
  std::fclose(file);
  return dicom;
}

std::string
DicomDataSet::Describe(std::uint32_t tag, const std::string & keyword)
{
  return TagText(tag) + " " + keyword;
}

bool
DicomDataSet::Has(std::uint32_t tag) const
{
  return m_Elements.count(tag) != 0;
}

const DicomDataSet::Element &
DicomDataSet::Get(std::uint32_t tag, const std::string & keyword) const
{
  const auto found = m_Elements.find(tag);
  if (found == m_Elements.end())
    ThrowBadParameter(Describe(tag, keyword) + " of DICOM file " + m_Name, "missing", "the element (DICOM-CT-PD defines it)");
  return found->second;
}

const unsigned char *
DicomDataSet::ValueBytes(const Element & element) const
{
  // Every element but Pixel Data lies in the bytes kept (Parse checked its length against them).
  return m_Bytes.data() + element.offset;
}

std::string
DicomDataSet::Text(std::uint32_t tag, const std::string & keyword) const
{
  const Element & e = this->Get(tag, keyword);
  if (e.undefinedLength || e.tag == PixelDataTag)
    ThrowBadParameter(Describe(tag, keyword) + " of DICOM file " + m_Name, "a sequence or pixels", "text");
  const char * chars = reinterpret_cast<const char *>(this->ValueBytes(e));
  std::string text(chars, static_cast<std::size_t>(e.length));
  while (!text.empty() && (text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  const auto first = text.find_first_not_of(' ');
  text = first == std::string::npos ? std::string() : text.substr(first);
  for (const char ch : text)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) > 0x7E)
      ThrowBadParameter(Describe(tag, keyword) + " of DICOM file " + m_Name,
                        std::to_string(e.length) + " bytes that are not all printable characters", "text");
  return text;
}

std::uint16_t
DicomDataSet::UnsignedShort(std::uint32_t tag, const std::string & keyword) const
{
  const Element & e = this->Get(tag, keyword);
  const std::string what = Describe(tag, keyword) + " of DICOM file " + m_Name;
  if (!e.vr.empty() && e.vr != "US" && e.vr != "UN" && e.vr != "OB" && e.vr != "OW")
    ThrowBadParameter(what, "of VR " + e.vr, "VR US (an unsigned 16-bit integer)");
  if (e.undefinedLength || e.length != 2)
    ThrowBadParameter(what, std::to_string(e.length) + " bytes long", "one unsigned 16-bit integer (2 bytes)");
  return U16(this->ValueBytes(e));
}

std::vector<double>
DicomDataSet::Numbers(std::uint32_t tag, const std::string & keyword, std::size_t count) const
{
  const Element & e = this->Get(tag, keyword);
  const std::string what = Describe(tag, keyword) + " of DICOM file " + m_Name;
  if (e.undefinedLength || e.tag == PixelDataTag)
    ThrowBadParameter(what, "a sequence or pixels", "numbers");
  const unsigned char * b = this->ValueBytes(e);
  const std::uint64_t n = e.length;
  std::vector<double> values;
  const auto binary = [&](std::uint64_t width, auto decode) {
    if (n % width != 0)
      ThrowBadParameter(what, std::to_string(n) + " bytes long (VR " + (e.vr.empty() ? std::string("implicit") : e.vr) + ")",
                        "a whole number of " + std::to_string(width) + "-byte values");
    values.reserve(static_cast<std::size_t>(n / width));
    for (std::uint64_t i = 0; i < n; i += width)
      values.push_back(decode(b + i));
  };
  if (e.vr == "FL" || e.vr == "OF" || e.vr == "UN" || e.vr == "OB" || e.vr.empty())
    binary(4, [](const unsigned char * p) {
      const std::uint32_t bits = U32(p);
      float f;
      std::memcpy(&f, &bits, 4);
      return static_cast<double>(f);
    });
  else if (e.vr == "FD" || e.vr == "OD")
    binary(8, [](const unsigned char * p) {
      const std::uint64_t bits = std::uint64_t(U32(p)) | (std::uint64_t(U32(p + 4)) << 32);
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    });
  else if (e.vr == "US")
    binary(2, [](const unsigned char * p) { return static_cast<double>(U16(p)); });
  else if (e.vr == "SS")
    binary(2, [](const unsigned char * p) { return static_cast<double>(static_cast<std::int16_t>(U16(p))); });
  else if (e.vr == "UL")
    binary(4, [](const unsigned char * p) { return static_cast<double>(U32(p)); });
  else if (e.vr == "SL")
    binary(4, [](const unsigned char * p) { return static_cast<double>(static_cast<std::int32_t>(U32(p))); });
  else if (e.vr == "DS" || e.vr == "IS")
  {
    const std::string text = this->Text(tag, keyword);
    std::size_t start = 0;
    for (;;)
    {
      const std::size_t end = text.find('\\', start);
      const std::string item = Trimmed(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
      char * stop = nullptr;
      errno = 0;
      const double value = item.empty() ? 0. : std::strtod(item.c_str(), &stop);
      if (item.empty() || stop == nullptr || *stop != '\0' || errno == ERANGE)
        ThrowBadParameter(what, "\"" + text + "\"", "decimal numbers separated by '\\' (VR " + e.vr + ")");
      values.push_back(value);
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
  else
    ThrowBadParameter(what, "of VR " + e.vr, "numbers (VR FL, FD, DS, IS, US or UN)");
  if (values.empty() || (count != 0 && values.size() != count))
    ThrowBadParameter(what, std::to_string(values.size()) + " values",
                      count == 0 ? std::string("at least one value") : std::to_string(count) + (count == 1 ? " value" : " values"));
  return values;
}

double
DicomDataSet::Number(std::uint32_t tag, const std::string & keyword) const
{
  return this->Numbers(tag, keyword, 1).front();
}

} // namespace cbct
