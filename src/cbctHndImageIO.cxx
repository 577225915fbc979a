#include "cbctHndImageIO.h"

#include "cbctCheckedBinaryFile.h"
#include "cbctVarianCompressedPixels.h"

#include <itkByteSwapper.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cbct
{

namespace
{
/** One header field: its name, offset and kind ('s' characters of `size` bytes, 'u' uint32, 'd'
 * double). */
struct Field
{
  std::string name;
  std::size_t offset;
  char kind;
  std::size_t size;
};

const std::vector<Field> &
HeaderFields()
{
  static const std::vector<Field> fields = [] {
    std::vector<Field> f;
    std::size_t at = 0;
    const auto add = [&](const char * name, char kind, std::size_t size) {
      f.push_back({ name, at, kind, size });
      at += size;
    };
    add("sFileType", 's', 32);
    add("FileLength", 'u', 4);
    add("sChecksumSpec", 's', 4);
    add("nCheckSum", 'u', 4);
    add("sCreationDate", 's', 8);
    add("sCreationTime", 's', 8);
    add("sPatientID", 's', 16);
    add("nPatientSer", 'u', 4);
    add("sSeriesID", 's', 16);
    add("nSeriesSer", 'u', 4);
    add("sSliceID", 's', 16);
    add("nSliceSer", 'u', 4);
    add("SizeX", 'u', 4);
    add("SizeY", 'u', 4);
    add("dSliceZPos", 'd', 8);
    add("sModality", 's', 16);
    add("nWindow", 'u', 4);
    add("nLevel", 'u', 4);
    add("nPixelOffset", 'u', 4);
    add("sImageType", 's', 4);
    for (const char * name :
         { "dGantryRtn",      "dSAD",           "dSFD",
           "dCollX1",         "dCollX2",        "dCollY1",
           "dCollY2",         "dCollRtn",       "dFieldX",
           "dFieldY",         "dBladeX1",       "dBladeX2",
           "dBladeY1",        "dBladeY2",       "dIDUPosLng",
           "dIDUPosLat",      "dIDUPosVrt",     "dIDUPosRtn",
           "dPatientSupportAngle", "dTableTopEccentricAngle", "dCouchVrt",
           "dCouchLng",       "dCouchLat",      "dIDUResolutionX",
           "dIDUResolutionY", "dImageResolutionX", "dImageResolutionY",
           "dEnergy",         "dDoseRate",      "dXRayKV",
           "dXRayMA",         "dMetersetExposure", "dAcqAdjustment",
           "dCTProjectionAngle", "dCTNormChamber", "dGatingTimeTag",
           "dGating4DInfoX",  "dGating4DInfoY", "dGating4DInfoZ",
           "dGating4DInfoTime" })
      add(name, 'd', 8);
    return f;
  }();
  return fields;
}

constexpr std::size_t FieldBytes = 488; // the fields above

std::string
LowerExtension(const std::string & fileName)
{
  const auto dot = fileName.find_last_of('.');
  const auto slash = fileName.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return std::string();
  std::string extension = fileName.substr(dot);
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  return extension;
}
} // namespace

HndImageIO::HndImageIO()
{
  this->SetNumberOfDimensions(2);
  for (const char * extension : { ".hnd", ".HND", ".hnc", ".HNC" })
    this->AddSupportedReadExtension(extension);
}

bool
HndImageIO::CanReadFile(const char * fileName)
{
  const std::string extension = LowerExtension(fileName);
  if (extension != ".hnd" && extension != ".hnc")
    return false;
  std::FILE * file = std::fopen(fileName, "rb");
  if (file == nullptr)
    return false;
  std::fclose(file);
  return true;
}

void
HndImageIO::ReadImageInformation()
{
  this->SetMetaDataDictionary(itk::MetaDataDictionary());
  itk::MetaDataDictionary & dictionary = this->GetMetaDataDictionary();
  m_Compressed = LowerExtension(m_FileName) != ".hnc";
  const char * kind = m_Compressed ? "HND file" : "HNC file";
  const std::uint64_t headerBytes = m_Compressed ? HndHeaderBytes : HncHeaderBytes;
  detail::CheckedBinaryFile f(m_FileName, kind);

  unsigned char header[FieldBytes];
  f.Require(headerBytes, std::to_string(headerBytes) + "-byte header");
  f.Read(header, FieldBytes, "header");
  std::uint32_t width = 0, height = 0;
  double spacing[2] = { 0., 0. };
  for (const Field & field : HeaderFields())
  {
    const unsigned char * at = header + field.offset;
    if (field.kind == 's')
      itk::EncapsulateMetaData<std::string>(dictionary, field.name, detail::FieldText(reinterpret_cast<const char *>(at), field.size));
    else if (field.kind == 'u')
    {
      const auto value = detail::CheckedBinaryFile::FromLittleEndian<std::uint32_t>(at);
      itk::EncapsulateMetaData<unsigned int>(dictionary, field.name, value);
      if (field.name == "SizeX")
        width = value;
      if (field.name == "SizeY")
        height = value;
    }
    else
    {
      const auto value = detail::CheckedBinaryFile::FromLittleEndian<double>(at);
      itk::EncapsulateMetaData<double>(dictionary, field.name, value);
      if (field.name == "dIDUResolutionX")
        spacing[0] = value;
      if (field.name == "dIDUResolutionY")
        spacing[1] = value;
    }
  }
  constexpr std::uint32_t limit = 1u << 31;
  if (width < 1 || width >= limit)
    f.Fail("SizeX", width, "1 to 2^31 - 1 pixels");
  if (height < 1 || height >= limit)
    f.Fail("SizeY", height, "1 to 2^31 - 1 pixels");
  const std::uint64_t w = width, h = height;
  const std::string size = std::to_string(w) + " x " + std::to_string(h) + " pixels";
  const char * spacingNames[2] = { "dIDUResolutionX", "dIDUResolutionY" };
  for (unsigned int d = 0; d < 2; ++d)
    if (!std::isfinite(spacing[d]) || !(spacing[d] > 0.) || spacing[d] > 1e7)
      f.Fail(spacingNames[d], spacing[d], "the pixel size in mm (a finite value > 0)");

  f.Seek(headerBytes);
  m_DataBytes = f.Remaining();
  if (m_Compressed)
  {
    const std::uint64_t differences = VarianCompressedPixels::DifferenceCount(w, h, kind + std::string(" ") + m_FileName);
    const std::uint64_t table = VarianCompressedPixels::LookupTableBytes(w, h);
    f.Skip(table, "lookup table for " + size);
    const std::uint64_t least = 4 * (w + 1) + differences;
    const std::uint64_t greatest = 4 * (w + 1) + 4 * differences + 4;
    f.Require(least, "compressed pixel buffer for " + size + " (1 byte per difference at least)");
    if (f.Remaining() > greatest)
      f.Fail("compressed pixel data", std::to_string(f.Remaining()) + " bytes",
             "at most " + std::to_string(greatest) + " bytes for " + size + " (SizeX and SizeY are too small for the file)");
    this->SetComponentType(itk::IOComponentEnum::UINT);
  }
  else
  {
    const std::uint64_t bytes = 2 * w * h;
    f.Require(bytes, "pixels (" + size + " of 2 bytes)");
    if (f.Remaining() != bytes)
      f.Fail("pixel data", std::to_string(f.Remaining()) + " bytes",
             std::to_string(bytes) + " bytes (" + size + " of 2 bytes, as its header says)");
    this->SetComponentType(itk::IOComponentEnum::USHORT);
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
HndImageIO::Read(void * buffer)
{
  const char * kind = m_Compressed ? "HND file" : "HNC file";
  detail::CheckedBinaryFile f(m_FileName, kind);
  const std::uint64_t w = this->GetDimensions(0);
  const std::uint64_t h = this->GetDimensions(1);
  f.Seek(m_Compressed ? HndHeaderBytes : HncHeaderBytes);
  if (!m_Compressed)
  {
    f.Read(buffer, 2 * w * h, "pixels");
    itk::ByteSwapper<std::uint16_t>::SwapRangeFromSystemToLittleEndian(static_cast<std::uint16_t *>(buffer), w * h);
    return;
  }
  f.Require(m_DataBytes, "lookup table and compressed pixels"); // the file may have changed
  std::vector<unsigned char> large;
  unsigned char * const data = detail::ScratchBuffer(m_DataBytes, large);
  f.Read(data, m_DataBytes, "lookup table and compressed pixels");
  const std::string file = std::string(kind) + " " + m_FileName;
  const std::uint64_t table = VarianCompressedPixels::LookupTableBytes(w, h);
  const std::uint64_t differences = VarianCompressedPixels::DifferenceCount(w, h, file);
  const unsigned char * compressed = data + table;
  const std::uint64_t compressedBytes = m_DataBytes - table;
  const std::uint64_t needed = VarianCompressedPixels::BufferBytes(data, table, w, differences, file);
  if (compressedBytes < needed || compressedBytes > needed + 4)
    f.Fail("compressed pixel data", std::to_string(compressedBytes) + " bytes",
           std::to_string(needed) + " bytes (as its lookup table says for " + std::to_string(w) + " x " + std::to_string(h) +
             " pixels)" + (compressedBytes < needed ? ": the file is cut short" : ""));
  VarianCompressedPixels::Decode(data, table, compressed, compressedBytes, w, h, static_cast<std::uint32_t *>(buffer), file);
}

void
HndImageIO::WriteImageInformation()
{
  itkExceptionMacro(<< "HndImageIO does not write HND or HNC files");
}

void
HndImageIO::Write(const void *)
{
  itkExceptionMacro(<< "HndImageIO does not write HND or HNC files");
}

void
HndImageIO::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Compressed: " << m_Compressed << "\n";
}

} // namespace cbct
