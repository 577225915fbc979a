#include "cbctBreathingSignal.h"

#include "cbctAmsterdamShroudImageFilter.h"
#include "cbctInputChecks.h"
#include "cbctPhaseSignal.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;
constexpr std::size_t MinimumSamples = 8;

/** An orthonormal basis (modified Gram-Schmidt) of the slow changes over n samples: a constant, a
 * linear trend, and cos/sin of the first `harmonics` harmonics of the length. */
std::vector<std::vector<double>>
SlowBasis(std::size_t n, unsigned int harmonics)
{
  std::vector<std::vector<double>> basis;
  auto add = [&](std::vector<double> v) {
    for (const auto & q : basis)
    {
      const double dot = std::inner_product(v.begin(), v.end(), q.begin(), 0.);
      for (std::size_t k = 0; k < n; ++k)
        v[k] -= dot * q[k];
    }
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.));
    if (norm > 1e-9 * std::sqrt(double(n))) // dependent vectors (very short series) are left out
    {
      for (double & x : v)
        x /= norm;
      basis.push_back(std::move(v));
    }
  };
  add(std::vector<double>(n, 1.));
  std::vector<double> v(n);
  for (std::size_t k = 0; k < n; ++k)
    v[k] = double(k) / double(n) - 0.5;
  add(v);
  for (unsigned int h = 1; h <= harmonics; ++h)
  {
    std::vector<double> c(n), s(n);
    for (std::size_t k = 0; k < n; ++k)
    {
      c[k] = std::cos(2. * Pi * h * k / n);
      s[k] = std::sin(2. * Pi * h * k / n);
    }
    add(c);
    add(s);
  }
  return basis;
}

void
RemoveSlow(std::vector<double> & x, const std::vector<std::vector<double>> & basis)
{
  for (const auto & q : basis)
  {
    const double dot = std::inner_product(x.begin(), x.end(), q.begin(), 0.);
    for (std::size_t k = 0; k < x.size(); ++k)
      x[k] -= dot * q[k];
  }
}

/** Centred running mean over `window` samples (odd), over the samples available near the ends. */
std::vector<double>
RunningMean(const std::vector<double> & x, std::size_t window)
{
  const long n = static_cast<long>(x.size());
  const long half = static_cast<long>(window / 2);
  std::vector<double> prefix(n + 1, 0.);
  for (long k = 0; k < n; ++k)
    prefix[k + 1] = prefix[k] + x[k];
  std::vector<double> mean(n);
  for (long k = 0; k < n; ++k)
  {
    const long lo = std::max(0L, k - half), hi = std::min(n - 1, k + half);
    mean[k] = (prefix[hi + 1] - prefix[lo]) / double(hi - lo + 1);
  }
  return mean;
}

std::size_t
OddWindow(double length)
{
  auto w = static_cast<std::size_t>(std::max(1., std::round(length)));
  return w % 2 ? w : w + 1;
}

void
CheckSignal(const std::vector<double> & signal, const std::string & what)
{
  if (signal.size() < MinimumSamples)
    ThrowBadParameter("number of samples of " + what, signal.size(),
                      "at least " + std::to_string(MinimumSamples) + " (one per projection, over at least two breathing cycles)");
  for (std::size_t k = 0; k < signal.size(); ++k)
    if (!std::isfinite(signal[k]))
      ThrowBadParameter("sample " + std::to_string(k) + " of " + what, signal[k], "a finite number");
}

} // namespace

void
BreathingSignal::CheckOptions(const Options & o)
{
  if (!std::isfinite(o.sigma) || o.sigma < 0.)
    ThrowBadParameter("breathing signal sigma (mm)", o.sigma, "a finite value >= 0 (0: no smoothing along v)");
  if (o.slowHarmonics > 100)
    ThrowBadParameter("breathing signal slow harmonics", o.slowHarmonics, "at most 100");
  if (o.maximumStep < 1 || o.maximumStep > 1000)
    ThrowBadParameter("breathing signal maximum step (rows per projection)", o.maximumStep, "an integer from 1 to 1000");
  if (!std::isfinite(o.stepPenalty) || o.stepPenalty < 0.)
    ThrowBadParameter("breathing signal step penalty", o.stepPenalty, "a finite value >= 0");
  if (!std::isfinite(o.minimumRegularity) || o.minimumRegularity < 0. || o.minimumRegularity > 1.)
    ThrowBadParameter("breathing signal minimum regularity", o.minimumRegularity, "a value in [0, 1] (0: no check)");
  if (!std::isfinite(o.period) || o.period < 0. || (o.period > 0. && o.period < 3.))
    ThrowBadParameter("breathing period (projections)", o.period, "0 (found from the signal) or a cycle length >= 3 projections");
}

