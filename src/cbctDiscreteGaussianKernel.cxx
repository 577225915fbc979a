#include "cbctDiscreteGaussianKernel.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>

namespace cbct
{

std::vector<double>
DiscreteGaussianKernel(double variance)
{
  if (!std::isfinite(variance) || variance < 0.)
    ThrowBadParameter("discrete Gaussian variance (samples^2)", variance, "a finite value >= 0");
  if (variance == 0.)
    return { 1. };
  const double t = variance;
  // T(n) ~ exp(-n^2 / 2t) for n >> 1 and ~ (t/2)^n / n! for t << 1: start the recurrence where both
  // are negligible, far past the taps kept.
  const int start = static_cast<int>(std::ceil(12. * std::sqrt(t) + 2. * t)) + 40;
  std::vector<double> values(static_cast<std::size_t>(start) + 2, 0.);
  values[start] = 1e-300;
  for (int n = start; n >= 1; --n)
  {
    values[n - 1] = values[n + 1] + (2. * n / t) * values[n];
    if (values[n - 1] > 1e250) // rescale: only the ratios matter
      for (int m = n - 1; m <= start; ++m)
        values[m] *= 1e-250;
  }
  double sum = values[0];
  for (int n = 1; n <= start; ++n)
    sum += 2. * values[n];
  for (double & v : values)
    v /= sum;
  int radius = start;
  while (radius > 0 && values[radius] < 1e-6 * values[0])
    --radius;
  std::vector<double> taps(values.begin(), values.begin() + radius + 1);
  double kept = taps[0];
  for (int n = 1; n <= radius; ++n)
    kept += 2. * taps[n];
  for (double & v : taps)
    v /= kept;
  return taps;
}

} // namespace cbct
