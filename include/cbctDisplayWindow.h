#ifndef cbctDisplayWindow_h
#define cbctDisplayWindow_h

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cbct
{

/** \brief A display window: values from `lower` (black) to `upper` (white).
 *
 * Width() and Level() are the radiologist's window and level (centre). */
struct DisplayWindow
{
  double lower = 0.;
  double upper = 1.;

  double
  Width() const
  {
    return upper - lower;
  }
  double
  Level() const
  {
    return 0.5 * (lower + upper);
  }
};

namespace detail
{
/** Finite values of `values`, every `step`-th one so that at most about `limit` are kept, sorted. */
inline std::vector<float>
SortedFiniteSamples(const float * values, std::size_t count, std::size_t limit = 2000000)
{
  std::vector<float> samples;
  if (values == nullptr)
    return samples;
  const std::size_t step = std::max<std::size_t>(1, count / limit);
  samples.reserve(count / step + 1);
  for (std::size_t i = 0; i < count; i += step)
    if (std::isfinite(values[i]))
      samples.push_back(values[i]);
  std::sort(samples.begin(), samples.end());
  return samples;
}

inline double
Quantile(const std::vector<float> & sorted, double fraction)
{
  return sorted[static_cast<std::size_t>(fraction * static_cast<double>(sorted.size() - 1))];
}

/** A window around one value when all values are (nearly) equal: ±10 % of it, or ±0.5 at zero. */
inline DisplayWindow
AroundValue(double value)
{
  const double half = value != 0. ? 0.1 * std::abs(value) : 0.5;
  return { value - half, value + half };
}
} // namespace detail

/** \brief The window from the `lowFraction` to the `highFraction` quantile of the finite values
 * (e.g. 0.01 and 0.999: the whole range without a few outliers; bone and air both visible, soft
 * tissue a flat grey). Empty or all non-finite input: 0..1; a single value: ±10 % around it. */
inline DisplayWindow
QuantileWindow(const float * values, std::size_t count, double lowFraction, double highFraction)
{
  const std::vector<float> samples = detail::SortedFiniteSamples(values, count);
  if (samples.empty())
    return {};
  const double lower = detail::Quantile(samples, lowFraction), upper = detail::Quantile(samples, highFraction);
  return upper > lower ? DisplayWindow{ lower, upper } : detail::AroundValue(lower);
}

/** \brief A window that shows soft tissue: centred on the dominant peak of the histogram above the
 * background, as wide as that peak's spread.
 *
 * A reconstructed head is mostly air (about 0 in attenuation, about -1000 in Hounsfield units),
 * then soft tissue in a narrow peak, then a thin tail of bone. A window from the lowest to the
 * highest values (percentiles) spends the grey levels on air-to-bone, and the few percent of
 * contrast inside soft tissue (the ventricles and small lesions of the Shepp-Logan head: 1.00 and
 * 1.03 in brain of 1.02) become invisible. This window instead:
 * - takes a 512-bin histogram of the finite values between the 0.1th and 99.9th percentiles
 *   (at most about two million samples), smoothed by a Gaussian of 1.5 bins;
 * - splits it in two by Otsu's threshold. The lower class is background when it is air: its mode
 *   nearer zero than half the distance to the upper class's mode (attenuation), or below -500
 *   (Hounsfield units); what is not background starts at the valley between the two modes. A volume of tissue and bone only (no air) is split between those two, and
 *   its lower class's mode is no nearer zero than that, so nothing is taken away;
 * - finds the dominant peak (the mode) of what is not background, and its spread from the peak's
 *   half width at half maximum (sigma = HWHM / 1.1774);
 * - centres the window on the mode, 4 sigma either side, but at least 5 % and at most 25 % of the
 *   distance from the background's mode to the peak (without background: of the 0.1th-99.9th
 *   percentile range) either side, so that a noise-free volume still gets a usable window and a
 *   broad peak does not swallow bone and air. Bone above the window saturates white.
 *
 * Empty or all non-finite input: 0..1; a single value: ±10 % around it. */
inline DisplayWindow
SoftTissueWindow(const float * values, std::size_t count)
{
  const std::vector<float> samples = detail::SortedFiniteSamples(values, count);
  if (samples.empty())
    return {};
  const double lo = detail::Quantile(samples, 0.001), hi = detail::Quantile(samples, 0.999);
  if (!(hi > lo))
    return detail::AroundValue(detail::Quantile(samples, 0.5));

  constexpr int bins = 512;
  const double binWidth = (hi - lo) / bins;
  std::vector<double> histogram(bins, 0.);
  for (const float v : samples)
    if (v >= lo && v <= hi)
      histogram[std::min(bins - 1, static_cast<int>((v - lo) / binWidth))] += 1.;
  auto centre = [&](int bin) { return lo + (bin + 0.5) * binWidth; };

  // Smoothed by a Gaussian of 1.5 bins, so that the mode is not one noisy bin.
  constexpr int radius = 5;
  double kernel[2 * radius + 1];
  for (int k = -radius; k <= radius; ++k)
    kernel[k + radius] = std::exp(-0.5 * (k / 1.5) * (k / 1.5));
  std::vector<double> smooth(bins, 0.);
  for (int i = 0; i < bins; ++i)
  {
    double sum = 0., weight = 0.;
    for (int k = -radius; k <= radius; ++k)
      if (i + k >= 0 && i + k < bins)
      {
        sum += kernel[k + radius] * histogram[i + k];
        weight += kernel[k + radius];
      }
    smooth[i] = sum / weight;
  }

  // Otsu's threshold: the split (bins below `split` / from `split` on) of largest between-class variance.
  double total = 0., totalMoment = 0.;
  for (int i = 0; i < bins; ++i)
  {
    total += histogram[i];
    totalMoment += i * histogram[i];
  }
  int split = 1;
  double best = -1., below = 0., belowMoment = 0.;
  for (int t = 1; t < bins; ++t)
  {
    below += histogram[t - 1];
    belowMoment += (t - 1) * histogram[t - 1];
    const double above = total - below;
    if (below <= 0. || above <= 0.)
      continue;
    const double difference = belowMoment / below - (totalMoment - belowMoment) / above;
    const double variance = below * above * difference * difference;
    if (variance > best)
    {
      best = variance;
      split = t;
    }
  }
  // The highest local maximum of smooth in [first, last): a class's mode, never the flank of the
  // neighbouring class's peak that spills over the split (its bins fall away from the split).
  auto mode = [&](int first, int last) {
    int best = -1;
    for (int i = first; i < last; ++i)
      if ((i == 0 || smooth[i] >= smooth[i - 1]) && (i == bins - 1 || smooth[i] >= smooth[i + 1]) &&
          (best < 0 || smooth[i] > smooth[best]))
        best = i;
    return best >= 0 ? best
                     : static_cast<int>(std::max_element(smooth.begin() + first, smooth.begin() + last) - smooth.begin());
  };
  const int lowerMode = mode(0, split), upperMode = mode(split, bins);
  const double air = centre(lowerMode), above = centre(upperMode);
  const bool background = std::abs(air) < 0.5 * (above - air) || air < -500.;

  // The non-background part starts at the valley between the two modes (not at Otsu's split, which
  // may lie on the background peak's smoothed flank when the classes are far apart).
  const int valley =
    static_cast<int>(std::min_element(smooth.begin() + lowerMode, smooth.begin() + upperMode + 1) - smooth.begin());
  const int first = background ? valley : 0;
  const int peak = mode(first, bins);
  // Half width at half maximum, interpolated between the bins either side of the half height.
  const double half = 0.5 * smooth[peak];
  auto crossing = [&](int step) {
    int i = peak;
    while (i + step >= first && i + step < bins && smooth[i + step] > half)
      i += step;
    if (i + step < first || i + step >= bins)
      return static_cast<double>(i);
    const double a = smooth[i], b = smooth[i + step];
    return i + step * (a - half) / (a - b);
  };
  const double hwhm = 0.5 * (crossing(1) - crossing(-1)) * binWidth;
  const double sigma = hwhm / 1.1774;
  const double mid = centre(peak);
  const double distance = background ? mid - air : hi - lo;
  const double reach = std::clamp(4. * sigma, 0.05 * distance, 0.25 * distance);
  return { mid - reach, mid + reach };
}

} // namespace cbct

#endif