namespace
{
/** The shroud's rows less their slow changes ([j * n + k]), checked; `meanAbs` their mean |value|. */
std::vector<double>
FastShroud(const BreathingSignal::ShroudType * shroud, const BreathingSignal::Options & options, double & meanAbs)
{
  if (shroud == nullptr)
    ThrowBadParameter("Amsterdam shroud", "none", "a 2D image (columns: projections)");
  const auto region = shroud->GetBufferedRegion();
  if (region != shroud->GetLargestPossibleRegion())
    ThrowBadParameter("Amsterdam shroud buffered region", region, "the whole shroud (update it first)");
  const std::size_t n = region.GetSize(0), rows = region.GetSize(1);
  if (n < MinimumSamples || rows < 3)
    ThrowBadParameter("Amsterdam shroud size", std::to_string(n) + " projections x " + std::to_string(rows) + " rows",
                      "at least " + std::to_string(MinimumSamples) + " projections and 3 rows");
  const float * pixels = shroud->GetBufferPointer();

  // Each row less its slow changes (the gantry's rotation, drifts): what moves with breathing is left.
  const auto basis = SlowBasis(n, options.slowHarmonics);
  std::vector<double> fast(n * rows);
  meanAbs = 0.;
  double largest = 0.;
  for (std::size_t j = 0; j < rows; ++j)
  {
    std::vector<double> row(n);
    for (std::size_t k = 0; k < n; ++k)
    {
      row[k] = pixels[j * n + k];
      if (!std::isfinite(row[k]))
        ThrowBadParameter("Amsterdam shroud pixel (" + std::to_string(k) + ", " + std::to_string(j) + ")", row[k], "a finite value");
      largest = std::max(largest, std::abs(row[k]));
    }
    RemoveSlow(row, basis);
    for (std::size_t k = 0; k < n; ++k)
    {
      fast[j * n + k] = row[k];
      meanAbs += std::abs(row[k]);
    }
  }
  meanAbs /= double(n * rows);
  if (!(meanAbs > 1e-9 * largest))
    ThrowBadParameter("Amsterdam shroud", "without any change from projection to projection",
                      "a scan in which an edge moves (nothing breathes in these projections)");
  return fast;
}
} // namespace

