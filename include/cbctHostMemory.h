#ifndef cbctHostMemory_h
#define cbctHostMemory_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <string>

namespace cbct
{

/** \class HostMemory
 * \brief How much memory this machine (or the control group this process runs in) has and has free.
 *
 * Capacity() is the most a process can ever hold: physical memory plus swap, or the control group's
 * limit (cgroup v2 memory.max, v1 memory.limit_in_bytes) when that is smaller. Available() is what
 * the kernel estimates it could give now without swapping (/proc/meminfo's MemAvailable, less what
 * the control group already uses of its limit). A need above Capacity() cannot be met; one above
 * Available() may be met slowly (swapping), or may fit once caches are dropped, or, on machines whose
 * memory grows as it is used (some virtual machines), may fit once the host adds memory: callers
 * refuse the first and warn about the second.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HostMemory
{
public:
  /** Reads sysconf(), /proc/meminfo and the cgroup files (0 where something cannot be read). */
  static HostMemory
  Query();

  std::uint64_t
  Capacity() const;
  std::uint64_t
  Available() const;

  std::uint64_t physical = 0;  // bytes of RAM (sysconf _SC_PHYS_PAGES x _SC_PAGE_SIZE)
  std::uint64_t swap = 0;      // bytes of swap (/proc/meminfo SwapTotal)
  std::uint64_t available = 0; // /proc/meminfo MemAvailable (0: unknown)
  std::uint64_t limit = 0;     // the control group's limit (0: none)
  std::uint64_t used = 0;      // what the control group uses now (0: unknown)

  /** "12.3 GiB", "512 MiB", "1.5 kB"... */
  static std::string
  Format(std::uint64_t bytes);
};

} // namespace cbct

#endif
