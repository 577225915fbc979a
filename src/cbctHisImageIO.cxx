#include "cbctHisImageIO.h"

#include <itkByteSwapper.h>
#include <itkMetaDataObject.h>
#include <itksys/SystemTools.hxx>

#include <cstring>
#include <fstream>
#include <sstream>

namespace cbct
{

namespace
{
[[noreturn]] void
ThrowDamaged(const std::string & path, const std::string & what)
{
  itkGenericExceptionMacro(<< "HIS file " << path << ": " << what);
}

std::uint16_t
Get16(const unsigned char * bytes)
{
  return static_cast<std::uint16_t>(bytes[0] | (bytes[1] << 8));
}

std::uint32_t
Get32(const unsigned char * bytes)
{
  return static_cast<std::uint32_t>(bytes[0]) | (static_cast<std::uint32_t>(bytes[1]) << 8) |
         (static_cast<std::uint32_t>(bytes[2]) << 16) | (static_cast<std::uint32_t>(bytes[3]) << 24);
}

double
GetDouble(const unsigned char * bytes)
{
  std::uint64_t bits = 0;
  for (int i = 7; i >= 0; --i)
    bits = (bits << 8) | bytes[i];
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
} // namespace

HisImageIO::HisImageIO()
{
  this->SetNumberOfDimensions(2);
  this->SetComponentType(itk::IOComponentEnum::USHORT);
  this->SetPixelType(itk::IOPixelEnum::SCALAR);
  this->SetNumberOfComponents(1);
  this->SetByteOrderToLittleEndian();
  this->AddSupportedReadExtension(".his");
  this->AddSupportedReadExtension(".HIS");
}

HisImageIO::Header
HisImageIO::ReadHeader(const std::string & path)
{
  std::ifstream file(path, std::ios::binary);
  if (!file || itksys::SystemTools::FileIsDirectory(path))
  {
    ThrowDamaged(path, "cannot be opened for reading");
  }
  Header h;
  file.seekg(0, std::ios::end);
  const std::streamoff end = file.tellg();
  if (end < 0)
  {
    ThrowDamaged(path, "its size cannot be determined");
  }
  h.actualFileSize = static_cast<std::uint64_t>(end);
  file.seekg(0, std::ios::beg);
  unsigned char bytes[FileHeaderSize];
  file.read(reinterpret_cast<char *>(bytes), FileHeaderSize);
  if (file.gcount() != static_cast<std::streamsize>(FileHeaderSize))
  {
    std::ostringstream what;
    what << "truncated: " << h.actualFileSize << " bytes, shorter than the " << FileHeaderSize << "-byte header";
    ThrowDamaged(path, what.str());
  }
  h.fileType = Get16(bytes + 0);
  h.headerSize = Get16(bytes + 2);
  h.headerVersion = Get16(bytes + 4);
  h.fileSize = Get32(bytes + 6);
  h.imageHeaderSize = Get16(bytes + 10);
  h.ulx = Get16(bytes + 12);
  h.uly = Get16(bytes + 14);
  h.brx = Get16(bytes + 16);
  h.bry = Get16(bytes + 18);
  h.numberOfFrames = Get16(bytes + 20);
  h.correction = Get16(bytes + 22);
  h.integrationTime = GetDouble(bytes + 24);
  h.typeOfNumbers = Get16(bytes + 32);

  std::ostringstream what;
  if (h.fileType != FileTypeMagic)
  {
    what << "file type is 0x" << std::hex << h.fileType << "; expected 0x7000 (not a Heimann HIS file)";
    ThrowDamaged(path, what.str());
  }
  if (h.headerSize != FileHeaderSize)
  {
    what << "header size is " << h.headerSize << "; expected " << FileHeaderSize << " (the only HIS header known)";
    ThrowDamaged(path, what.str());
  }
  // Unsigned 16-bit corners: BRX < ULX would be a negative width (plastimatch reads them as signed
  // shorts; either way the rectangle is empty).
  if (h.brx < h.ulx || h.bry < h.uly)
  {
    what << "image rectangle ULX..BRX = " << h.ulx << ".." << h.brx << ", ULY..BRY = " << h.uly << ".." << h.bry
         << " gives a width or height below 1; expected BRX >= ULX and BRY >= ULY";
    ThrowDamaged(path, what.str());
  }
  h.width = static_cast<unsigned int>(h.brx - h.ulx) + 1;
  h.height = static_cast<unsigned int>(h.bry - h.uly) + 1;
  if (h.numberOfFrames == 0)
  {
    ThrowDamaged(path, "number of frames is 0; expected at least 1");
  }
  h.dataOffset = FileHeaderSize + static_cast<std::uint64_t>(h.imageHeaderSize);
  if (h.dataOffset > h.actualFileSize)
  {
    what << "image header size " << h.imageHeaderSize << " puts the pixels at byte " << h.dataOffset
         << ", past the end of the file (" << h.actualFileSize << " bytes)";
    ThrowDamaged(path, what.str());
  }
  // At most 65535^3 x 2 bytes: no overflow in 64 bits.
  h.dataBytes = static_cast<std::uint64_t>(h.numberOfFrames) * h.width * h.height * sizeof(std::uint16_t);
  if (h.dataBytes > h.actualFileSize - h.dataOffset)
  {
    what << "truncated or lying header: " << h.numberOfFrames << " frame(s) of " << h.width << " x " << h.height
         << " 16-bit pixels need " << h.dataBytes << " bytes after byte " << h.dataOffset << ", the file holds "
         << (h.actualFileSize - h.dataOffset);
    ThrowDamaged(path, what.str());
  }
  return h;
}

bool
HisImageIO::CanReadFile(const char * fileName)
{
  if (fileName == nullptr)
    return false;
  const std::string extension = itksys::SystemTools::LowerCase(itksys::SystemTools::GetFilenameLastExtension(fileName));
  return extension == ".his";
}

void
HisImageIO::ReadImageInformation()
{
  m_Header = ReadHeader(m_FileName);
  const Header & h = m_Header;

  const bool stack = h.numberOfFrames > 1;
  this->SetNumberOfDimensions(stack ? 3 : 2);
  this->SetComponentType(itk::IOComponentEnum::USHORT);
  this->SetPixelType(itk::IOPixelEnum::SCALAR);
  this->SetNumberOfComponents(1);
  this->SetByteOrderToLittleEndian();
  this->SetDimensions(0, h.width);
  this->SetDimensions(1, h.height);
  this->SetSpacing(0, PanelWidth / h.width);
  this->SetSpacing(1, PanelWidth / h.height);
  this->SetOrigin(0, -0.5 * (h.width - 1.) * this->GetSpacing(0));
  this->SetOrigin(1, -0.5 * (h.height - 1.) * this->GetSpacing(1));
  if (stack)
  {
    this->SetDimensions(2, h.numberOfFrames);
    this->SetSpacing(2, 1.);
    this->SetOrigin(2, 0.);
  }

  itk::MetaDataDictionary & dictionary = this->GetMetaDataDictionary();
  dictionary = itk::MetaDataDictionary();
  itk::EncapsulateMetaData<int>(dictionary, "HIS_FileType", h.fileType);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_HeaderSize", h.headerSize);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_HeaderVersion", h.headerVersion);
  itk::EncapsulateMetaData<unsigned int>(dictionary, "HIS_FileSize", h.fileSize);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_ImageHeaderSize", h.imageHeaderSize);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_ULX", h.ulx);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_ULY", h.uly);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_BRX", h.brx);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_BRY", h.bry);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_NumberOfFrames", h.numberOfFrames);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_Correction", h.correction);
  itk::EncapsulateMetaData<double>(dictionary, "HIS_IntegrationTime", h.integrationTime);
  itk::EncapsulateMetaData<int>(dictionary, "HIS_TypeOfNumbers", h.typeOfNumbers);
}

