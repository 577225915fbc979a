// The sorting-based stripe removal's detection and correction on the device (SortingStripeRemoval's
// stages, value for value). Compiled without fused multiply-adds (src/CMakeLists.txt): the detection
// compares double sums and products with thresholds exactly as the CPU computes them.
#include "cbctCudaStripeRemoval.hcu"

#include <cfloat>

namespace cbct
{

namespace
{
constexpr int Threads = 256;

/** SortingStripeRemoval's MedianOf: the median of n values (the mean of the middle two when n is
 * even), by quickselect in place. The value does not depend on the algorithm: exact, as the CPU's. */
__device__ float
MedianInPlace(float * v, int n)
{
  const int half = n / 2;
  int lo = 0, hi = n - 1;
  while (lo < hi)
  {
    const float pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j)
    {
      while (v[i] < pivot)
        ++i;
      while (pivot < v[j])
        --j;
      if (i <= j)
      {
        const float t = v[i];
        v[i] = v[j];
        v[j] = t;
        ++i;
        --j;
      }
    }
    if (half <= j)
      hi = j;
    else if (half >= i)
      lo = i;
    else
      break;
  }
  const float upper = v[half];
  if (n % 2)
    return upper;
  float lower = v[0];
  for (int k = 1; k < half; ++k)
    lower = fmaxf(lower, v[k]);
  return __fmul_rn(__fadd_rn(lower, upper), 0.5f);
}

/** The neighbours of column u that SortingStripeRemoval's Between() takes: up to `side` (<= 64) on each
 * side, nearest first, neither u nor marked (at an end, the next ones of the other side); and the
 * right group's weight at u. `stripes` may be null (none marked). */
struct StripeNeighbours
{
  int left[64];
  int right[64];
  int nl = 0;
  int nr = 0;
  float weight = 0.f;
};

__device__ void
FindNeighbours(const unsigned char * stripes, int U, int u, int side, StripeNeighbours & n)
{
  n.nl = 0;
  n.nr = 0;
  double leftAt = 0., rightAt = 0.;
  for (int i = u - 1; i >= 0 && n.nl < side; --i)
    if (!stripes || !stripes[i])
    {
      n.left[n.nl++] = i;
      leftAt += static_cast<double>(i);
    }
  for (int i = u + 1; i < U && n.nr < side; ++i)
    if (!stripes || !stripes[i])
    {
      n.right[n.nr++] = i;
      rightAt += static_cast<double>(i);
    }
  if (!n.nl && n.nr)
    for (int i = n.right[n.nr - 1] + 1; i < U && n.nl < side; ++i)
      if (!stripes || !stripes[i])
      {
        n.left[n.nl++] = i;
        leftAt += static_cast<double>(i);
      }
  if (!n.nr && n.nl)
    for (int i = n.left[n.nl - 1] - 1; i >= 0 && n.nr < side; --i)
      if (!stripes || !stripes[i])
      {
        n.right[n.nr++] = i;
        rightAt += static_cast<double>(i);
      }
  n.weight = n.nl ? 0.f : 1.f;
  if (n.nl && n.nr)
  {
    const float a = static_cast<float>(leftAt / static_cast<double>(n.nl));
    const float b = static_cast<float>(rightAt / static_cast<double>(n.nr));
    n.weight = __fdiv_rn(__fsub_rn(static_cast<float>(u), a), __fsub_rn(b, a));
  }
}

/** Between() at one rank: `profile` is that rank's sorted values across the detector. */
__device__ float
NeighboursLine(const float * profile, int u, const StripeNeighbours & n)
{
  if (!n.nl && !n.nr)
    return profile[u];
  float work[64];
  float leftValue = 0.f, rightValue = 0.f;
  for (int j = 0; j < n.nl; ++j)
    work[j] = profile[n.left[j]];
  if (n.nl)
    leftValue = MedianInPlace(work, n.nl);
  for (int j = 0; j < n.nr; ++j)
    work[j] = profile[n.right[j]];
  if (n.nr)
    rightValue = MedianInPlace(work, n.nr);
  if (!n.nl)
    leftValue = rightValue;
  if (!n.nr)
    rightValue = leftValue;
  return __fmaf_rn(n.weight, __fsub_rn(rightValue, leftValue), leftValue);
}

/** SortingStripeRemoval's WindowMedian(): the value of rank size / 2 among the (value, position)
 * pairs of the window u - size / 2 .. u - size / 2 + size - 1, mirrored at the ends. */
__device__ float
WindowMedianAt(const float * profile, int U, int u, int size)
{
  const int half = size / 2;
  auto at = [&](int j) {
    int i = u - half + j;
    if (i < 0)
      i = -1 - i;
    else if (i >= U)
      i = 2 * U - 1 - i;
    return profile[min(max(i, 0), U - 1)];
  };
  float median = at(0);
  for (int i = 0; i < size; ++i)
  {
    const float x = at(i);
    int below = 0;
    for (int j = 0; j < size; ++j)
    {
      const float y = at(j);
      below += (y < x) | ((y == x) & (j < i));
    }
    if (below == half)
      median = x;
  }
  return median;
}

/** A warp's bitonic sort (ascending) of the `length` (a power of two) values of `v` in shared memory. */
__device__ void
WarpSort(float * v, int length, int lane)
{
  for (int size = 2; size <= length; size <<= 1)
    for (int stride = size >> 1; stride > 0; stride >>= 1)
    {
      for (int i = lane; i < length / 2; i += 32)
      {
        const int lo = 2 * stride * (i / stride) + (i % stride), hi = lo + stride;
        const float a = v[lo], b = v[hi];
        if ((a > b) == ((lo & size) == 0))
        {
          v[lo] = b;
          v[hi] = a;
        }
      }
      __syncwarp();
    }
}

/** The median (SortingStripeRemoval's MedianOf) and the spread (upper less lower quartile, as
 * MedianAndSpread()) of the n sorted values of v. */
__device__ void
SortedMedianAndSpread(const float * v, int n, double & median, double & spread)
{
  const int half = n / 2;
  median = (n % 2) ? v[half] : __fmul_rn(__fadd_rn(v[half - 1], v[half]), 0.5f);
  spread = static_cast<double>(v[(3 * n) / 4]) - static_cast<double>(v[n / 4]);
}

__global__ void
StripeMeasures(const CudaStripeMeasuresLaunch p)
{
  extern __shared__ float differences[]; // [warp of the block][padded length]
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long w = static_cast<long long>(blockIdx.x) * p.warpsPerBlock + warp;
  const int U = p.columns, K = p.projections;
  if (w >= static_cast<long long>(p.rows.count) * U)
    return;
  const int i = static_cast<int>(w / U), u = static_cast<int>(w % U), row = p.rows.first + i;
  const float * sorted = p.sortedValues + static_cast<long long>(row - p.sortedFirst) * K * U;
  float * v = differences + warp * p.paddedLength;
  const int n = p.lastRank - p.firstRank;
  const long long at = static_cast<long long>(i) * U + u, inAt = static_cast<long long>(row - p.inFirst) * U + u;
  const unsigned char * stripes = p.stripes ? p.stripes + static_cast<long long>(i) * U : nullptr;

  // The differences of u's sorted values from a reference (the centred median, or the neighbours'
  // line), sorted.
  auto sortDifferences = [&](bool centred, const StripeNeighbours * neighbours) {
    for (int rank = p.firstRank + lane; rank < p.lastRank; rank += 32)
    {
      const float * profile = sorted + static_cast<long long>(rank) * U;
      const float reference = centred ? WindowMedianAt(profile, U, u, p.size) : NeighboursLine(profile, u, *neighbours);
      v[rank - p.firstRank] = __fsub_rn(profile[u], reference);
    }
    for (int j = n + lane; j < p.paddedLength; j += 32)
      v[j] = __int_as_float(0x7f800000); // +inf: after every value
    __syncwarp();
    WarpSort(v, p.paddedLength, lane);
  };

  double centred = 0., between = 0., spread = 0., level = 0., correction = 0.;
  if (p.stage == 0)
  {
    sortDifferences(true, nullptr);
    SortedMedianAndSpread(v, n, centred, spread);
    __syncwarp();
    StripeNeighbours neighbours;
    FindNeighbours(nullptr, U, u, p.side, neighbours);
    sortDifferences(false, &neighbours);
    SortedMedianAndSpread(v, n, between, spread);
    level = sorted[static_cast<long long>(K / 2) * U + u];
    correction = between;
  }
  else
  {
    centred = p.in.centred[inAt];
    between = p.in.between[inAt];
    spread = p.in.spread[inAt];
    level = p.in.level[inAt];
    correction = p.in.correction[inAt];
    if (p.stage == 1)
    {
      bool near = false;
      for (int j = max(0, u - 2 * p.side); !near && j <= min(U - 1, u + 2 * p.side); ++j)
        near = j != u && stripes[j];
      if (near)
      {
        StripeNeighbours neighbours;
        FindNeighbours(stripes, U, u, p.side, neighbours);
        sortDifferences(false, &neighbours);
        SortedMedianAndSpread(v, n, between, spread);
        correction = between;
      }
    }
    else if (stripes[u])
    {
      StripeNeighbours neighbours;
      FindNeighbours(stripes, U, u, p.side, neighbours);
      sortDifferences(false, &neighbours);
      double ignored = 0.;
      SortedMedianAndSpread(v, n, correction, ignored);
    }
  }
  if (lane == 0)
  {
    p.out.centred[at] = centred;
    p.out.between[at] = between;
    p.out.spread[at] = spread;
    p.out.level[at] = level;
    p.out.correction[at] = correction;
  }
}

/** SortingStripeRemoval::PoolFirstRow(). */
__device__ int
PoolFirstRow(int row, int detectorRows, int rows)
{
  const int count = min(max(1, rows), detectorRows);
  const int before = count / 2;
  const int first = row > before ? row - before : 0;
  return min(first, detectorRows - count);
}

__global__ void
StripePool(const CudaStripePoolLaunch p)
{
  const long long total = static_cast<long long>(p.rows.count) * p.columns;
  const int count = min(max(1, p.bandRows), p.detectorRows);
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const int i = static_cast<int>(t / p.columns), u = static_cast<int>(t % p.columns);
    const int from = PoolFirstRow(p.rows.first + i, p.detectorRows, p.bandRows) - p.inFirst;
    auto pool = [&](const double * in, double * out) {
      double sum = 0.;
      for (int j = 0; j < count; ++j)
        sum += in[static_cast<long long>(from + j) * p.columns + u];
      out[t] = sum / static_cast<double>(count);
    };
    pool(p.in.centred, p.out.centred);
    pool(p.in.between, p.out.between);
    pool(p.in.spread, p.out.spread);
    pool(p.in.level, p.out.level);
    pool(p.in.correction, p.out.correction);
  }
}

