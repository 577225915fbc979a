#include "cbctCudaStripeRemoval.hcu"

namespace cbct
{

namespace
{
constexpr int Threads = 256;

/** Grid-stride loops over `count` elements: blocks enough for the device, not one per element. */
inline unsigned int
BlocksFor(long long count)
{
  const long long blocks = (count + Threads - 1) / Threads;
  return static_cast<unsigned int>(blocks < 65535LL * 8 ? blocks : 65535LL * 8);
}

/** Float bits in an order that unsigned comparison keeps (for finite values); -0 is taken as +0. */
__device__ inline unsigned int
OrderedBits(float x)
{
  if (x == 0.f)
    x = 0.f;
  const unsigned int b = __float_as_uint(x);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

__device__ inline float
FromOrderedBits(unsigned int o)
{
  return __uint_as_float((o & 0x80000000u) ? (o & 0x7fffffffu) : ~o);
}

/** DaubechiesWavelet::SymmetricIndex. */
__device__ inline long long
SymmetricIndex(long long i, long long samples)
{
  const long long period = 2 * samples;
  long long m = i % period;
  if (m < 0)
    m += period;
  return m < samples ? m : period - 1 - m;
}

__global__ void
SortColumns(const CudaSortColumnsLaunch p)
{
  extern __shared__ unsigned long long keys[]; // [column of the block][padded length]
  const CudaSinogramBand & b = p.band;
  const int C = p.columnsPerBlock, P = p.paddedLength, K = b.projections;
  const int u0 = blockIdx.x * C, r = blockIdx.y;
  const int columns = min(C, b.columns - u0);
  bool finite = true;
  for (int i = threadIdx.x; i < C * P; i += blockDim.x)
  {
    const int c = i % C, k = i / C; // neighbouring threads read neighbouring columns: coalesced
    unsigned long long key = ~0ULL;
    if (c < columns && k < K)
    {
      const float value = b.input[k * b.inputProjectionPitch + r * b.inputRowPitch + u0 + c];
      finite = finite && isfinite(value);
      key = (static_cast<unsigned long long>(OrderedBits(value)) << 32) | static_cast<unsigned int>(k);
    }
    keys[c * P + k] = key;
  }
  if (!finite && p.firstNonFiniteRow)
    atomicMin(p.firstNonFiniteRow, r);
  __syncthreads();
  // Bitonic sort of each column's P keys (unique keys: the order is the one total order).
  const int half = P / 2;
  for (int size = 2; size <= P; size <<= 1)
    for (int stride = size >> 1; stride > 0; stride >>= 1)
    {
      for (int i = threadIdx.x; i < C * half; i += blockDim.x)
      {
        const int c = i / half, j = i % half;
        const int lo = 2 * stride * (j / stride) + (j % stride), hi = lo + stride;
        unsigned long long * column = keys + c * P;
        const unsigned long long a = column[lo], z = column[hi];
        if ((a > z) == ((lo & size) == 0))
        {
          column[lo] = z;
          column[hi] = a;
        }
      }
      __syncthreads();
    }
  for (int i = threadIdx.x; i < C * K; i += blockDim.x)
  {
    const int c = i % C, rank = i / C;
    if (c >= columns)
      continue;
    const unsigned long long key = keys[c * P + rank];
    const long long at = (static_cast<long long>(r) * K + rank) * b.columns + u0 + c;
    p.sortedValues[at] = FromOrderedBits(static_cast<unsigned int>(key >> 32));
    p.sortedAngles[at] = static_cast<int>(key & 0xffffffffULL);
  }
}

__global__ void
SortedMedian(const CudaSortedMedianLaunch p)
{
  extern __shared__ float tile[]; // blockDim.x + size - 1 values of one rank's profile
  const CudaSinogramBand & b = p.band;
  const int U = b.columns, K = b.projections, size = p.size, half = size / 2;
  const int rank = blockIdx.y, r = blockIdx.z;
  const int u0 = blockIdx.x * blockDim.x;
  const float * profile = p.sortedValues + (static_cast<long long>(r) * K + rank) * U;
  for (int i = threadIdx.x; i < static_cast<int>(blockDim.x) + size - 1; i += blockDim.x)
  {
    int u = u0 - half + i;
    if (u < 0)
      u = -1 - u;
    else if (u >= U)
      u = 2 * U - 1 - u;
    u = min(max(u, 0), U - 1); // past the detector's far end, for the block's idle threads
    tile[i] = profile[u];
  }
  __syncthreads();
  const int u = u0 + threadIdx.x;
  if (u >= U)
    return;
  // The value of rank `half` among the window's (value, position) pairs: exact, as nth_element's.
  const float * window = tile + threadIdx.x;
  float median = window[0];
  for (int i = 0; i < size; ++i)
  {
    const float x = window[i];
    int below = 0;
    for (int j = 0; j < size; ++j)
      below += (window[j] < x) | ((window[j] == x) & (j < i));
    if (below == half)
      median = x;
  }
  if (p.smoothed)
  {
    p.smoothed[(static_cast<long long>(r) * K + rank) * U + u] = median;
    return;
  }
  const int angle = p.sortedAngles[(static_cast<long long>(r) * K + rank) * U + u];
  b.output[angle * b.outputProjectionPitch + r * b.outputRowPitch + u] = median;
}

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
  return (lower + upper) * 0.5f;
}

/** The neighbours of column u that SortingStripeRemoval's Between() takes: up to `side` (<= 64) on each
 * side, nearest first, neither u nor marked (at an end, the next ones of the other side); and the
 * right group's weight at u. */
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
    if (!stripes[i])
    {
      n.left[n.nl++] = i;
      leftAt += static_cast<double>(i);
    }
  for (int i = u + 1; i < U && n.nr < side; ++i)
    if (!stripes[i])
    {
      n.right[n.nr++] = i;
      rightAt += static_cast<double>(i);
    }
  if (!n.nl && n.nr)
    for (int i = n.right[n.nr - 1] + 1; i < U && n.nl < side; ++i)
      if (!stripes[i])
      {
        n.left[n.nl++] = i;
        leftAt += static_cast<double>(i);
      }
  if (!n.nr && n.nl)
    for (int i = n.left[n.nl - 1] - 1; i >= 0 && n.nr < side; --i)
      if (!stripes[i])
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

__global__ void
StripeOffsets(const CudaStripeOffsetsLaunch p)
{
  const CudaSinogramBand & b = p.band;
  const int U = b.columns, K = b.projections;
  const long long column = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= static_cast<long long>(b.rows) * U)
    return;
  const int r = static_cast<int>(column / U), u = static_cast<int>(column % U);
  const unsigned char * stripes = p.stripes + static_cast<long long>(r) * U;
  // u itself is left out: FindNeighbours never takes u.
  StripeNeighbours n;
  FindNeighbours(stripes, U, u, p.side, n);
  const int count = p.lastRank - p.firstRank;
  float * differences = p.scratch + column * count;
  for (int rank = p.firstRank; rank < p.lastRank; ++rank)
  {
    const long long at = (static_cast<long long>(r) * K + rank) * U;
    const float * profile = p.sortedValues + at;
    differences[rank - p.firstRank] =
      __fsub_rn(profile[u], p.smoothed ? p.smoothed[at + u] : NeighboursLine(profile, u, n));
  }
  p.offsets[column] = MedianInPlace(differences, count);
}

__global__ void
StripeCorrection(const CudaStripeCorrectionLaunch p)
{
  const CudaSinogramBand & b = p.band;
  const int U = b.columns, K = b.projections;
  const int rank = blockIdx.y, r = blockIdx.z;
  const int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= U)
    return;
  const long long at = (static_cast<long long>(r) * K + rank) * U;
  const unsigned char * stripes = p.stripes + static_cast<long long>(r) * U;
  float value = p.sortedValues[at + u];
  if (stripes[u])
  {
    StripeNeighbours n;
    FindNeighbours(stripes, U, u, p.side, n);
    value = NeighboursLine(p.sortedValues + at, u, n);
  }
  const int angle = p.sortedAngles[at + u];
  b.output[angle * b.outputProjectionPitch + r * b.outputRowPitch + u] = value;
}

