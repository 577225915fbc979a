#include "cbctCudaVectorKernels.hcu"

namespace cbct
{

namespace
{
constexpr int Threads = 256; // a power of two: the reductions halve it

unsigned int
Blocks(long long n)
{
  const long long blocks = (n + Threads - 1) / Threads;
  return static_cast<unsigned int>(blocks < 65535 ? blocks : 65535);
}

/** Sums a block's `shared` values in a fixed tree into shared[0]. */
__device__ inline void
BlockSum(double * shared)
{
  for (int half = Threads / 2; half > 0; half /= 2)
  {
    __syncthreads();
    if (threadIdx.x < half)
      shared[threadIdx.x] = __dadd_rn(shared[threadIdx.x], shared[threadIdx.x + half]);
  }
}

__global__ void
__launch_bounds__(Threads)
SquaredNormPartials(const float * a, long long n, double * partials)
{
  __shared__ double shared[Threads];
  double sum = 0.;
  // Fixed grid (CudaSquaredNormBlocks x Threads): thread t always sums elements t, t + stride, ...
  const long long stride = static_cast<long long>(CudaSquaredNormBlocks) * Threads;
  for (long long i = blockIdx.x * static_cast<long long>(Threads) + threadIdx.x; i < n; i += stride)
  {
    const double value = a[i];
    sum = __dadd_rn(sum, __dmul_rn(value, value));
  }
  shared[threadIdx.x] = sum;
  BlockSum(shared);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

__global__ void
__launch_bounds__(Threads)
SumPartials(const double * partials, double * result)
{
  __shared__ double shared[Threads];
  double sum = 0.;
  for (int i = threadIdx.x; i < CudaSquaredNormBlocks; i += Threads)
    sum = __dadd_rn(sum, partials[i]);
  shared[threadIdx.x] = sum;
  BlockSum(shared);
  if (threadIdx.x == 0)
    *result = shared[0];
}

#define CBCT_GRID_STRIDE(v, n)                                                                     \
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < (n);       \
       v += static_cast<long long>(gridDim.x) * blockDim.x)

__global__ void
Axpy(double alpha, const float * x, float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = __fadd_rn(y[i], __double2float_rn(__dmul_rn(alpha, x[i])));
}

__global__ void
Xpby(const float * x, double beta, float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = __double2float_rn(__dadd_rn(x[i], __dmul_rn(beta, y[i])));
}

__global__ void
Scale(double alpha, float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = __double2float_rn(__dmul_rn(alpha, y[i]));
}

__global__ void
ZeroNegatives(float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = fmaxf(y[i], 0.f);
}

__global__ void
SubtractFrom(const float * x, float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = __fsub_rn(x[i], y[i]);
}

__global__ void
Add(const float * x, float * y, long long n)
{
  CBCT_GRID_STRIDE(i, n)
  y[i] = __fadd_rn(y[i], x[i]);
}

__global__ void
OSEMRatio(const float * measured, float * ratio, const unsigned int * subset, long long pixelsPerProjection)
{
  const long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (q >= pixelsPerProjection)
    return;
  const long long at = static_cast<long long>(subset[blockIdx.y]) * pixelsPerProjection + q;
  const float projected = ratio[at];
  ratio[at] = projected > 0.f ? __fdiv_rn(measured[at], projected) : 0.f;
}

__global__ void
OSEMUpdate(float * volume, const float * correction, const float * sensitivity, long long voxels)
{
  CBCT_GRID_STRIDE(v, voxels)
  {
    const float weight = sensitivity[v];
    if (weight > 0.f)
      volume[v] = __fmul_rn(volume[v], __fdiv_rn(correction[v], weight));
  }
}
#undef CBCT_GRID_STRIDE
} // namespace

cudaError_t
LaunchSquaredNorm(const float * a, long long n, double * partials, double * result, cudaStream_t stream)
{
  SquaredNormPartials<<<CudaSquaredNormBlocks, Threads, 0, stream>>>(a, n < 0 ? 0 : n, partials);
  SumPartials<<<1, Threads, 0, stream>>>(partials, result);
  return cudaGetLastError();
}

cudaError_t
LaunchAxpy(double alpha, const float * x, float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  Axpy<<<Blocks(n), Threads, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchXpby(const float * x, double beta, float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  Xpby<<<Blocks(n), Threads, 0, stream>>>(x, beta, y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchScale(double alpha, float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  Scale<<<Blocks(n), Threads, 0, stream>>>(alpha, y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchZeroNegatives(float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  ZeroNegatives<<<Blocks(n), Threads, 0, stream>>>(y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchSubtractFrom(const float * x, float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  SubtractFrom<<<Blocks(n), Threads, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchAdd(const float * x, float * y, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  Add<<<Blocks(n), Threads, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

cudaError_t
LaunchOSEMRatio(const float * measured, float * ratio, const unsigned int * subset, int count,
                long long pixelsPerProjection, cudaStream_t stream)
{
  if (count <= 0 || pixelsPerProjection <= 0)
    return cudaSuccess;
  OSEMRatio<<<dim3(static_cast<unsigned int>((pixelsPerProjection + Threads - 1) / Threads), count), Threads, 0,
              stream>>>(measured, ratio, subset, pixelsPerProjection);
  return cudaGetLastError();
}

cudaError_t
LaunchOSEMUpdate(float * volume, const float * correction, const float * sensitivity, long long voxels,
                 cudaStream_t stream)
{
  if (voxels <= 0)
    return cudaSuccess;
  OSEMUpdate<<<Blocks(voxels), Threads, 0, stream>>>(volume, correction, sensitivity, voxels);
  return cudaGetLastError();
}

} // namespace cbct