std::vector<double>
BreathingSignal::PrincipalMotion(const ShroudType * shroud, const Options & options)
{
  CheckOptions(options);
  double meanAbs = 0.;
  const auto fast = FastShroud(shroud, options, meanAbs);
  const auto region = shroud->GetBufferedRegion();
  const std::size_t n = region.GetSize(0), rows = region.GetSize(1);

  // The rows' first principal component (power iteration on F F^T, from the rows' spreads): the
  // pattern of change shared by the most rows, a moving edge's (a shift changes the rows on both
  // sides of the edge together, in opposite senses).
  std::vector<double> w(rows, 0.), t(n, 0.);
  for (std::size_t j = 0; j < rows; ++j)
    for (std::size_t k = 0; k < n; ++k)
      w[j] += fast[j * n + k] * fast[j * n + k];
  for (int iteration = 0; iteration < 500; ++iteration)
  {
    std::fill(t.begin(), t.end(), 0.);
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t k = 0; k < n; ++k)
        t[k] += w[j] * fast[j * n + k];
    std::vector<double> next(rows, 0.);
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t k = 0; k < n; ++k)
        next[j] += fast[j * n + k] * t[k];
    const double norm = std::sqrt(std::inner_product(next.begin(), next.end(), next.begin(), 0.));
    if (!(norm > 0.))
      break;
    double change = 0.;
    for (std::size_t j = 0; j < rows; ++j)
    {
      next[j] /= norm;
      change += (next[j] - w[j]) * (next[j] - w[j]);
    }
    w = next;
    if (change < 1e-20)
      break;
  }
  std::fill(t.begin(), t.end(), 0.);
  for (std::size_t j = 0; j < rows; ++j)
    for (std::size_t k = 0; k < n; ++k)
      t[k] += w[j] * fast[j * n + k];

  // The component says which rows breathing changes, not how far the edge moved: its score is not
  // monotonic once the edge moves further than its own width. The signal is therefore the centroid,
  // in mm along v, of the shroud over the span of rows the component loads (each column's edges
  // weighted by their strength), which moves with the edge, monotonically, however far it goes.
  const float * pixels = shroud->GetBufferPointer();
  double loudest = 0.;
  for (const double x : w)
    loudest = std::max(loudest, std::abs(x));
  long first = static_cast<long>(rows), last = -1;
  for (std::size_t j = 0; j < rows; ++j)
    if (std::abs(w[j]) >= 0.25 * loudest)
    {
      first = std::min(first, static_cast<long>(j));
      last = std::max(last, static_cast<long>(j));
    }
  first = std::max(0L, first - 2);
  last = std::min(static_cast<long>(rows) - 1, last + 2);
  std::vector<double> signal(n);
  for (std::size_t k = 0; k < n; ++k)
  {
    double weight = 0., moment = 0.;
    for (long j = first; j <= last; ++j)
    {
      const double value = std::max(0., fast[j * n + k]);
      itk::ContinuousIndex<double, 2> index;
      index[0] = region.GetIndex(0) + double(k);
      index[1] = region.GetIndex(1) + double(j);
      ShroudType::PointType point;
      shroud->TransformContinuousIndexToPhysicalPoint(index, point);
      weight += value;
      moment += value * point[1];
    }
    if (!(weight > 0.))
      ThrowBadParameter("Amsterdam shroud column " + std::to_string(k), "without edges in the rows that breathing changes",
                        "edges (positive values) in those rows");
    signal[k] = moment / weight;
  }
  return signal;
}

std::vector<double>
BreathingSignal::FollowEdge(const ShroudType * shroud, const Options & options)
{
  CheckOptions(options);
  double meanAbs = 0.;
  const auto fast = FastShroud(shroud, options, meanAbs);
  const auto region = shroud->GetBufferedRegion();
  const std::size_t n = region.GetSize(0), rows = region.GetSize(1);

  // Viterbi: score(k, j) = fast(k, j) + max over |s| <= step of score(k - 1, j + s) - penalty |s|.
  const long step = options.maximumStep;
  const double penalty = options.stepPenalty * meanAbs;
  std::vector<double> score(rows), next(rows);
  std::vector<int> from(n * rows, 0); // [k * rows + j]: the step taken to reach (k, j)
  for (std::size_t j = 0; j < rows; ++j)
    score[j] = fast[j * n];
  for (std::size_t k = 1; k < n; ++k)
  {
    for (long j = 0; j < static_cast<long>(rows); ++j)
    {
      double best = -std::numeric_limits<double>::infinity();
      int bestStep = 0;
      for (long s = -step; s <= step; ++s)
      {
        const long previous = j - s;
        if (previous < 0 || previous >= static_cast<long>(rows))
          continue;
        const double candidate = score[previous] - penalty * std::abs(double(s));
        if (candidate > best)
        {
          best = candidate;
          bestStep = static_cast<int>(s);
        }
      }
      next[j] = best + fast[j * n + k];
      from[k * rows + j] = bestStep;
    }
    std::swap(score, next);
  }
  std::vector<long> path(n);
  path[n - 1] = static_cast<long>(std::max_element(score.begin(), score.end()) - score.begin());
  for (std::size_t k = n - 1; k > 0; --k)
    path[k - 1] = path[k] - from[k * rows + path[k]];
  // The position within the row: the vertex of the parabola through the path's row and its neighbours.
  std::vector<double> signal(n);
  for (std::size_t k = 0; k < n; ++k)
  {
    const long j = path[k];
    double offset = 0.;
    if (j > 0 && j + 1 < static_cast<long>(rows))
    {
      const double a = fast[(j - 1) * n + k], b = fast[j * n + k], c = fast[(j + 1) * n + k];
      const double curvature = a - 2. * b + c;
      if (curvature < 0.)
        offset = std::clamp(0.5 * (a - c) / curvature, -0.5, 0.5);
    }
    itk::ContinuousIndex<double, 2> index;
    index[0] = region.GetIndex(0) + double(k);
    index[1] = region.GetIndex(1) + double(j) + offset;
    ShroudType::PointType point;
    shroud->TransformContinuousIndexToPhysicalPoint(index, point);
    signal[k] = point[1];
  }
  return signal;
}

