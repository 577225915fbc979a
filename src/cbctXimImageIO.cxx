#include "cbctXimImageIO.h"

#include "cbctCheckedBinaryFile.h"
#include "cbctVarianCompressedPixels.h"

#include <itkByteSwapper.h>
#include <itkMetaDataObject.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace cbct
{

namespace
{
const char * const Kind = "XIM file";

/** XIM's format identifier: "VMS.XI" once the bytes that do not print are dropped (the eight bytes
 * are the six letters and two NULs in the files seen). */
bool
IsXimIdentifier(const char (&id)[8])
{
  std::string printable;
  for (char c : id)
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
      printable.push_back(c);
  return printable == "VMS.XI";
}

std::string
Quoted(const char (&id)[8])
{
  std::string text = "\"";
  char hex[8];
  for (char c : id)
  {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\')
      text.push_back(c);
    else
    {
      std::snprintf(hex, sizeof(hex), "\\x%02x", u);
      text += hex;
    }
  }
  return text + "\"";
}

/** A property's value as a double, when it is a number (int32 or double). */
bool
NumberProperty(const itk::MetaDataDictionary & dictionary, const std::string & name, double & value)
{
  int integer = 0;
  if (itk::ExposeMetaData<double>(dictionary, name, value))
    return true;
  if (itk::ExposeMetaData<int>(dictionary, name, integer))
  {
    value = integer;
    return true;
  }
  return false;
}
} // namespace

XimImageIO::XimImageIO()
{
  this->SetNumberOfDimensions(2);
  this->AddSupportedReadExtension(".xim");
  this->AddSupportedReadExtension(".XIM");
}

bool
XimImageIO::CanReadFile(const char * fileName)
{
  std::FILE * file = std::fopen(fileName, "rb");
  if (file == nullptr)
    return false;
  char id[8] = {};
  const bool read = std::fread(id, 1, 8, file) == 8;
  std::fclose(file);
  return read && IsXimIdentifier(id);
}

void
XimImageIO::ReadImageInformation()
{
  this->SetMetaDataDictionary(itk::MetaDataDictionary());
  itk::MetaDataDictionary & dictionary = this->GetMetaDataDictionary();
  detail::CheckedBinaryFile f(m_FileName, Kind);

  char id[8];
  f.Read(id, 8, "format identifier");
  if (!IsXimIdentifier(id))
    f.Fail("format identifier", Quoted(id), "\"VMS.XI\" (a Varian XIM file)");
  f.Int32("format version");
  const std::int32_t width = f.Int32("width");
  const std::int32_t height = f.Int32("height");
  if (width < 1)
    f.Fail("width", width, "at least 1 pixel");
  if (height < 1)
    f.Fail("height", height, "at least 1 pixel");
  f.Int32("bits per pixel");
  const std::int32_t bytesPerPixel = f.Int32("bytes per pixel");
  const std::int32_t compression = f.Int32("compression flag");
  const std::uint64_t w = static_cast<std::uint64_t>(width);
  const std::uint64_t h = static_cast<std::uint64_t>(height);
  const std::uint64_t pixels = w * h; // < 2^62
  const std::string size = std::to_string(width) + " x " + std::to_string(height) + " pixels";

  if (compression == 1)
  {
    m_Compressed = true;
    if (bytesPerPixel != 1 && bytesPerPixel != 2 && bytesPerPixel != 4)
      f.Fail("bytes per pixel", bytesPerPixel, "1, 2 or 4");
    const std::uint64_t differences = VarianCompressedPixels::DifferenceCount(w, h, Kind + std::string(" ") + m_FileName);
    // The table holds a code for each pixel after the first row (Varian) or just one for each
    // difference (the last code is not used): either is complete.
    const std::uint64_t fewest = (differences + 3) / 4;
    const std::uint64_t most = VarianCompressedPixels::LookupTableBytes(w, h);
    m_LookupTableBytes = f.Size32("lookup-table size");
    if (m_LookupTableBytes < fewest || m_LookupTableBytes > most)
      f.Fail("lookup-table size", m_LookupTableBytes,
             std::to_string(most) + " bytes (2 bits for each pixel after the first row of " + size + ", as its header says)");
    m_PixelDataOffset = f.Position();
    f.Skip(m_LookupTableBytes, "lookup table");
    m_CompressedBytes = f.Size32("compressed pixel buffer size");
    // At least 1 byte per difference, at most 4, and one unused difference of 4 bytes at the end.
    const std::uint64_t least = 4 * (w + 1) + differences;
    const std::uint64_t greatest = 4 * (w + 1) + 4 * differences + 4;
    if (m_CompressedBytes < least || m_CompressedBytes > greatest)
      f.Fail("compressed pixel buffer size", m_CompressedBytes,
             std::to_string(least) + " to " + std::to_string(greatest) + " bytes for " + size);
    f.Skip(m_CompressedBytes, "compressed pixel buffer");
    f.Int32("uncompressed pixel buffer size");
    m_BytesPerPixel = 4;
    this->SetComponentType(itk::IOComponentEnum::INT);
  }
  else if (compression == 0)
  {
    m_Compressed = false;
    if (bytesPerPixel != 2 && bytesPerPixel != 4)
      f.Fail("bytes per pixel of the uncompressed pixels", bytesPerPixel, "2 or 4");
    m_BytesPerPixel = static_cast<std::uint32_t>(bytesPerPixel);
    const std::uint64_t bytes = f.Size32("pixel buffer size");
    if (bytes != pixels * m_BytesPerPixel)
      f.Fail("pixel buffer size", bytes,
             std::to_string(pixels * m_BytesPerPixel) + " bytes (" + size + " of " + std::to_string(bytesPerPixel) + " bytes)");
    m_PixelDataOffset = f.Position();
    f.Skip(bytes, "pixel buffer");
    this->SetComponentType(m_BytesPerPixel == 2 ? itk::IOComponentEnum::USHORT : itk::IOComponentEnum::INT);
  }
  else
    f.Fail("compression flag", compression, "0 (uncompressed) or 1 (compressed)");

  const std::uint64_t bins = f.Size32("histogram bin count");
  f.Skip(4 * bins, "histogram");

  const std::uint64_t properties = f.Size32("property count");
  // Each property takes 12 bytes at least (name length, type, a 4-byte value).
  f.Require(12 * properties, std::to_string(properties) + " properties of 12 bytes or more");
  std::vector<char> text;
  for (std::uint64_t i = 0; i < properties; ++i)
  {
    const std::string which = "property " + std::to_string(i + 1) + " of " + std::to_string(properties);
    const std::uint64_t nameLength = f.Size32("name length of " + which);
    f.Require(nameLength, "name of " + which); // before the allocation
    text.resize(nameLength);
    f.Read(text.data(), nameLength, "name of " + which);
    const std::string name(text.begin(), text.end());
    const std::string named = "property " + std::to_string(i + 1) + " (" + detail::FieldText(name.data(), name.size()) + ")";
    const std::int32_t type = f.Int32("type of " + named);
    switch (type)
    {
      case 0:
        itk::EncapsulateMetaData<int>(dictionary, name, f.Int32("value of " + named));
        break;
      case 1:
        itk::EncapsulateMetaData<double>(dictionary, name, f.Value<double>("value of " + named));
        break;
      case 2:
      {
        const std::uint64_t length = f.Size32("length of " + named);
        f.Require(length, "value of " + named);
        text.resize(length);
        f.Read(text.data(), length, "value of " + named);
        while (!text.empty() && text.back() == '\0')
          text.pop_back();
        itk::EncapsulateMetaData<std::string>(dictionary, name, std::string(text.begin(), text.end()));
        break;
      }
      case 4:
      case 5:
      {
        const std::uint64_t element = type == 4 ? 8 : 4;
        const std::uint64_t length = f.Size32("length of " + named);
        if (length % element != 0)
          f.Fail("length of " + named, length,
                 "a multiple of " + std::to_string(element) + " bytes (an array of " + (type == 4 ? "doubles)" : "int32)"));
        f.Require(length, "value of " + named);
        if (type == 4)
        {
          std::vector<double> values(length / 8);
          for (double & v : values)
            v = f.Value<double>("value of " + named);
          itk::EncapsulateMetaData<std::vector<double>>(dictionary, name, values);
        }
        else
        {
          std::vector<int> values(length / 4);
          for (int & v : values)
            v = f.Int32("value of " + named);
          itk::EncapsulateMetaData<std::vector<int>>(dictionary, name, values);
        }
        break;
      }
      default:
        f.Fail("type of " + named, type, "0 (int32), 1 (double), 2 (string), 4 (double array) or 5 (int32 array)");
    }
  }

  // Spacing: PixelWidth and PixelHeight are in cm in XIM files.
  double spacing[2] = { 0., 0. };
  const char * spacingNames[2] = { "PixelWidth", "PixelHeight" };
  for (unsigned int d = 0; d < 2; ++d)
  {
    if (!NumberProperty(dictionary, spacingNames[d], spacing[d]))
      f.Fail(std::string("property ") + spacingNames[d], "missing", "the pixel size in cm (a double > 0)");
    if (!std::isfinite(spacing[d]) || !(spacing[d] > 0.) || spacing[d] > 1e6)
      f.Fail(std::string("property ") + spacingNames[d], spacing[d], "the pixel size in cm (a finite value > 0)");
    spacing[d] *= 10.; // cm -> mm
  }
  this->SetNumberOfDimensions(2);
  this->SetPixelType(itk::IOPixelEnum::SCALAR);
  this->SetNumberOfComponents(1);
  const std::uint64_t sizes[2] = { w, h };
  for (unsigned int d = 0; d < 2; ++d)
  {
    this->SetDimensions(d, sizes[d]);
    this->SetSpacing(d, spacing[d]);
    this->SetOrigin(d, -0.5 * (double(sizes[d]) - 1.) * spacing[d]);
  }
}

void
XimImageIO::Read(void * buffer)
{
  detail::CheckedBinaryFile f(m_FileName, Kind);
  const std::uint64_t w = this->GetDimensions(0);
  const std::uint64_t h = this->GetDimensions(1);
  f.Seek(m_PixelDataOffset);
  if (!m_Compressed)
  {
    const std::uint64_t pixels = w * h;
    f.Read(buffer, pixels * m_BytesPerPixel, "pixel buffer");
    if (m_BytesPerPixel == 2)
      itk::ByteSwapper<std::uint16_t>::SwapRangeFromSystemToLittleEndian(static_cast<std::uint16_t *>(buffer), pixels);
    else
      itk::ByteSwapper<std::int32_t>::SwapRangeFromSystemToLittleEndian(static_cast<std::int32_t *>(buffer), pixels);
    return;
  }
  // The table, the buffer's size and the buffer lie one after the other: one read.
  f.Require(m_LookupTableBytes + 4 + m_CompressedBytes, "lookup table and compressed pixel buffer"); // the file may have changed
  std::vector<unsigned char> large;
  unsigned char * const data = detail::ScratchBuffer(m_LookupTableBytes + 4 + m_CompressedBytes, large);
  f.Read(data, m_LookupTableBytes + 4 + m_CompressedBytes, "lookup table and compressed pixel buffer");
  const unsigned char * table = data;
  const unsigned char * compressed = table + m_LookupTableBytes + 4;
  const std::string file = std::string(Kind) + " " + m_FileName;
  const std::uint64_t differences = VarianCompressedPixels::DifferenceCount(w, h, file);
  const std::uint64_t needed = VarianCompressedPixels::BufferBytes(table, m_LookupTableBytes, w, differences, file);
  // Exactly what the table says, or that and one unused difference (the table's spare code).
  if (m_CompressedBytes < needed || m_CompressedBytes > needed + 4)
    f.Fail("compressed pixel buffer size", m_CompressedBytes,
           std::to_string(needed) + " bytes (as its lookup table says for " + std::to_string(w) + " x " + std::to_string(h) + " pixels)");
  VarianCompressedPixels::Decode(table, m_LookupTableBytes, compressed, m_CompressedBytes, w, h, static_cast<std::uint32_t *>(buffer), file);
}

void
XimImageIO::WriteImageInformation()
{
  itkExceptionMacro(<< "XimImageIO does not write XIM files");
}

void
XimImageIO::Write(const void *)
{
  itkExceptionMacro(<< "XimImageIO does not write XIM files");
}

void
XimImageIO::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Compressed: " << m_Compressed << "\n";
  os << indent << "BytesPerPixel: " << m_BytesPerPixel << "\n";
  os << indent << "PixelDataOffset: " << m_PixelDataOffset << "\n";
}

} // namespace cbct
