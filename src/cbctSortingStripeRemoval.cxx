#include "cbctSortingStripeRemoval.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cbct
{

SortingStripeRemoval::SortingStripeRemoval(unsigned int size, std::size_t projections, std::size_t columns, double snr)
  : m_Size(size)
  , m_Projections(projections)
  , m_Columns(columns)
  , m_SNR(snr)
{
  if (size < 1 || size > columns)
    ThrowBadParameter("sorting stripe removal: median size", size,
                      "1 .. " + std::to_string(columns) + ", the detector's width in pixels");
  if (projections < 1 || projections > 0x7fffffffu)
    ThrowBadParameter("sorting stripe removal: projections", projections, "1 .. 2^31 - 1");
  if (!std::isfinite(snr) || snr < 0.)
    ThrowBadParameter("sorting stripe removal: snr", snr, "a finite value >= 0 (0: every column filtered)");
}

unsigned int
SortingStripeRemoval::AutomaticSize(std::size_t columns)
{
  const std::size_t size = columns > 2000 ? 21 : std::max<std::size_t>(5, columns / 100);
  return static_cast<unsigned int>(std::max<std::size_t>(1, std::min(size, columns)));
}

std::vector<unsigned char>
SortingStripeRemoval::DetectStripes(const double * measured, std::size_t columns, double snr, const double * level)
{
  std::vector<unsigned char> stripe(columns, 0);
  if (columns < 4)
    return stripe;
  // With the columns' levels, each offset weighted by the inverse of its noise (NoiseWeight()): a
  // row's noise is then the same everywhere, where the offsets of the columns behind the object
  // are noisier than those in the air and passed for stripes (a noisy centred water cylinder).
  std::vector<double> weighted(measured, measured + columns);
  if (level)
    for (std::size_t u = 0; u < columns; ++u)
      weighted[u] = measured[u] * NoiseWeight(level[u]);
  const double * offsets = weighted.data();
  // The offsets sorted from the largest down; a line fitted (least squares) to the middle half.
  std::vector<double> sorted(offsets, offsets + columns);
  std::sort(sorted.begin(), sorted.end(), [](double a, double b) { return a > b; });
  const std::size_t drop = columns / 4, first = drop, last = columns - drop; // [first, last)
  double sx = 0., sy = 0., sxx = 0., sxy = 0.;
  for (std::size_t i = first; i < last; ++i)
  {
    const double x = static_cast<double>(i);
    sx += x;
    sy += sorted[i];
    sxx += x * x;
    sxy += x * sorted[i];
  }
  const double n = static_cast<double>(last - first);
  const double denominator = n * sxx - sx * sx;
  const double slope = denominator > 0. ? (n * sxy - sx * sy) / denominator : 0.;
  const double intercept = (sy - slope * sx) / n;
  const double end = intercept + slope * static_cast<double>(columns - 1);
  // The noise: what the fitted line spans over the whole list, at least NoiseFloor() (a noiseless
  // sinogram's line is flat, and the object's own small offsets would pass for stripes).
  const double noise = std::max(std::abs(end - intercept), NoiseFloor());
  if (std::abs(sorted.front() - intercept) / noise >= snr)
  {
    const double above = intercept + 0.5 * snr * noise;
    for (std::size_t u = 0; u < columns; ++u)
      stripe[u] = stripe[u] | (offsets[u] > above);
  }
  if (std::abs(sorted.back() - end) / noise >= snr)
  {
    const double below = end - 0.5 * snr * noise;
    for (std::size_t u = 0; u < columns; ++u)
      stripe[u] = stripe[u] | (offsets[u] <= below);
  }
  // Where a column's neighbourhood is quieter than the row (the noise of a line integral grows with
  // the attenuation, and a noiseless object's own offsets are largest at its edges), its own noise:
  // 2.698 (the span of the paper's line for unit normal offsets) times 1.4826 times the median
  // distance of the offsets of the QuietColumns() columns on each side from their median, at least
  // NoiseFloor(); beyond (0.5 + snr) times that from their median (the paper's test that the row has
  // a stripe at all) the column is a stripe. A stripe in the air beside a coarse noiseless head,
  // whose skull made the row's noise large, was missed without it.
  std::vector<double> around, distance;
  for (std::size_t u = 0; u < columns; ++u)
  {
    around.clear();
    const std::size_t from = u > QuietColumns() ? u - QuietColumns() : 0;
    for (std::size_t j = from; j <= std::min(columns - 1, u + QuietColumns()); ++j)
      if (j != u)
        around.push_back(offsets[j]);
    std::nth_element(around.begin(), around.begin() + around.size() / 2, around.end());
    const double local = around[around.size() / 2];
    distance.clear();
    for (double o : around)
      distance.push_back(std::abs(o - local));
    std::nth_element(distance.begin(), distance.begin() + distance.size() / 2, distance.end());
    const double quiet = std::max(2.698 * 1.4826 * distance[distance.size() / 2], NoiseFloor());
    if (quiet < noise)
      stripe[u] = stripe[u] | (std::abs(offsets[u] - local) >= (0.5 + snr) * quiet);
  }
  return stripe;
}

namespace
{
/** The median of `count` values (the mean of the middle two when count is even); reorders them. */
float
MedianOf(float * values, std::size_t count)
{
  // One or two values (the neighbours' lines of the default window): the same value, without the
  // selection (a + b equals b + a in floating point).
  if (count == 1)
    return values[0];
  if (count == 2)
    return (values[0] + values[1]) * 0.5f;
  const std::size_t half = count / 2;
  std::nth_element(values, values + half, values + count);
  const float upper = values[half];
  if (count % 2)
    return upper;
  const float lower = *std::max_element(values, values + half);
  return (lower + upper) * 0.5f;
}

/** The median of `size` values of `profile` centred on u (SciPy's window: u - size / 2 .. u - size / 2
 * + size - 1, the value of rank size / 2), mirrored at the detector's ends (d c b a | a b c d | d c b
 * a). `work`: room for `size` values. */
float
WindowMedian(const float * profile, std::size_t U, std::size_t u, unsigned int size, float * work)
{
  const long long half = size / 2;
  for (unsigned int j = 0; j < size; ++j)
  {
    long long i = static_cast<long long>(u) - half + j;
    if (i < 0)
      i = -1 - i;
    else if (i >= static_cast<long long>(U))
      i = 2 * static_cast<long long>(U) - 1 - i;
    work[j] = profile[i];
  }
  if (size <= 8) // the default windows: an insertion sort is cheaper than a selection's set-up
  {
    for (unsigned int i = 1; i < size; ++i)
      for (unsigned int j = i; j > 0 && work[j] < work[j - 1]; --j)
        std::swap(work[j], work[j - 1]);
    return work[half];
  }
  std::nth_element(work, work + half, work + size);
  return work[half];
}


/** Column u's profile (K ranks) as its neighbours give it: the median of the `side` nearest columns on
 * its left that `skip` does not mark, the same on its right, each at those columns' mean position,
 * and the line between them at u, rank by rank (at the ends, the line through the nearest and the
 * next columns of one side; u's own profile where no column is left). Exact where the sorted
 * profiles change linearly across the detector, where a median over a window holding u itself is
 * off by one column's slope. `work`: room for `side` values. */
void
Between(const float * sorted, std::size_t U, std::size_t K, const unsigned char * skip, std::size_t u, std::size_t side,
        float * work, float * line)
{
  std::size_t left[64], right[64]; // side <= 64
  std::size_t nl = 0, nr = 0;
  double leftAt = 0., rightAt = 0.;
  for (std::size_t i = u; i-- > 0 && nl < side;)
    if (!skip[i])
    {
      left[nl++] = i;
      leftAt += static_cast<double>(i);
    }
  for (std::size_t i = u + 1; i < U && nr < side; ++i)
    if (!skip[i])
    {
      right[nr++] = i;
      rightAt += static_cast<double>(i);
    }
  // At the detector's ends, where one side has none: the line through the next `side` columns beyond
  // the nearest ones, extrapolated.
  if (!nl && nr)
    for (std::size_t i = right[nr - 1] + 1; i < U && nl < side; ++i)
      if (!skip[i])
      {
        left[nl++] = i;
        leftAt += static_cast<double>(i);
      }
  if (!nr && nl)
    for (std::size_t i = left[nl - 1]; i-- > 0 && nr < side;)
      if (!skip[i])
      {
        right[nr++] = i;
        rightAt += static_cast<double>(i);
      }
  // The weight of the right side, in float as the CUDA twin computes it.
  float weight = nl ? 0.f : 1.f;
  if (nl && nr)
  {
    const float a = static_cast<float>(leftAt / static_cast<double>(nl));
    const float b = static_cast<float>(rightAt / static_cast<double>(nr));
    weight = (static_cast<float>(u) - a) / (b - a);
  }
  for (std::size_t r = 0; r < K; ++r)
  {
    const float * profile = sorted + r * U;
    if (!nl && !nr)
    {
      line[r] = profile[u];
      continue;
    }
    float leftValue = 0.f, rightValue = 0.f;
    for (std::size_t j = 0; j < nl; ++j)
      work[j] = profile[left[j]];
    if (nl)
      leftValue = MedianOf(work, nl);
    for (std::size_t j = 0; j < nr; ++j)
      work[j] = profile[right[j]];
    if (nr)
      rightValue = MedianOf(work, nr);
    if (!nl)
      leftValue = rightValue;
    if (!nr)
      rightValue = leftValue;
    line[r] = std::fma(weight, rightValue - leftValue, leftValue);
  }
}
} // namespace

namespace
{
/** A sinogram's columns sorted along the angle: the (value, angle) entries of column u at [u * K,
 * (u + 1) * K), and the values by rank, [rank][u]. */
struct SortedSinogram
{
  struct Entry
  {
    float value;
    std::int32_t angle;
  };
  std::vector<Entry> columns;
  std::vector<float> sorted;

  SortedSinogram(const float * in, std::ptrdiff_t inStride, std::size_t K, std::size_t U)
    : columns(K * U)
    , sorted(K * U)
  {
    // The row's sinogram gathered once, column by column ([u][k]), then each column sorted in place.
    for (std::size_t k = 0; k < K; ++k)
    {
      const float * line = in + static_cast<std::ptrdiff_t>(k) * inStride;
      for (std::size_t u = 0; u < U; ++u)
        columns[u * K + k] = Entry{ line[u] + 0.f, static_cast<std::int32_t>(k) }; // + 0.f: -0 becomes +0
    }
    for (std::size_t u = 0; u < U; ++u)
    {
      Entry * column = columns.data() + u * K;
      std::sort(column, column + K, [](const Entry & a, const Entry & b) {
        return a.value < b.value || (a.value == b.value && a.angle < b.angle);
      });
      for (std::size_t r = 0; r < K; ++r)
        sorted[r * U + u] = column[r].value;
    }
  }
};
} // namespace

void
SortingStripeRemoval::Filter(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const
{
  const std::size_t K = m_Projections, U = m_Columns;
  if (m_SNR == 0.)
  {
    // Algorithm 3 alone: every column replaced by the median of `size` sorted profiles centred on it.
    const SortedSinogram s(in, inStride, K, U);
    std::vector<float> window(m_Size);
    for (std::size_t r = 0; r < K; ++r)
      for (std::size_t u = 0; u < U; ++u)
        out[static_cast<std::ptrdiff_t>(s.columns[u * K + r].angle) * outStride + static_cast<std::ptrdiff_t>(u)] =
          WindowMedian(s.sorted.data() + r * U, U, u, m_Size, window.data());
    return;
  }
  Measures first(U), second(U);
  this->FirstOffsets(in, inStride, first);
  const auto marked = DetectStripes(first.between.data(), U, m_SNR, first.level.data());
  this->SecondOffsets(in, inStride, marked.data(), first, second);
  const auto stripes = FinalStripes(second, m_SNR);
  this->CorrectionOffsets(in, inStride, stripes.data(), second);
  this->Correct(in, inStride, stripes.data(), second, out, outStride);
}

// Detection. Each column's offset: the median over the ranks (a twentieth left out at each end:
// TomoPy's drop_ratio 0.1) of its sorted profile less a reference. A gain error is an offset of the
// line integrals, the same at every rank; where the object's own profile bends (an edge seen at some
// of the angles) the difference comes and goes along the ranks, and the median does not follow it.
// Two references:
// - its neighbours' line (Between(), the column itself left out, so that a stripe in a sloping
//   profile shows whole), twice: the second time with the first's stripes left out of their
//   neighbours' references too (a 3 % stripe shifts its neighbours' line by 3/4 %); the stripes are
//   found on these offsets;
// - TomoPy's: the median of `size` sorted profiles centred on it (mirrored ends), which keeps a
//   profile that is monotone across the detector, however it bends: a column found on the first
//   offsets stays a stripe only if its offset from the median is at least a tenth of that offset
//   (KeepsItsOffset). The edge of a round object centred on the axis is constant along the angle like
//   a stripe and bends away from its neighbours' line (by 0.08 to 0.15 on a water cylinder), but not
//   from the median (0); a stripe on a sloping profile keeps part of its offset from the median (a
//   1 % stripe where the cylinder's chord falls by 0.4 % a column: 0.4 of it).

namespace
{
std::size_t
Side(unsigned int size)
{
  return std::min<std::size_t>(64, static_cast<std::size_t>(std::max(1u, size / 2)));
}
} // namespace

namespace
{
/** The median over the ranks [first, last) of column u's sorted values less `reference` (at the same
 * ranks), and the spread (upper less lower quartile) of those differences. `differences`: room for
 * last - first values. */
void
MedianAndSpread(const std::vector<float> & sorted, std::size_t U, std::size_t u, std::size_t first, std::size_t last,
                const float * reference, float * differences, double & median, double & spread)
{
  const std::size_t n = last - first;
  for (std::size_t r = first; r < last; ++r)
    differences[r - first] = sorted[r * U + u] - reference[r];
  median = MedianOf(differences, n);
  std::nth_element(differences, differences + n / 4, differences + n);
  const float lower = differences[n / 4];
  std::nth_element(differences, differences + (3 * n) / 4, differences + n);
  spread = static_cast<double>(differences[(3 * n) / 4]) - static_cast<double>(lower);
}
} // namespace

void
SortingStripeRemoval::FirstOffsets(const float * in, std::ptrdiff_t inStride, Measures & measures) const
{
  const std::size_t K = m_Projections, U = m_Columns;
  const SortedSinogram s(in, inStride, K, U);
  const std::size_t drop = (K * 5) / 100, firstRank = drop, lastRank = K - drop; // [first, last)
  std::vector<float> window(std::max<std::size_t>(m_Size, 64)), line(K), differences(K);
  const std::vector<unsigned char> none(U, 0);
  measures = Measures(U);
  double ignored = 0.;
  for (std::size_t u = 0; u < U; ++u)
  {
    for (std::size_t r = firstRank; r < lastRank; ++r)
      line[r] = WindowMedian(s.sorted.data() + r * U, U, u, m_Size, window.data());
    MedianAndSpread(s.sorted, U, u, firstRank, lastRank, line.data(), differences.data(), measures.centred[u], ignored);
    Between(s.sorted.data(), U, K, none.data(), u, Side(m_Size), window.data(), line.data());
    MedianAndSpread(s.sorted, U, u, firstRank, lastRank, line.data(), differences.data(), measures.between[u],
                    measures.spread[u]);
    measures.level[u] = s.sorted[(K / 2) * U + u];
    measures.correction[u] = measures.between[u];
  }
}

void
SortingStripeRemoval::SecondOffsets(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes,
                                    const Measures & first, Measures & second) const
{
  const std::size_t K = m_Projections, U = m_Columns, side = Side(m_Size);
  second = first;
  if (std::none_of(stripes, stripes + U, [](unsigned char m) { return m != 0; }))
    return;
  const SortedSinogram s(in, inStride, K, U);
  const std::size_t drop = (K * 5) / 100, firstRank = drop, lastRank = K - drop; // [first, last)
  std::vector<float> window(64), line(K), differences(K);
  for (std::size_t u = 0; u < U; ++u)
  {
    // A column whose neighbours (and, at the detector's ends, the next ones) hold no stripe has the
    // same line, and its offset stays.
    bool near = false;
    for (std::size_t j = u > 2 * side ? u - 2 * side : 0; !near && j <= std::min(U - 1, u + 2 * side); ++j)
      near = j != u && stripes[j];
    if (!near)
      continue;
    Between(s.sorted.data(), U, K, stripes, u, side, window.data(), line.data());
    MedianAndSpread(s.sorted, U, u, firstRank, lastRank, line.data(), differences.data(), second.between[u],
                    second.spread[u]);
    second.correction[u] = second.between[u];
  }
}

void
SortingStripeRemoval::CorrectionOffsets(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes,
                                     Measures & measures) const
{
  const std::size_t K = m_Projections, U = m_Columns;
  measures.correction = measures.between;
  if (std::none_of(stripes, stripes + U, [](unsigned char m) { return m != 0; }))
    return;
  const SortedSinogram s(in, inStride, K, U);
  const std::size_t drop = (K * 5) / 100, firstRank = drop, lastRank = K - drop; // [first, last)
  std::vector<float> window(64), line(K), differences(K);
  for (std::size_t u = 0; u < U; ++u)
  {
    if (!stripes[u])
      continue;
    Between(s.sorted.data(), U, K, stripes, u, Side(m_Size), window.data(), line.data());
    double ignored = 0.;
    MedianAndSpread(s.sorted, U, u, firstRank, lastRank, line.data(), differences.data(), measures.correction[u], ignored);
  }
}

void
SortingStripeRemoval::Correct(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes,
                              const Measures & measures, float * out, std::ptrdiff_t outStride) const
{
  const std::size_t K = m_Projections, U = m_Columns;
  auto at = [](std::size_t k, std::ptrdiff_t stride, std::size_t u) {
    return static_cast<std::ptrdiff_t>(k) * stride + static_cast<std::ptrdiff_t>(u);
  };
  // Columns without a stripe keep their values (+ 0.f: -0 becomes +0, as the sorted values, and the
  // GPU's). A gain error is the same offset at every angle: the column loses it (the band's mean,
  // whose noise is the root of the band's rows smaller than one row's; taking the neighbours' line
  // instead left a noisy scan's columns their neighbours' noise: a noisy off-axis cylinder kept
  // 1/4.9 of its rings, 1/10 now). A stripe that is not one offset (a column wrong at some angles)
  // takes, rank by rank, the line between the nearest stripe-free column on each side (Between()
  // with one column a side: the median of two columns a side, as for the detection, is two columns
  // further from the stripe and took 2 % off the error of a noiseless 256-column cylinder).
  bool lines = false;
  for (std::size_t u = 0; u < U; ++u)
  {
    const bool offset = stripes[u] && IsAnOffset(measures.correction[u], measures.spread[u]);
    lines = lines || (stripes[u] && !offset);
    const float subtract = offset ? static_cast<float>(measures.correction[u]) : 0.f;
    for (std::size_t k = 0; k < K; ++k)
      out[at(k, outStride, u)] = offset ? in[at(k, inStride, u)] - subtract : in[at(k, inStride, u)] + 0.f;
  }
  if (!lines)
    return;
  const SortedSinogram s(in, inStride, K, U);
  std::vector<float> window(64), line(K);
  for (std::size_t u = 0; u < U; ++u)
  {
    if (!stripes[u] || IsAnOffset(measures.correction[u], measures.spread[u]))
      continue;
    const SortedSinogram::Entry * column = s.columns.data() + u * K;
    Between(s.sorted.data(), U, K, stripes, u, 1, window.data(), line.data());
    for (std::size_t r = 0; r < K; ++r)
      out[at(static_cast<std::size_t>(column[r].angle), outStride, u)] = line[r];
  }
}

void
SortingStripeRemoval::Replace(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes,
                              const float * replacement, std::ptrdiff_t replacementStride, float * out,
                              std::ptrdiff_t outStride) const
{
  for (std::size_t k = 0; k < m_Projections; ++k)
    for (std::size_t u = 0; u < m_Columns; ++u)
    {
      const auto kk = static_cast<std::ptrdiff_t>(k), uu = static_cast<std::ptrdiff_t>(u);
      out[kk * outStride + uu] = stripes[u] ? replacement[kk * replacementStride + uu] : in[kk * inStride + uu] + 0.f;
    }
}

std::vector<unsigned char>
SortingStripeRemoval::FinalStripes(const Measures & measures, double snr)
{
  const std::size_t columns = measures.between.size();
  auto stripe = DetectStripes(measures.between.data(), columns, snr, measures.level.data());
  for (std::size_t u = 0; u < columns; ++u)
    stripe[u] = stripe[u] & KeepsItsOffset(measures.centred[u], measures.between[u]);
  return stripe;
}

std::size_t
SortingStripeRemoval::PoolFirstRow(std::size_t row, std::size_t detectorRows, unsigned int rows)
{
  const std::size_t count = std::min<std::size_t>(std::max(1u, rows), detectorRows);
  const std::size_t before = count / 2;
  const std::size_t first = row > before ? row - before : 0;
  return std::min(first, detectorRows - count);
}

SortingStripeRemoval::Measures
SortingStripeRemoval::Pool(const Measures * const * rows, std::size_t count)
{
  const std::size_t columns = rows[0]->between.size();
  Measures mean(columns);
  auto pool = [&](std::vector<double> Measures::*measure) {
    for (std::size_t u = 0; u < columns; ++u)
    {
      double sum = 0.;
      for (std::size_t i = 0; i < count; ++i)
        sum += (rows[i]->*measure)[u];
      (mean.*measure)[u] = sum / static_cast<double>(count);
    }
  };
  pool(&Measures::centred);
  pool(&Measures::between);
  pool(&Measures::spread);
  pool(&Measures::level);
  pool(&Measures::correction);
  return mean;
}

} // namespace cbct