double
BreathingSignal::DominantPeriod(const std::vector<double> & signal, unsigned int slowHarmonics)
{
  CheckSignal(signal, "the breathing signal");
  const std::size_t n = signal.size();
  std::vector<double> x = signal;
  RemoveSlow(x, SlowBasis(n, slowHarmonics));
  double scale = 0., energy = 0.;
  for (std::size_t k = 0; k < n; ++k)
  {
    scale = std::max(scale, std::abs(signal[k]));
    energy += x[k] * x[k];
  }
  if (!(std::sqrt(energy / n) > 1e-9 * scale))
    ThrowBadParameter("breathing signal", "constant once its slow trend is removed", "a signal with breathing cycles");
  // Frequencies in cycles per series, a quarter apart, from above the removed harmonics to a period of
  // 4 samples (at most 4000 of them: the cost is n per frequency).
  const double lowest = slowHarmonics + 1.;
  const double highest = n / 4.;
  if (!(highest > lowest))
    ThrowBadParameter("number of samples of the breathing signal", n,
                      "more than " + std::to_string(4 * (slowHarmonics + 1)) + " (4 per cycle, more cycles than the " +
                        std::to_string(slowHarmonics) + " slow harmonics removed)");
  const double stride = std::max(0.25, (highest - lowest) / 4000.);
  double bestPower = -1., bestFrequency = lowest;
  std::vector<double> power;
  for (double f = lowest; f <= highest; f += stride)
  {
    double re = 0., im = 0.;
    const double w = 2. * Pi * f / n;
    for (std::size_t k = 0; k < n; ++k)
    {
      re += x[k] * std::cos(w * k);
      im -= x[k] * std::sin(w * k);
    }
    const double p = re * re + im * im;
    power.push_back(p);
    if (p > bestPower)
    {
      bestPower = p;
      bestFrequency = f;
    }
  }
  if (!(bestPower > 0.))
    ThrowBadParameter("breathing signal", "constant once its slow trend is removed", "a signal with breathing cycles");
  // Parabolic refinement between the neighbouring frequencies.
  const std::size_t i = static_cast<std::size_t>(std::round((bestFrequency - lowest) / stride));
  if (i > 0 && i + 1 < power.size())
  {
    const double a = power[i - 1], b = power[i], c = power[i + 1];
    const double curvature = a - 2. * b + c;
    if (curvature < 0.)
      bestFrequency += stride * std::clamp(0.5 * (a - c) / curvature, -0.5, 0.5);
  }
  return n / bestFrequency;
}

