#include "cbctMicroCTScanSupport.h"

#include <itkMacro.h>
#include <itksys/Directory.hxx>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace cbct::detail
{

std::string
LowerCase(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool
EndsWithNoCase(const std::string & name, const std::string & suffix)
{
  return name.size() >= suffix.size() && LowerCase(name.substr(name.size() - suffix.size())) == LowerCase(suffix);
}

std::vector<std::string>
FilesInFolder(const std::string & folder)
{
  itksys::Directory directory;
  if (!directory.Load(folder))
    itkGenericExceptionMacro(<< "folder " << folder << " cannot be listed");
  std::vector<std::string> names;
  for (unsigned long i = 0; i < directory.GetNumberOfFiles(); ++i)
  {
    const std::string name = directory.GetFile(i);
    if (name == "." || name == "..")
      continue;
    if (itksys::SystemTools::FileExists(JoinPath(folder, name), true))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string
JoinPath(const std::string & folder, const std::string & name)
{
  if (folder.empty())
    return name;
  if (folder.back() == '/')
    return folder + name;
  return folder + "/" + name;
}

namespace
{
std::string
Numbered(const std::string & prefix, unsigned long number, int width, const std::string & extension)
{
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%0*lu", width, number);
  return prefix + digits + extension;
}
} // namespace

std::vector<std::string>
NumberedTiffFiles(const std::string & folder,
                  const std::string & prefix,
                  unsigned long first,
                  unsigned long count,
                  const std::string & source)
{
  static const char * const extensions[] = { ".tif", ".tiff", ".TIF", ".TIFF" };
  int width = 0;
  std::string extension;
  for (int w = 4; w <= 8 && width == 0; ++w)
    for (const char * e : extensions)
      if (itksys::SystemTools::FileExists(JoinPath(folder, Numbered(prefix, first, w, e)), true))
      {
        width = w;
        extension = e;
        break;
      }
  if (width == 0)
    itkGenericExceptionMacro(<< "projection file " << JoinPath(folder, Numbered(prefix, first, 4, ".tif"))
                             << " (named by " << source << ") does not exist; expected " << count
                             << " TIFF files numbered from " << first
                             << " (4 to 8 digits, .tif or .tiff)");
  std::vector<std::string> files;
  files.reserve(count);
  for (unsigned long k = 0; k < count; ++k)
  {
    const std::string file = JoinPath(folder, Numbered(prefix, first + k, width, extension));
    if (!itksys::SystemTools::FileExists(file, true))
      itkGenericExceptionMacro(<< "projection file " << file << " does not exist; " << source << " lists " << count
                               << " projections, numbered from " << first << " (the files stop after "
                               << k << ")");
    files.push_back(file);
  }
  return files;
}

void
CheckReadingsShape(const itk::Image<float, 3> * readings,
                   unsigned long columns,
                   unsigned long rows,
                   std::size_t count,
                   const std::string & source)
{
  if (readings == nullptr)
    itkGenericExceptionMacro(<< "no readings given to convert (" << source << ")");
  const auto size = readings->GetBufferedRegion().GetSize();
  if (size[0] != columns || size[1] != rows || size[2] != count)
    itkGenericExceptionMacro(<< "the readings are " << size[0] << " x " << size[1] << " x " << size[2]
                             << " (columns x rows x projections); " << source << " describes " << columns << " x "
                             << rows << " x " << count);
}

} // namespace cbct::detail
