#include "cbctSortingStripeRemoval.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cbct
{

SortingStripeRemoval::SortingStripeRemoval(unsigned int size, std::size_t projections, std::size_t columns)
  : m_Size(size)
  , m_Projections(projections)
  , m_Columns(columns)
{
  if (size < 1 || size > columns)
    ThrowBadParameter("sorting stripe removal: median size", size,
                      "1 .. " + std::to_string(columns) + ", the detector's width in pixels");
  if (projections < 1 || projections > 0x7fffffffu)
    ThrowBadParameter("sorting stripe removal: projections", projections, "1 .. 2^31 - 1");
}

unsigned int
SortingStripeRemoval::AutomaticSize(std::size_t columns)
{
  const std::size_t size = columns > 2000 ? 21 : std::max<std::size_t>(5, columns / 100);
  return static_cast<unsigned int>(std::max<std::size_t>(1, std::min(size, columns)));
}

void
SortingStripeRemoval::Filter(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const
{
  const std::size_t K = m_Projections, U = m_Columns;
  struct Entry
  {
    float value;
    std::int32_t angle;
  };
  std::vector<Entry> column(K);
  std::vector<float> sorted(K * U);          // [rank][u]
  std::vector<std::int32_t> angle(K * U);    // [rank][u]: the angle the value came from
  for (std::size_t u = 0; u < U; ++u)
  {
    for (std::size_t k = 0; k < K; ++k)
      column[k] = Entry{ in[static_cast<std::ptrdiff_t>(k) * inStride + static_cast<std::ptrdiff_t>(u)] + 0.f,
                         static_cast<std::int32_t>(k) }; // + 0.f: -0 becomes +0
    std::sort(column.begin(), column.end(), [](const Entry & a, const Entry & b) {
      return a.value < b.value || (a.value == b.value && a.angle < b.angle);
    });
    for (std::size_t r = 0; r < K; ++r)
    {
      sorted[r * U + u] = column[r].value;
      angle[r * U + u] = column[r].angle;
    }
  }
  // The median of `size` sorted profiles centred on u (SciPy's window: u - size / 2 .. u - size / 2
  // + size - 1, the value of rank size / 2), mirrored at the detector's ends.
  const long long half = m_Size / 2;
  std::vector<float> window(m_Size);
  for (std::size_t r = 0; r < K; ++r)
  {
    const float * profile = sorted.data() + r * U;
    for (std::size_t u = 0; u < U; ++u)
    {
      for (unsigned int j = 0; j < m_Size; ++j)
      {
        long long i = static_cast<long long>(u) - half + j;
        if (i < 0)
          i = -1 - i;
        else if (i >= static_cast<long long>(U))
          i = 2 * static_cast<long long>(U) - 1 - i;
        window[j] = profile[i];
      }
      std::nth_element(window.begin(), window.begin() + half, window.end());
      out[static_cast<std::ptrdiff_t>(angle[r * U + u]) * outStride + static_cast<std::ptrdiff_t>(u)] = window[half];
    }
  }
}

} // namespace cbct