std::vector<double>
BreathingSignal::Extrema(const std::vector<double> & signal, const Options & options)
{
  CheckOptions(options);
  CheckSignal(signal, "the breathing signal");
  const std::size_t n = signal.size();
  const double period = options.period > 0. ? options.period : DominantPeriod(signal, options.slowHarmonics);
  const double sign = options.phaseZero == PhaseZero::Minima ? 1. : -1.; // look for minima of sign * signal

  std::vector<double> slowFree = signal;
  RemoveSlow(slowFree, SlowBasis(n, options.slowHarmonics));
  for (double & x : slowFree)
    x *= sign;
  // (The slow trend's fit is the baseline: a running mean would be one-sided, hence biased, within
  // half a cycle of either end of the scan.)
  const std::vector<double> smooth = RunningMean(slowFree, OddWindow(period / 12.));
  double variance = 0.;
  for (std::size_t k = 0; k < n; ++k)
    variance += smooth[k] * smooth[k];
  const double threshold = 0.25 * std::sqrt(variance / n);
  double scale = 0.;
  for (const double x : signal)
    scale = std::max(scale, std::abs(x));
  if (!(std::sqrt(variance / n) > 1e-9 * scale))
    ThrowBadParameter("breathing signal", "constant once its slow trend is removed", "a signal with breathing cycles");

  // Stretches below the running mean (with hysteresis), one extremum in each: the midpoint of where
  // the smoothed signal enters and leaves the lowest quarter of the stretch's depth. For a symmetric
  // extremum this is its vertex; for a flat one (Lujan's exhale, a pause) the middle of the plateau,
  // where a vertex would wander with the noise.
  std::vector<double> positions, values;
  auto locate = [&](std::size_t begin, std::size_t end) {
    std::size_t lowest = begin;
    for (std::size_t k = begin; k < end; ++k)
      if (smooth[k] < smooth[lowest])
        lowest = k;
    const double level = 0.75 * smooth[lowest];
    std::size_t a = lowest, b = lowest;
    while (a > begin && smooth[a - 1] <= level)
      --a;
    while (b + 1 < end && smooth[b + 1] <= level)
      ++b;
    if (a == 0 || b + 1 >= n)
      return; // the extremum runs into an end of the scan: it may lie outside it
    // Where the signal crosses the level, linearly between samples.
    const double enter = double(a) - (level - smooth[a]) / (smooth[a - 1] - smooth[a]);
    const double leave = double(b) + (level - smooth[b]) / (smooth[b + 1] - smooth[b]);
    positions.push_back(0.5 * (enter + leave));
    values.push_back(smooth[lowest]);
  };
  // Only stretches entered and left within the scan: one cut by an end of the scan may have its
  // extremum outside, and the running mean is one-sided there.
  bool below = smooth[0] < 0.;
  bool entered = false;
  std::size_t start = 0;
  for (std::size_t k = 1; k < n; ++k)
  {
    if (below && smooth[k] > threshold)
    {
      if (entered)
        locate(start, k);
      below = false;
      start = k;
    }
    else if (!below && smooth[k] < -threshold)
    {
      below = true;
      entered = true;
      start = k;
    }
  }

  // Two extrema closer than half a cycle: noise split one trough; keep the deeper.
  std::vector<double> kept, keptValues;
  for (std::size_t i = 0; i < positions.size(); ++i)
  {
    if (!kept.empty() && positions[i] - kept.back() < 0.5 * period)
    {
      if (values[i] < keptValues.back())
      {
        kept.back() = positions[i];
        keptValues.back() = values[i];
      }
    }
    else
    {
      kept.push_back(positions[i]);
      keptValues.push_back(values[i]);
    }
  }
  return kept;
}

std::vector<double>
BreathingSignal::PhasesBetween(const std::vector<double> & positions, std::size_t count)
{
  if (positions.size() < 2)
    ThrowBadParameter("number of breathing cycle extrema found", positions.size(),
                      "at least 2 (the scan must hold about two breathing cycles or more)");
  for (std::size_t i = 0; i < positions.size(); ++i)
    if (!std::isfinite(positions[i]) || (i > 0 && !(positions[i] > positions[i - 1])))
      ThrowBadParameter("breathing extremum position " + std::to_string(i), positions[i], "finite and increasing positions");
  // Before the first extremum and after the last, the mean cycle: one cycle's length, with the
  // errors of its two ends, would be multiplied by the distance extrapolated.
  const double meanCycle = (positions.back() - positions.front()) / double(positions.size() - 1);
  std::vector<double> phases(count);
  std::size_t cycle = 0; // positions[cycle] <= k < positions[cycle + 1]
  for (std::size_t k = 0; k < count; ++k)
  {
    const double t = double(k);
    double phase = 0.;
    if (t < positions.front())
      phase = (t - positions.front()) / meanCycle;
    else if (t >= positions.back())
      phase = (t - positions.back()) / meanCycle;
    else
    {
      while (t >= positions[cycle + 1])
        ++cycle;
      phase = (t - positions[cycle]) / (positions[cycle + 1] - positions[cycle]);
    }
    phase -= std::floor(phase);
    if (phase >= 1.)
      phase = 0.;
    phases[k] = phase;
  }
  return phases;
}

