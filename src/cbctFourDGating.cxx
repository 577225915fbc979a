#include "cbctFourDGating.h"

#include "cbctInputChecks.h"
#include "cbctPhaseSignal.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace cbct
{
namespace
{
constexpr double Pi = 3.14159265358979323846;
constexpr double TwoPi = 2. * Pi;

/** `a` - `b` wrapped into [0, 2pi): how far `a` lies after `b` along increasing azimuth. */
double
After(double a, double b)
{
  return ThreeDCircularProjectionGeometry::WrapAngle(a - b);
}

/** The open end of the whole scan (a short scan's missing arc), if any: the azimuths of the
 * projections before and after it and half the median step that edge projections reach beyond it. */
struct OpenEnd
{
  bool open = false;
  double from = 0.; // azimuth of the arc's last projection
  double to = 0.;   // azimuth of the arc's first projection
  double halfStep = 0.;
};

OpenEnd
FindOpenEnd(const ThreeDCircularProjectionGeometry * geometry)
{
  OpenEnd end;
  const unsigned int n = geometry->GetNumberOfProjections();
  if (n < 2)
    return end;
  std::vector<double> azimuths(n);
  for (unsigned int k = 0; k < n; ++k)
    azimuths[k] = geometry->GetSourceAzimuth(k);
  std::sort(azimuths.begin(), azimuths.end());
  std::vector<double> gaps(n);
  for (unsigned int i = 0; i < n; ++i)
    gaps[i] = (i + 1 < n ? azimuths[i + 1] : azimuths[0] + TwoPi) - azimuths[i];
  const auto largest = static_cast<unsigned int>(std::max_element(gaps.begin(), gaps.end()) - gaps.begin());
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  const double median = sorted[n / 2];
  // The same test as ThreeDCircularProjectionGeometry::GetAngularGaps(), for the largest gap only.
  if (gaps[largest] > 3. * median)
  {
    end.open = true;
    end.from = azimuths[largest];
    end.to = azimuths[(largest + 1) % n];
    end.halfStep = 0.5 * median;
  }
  return end;
}
} // namespace

std::vector<double>
FourDGating::AngularShares(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset)
{
  if (!geometry)
    ThrowBadParameter("4D gating geometry", "none", "a ThreeDCircularProjectionGeometry");
  for (unsigned int k : subset)
    if (k >= geometry->GetNumberOfProjections())
      ThrowBadParameter("4D gating projection index", k,
                        "an index below the geometry's " + std::to_string(geometry->GetNumberOfProjections()) + " projections");
  const std::size_t n = subset.size();
  std::vector<double> shares(n, 0.);
  if (n == 0)
    return shares;
  const OpenEnd end = FindOpenEnd(geometry);
  // The subset sorted by azimuth (ties by position in the subset, so the order is deterministic).
  std::vector<std::pair<double, std::size_t>> order(n);
  for (std::size_t i = 0; i < n; ++i)
    order[i] = { geometry->GetSourceAzimuth(subset[i]), i };
  std::sort(order.begin(), order.end());
  if (n == 1)
  {
    shares[0] = end.open ? After(end.from, end.to) + 2. * end.halfStep : TwoPi;
    return shares;
  }
  // For each neighbouring pair (a, b) along increasing azimuth, a gets the half of the gap after it
  // and b the half before it, except across the open end of a short scan, where each reaches only
  // half a median step past the arc's end.
  const double openWidth = end.open ? After(end.to, end.from) : 0.;
  for (std::size_t i = 0; i < n; ++i)
  {
    const auto & a = order[i];
    const auto & b = order[(i + 1) % n];
    double gap = b.first - a.first;
    if (i + 1 == n)
      gap += TwoPi;
    if (end.open && After(end.from, a.first) + openWidth <= gap + 1e-12)
    {
      shares[a.second] += After(end.from, a.first) + end.halfStep;
      shares[b.second] += After(b.first, end.to) + end.halfStep;
    }
    else
    {
      shares[a.second] += 0.5 * gap;
      shares[b.second] += 0.5 * gap;
    }
  }
  return shares;
}

std::vector<double>
FourDGating::ClusterWeights(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset)
{
  const std::vector<double> shares = AngularShares(geometry, subset); // checks the geometry and the indices
  const std::size_t n = subset.size();
  if (n < 2)
    return shares;
  const unsigned int count = geometry->GetNumberOfProjections();
  // The whole scan in azimuth order (ties by index, as GetAngularGaps() sorts): rank of each projection,
  // and the rank after which the open end of a short scan lies (none: count).
  std::vector<std::pair<double, unsigned int>> scan(count);
  for (unsigned int k = 0; k < count; ++k)
    scan[k] = { geometry->GetSourceAzimuth(k), k };
  std::sort(scan.begin(), scan.end());
  std::vector<unsigned int> rank(count);
  for (unsigned int r = 0; r < count; ++r)
    rank[scan[r].second] = r;
  const OpenEnd end = FindOpenEnd(geometry);
  unsigned int openAfter = count;
  if (end.open)
    for (unsigned int r = 0; r < count; ++r)
      if (scan[r].first == end.from && scan[(r + 1) % count].first == end.to)
      {
        openAfter = r;
        break;
      }
  const std::vector<double> steps = geometry->GetAngularGaps();

  // The subset in scan order; a cluster is a run of projections that are neighbours in the whole scan.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{ 0 });
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[subset[a]] < rank[subset[b]]; });
  const auto follows = [&](std::size_t i) { // order[i] is the scan's next projection after order[i - 1] (cyclic)
    const unsigned int before = rank[subset[order[(i + n - 1) % n]]];
    return before != openAfter && rank[subset[order[i]]] == (before + 1) % count;
  };
  // Start at a cluster's first projection (none when the subset is one closed ring: the whole full scan).
  std::size_t start = 0;
  while (start < n && follows(start))
    ++start;
  if (start == n)
    start = 0;
  std::vector<double> weights(n, 0.);
  for (std::size_t done = 0; done < n;)
  {
    std::size_t length = 1;
    while (length < n && follows((start + length) % n))
      ++length;
    double share = 0., step = 0.;
    for (std::size_t j = 0; j < length; ++j)
    {
      const std::size_t i = order[(start + j) % n];
      share += shares[i];
      step += steps[subset[i]];
    }
    for (std::size_t j = 0; j < length; ++j)
    {
      const std::size_t i = order[(start + j) % n];
      weights[i] = step > 0. ? share * steps[subset[i]] / step : share / length;
    }
    done += length;
    start = (start + length) % n;
  }
  return weights;
}