void
HisImageIO::Read(void * buffer)
{
  // The file may have changed since ReadImageInformation(): check it again, and read no more than
  // the image ITK allocated for.
  const Header h = ReadHeader(m_FileName);
  if (h.width != m_Header.width || h.height != m_Header.height || h.numberOfFrames != m_Header.numberOfFrames ||
      h.dataOffset != m_Header.dataOffset)
  {
    ThrowDamaged(m_FileName, "changed between reading its header and its pixels");
  }
  const std::uint64_t bytes = this->GetImageSizeInBytes();
  if (bytes != h.dataBytes)
  {
    std::ostringstream what;
    what << "ITK asked for " << bytes << " bytes of pixels; the file holds " << h.dataBytes
         << " (a HIS file is read whole)";
    ThrowDamaged(m_FileName, what.str());
  }
  std::ifstream file(m_FileName, std::ios::binary);
  file.seekg(static_cast<std::streamoff>(h.dataOffset), std::ios::beg);
  file.read(static_cast<char *>(buffer), static_cast<std::streamsize>(bytes));
  if (!file || file.gcount() != static_cast<std::streamsize>(bytes))
  {
    std::ostringstream what;
    what << "read " << file.gcount() << " of " << bytes << " bytes of pixels";
    ThrowDamaged(m_FileName, what.str());
  }
  itk::ByteSwapper<std::uint16_t>::SwapRangeFromSystemToLittleEndian(static_cast<std::uint16_t *>(buffer),
                                                                     static_cast<itk::SizeValueType>(bytes / 2));
}

void
HisImageIO::Write(const void *)
{
  itkExceptionMacro(<< "HisImageIO cannot write " << m_FileName << ": HIS is read only");
}

void
HisImageIO::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Width x height x frames: " << m_Header.width << " x " << m_Header.height << " x "
     << m_Header.numberOfFrames << std::endl;
  os << indent << "Correction: " << m_Header.correction << std::endl;
  os << indent << "IntegrationTime (us): " << m_Header.integrationTime << std::endl;
}

} // namespace cbct
