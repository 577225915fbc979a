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

/** WaveletFourierStripeRemoval::DetailReference() of pixel (u, row r, projection k) of the band's
 * input: the median of the means of `pairs` (odd, <= 63) symmetric pairs of neighbours across the
 * detector, mirrored ends. */
__device__ float
DetailReference(const CudaSinogramBand & b, int k, int r, int u, int pairs)
{
  const float * line = b.input + k * b.inputProjectionPitch + r * b.inputRowPitch;
  const int U = b.columns;
  auto at = [&](int i) {
    if (i < 0)
      i = -1 - i;
    else if (i >= U)
      i = 2 * U - 1 - i;
    return line[min(max(i, 0), U - 1)];
  };
  float work[63];
  for (int j = 1; j <= pairs; ++j)
    work[j - 1] = __fmul_rn(__fadd_rn(at(u - j), at(u + j)), 0.5f);
  for (int i = 1; i < pairs; ++i)
    for (int j = i; j > 0 && work[j] < work[j - 1]; --j)
    {
      const float t = work[j];
      work[j] = work[j - 1];
      work[j - 1] = t;
    }
  return work[pairs / 2];
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
      if (p.detailPairs > 0)
        value = __fsub_rn(value, DetailReference(b, k, r, u, p.detailPairs));
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
    const float filtered = p.padded[(static_cast<long long>(k + p.shift) * b.rows + r) * b.columns + u];
    if (p.detailPairs > 0)
    {
      const float value = b.input[k * b.inputProjectionPitch + r * b.inputRowPitch + u];
      const float detail = __fsub_rn(value, DetailReference(b, k, r, u, p.detailPairs));
      b.output[k * b.outputProjectionPitch + r * b.outputRowPitch + u] = __fsub_rn(value, __fsub_rn(detail, filtered));
    }
    else
      b.output[k * b.outputProjectionPitch + r * b.outputRowPitch + u] = filtered;
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
