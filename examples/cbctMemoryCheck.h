#ifndef cbctMemoryCheck_h
#define cbctMemoryCheck_h

// What a run will allocate, compared with what the machine has, before it allocates it.
//
// The apps add up the large buffers a run certainly holds at once (the projection stack, the
// volume and the method's own volume- and projection-sized buffers: a lower bound, measured against
// the peak resident memory of each app, see README) and compare the sum with cbct::HostMemory:
// - more than the machine can ever hold (RAM plus swap, or the control group's limit): an error
//   that says both numbers and what would make it fit (--divisions, a smaller volume);
// - more than is available now (MemAvailable): a warning, since the kernel may free caches, swap,
//   or (on virtual machines whose memory grows as it is used) get more.
// CBCT_MEMORY_CHECK=warn makes the error a warning, CBCT_MEMORY_CHECK=off skips the check: for
// machines where the kernel reports less memory than a process can get.
#include "cbctAppSupport.h"
#include "cbctHostMemory.h"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace cbct::apps
{

/** Bytes of `count` float values (saturating: a need beyond 2^64 bytes stays beyond). */
inline std::uint64_t
FloatBytes(std::uint64_t count, std::uint64_t copies = 1)
{
  std::uint64_t bytes;
  if (__builtin_mul_overflow(count, std::uint64_t(sizeof(float)), &bytes) || __builtin_mul_overflow(bytes, copies, &bytes))
    return std::numeric_limits<std::uint64_t>::max();
  return bytes;
}

/** The large buffers a run holds at once, each named, and what would make them fit. */
struct MemoryNeed
{
  struct Part
  {
    std::string what;
    std::uint64_t bytes;
  };
  std::vector<Part> parts;
  std::string remedy; // "give a smaller volume (--dimension, a coarser --spacing) or more --divisions"

  void
  Add(const std::string & what, std::uint64_t bytes)
  {
    if (bytes > 0)
      parts.push_back({ what, bytes });
  }
  std::uint64_t
  Total() const
  {
    std::uint64_t total = 0;
    for (const Part & p : parts)
      total = total > std::numeric_limits<std::uint64_t>::max() - p.bytes ? std::numeric_limits<std::uint64_t>::max()
                                                                           : total + p.bytes;
    return total;
  }
  /** "9.0 GiB (projections 1.0 GiB, volume 8.0 GiB)" */
  std::string
  Describe() const
  {
    std::ostringstream text;
    text << cbct::HostMemory::Format(this->Total()) << " (";
    for (std::size_t i = 0; i < parts.size(); ++i)
      text << (i ? ", " : "") << parts[i].what << " " << cbct::HostMemory::Format(parts[i].bytes);
    text << ")";
    return text.str();
  }
};

/** Compares `need` with this machine's memory: throws Error when it can never fit, warns when it
 * does not fit in what is available now (see the top of this file). `task`: "the reconstruction". */
inline void
CheckMemory(const std::string & task, const MemoryNeed & need, const cbct::HostMemory & host = cbct::HostMemory::Query())
{
  const char * setting = std::getenv("CBCT_MEMORY_CHECK");
  const std::string mode = setting == nullptr ? "error" : setting;
  if (mode == "off")
    return;
  const std::uint64_t total = need.Total();
  const std::uint64_t capacity = host.Capacity();
  if (capacity > 0 && total > capacity)
  {
    std::ostringstream has;
    has << cbct::HostMemory::Format(capacity) << " (RAM " << cbct::HostMemory::Format(host.physical) << ", swap "
        << cbct::HostMemory::Format(host.swap);
    if (host.limit > 0)
      has << ", control group limit " << cbct::HostMemory::Format(host.limit);
    has << ")";
    const std::string message = task + " needs at least " + need.Describe() + " of memory; this machine has " + has.str() +
                                ": " + need.remedy;
    if (mode != "warn")
      throw Error(message + " (CBCT_MEMORY_CHECK=warn runs it anyway)");
    PrintWarning(message);
    return;
  }
  const std::uint64_t available = host.Available();
  if (available > 0 && total > available)
    PrintWarning(task + " needs at least " + need.Describe() + " of memory, more than the " +
                 cbct::HostMemory::Format(available) + " available now: it may swap, or be stopped by the system (" +
                 need.remedy + ")");
}

} // namespace cbct::apps

#endif