double
BreathingSignal::Regularity(const std::vector<double> & signal, double period, unsigned int slowHarmonics)
{
  CheckSignal(signal, "the breathing signal");
  const std::size_t n = signal.size();
  const auto lag = static_cast<std::size_t>(std::round(period));
  if (!std::isfinite(period) || lag < 1 || lag + 2 > n)
    ThrowBadParameter("breathing period (samples)", period, "from 1 to the signal's length less 2 (" + std::to_string(n) + " samples)");
  std::vector<double> x = signal;
  RemoveSlow(x, SlowBasis(n, slowHarmonics));
  double product = 0., energy = 0.;
  for (std::size_t k = 0; k + lag < n; ++k)
    product += x[k] * x[k + lag];
  for (const double v : x)
    energy += v * v;
  if (!(energy > 0.))
    return 0.;
  return std::clamp(product / energy * double(n) / double(n - lag), -1., 1.);
}

std::vector<double>
BreathingSignal::Phases(const std::vector<double> & signal, const Options & options)
{
  CheckOptions(options);
  if (options.minimumRegularity > 0.)
  {
    const double period = options.period > 0. ? options.period : DominantPeriod(signal, options.slowHarmonics);
    const double regularity = period + 2. <= signal.size() ? Regularity(signal, period, options.slowHarmonics) : 0.;
    if (regularity < options.minimumRegularity)
    {
      std::ostringstream value;
      value << regularity << " at its period of " << period << " projections";
      ThrowBadParameter("regularity of the breathing signal (its autocorrelation one cycle apart)", value.str(),
                        "at least " + std::to_string(options.minimumRegularity) +
                          ": no regular breathing was found (a static scan, or a structure too faint or moving too "
                          "little); give a breathing signal or phases from elsewhere");
    }
  }
  const auto phases = PhasesBetween(Extrema(signal, options), signal.size());
  PhaseSignal::Check(phases, signal.size(), "the phases found in the breathing signal");
  return phases;
}

BreathingSignal::Result
BreathingSignal::FromProjections(const ProjectionsType * projections, const Options & options)
{
  CheckOptions(options);
  if (projections == nullptr)
    ThrowBadParameter("projections", "none", "a stack of line integrals (u x v x projection)");
  using ShroudFilter = AmsterdamShroudImageFilter<ProjectionsType, ShroudType>;
  auto filter = ShroudFilter::New();
  filter->SetInput(projections);
  filter->SetSigma(options.sigma);
  filter->SetEdgeDirection(options.edgeDirection == EdgeDirection::DenserBelow   ? ShroudFilter::EdgeDirection::DenserBelow
                           : options.edgeDirection == EdgeDirection::DenserAbove ? ShroudFilter::EdgeDirection::DenserAbove
                                                                                 : ShroudFilter::EdgeDirection::Both);
  filter->Update();
  Result result;
  result.shroud = filter->GetOutput();
  result.shroud->DisconnectPipeline();
  result.signal = options.method == Method::FollowEdge ? FollowEdge(result.shroud, options) : PrincipalMotion(result.shroud, options);
  result.phases = Phases(result.signal, options);
  return result;
}

std::vector<double>
BreathingSignal::ReadSignal(const std::string & path, std::size_t expectedCount)
{
  std::ifstream in(path);
  if (!in)
    ThrowBadParameter("breathing signal file", path, "a readable text file of one number per line");
  std::vector<double> values;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line))
  {
    ++number;
    const std::string content = Trimmed(line.substr(0, line.find('#')));
    if (content.empty())
      continue;
    std::istringstream words(content);
    double value = 0.;
    std::string extra;
    // strtod-like parsing that also takes "nan" and "inf" so that they are named as such below.
    char * end = nullptr;
    value = std::strtod(content.c_str(), &end);
    if (end == content.c_str() || !Trimmed(std::string(end)).empty())
      ThrowBadParameter("line " + std::to_string(number) + " of breathing signal file " + path, "'" + content + "'",
                        "one number per line");
    if (!std::isfinite(value))
      ThrowBadParameter("line " + std::to_string(number) + " of breathing signal file " + path, content, "a finite number");
    values.push_back(value);
  }
  if (values.empty())
    ThrowBadParameter("breathing signal file " + path, "empty", "one number per line, one line per projection");
  if (expectedCount > 0 && values.size() != expectedCount)
    ThrowBadParameter("number of values in breathing signal file " + path, values.size(),
                      std::to_string(expectedCount) + " (one per projection)");
  return values;
}

} // namespace cbct
