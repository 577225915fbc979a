#ifndef cbctMemorySize_h
#define cbctMemorySize_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <string>

namespace cbct
{

/** \class MemorySize
 * \brief A number of bytes as people write it: "8G", "512M", "1.5GiB", "300000000".
 *
 * The units are binary, as `free -g` and most tools that take a memory size count them (K = 1024,
 * M = 1024^2, G = 1024^3, T = 1024^4), with or without a trailing "B" or "iB" and in either case;
 * a bare number is bytes. What a memory budget (`--memory`, `--gpu-memory`, Python's `memory=`)
 * accepts.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT MemorySize
{
public:
  /** The bytes `text` names; throws itk::ExceptionObject naming `what` (e.g. "--memory"), the text
   * and what was expected when it is not a size > 0 (or beyond 2^63 bytes). */
  static std::uint64_t
  Parse(const std::string & text, const std::string & what);
};

} // namespace cbct

#endif
