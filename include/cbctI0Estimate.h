#ifndef cbctI0Estimate_h
#define cbctI0Estimate_h

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace cbct
{

/** The air intensity I0 of one projection: the reading of the pixels whose rays miss the object (the
 * dark current included, as the reading itself).
 *
 * With a finite `airThreshold`, I0 is the mean of the pixels above it (RTK's --airthres: pixels above
 * it saw air). Otherwise the air is found as the brightest population of the projection: a histogram
 * of 512 bins from the darkest pixel to the 99.9th percentile (so that a few hot pixels do not stretch
 * it), its fullest bin in the upper quarter of that range (where air is; RTK's I0 estimation searches
 * the same quarter), then the mean of the pixels within twice the peak's half width at half maximum of
 * that bin, re-centred on the mean until it settles (a mean shift: unbiased for a symmetric noise peak,
 * and finer than a bin). Each projection must then show some air; give I0 otherwise.
 *
 * Non-finite pixels are ignored. Returns NaN when there is nothing to estimate from (no finite pixel,
 * or none above `airThreshold`).
 * \ingroup ConeBeamCT
 */
template <typename TPixel>
double
EstimateI0(const TPixel * pixels, std::size_t count, double airThreshold = std::numeric_limits<double>::quiet_NaN())
{
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (std::isfinite(airThreshold))
  {
    double sum = 0.;
    std::size_t n = 0;
    for (std::size_t i = 0; i < count; ++i)
    {
      const double v = static_cast<double>(pixels[i]);
      if (std::isfinite(v) && v > airThreshold)
      {
        sum += v;
        ++n;
      }
    }
    return n > 0 ? sum / n : nan;
  }

  std::vector<double> values;
  values.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
  {
    const double v = static_cast<double>(pixels[i]);
    if (std::isfinite(v))
      values.push_back(v);
  }
  if (values.empty())
    return nan;
  const double lo = *std::min_element(values.begin(), values.end());
  std::vector<double> sorted(values);
  const std::size_t top = std::min(sorted.size() - 1, static_cast<std::size_t>(0.999 * (sorted.size() - 1) + 0.5));
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(top), sorted.end());
  const double hi = sorted[top];
  if (!(hi > lo))
    return hi; // a uniform projection

  constexpr int bins = 512;
  const double width = (hi - lo) / bins;
  std::vector<std::size_t> histogram(bins, 0);
  for (double v : values)
    if (v <= hi)
      ++histogram[std::min(bins - 1, static_cast<int>((v - lo) / width))];
  int mode = 3 * bins / 4;
  for (int b = mode; b < bins; ++b)
    if (histogram[b] >= histogram[mode])
      mode = b;
  // Half width at half maximum, in bins, on the wider side (at least one bin).
  const std::size_t half = histogram[mode] / 2;
  int left = mode, right = mode;
  while (left > 0 && histogram[left - 1] > half)
    --left;
  while (right < bins - 1 && histogram[right + 1] > half)
    ++right;
  const double reach = 2. * std::max({ mode - left, right - mode, 1 }) * width;

  double centre = lo + (mode + 0.5) * width;
  for (int iteration = 0; iteration < 50; ++iteration)
  {
    double sum = 0.;
    std::size_t n = 0;
    for (double v : values)
      if (std::abs(v - centre) <= reach)
      {
        sum += v;
        ++n;
      }
    if (n == 0)
      break;
    const double next = sum / n;
    const bool settled = std::abs(next - centre) <= 1e-9 * std::max(1., std::abs(centre));
    centre = next;
    if (settled)
      break;
  }
  return centre;
}

} // namespace cbct

#endif