std::vector<FourDGating::Frame>
FourDGating::SelectFrames(const ThreeDCircularProjectionGeometry * geometry,
                          const std::vector<double> & phases,
                          unsigned int numberOfFrames,
                          double window,
                          WindowShape shape)
{
  if (!geometry)
    ThrowBadParameter("4D FDK geometry", "none", "a ThreeDCircularProjectionGeometry");
  if (numberOfFrames < 1)
    ThrowBadParameter("number of frames", numberOfFrames, "at least 1");
  const unsigned int n = geometry->GetNumberOfProjections();
  if (n == 0)
    ThrowBadParameter("4D FDK geometry", "0 projections", "at least one projection");
  PhaseSignal::Check(phases, n, "the phases (one per projection of the geometry)");
  if (!std::isfinite(window) || window < 0. || window > 1.)
    ThrowBadParameter("gating window", window, "a fraction of the breathing cycle in [0, 1] (0: the default)");

  const double N = numberOfFrames;
  const bool nearest = shape == WindowShape::Rectangular && (window == 0. || std::abs(window - 1. / N) < 1e-12);
  if (window == 0.)
    window = shape == WindowShape::Triangular ? std::min(1., 2. / N) : 1. / N;

  std::vector<Frame> frames(numberOfFrames);
  std::vector<std::vector<double>> gating(numberOfFrames);
  for (unsigned int k = 0; k < n; ++k)
  {
    if (nearest)
    {
      const unsigned int f = PhaseSignal::NearestFrame(phases[k], numberOfFrames);
      frames[f].projections.push_back(k);
      gating[f].push_back(1.);
      continue;
    }
    for (unsigned int f = 0; f < numberOfFrames; ++f)
    {
      const double d = PhaseSignal::CyclicDistance(phases[k], f / N);
      double g = 0.;
      if (shape == WindowShape::Rectangular)
        g = d <= 0.5 * window ? 1. : 0.;
      else
        g = d < 0.5 * window ? 1. - 2. * d / window : 0.;
      if (g > 0.)
      {
        frames[f].projections.push_back(k);
        gating[f].push_back(g);
      }
    }
  }

  for (unsigned int f = 0; f < numberOfFrames; ++f)
  {
    Frame & frame = frames[f];
    if (frame.projections.empty())
      ThrowBadParameter("frame " + std::to_string(f) + " of " + std::to_string(numberOfFrames) + " (phase " +
                          std::to_string(f / N) + ")",
                        "without projections",
                        "at least one projection in its gating window (" + std::to_string(window) +
                          " of the cycle): fewer frames, a wider window or a signal that covers every phase");
    const std::vector<double> shares = ClusterWeights(geometry, frame.projections);
    double total = 0., gated = 0.;
    for (std::size_t i = 0; i < shares.size(); ++i)
    {
      total += shares[i];
      gated += shares[i] * gating[f][i];
    }
    // gated > 0: every gating weight is > 0 and at least one share is (the shares sum to the arc).
    const double scale = gated > 0. ? total / gated : 1.;
    frame.weights.resize(shares.size());
    for (std::size_t i = 0; i < shares.size(); ++i)
      frame.weights[i] = shares[i] * gating[f][i] * scale;
  }
  return frames;
}

ThreeDCircularProjectionGeometry::Pointer
FourDGating::SubGeometry(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset)
{
  if (!geometry)
    ThrowBadParameter("4D gating geometry", "none", "a ThreeDCircularProjectionGeometry");
  return geometry->Subset(subset);
}

FourDGating::WindowShape
FourDGating::ParseWindowShape(const std::string & name)
{
  if (name == "rectangular")
    return WindowShape::Rectangular;
  if (name == "triangular")
    return WindowShape::Triangular;
  ThrowBadParameter("gating window shape", "'" + name + "'", "rectangular or triangular");
  return WindowShape::Rectangular;
}

std::string
FourDGating::WindowShapeName(WindowShape shape)
{
  return shape == WindowShape::Triangular ? "triangular" : "rectangular";
}

} // namespace cbct
