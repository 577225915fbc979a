#include "cbctDBaseTable.h"

#include <itkMacro.h>
#include <itksys/SystemTools.hxx>

#include <cctype>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <locale>
#include <sstream>

namespace cbct
{

namespace
{
[[noreturn]] void
ThrowDamaged(const std::string & path, const std::string & what)
{
  itkGenericExceptionMacro(<< "dBase table " << path << ": " << what);
}

std::string
Upper(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string
Stripped(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}
} // namespace

DBaseTable
DBaseTable::Read(const std::string & path)
{
  std::ifstream file(path, std::ios::binary);
  if (!file || itksys::SystemTools::FileIsDirectory(path))
  {
    ThrowDamaged(path, "cannot be opened for reading");
  }
  file.seekg(0, std::ios::end);
  const std::streamoff end = file.tellg();
  if (end < 0)
  {
    ThrowDamaged(path, "its size cannot be determined");
  }
  const auto fileSize = static_cast<std::uint64_t>(end);
  file.seekg(0, std::ios::beg);

  std::ostringstream what;
  unsigned char prefix[32];
  file.read(reinterpret_cast<char *>(prefix), sizeof prefix);
  if (file.gcount() != static_cast<std::streamsize>(sizeof prefix))
  {
    what << "truncated: " << fileSize << " bytes, shorter than the 32-byte table header";
    ThrowDamaged(path, what.str());
  }
  if ((prefix[0] & 0x07) != 3)
  {
    what << "version byte is 0x" << std::hex << static_cast<int>(prefix[0])
         << "; expected a dBase III table (low three bits 3, e.g. 0x03 or 0x83)";
    ThrowDamaged(path, what.str());
  }
  const std::uint32_t numberOfRecords = static_cast<std::uint32_t>(prefix[4]) |
                                        (static_cast<std::uint32_t>(prefix[5]) << 8) |
                                        (static_cast<std::uint32_t>(prefix[6]) << 16) |
                                        (static_cast<std::uint32_t>(prefix[7]) << 24);
  const unsigned int headerSize = prefix[8] | (prefix[9] << 8);
  const unsigned int recordSize = prefix[10] | (prefix[11] << 8);
  // The smallest table: the 32-byte prefix, one 32-byte descriptor, the 0x0D.
  if (headerSize < 32 + 32 + 1)
  {
    what << "header size is " << headerSize << "; expected at least 65 (prefix, one field, end mark)";
    ThrowDamaged(path, what.str());
  }
  if (headerSize > fileSize)
  {
    what << "header size " << headerSize << " is past the end of the file (" << fileSize << " bytes)";
    ThrowDamaged(path, what.str());
  }
  std::string header(headerSize, '\0');
  file.seekg(0, std::ios::beg);
  file.read(&header[0], headerSize);
  if (file.gcount() != static_cast<std::streamsize>(headerSize))
  {
    ThrowDamaged(path, "the header could not be read whole");
  }

  DBaseTable table;
  table.m_FileName = path;
  std::size_t position = 32;
  std::size_t offset = 1; // after the deletion flag
  bool ended = false;
  while (position < headerSize)
  {
    if (static_cast<unsigned char>(header[position]) == 0x0D)
    {
      ended = true;
      break;
    }
    if (position + 32 > headerSize)
    {
      what << "field descriptor " << table.m_Fields.size() + 1 << " at byte " << position
           << " runs past the header's end (" << headerSize << " bytes)";
      ThrowDamaged(path, what.str());
    }
    const char * d = header.data() + position;
    Field field;
    std::size_t nameLength = 0;
    while (nameLength < 11 && d[nameLength] != '\0')
      ++nameLength;
    field.name = std::string(d, nameLength);
    for (char c : field.name)
    {
      if (!std::isprint(static_cast<unsigned char>(c)))
      {
        what << "field descriptor " << table.m_Fields.size() + 1 << " at byte " << position
             << " has a name that is not printable text";
        ThrowDamaged(path, what.str());
      }
    }
    field.name = Stripped(field.name);
    if (field.name.empty())
    {
      what << "field descriptor " << table.m_Fields.size() + 1 << " at byte " << position << " has no name";
      ThrowDamaged(path, what.str());
    }
    field.type = d[11];
    field.length = static_cast<unsigned char>(d[16]);
    field.decimals = static_cast<unsigned char>(d[17]);
    field.offset = offset;
    if (field.length == 0)
    {
      what << "field " << field.name << " has length 0; expected 1 to 255";
      ThrowDamaged(path, what.str());
    }
    offset += field.length;
    table.m_Fields.push_back(field);
    position += 32;
  }
  if (!ended)
  {
    what << "the field descriptors have no 0x0D end mark within the header (" << headerSize << " bytes)";
    ThrowDamaged(path, what.str());
  }
  if (table.m_Fields.empty())
  {
    ThrowDamaged(path, "no field descriptor; expected at least one");
  }
  if (recordSize != offset)
  {
    what << "record size is " << recordSize << "; the fields need " << offset << " (1 + the sum of their lengths)";
    ThrowDamaged(path, what.str());
  }
  const std::uint64_t recordBytes = static_cast<std::uint64_t>(numberOfRecords) * recordSize;
  if (recordBytes > fileSize - headerSize)
  {
    what << "truncated or lying header: " << numberOfRecords << " records of " << recordSize << " bytes need "
         << recordBytes << " bytes after byte " << headerSize << ", the file holds " << (fileSize - headerSize);
    ThrowDamaged(path, what.str());
  }
  table.m_Data.resize(static_cast<std::size_t>(recordBytes));
  file.seekg(headerSize, std::ios::beg);
  file.read(&table.m_Data[0], static_cast<std::streamsize>(recordBytes));
  if (file.gcount() != static_cast<std::streamsize>(recordBytes))
  {
    ThrowDamaged(path, "the records could not be read whole");
  }
  table.m_Records.reserve(numberOfRecords);
  for (std::uint32_t r = 0; r < numberOfRecords; ++r)
  {
    const std::size_t start = static_cast<std::size_t>(r) * recordSize;
    const char flag = table.m_Data[start];
    if (flag == '*')
      continue;
    if (flag != ' ')
    {
      what << "record " << r + 1 << " has deletion flag 0x" << std::hex
           << static_cast<int>(static_cast<unsigned char>(flag)) << "; expected ' ' or '*'";
      ThrowDamaged(path, what.str());
    }
    table.m_Records.push_back(start);
  }
  return table;
}

std::size_t
DBaseTable::FieldIndex(const std::string & name) const
{
  const std::string wanted = Upper(name);
  for (std::size_t i = 0; i < m_Fields.size(); ++i)
  {
    if (Upper(m_Fields[i].name) == wanted)
      return i;
  }
  return m_Fields.size();
}

bool
DBaseTable::HasField(const std::string & name) const
{
  return FieldIndex(name) < m_Fields.size();
}

std::string
DBaseTable::GetString(std::size_t record, const std::string & name) const
{
  const std::size_t index = FieldIndex(name);
  if (index == m_Fields.size())
  {
    ThrowDamaged(m_FileName, "has no field " + name);
  }
  if (record >= m_Records.size())
  {
    std::ostringstream what;
    what << "has no record " << record + 1 << " (" << m_Records.size() << " records)";
    ThrowDamaged(m_FileName, what.str());
  }
  const Field & field = m_Fields[index];
  return Stripped(m_Data.substr(m_Records[record] + field.offset, field.length));
}

double
DBaseTable::GetNumber(std::size_t record, const std::string & name) const
{
  const std::string text = this->GetString(record, name);
  // Parsed in the classic locale: a decimal point, whatever the process's locale says.
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0.;
  in >> value;
  if (text.empty() || in.fail() || !(in >> std::ws).eof() || !std::isfinite(value))
  {
    std::ostringstream what;
    what << "field " << name << " of record " << record + 1 << " is '" << text << "'; expected a finite number";
    ThrowDamaged(m_FileName, what.str());
  }
  return value;
}

} // namespace cbct