__global__ void
WaveletPad(const CudaWaveletPadLaunch p)
{
  const CudaSinogramBand & b = p.band;
  const long long total = static_cast<long long>(p.paddedAngles) * b.rows * b.columns;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const int u = static_cast<int>(i % b.columns);
    const int r = static_cast<int>((i / b.columns) % b.rows);
    const int k = static_cast<int>(i / (static_cast<long long>(b.columns) * b.rows)) - p.shift;
    float value = 0.f;
    if (k >= 0 && k < b.projections)
    {
      value = b.input[k * b.inputProjectionPitch + r * b.inputRowPitch + u];
      if (!isfinite(value) && p.firstNonFiniteRow)
        atomicMin(p.firstNonFiniteRow, r);
    }
    p.padded[i] = value;
  }
}

__global__ void
WaveletCrop(const CudaWaveletPadLaunch p)
{
  const CudaSinogramBand & b = p.band;
  const long long total = static_cast<long long>(b.projections) * b.rows * b.columns;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const int u = static_cast<int>(i % b.columns);
    const int r = static_cast<int>((i / b.columns) % b.rows);
    const int k = static_cast<int>(i / (static_cast<long long>(b.columns) * b.rows));
    b.output[k * b.outputProjectionPitch + r * b.outputRowPitch + u] =
      p.padded[(static_cast<long long>(k + p.shift) * b.rows + r) * b.columns + u];
  }
}

