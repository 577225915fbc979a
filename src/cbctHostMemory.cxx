#include "cbctHostMemory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <unistd.h>

namespace cbct
{

namespace
{
/** A value of /proc/meminfo in bytes ("MemAvailable:  123 kB"); 0 when missing. */
std::uint64_t
MemInfo(const std::string & key)
{
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::uint64_t value = 0;
  std::string unit;
  while (in >> name >> value)
  {
    std::getline(in, unit);
    if (name == key + ":")
      return value * (unit.find("kB") != std::string::npos ? 1024 : 1);
  }
  return 0;
}

/** A number from a cgroup file; 0 for "max", an absurdly large value (v1's "no limit") or none. */
std::uint64_t
CgroupNumber(const std::string & path)
{
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max")
    return 0;
  std::uint64_t value = 0;
  std::istringstream(text) >> value;
  return value >= (std::uint64_t(1) << 60) ? 0 : value;
}

/** This process's cgroup limit and usage (v2, then v1). */
void
CgroupMemory(std::uint64_t & limit, std::uint64_t & used)
{
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line))
  {
    // v2: "0::/path"; v1: "N:memory:/path" (or "N:...,memory,...:/path").
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos)
      continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty())
    {
      for (const std::string & base : { "/sys/fs/cgroup" + path, std::string("/sys/fs/cgroup") })
      {
        const std::uint64_t l = CgroupNumber(base + "/memory.max");
        if (l > 0)
        {
          limit = l;
          used = CgroupNumber(base + "/memory.current");
          return;
        }
      }
    }
    else if (("," + controllers + ",").find(",memory,") != std::string::npos)
    {
      for (const std::string & base : { "/sys/fs/cgroup/memory" + path, std::string("/sys/fs/cgroup/memory") })
      {
        const std::uint64_t l = CgroupNumber(base + "/memory.limit_in_bytes");
        if (l > 0)
        {
          limit = l;
          used = CgroupNumber(base + "/memory.usage_in_bytes");
          return;
        }
      }
    }
  }
}
} // namespace

HostMemory
HostMemory::Query()
{
  HostMemory m;
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0)
    m.physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
  m.swap = MemInfo("SwapTotal");
  m.available = MemInfo("MemAvailable");
  CgroupMemory(m.limit, m.used);
  return m;
}

std::uint64_t
HostMemory::Capacity() const
{
  std::uint64_t capacity = physical + swap;
  if (limit > 0)
    capacity = capacity > 0 ? std::min(capacity, limit) : limit;
  return capacity;
}

std::uint64_t
HostMemory::Available() const
{
  std::uint64_t free = available > 0 ? available : physical;
  if (limit > 0)
    free = std::min(free, limit > used ? limit - used : 0);
  return free;
}

std::string
HostMemory::Format(std::uint64_t bytes)
{
  const char * units[] = { "bytes", "kB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024. && unit < 6)
  {
    value /= 1024.;
    ++unit;
  }
  char text[64];
  if (unit == 0)
    std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof(text), value < 10. ? "%.2f %s" : value < 100. ? "%.1f %s" : "%.0f %s", value, units[unit]);
  return text;
}

} // namespace cbct
