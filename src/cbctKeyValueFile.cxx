#include "cbctKeyValueFile.h"

#include <itkMacro.h>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace cbct
{
namespace
{

std::string
Trim(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string
Normalised(const std::string & name)
{
  std::string result = Trim(name);
  for (char & c : result)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

} // namespace

KeyValueFile
KeyValueFile::Read(const std::string & path)
{
  if (!itksys::SystemTools::FileExists(path, true))
    Fail(path + " does not exist or is not a file");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    Fail(path + " cannot be opened for reading");
  file.seekg(0, std::ios::end);
  const std::streamoff length = file.tellg();
  if (length < 0)
    Fail(path + " cannot be read (its length is unknown)");
  if (static_cast<unsigned long long>(length) > MaximumBytes)
    Fail(path + " is " + std::to_string(length) + " bytes long; expected a scan description of at most " +
         std::to_string(MaximumBytes) + " bytes");
  file.seekg(0, std::ios::beg);
  std::string text(static_cast<std::size_t>(length), '\0');
  if (length > 0 && !file.read(&text[0], length))
    Fail(path + " could not be read whole");
  return Parse(text, path);
}

KeyValueFile
KeyValueFile::Parse(const std::string & text, const std::string & name)
{
  if (text.size() > MaximumBytes)
    Fail(name + " is " + std::to_string(text.size()) + " bytes long; expected a scan description of at most " +
         std::to_string(MaximumBytes) + " bytes");
  const auto nul = text.find('\0');
  if (nul != std::string::npos)
    Fail(name + " holds a NUL byte at offset " + std::to_string(nul) + "; expected a text file");

  KeyValueFile result;
  result.m_Name = name;
  std::string section;
  std::size_t lineNumber = 0;
  std::size_t start = 0;
  while (start < text.size())
  {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    ++lineNumber;
    std::string line = Trim(text.substr(start, end - start));
    start = end + 1;
    // A UTF-8 byte order mark before the first line.
    if (lineNumber == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0)
      line = Trim(line.substr(3));
    if (line.empty() || line[0] == ';' || line[0] == '#')
      continue;
    if (line.front() == '[')
    {
      const auto close = line.find(']');
      if (close == std::string::npos)
        Fail(name + ": line " + std::to_string(lineNumber) + " ('" + line + "') opens a section with '[' but has no ']'");
      section = Normalised(line.substr(1, close - 1));
      if (std::find(result.m_Sections.begin(), result.m_Sections.end(), section) == result.m_Sections.end())
        result.m_Sections.push_back(section);
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos)
      continue; // free text (SkyScan logs carry some)
    Entry entry;
    entry.section = section;
    entry.key = Normalised(line.substr(0, equals));
    entry.value = Trim(line.substr(equals + 1));
    entry.line = lineNumber;
    if (!entry.key.empty())
      result.m_Entries.push_back(std::move(entry));
  }
  return result;
}

bool
KeyValueFile::HasSection(const std::string & section) const
{
  const std::string wanted = Normalised(section);
  return std::find(m_Sections.begin(), m_Sections.end(), wanted) != m_Sections.end();
}

std::string
KeyValueFile::Where(const std::string & section, const std::string & key) const
{
  return m_Name + ": [" + section + "] " + key;
}

std::optional<std::string>
KeyValueFile::Find(const std::string & section, const std::string & key, bool emptyIsAValue) const
{
  const std::string s = Normalised(section);
  const std::string k = Normalised(key);
  const Entry * found = nullptr;
  for (const Entry & entry : m_Entries)
  {
    if (entry.section != s || entry.key != k)
      continue;
    if (found == nullptr)
      found = &entry;
    else if (found->value != entry.value)
      Fail(Where(section, key) + " is given twice with different values ('" + found->value + "' on line " +
           std::to_string(found->line) + ", '" + entry.value + "' on line " + std::to_string(entry.line) +
           "); expected one value");
  }
  if (found == nullptr || (found->value.empty() && !emptyIsAValue))
    return std::nullopt;
  return found->value;
}

std::string
KeyValueFile::String(const std::string & section, const std::string & key) const
{
  if (!HasSection(section))
    Fail(Where(section, key) + " is missing: the file has no [" + section + "] section");
  const auto value = Find(section, key);
  if (!value)
    Fail(Where(section, key) + " is missing (or empty); expected a value");
  return *value;
}

bool
KeyValueFile::ParseNumber(const std::string & text, double & value)
{
  const std::string trimmed = Trim(text);
  if (trimmed.empty())
    return false;
  const char * first = trimmed.data();
  const char * last = first + trimmed.size();
  if (*first == '+') // from_chars takes no leading '+'
    ++first;
  const auto result = std::from_chars(first, last, value);
  return result.ec == std::errc() && result.ptr == last && std::isfinite(value);
}

bool
KeyValueFile::ParseInteger(const std::string & text, long long & value)
{
  const std::string trimmed = Trim(text);
  if (trimmed.empty())
    return false;
  const char * first = trimmed.data();
  const char * last = first + trimmed.size();
  if (*first == '+')
    ++first;
  const auto result = std::from_chars(first, last, value);
  return result.ec == std::errc() && result.ptr == last;
}

double
KeyValueFile::Number(const std::string & section, const std::string & key) const
{
  const std::string text = String(section, key);
  double value = 0.;
  if (!ParseNumber(text, value))
    ThrowBadValue(section, key, text, "a finite decimal number");
  return value;
}

double
KeyValueFile::Number(const std::string & section, const std::string & key, double fallback) const
{
  const auto value = OptionalNumber(section, key);
  return value ? *value : fallback;
}

std::optional<double>
KeyValueFile::OptionalNumber(const std::string & section, const std::string & key) const
{
  const auto text = Find(section, key);
  if (!text)
    return std::nullopt;
  double value = 0.;
  if (!ParseNumber(*text, value))
    ThrowBadValue(section, key, *text, "a finite decimal number");
  return value;
}

long long
KeyValueFile::Integer(const std::string & section, const std::string & key, long long minimum, long long maximum) const
{
  const std::string text = String(section, key);
  long long value = 0;
  if (!ParseInteger(text, value) || value < minimum || value > maximum)
    ThrowBadValue(section, key, text, "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum));
  return value;
}

void
KeyValueFile::ThrowBadValue(const std::string & section,
                            const std::string & key,
                            const std::string & value,
                            const std::string & expected) const
{
  Fail(Where(section, key) + " is '" + value + "'; expected " + expected);
}

} // namespace cbct