__global__ void
WaveletAnalysis(const CudaWaveletAnalysisLaunch p)
{
  const CudaWaveletDimensions & in = p.in;
  const bool alongAngle = p.axis == 0;
  const int outAngles = alongAngle ? p.count : in.angles, outColumns = alongAngle ? in.columns : p.count;
  const long long total = static_cast<long long>(outAngles) * in.rows * outColumns;
  const int L = p.filters.length;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const int c = static_cast<int>(i % outColumns);
    const int r = static_cast<int>((i / outColumns) % in.rows);
    const int a = static_cast<int>(i / (static_cast<long long>(outColumns) * in.rows));
    const int o = alongAngle ? a : c;
    const long long samples = alongAngle ? in.angles : in.columns;
    const long long stride = alongAngle ? static_cast<long long>(in.rows) * in.columns : 1;
    const long long base = alongAngle ? static_cast<long long>(r) * in.columns + c
                                      : (static_cast<long long>(a) * in.rows + r) * in.columns;
    float low = 0.f, high = 0.f;
    for (int j = 0; j < L; ++j)
    {
      const float x = p.input[base + SymmetricIndex(2LL * o + 1 - j, samples) * stride];
      low += p.filters.low[j] * x;
      high += p.filters.high[j] * x;
    }
    p.low[i] = low;
    p.high[i] = high;
  }
}

__global__ void
WaveletSynthesis(const CudaWaveletSynthesisLaunch p)
{
  const CudaWaveletDimensions & co = p.coefficients;
  const bool alongAngle = p.axis == 0;
  const int outAngles = alongAngle ? p.samples : co.angles, outColumns = alongAngle ? co.columns : p.samples;
  const long long total = static_cast<long long>(outAngles) * co.rows * outColumns;
  const int L = p.filters.length;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const int c = static_cast<int>(i % outColumns);
    const int r = static_cast<int>((i / outColumns) % co.rows);
    const int a = static_cast<int>(i / (static_cast<long long>(outColumns) * co.rows));
    const int n = alongAngle ? a : c;
    const int count = alongAngle ? co.angles : co.columns;
    const long long stride = alongAngle ? static_cast<long long>(co.rows) * co.columns : 1;
    const long long base = alongAngle ? static_cast<long long>(r) * co.columns + c
                                      : (static_cast<long long>(a) * co.rows + r) * co.columns;
    const int first = n / 2, last = min(count - 1, (n + L - 2) / 2);
    float sum = 0.f;
    for (int o = first; o <= last; ++o)
    {
      const int j = 2 * o + 1 - n;
      sum += p.low[base + o * stride] * p.filters.low[j] + p.high[base + o * stride] * p.filters.high[j];
    }
    p.output[i] = sum;
  }
}

