#ifndef cbctEndurance_h
#define cbctEndurance_h

// Shared by the endurance tests (cbctEnduranceTest, cbctCudaEnduranceTest): many reconstructions
// in one process, memory read at checkpoints.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <vector>

#include <unistd.h>

namespace cbct::test
{

/** This process's resident memory in bytes (/proc/self/statm), 0 where it cannot be read. */
inline std::uint64_t
ResidentBytes()
{
  std::FILE * file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr)
    return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(file, "%llu %llu", &size, &resident);
  std::fclose(file);
  return read == 2 ? resident * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) : 0;
}

/** Runs `once(i)` for i = 1..last and calls `measure(i)` after the runs named in `checkpoints`. */
inline void
Repeat(unsigned int last, const std::vector<unsigned int> & checkpoints, const std::function<void(unsigned int)> & once,
       const std::function<void(unsigned int)> & measure)
{
  std::size_t next = 0;
  for (unsigned int i = 1; i <= last; ++i)
  {
    once(i);
    if (next < checkpoints.size() && checkpoints[next] == i)
    {
      measure(i);
      ++next;
    }
  }
}

/** Whether this build runs under AddressSanitizer (whose quarantine holds freed memory: resident
 * memory says nothing about leaks there, LeakSanitizer does). */
constexpr bool
UnderAddressSanitizer()
{
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
  return true;
#  else
  return false;
#  endif
#else
  return false;
#endif
}

} // namespace cbct::test

#endif