/** SortingStripeRemoval::NoiseWeight(). */
__device__ double
NoiseWeight(double level)
{
  return exp(-0.5 * fmin(4., fmax(0., level)));
}

__global__ void
StripeDetection(const CudaStripeDetectionLaunch p)
{
  const int U = p.columns, P = p.paddedColumns, i = blockIdx.x;
  unsigned char * stripe = p.stripes + static_cast<long long>(i) * U;
  if (U < 4)
  {
    for (int u = threadIdx.x; u < U; u += blockDim.x)
      stripe[u] = 0;
    return;
  }
  const double * between = p.pooled.between + static_cast<long long>(i) * U;
  const double * level = p.pooled.level + static_cast<long long>(i) * U;
  const double * centred = p.pooled.centred + static_cast<long long>(i) * U;
  double * offsets = p.scratch + static_cast<long long>(i) * 2 * P; // the weighted offsets
  double * sorted = offsets + P;                                    // sorted from the largest down
  for (int u = threadIdx.x; u < P; u += blockDim.x)
  {
    const double o = u < U ? between[u] * NoiseWeight(level[u]) : 0.;
    offsets[u] = o;
    sorted[u] = u < U ? o : -__longlong_as_double(0x7ff0000000000000LL); // -inf: after every value
  }
  __syncthreads();
  for (int size = 2; size <= P; size <<= 1)
    for (int stride = size >> 1; stride > 0; stride >>= 1)
    {
      for (int j = threadIdx.x; j < P / 2; j += blockDim.x)
      {
        const int lo = 2 * stride * (j / stride) + (j % stride), hi = lo + stride;
        const double a = sorted[lo], b = sorted[hi];
        if ((a < b) == ((lo & size) == 0))
        {
          sorted[lo] = b;
          sorted[hi] = a;
        }
      }
      __syncthreads();
    }
  __shared__ double above, below;
  __shared__ int hasAbove, hasBelow;
  __shared__ double noise;
  if (threadIdx.x == 0)
  {
    // DetectStripes(): a line fitted to the middle half, in the CPU's order.
    const int drop = U / 4, first = drop, last = U - drop;
    double sx = 0., sy = 0., sxx = 0., sxy = 0.;
    for (int j = first; j < last; ++j)
    {
      const double x = static_cast<double>(j);
      sx += x;
      sy += sorted[j];
      sxx += x * x;
      sxy += x * sorted[j];
    }
    const double n = static_cast<double>(last - first);
    const double denominator = n * sxx - sx * sx;
    const double slope = denominator > 0. ? (n * sxy - sx * sy) / denominator : 0.;
    const double intercept = (sy - slope * sx) / n;
    const double end = intercept + slope * static_cast<double>(U - 1);
    noise = fmax(fabs(end - intercept), 1e-3); // SortingStripeRemoval::NoiseFloor()
    hasAbove = fabs(sorted[0] - intercept) / noise >= p.snr;
    above = intercept + 0.5 * p.snr * noise;
    hasBelow = fabs(sorted[U - 1] - end) / noise >= p.snr;
    below = end - 0.5 * p.snr * noise;
  }
  __syncthreads();
  constexpr int Quiet = 8; // SortingStripeRemoval::QuietColumns()
  for (int u = threadIdx.x; u < U; u += blockDim.x)
  {
    bool mark = (hasAbove && offsets[u] > above) || (hasBelow && offsets[u] <= below);
    double around[2 * Quiet], distance[2 * Quiet];
    int count = 0;
    for (int j = max(0, u - Quiet); j <= min(U - 1, u + Quiet); ++j)
      if (j != u)
        around[count++] = offsets[j];
    // The value of rank count / 2 (nth_element's), by counting.
    auto rank = [&](const double * values, int k) {
      double value = values[0];
      for (int a = 0; a < count; ++a)
      {
        int less = 0, equal = 0;
        for (int b = 0; b < count; ++b)
        {
          less += values[b] < values[a];
          equal += values[b] == values[a];
        }
        if (less <= k && k < less + equal)
          value = values[a];
      }
      return value;
    };
    const double local = rank(around, count / 2);
    for (int a = 0; a < count; ++a)
      distance[a] = fabs(around[a] - local);
    const double quiet = fmax(2.698 * 1.4826 * rank(distance, count / 2), 1e-3);
    if (quiet < noise)
      mark = mark || fabs(offsets[u] - local) >= (0.5 + p.snr) * quiet;
    if (p.keep) // KeepsItsOffset()
      mark = mark && fabs(centred[u]) >= 0.1 * fabs(between[u]);
    stripe[u] = mark ? 1 : 0;
  }
}

