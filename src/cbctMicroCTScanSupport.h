#ifndef cbctMicroCTScanSupport_h
#define cbctMicroCTScanSupport_h

// What the micro-CT scan readers (NikonScan, BrukerScan) share: numbered projection files found in
// a folder, the shape of the stacked readings checked, -log of readings with the clamped ones counted.
// Private to the library (src/).

#include <itkImage.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace cbct::detail
{

/** `text` in lower case (ASCII). */
std::string
LowerCase(std::string text);

/** Whether `name` ends with `suffix`, without regard to case. */
bool
EndsWithNoCase(const std::string & name, const std::string & suffix);

/** The names (not paths) of the plain files in `folder`, sorted; throws when it cannot be listed. */
std::vector<std::string>
FilesInFolder(const std::string & folder);

/** `folder` + "/" + `name`. */
std::string
JoinPath(const std::string & folder, const std::string & name);

/** The files `prefix` + number + extension for numbers first, first + 1, ..., first + count - 1 in
 * `folder`. The number is zero-padded to the smallest width of 4 to 8 digits, and the extension one
 * of .tif, .tiff, .TIF, .TIFF, for which the first number's file exists; every other file must then
 * exist too. Throws naming the first file looked for (and `source`, the file that lists them) when
 * one is missing. */
std::vector<std::string>
NumberedTiffFiles(const std::string & folder,
                  const std::string & prefix,
                  unsigned long first,
                  unsigned long count,
                  const std::string & source);

/** Throws unless `readings` is columns x rows x count, naming `source` and its fields. */
void
CheckReadingsShape(const itk::Image<float, 3> * readings,
                   unsigned long columns,
                   unsigned long rows,
                   std::size_t count,
                   const std::string & source);

} // namespace cbct::detail

#endif