__global__ void
WaveletDamping(const CudaWaveletDampingLaunch p)
{
  const long long total = p.batch * p.bins;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    const double f = static_cast<double>(i / p.batch);
    const float gain = static_cast<float>(-expm1(-f * f / (2. * p.sigma * p.sigma)) / p.length);
    p.spectra[i].x *= gain;
    p.spectra[i].y *= gain;
  }
}
} // namespace

cudaError_t
LaunchSortColumns(const CudaSortColumnsLaunch & launch, cudaStream_t stream)
{
  const CudaSinogramBand & b = launch.band;
  if (b.rows <= 0 || b.columns <= 0 || b.projections <= 0)
    return cudaSuccess;
  const std::size_t bytes = CudaSortColumnsSharedBytes(launch.paddedLength, launch.columnsPerBlock);
  cudaError_t status = cudaFuncSetAttribute(SortColumns, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess)
    return status;
  const dim3 grid((b.columns + launch.columnsPerBlock - 1) / launch.columnsPerBlock, b.rows);
  SortColumns<<<grid, 1024, bytes, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchSortedMedian(const CudaSortedMedianLaunch & launch, cudaStream_t stream)
{
  const CudaSinogramBand & b = launch.band;
  if (b.rows <= 0 || b.columns <= 0 || b.projections <= 0)
    return cudaSuccess;
  const int block = 128;
  const dim3 grid((b.columns + block - 1) / block, b.projections, b.rows);
  SortedMedian<<<grid, block, (block + launch.size - 1) * sizeof(float), stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchStripeOffsets(const CudaStripeOffsetsLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.band.rows) * launch.band.columns;
  if (total <= 0 || launch.lastRank <= launch.firstRank)
    return cudaSuccess;
  const int block = 128;
  StripeOffsets<<<static_cast<unsigned int>((total + block - 1) / block), block, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchStripeCorrection(const CudaStripeCorrectionLaunch & launch, cudaStream_t stream)
{
  const CudaSinogramBand & b = launch.band;
  if (b.rows <= 0 || b.columns <= 0 || b.projections <= 0)
    return cudaSuccess;
  const int block = 128;
  const dim3 grid((b.columns + block - 1) / block, b.projections, b.rows);
  StripeCorrection<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchWaveletPad(const CudaWaveletPadLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.paddedAngles) * launch.band.rows * launch.band.columns;
  if (total <= 0)
    return cudaSuccess;
  WaveletPad<<<BlocksFor(total), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchWaveletCrop(const CudaWaveletPadLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.band.projections) * launch.band.rows * launch.band.columns;
  if (total <= 0)
    return cudaSuccess;
  WaveletCrop<<<BlocksFor(total), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchWaveletAnalysis(const CudaWaveletAnalysisLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.axis == 0 ? launch.count : launch.in.angles) * launch.in.rows *
                          (launch.axis == 0 ? launch.in.columns : launch.count);
  if (total <= 0)
    return cudaSuccess;
  WaveletAnalysis<<<BlocksFor(total), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchWaveletSynthesis(const CudaWaveletSynthesisLaunch & launch, cudaStream_t stream)
{
  const long long total = static_cast<long long>(launch.axis == 0 ? launch.samples : launch.coefficients.angles) *
                          launch.coefficients.rows *
                          (launch.axis == 0 ? launch.coefficients.columns : launch.samples);
  if (total <= 0)
    return cudaSuccess;
  WaveletSynthesis<<<BlocksFor(total), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchWaveletDamping(const CudaWaveletDampingLaunch & launch, cudaStream_t stream)
{
  const long long total = launch.batch * launch.bins;
  if (total <= 0)
    return cudaSuccess;
  WaveletDamping<<<BlocksFor(total), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