__global__ void
StripeCorrection(const CudaStripeCorrectionLaunch p)
{
  const CudaSinogramBand & b = p.band;
  const int U = b.columns, K = b.projections;
  const int rank = blockIdx.y, i = blockIdx.z;
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= U)
    return;
  const long long at = (static_cast<long long>(p.rows.first + i - p.sortedFirst) * K + rank) * U;
  const long long column = static_cast<long long>(i) * U + u;
  const unsigned char * stripes = p.stripes + static_cast<long long>(i) * U;
  float value = p.sortedValues[at + u];
  const int angle = p.sortedAngles[at + u];
  if (stripes[u] && p.replacement)
    value = p.replacement[angle * p.replacementProjectionPitch + i * p.replacementRowPitch + u];
  else if (stripes[u])
  {
    const double correction = p.pooled.correction[column];
    if (p.pooled.spread[column] <= 1.5 * fabs(correction)) // SortingStripeRemoval::IsAnOffset()
      value = __fsub_rn(value, static_cast<float>(correction));
    else
    {
      StripeNeighbours n;
      FindNeighbours(stripes, U, u, 1, n);
      value = NeighboursLine(p.sortedValues + at, u, n);
    }
  }
  b.output[angle * b.outputProjectionPitch + i * b.outputRowPitch + u] = value;
}
} // namespace

