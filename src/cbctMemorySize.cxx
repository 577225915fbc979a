#include "cbctMemorySize.h"

#include "cbctInputChecks.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace cbct
{

std::uint64_t
MemorySize::Parse(const std::string & text, const std::string & what)
{
  const std::string expected = "a memory size > 0 such as 8G, 512M or 1.5GiB (K, M, G, T: powers of 1024; a bare "
                               "number is bytes)";
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  const std::string trimmed = text.substr(begin, end - begin);
  if (trimmed.empty() || !(std::isdigit(static_cast<unsigned char>(trimmed[0])) || trimmed[0] == '.'))
    ThrowBadParameter(what, "'" + text + "'", expected);
  char * stop = nullptr;
  const double number = std::strtod(trimmed.c_str(), &stop);
  std::string unit(stop);
  unit.erase(0, unit.find_first_not_of(" \t")); // "8 G" as "8G"
  for (char & c : unit)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0.;
  const char * units = "KMGT";
  if (unit.empty() || unit == "B")
    scale = 1.;
  else
    for (int u = 0; u < 4; ++u)
      if (unit == std::string(1, units[u]) || unit == std::string(1, units[u]) + "B" ||
          unit == std::string(1, units[u]) + "IB")
        scale = std::ldexp(1., 10 * (u + 1));
  const double bytes = number * scale;
  if (scale == 0. || !std::isfinite(bytes) || !(bytes >= 1.) || bytes >= std::ldexp(1., 63))
    ThrowBadParameter(what, "'" + text + "'", expected);
  return static_cast<std::uint64_t>(std::llround(bytes));
}

} // namespace cbct