cudaError_t
LaunchStripeMeasures(const CudaStripeMeasuresLaunch & launch, cudaStream_t stream)
{
  const long long warps = static_cast<long long>(launch.rows.count) * launch.columns;
  if (warps <= 0 || launch.lastRank <= launch.firstRank)
    return cudaSuccess;
  const std::size_t bytes = CudaStripeMeasuresSharedBytes(launch.paddedLength, launch.warpsPerBlock);
  cudaError_t status = cudaFuncSetAttribute(StripeMeasures, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess)
    return status;
  const unsigned int blocks = static_cast<unsigned int>((warps + launch.warpsPerBlock - 1) / launch.warpsPerBlock);
  StripeMeasures<<<blocks, 32 * launch.warpsPerBlock, bytes, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchStripePool(const CudaStripePoolLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.rows.count) * launch.columns;
  if (total <= 0)
    return cudaSuccess;
  const long long blocks = (total + Threads - 1) / Threads;
  StripePool<<<static_cast<unsigned int>(blocks < 65535LL * 8 ? blocks : 65535LL * 8), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchStripeDetection(const CudaStripeDetectionLaunch & launch, cudaStream_t stream)
{
  if (launch.rows.count <= 0 || launch.columns <= 0)
    return cudaSuccess;
  StripeDetection<<<launch.rows.count, Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchStripeCorrection(const CudaStripeCorrectionLaunch & launch, cudaStream_t stream)
{
  const CudaSinogramBand & b = launch.band;
  if (launch.rows.count <= 0 || b.columns <= 0 || b.projections <= 0)
    return cudaSuccess;
  const int block = 128;
  const dim3 grid((b.columns + block - 1) / block, b.projections, launch.rows.count);
  StripeCorrection<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
