#include "cbctCudaFourDROOSTER.hcu"

namespace cbct
{

namespace
{
constexpr int Threads = 256;

unsigned int
Blocks(long long n)
{
  const long long blocks = (n + Threads - 1) / Threads;
  return static_cast<unsigned int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

#define CBCT_FOURD_GRID_STRIDE(v, n)                                                                                   \
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < (n);                           \
       v += static_cast<long long>(gridDim.x) * blockDim.x)

__global__ void
FrameWeighting(CudaFrameWeighting w)
{
  const long long n = static_cast<long long>(w.count) * w.pixelsPerProjection;
  CBCT_FOURD_GRID_STRIDE(i, n)
  {
    const float weight = w.weights[i / w.pixelsPerProjection];
    if (weight == 0.f)
      continue;
    const float value = __fmul_rn(weight, w.in[i]);
    w.out[i] = w.add ? __fadd_rn(w.out[i], value) : value;
  }
}

__global__ void
ClampNonNegative(float * v, long long n)
{
  CBCT_FOURD_GRID_STRIDE(i, n)
  if (v[i] < 0.f)
    v[i] = 0.f;
}

__global__ void
AverageOutsideMask(CudaFrames f, const float * mask)
{
  CBCT_FOURD_GRID_STRIDE(v, f.voxels)
  {
    if (mask[v] != 0.f)
      continue;
    float sum = 0.f;
    for (int t = 0; t < f.count; ++t)
      sum = __fadd_rn(sum, f.frames[t][v]);
    const float mean = __fdiv_rn(sum, static_cast<float>(f.count));
    for (int t = 0; t < f.count; ++t)
      f.frames[t][v] = mean;
  }
}

// One thread per voxel: the dual of edge t (between frames t and t + 1) is dual[t * voxels + v]. The
// Jacobi step of Chambolle's algorithm is done in place in frame order, keeping the old dual values
// it still needs (z of frame t + 1 uses the old dual of edge t; z of frame 0 is kept for the last edge).
__global__ void
TemporalTotalVariation(CudaTemporalTV tv)
{
  const int count = tv.frames.count;
  const long long voxels = tv.frames.voxels;
  float * const * frames = tv.frames.frames;
  CBCT_FOURD_GRID_STRIDE(v, voxels)
  {
    float * p = tv.dual + v;
    for (int t = 0; t < count; ++t)
      p[t * voxels] = 0.f;
    for (int n = 0; n < tv.iterations; ++n)
    {
      const float z0 = __fadd_rn(__fsub_rn(p[0], p[(count - 1) * voxels]), __fmul_rn(tv.scale, frames[0][v]));
      float z = z0;
      for (int t = 0; t < count; ++t)
      {
        const int next = t + 1 == count ? 0 : t + 1;
        const float old = p[t * voxels];
        const float zNext = next == 0 ? z0 : __fadd_rn(__fsub_rn(p[next * voxels], old), __fmul_rn(tv.scale, frames[next][v]));
        const float g = __fsub_rn(zNext, z);
        p[t * voxels] = __fdiv_rn(__fadd_rn(old, __fmul_rn(tv.tau, g)), __fadd_rn(1.f, __fmul_rn(tv.tau, fabsf(g))));
        z = zNext;
      }
    }
    const float last = p[(count - 1) * voxels];
    float previous = last;
    for (int t = 0; t < count; ++t)
    {
      const float current = p[t * voxels];
      frames[t][v] = __fsub_rn(frames[t][v], __fmul_rn(tv.lambda, __fsub_rn(current, previous)));
      previous = current;
    }
  }
}
} // namespace

cudaError_t
LaunchFrameWeighting(const CudaFrameWeighting & weighting, cudaStream_t stream)
{
  const long long n = static_cast<long long>(weighting.count) * weighting.pixelsPerProjection;
  if (n <= 0)
    return cudaSuccess;
  FrameWeighting<<<Blocks(n), Threads, 0, stream>>>(weighting);
  return cudaGetLastError();
}

cudaError_t
LaunchClampNonNegative(float * v, long long n, cudaStream_t stream)
{
  if (n <= 0)
    return cudaSuccess;
  ClampNonNegative<<<Blocks(n), Threads, 0, stream>>>(v, n);
  return cudaGetLastError();
}

cudaError_t
LaunchAverageOutsideMask(const CudaFrames & frames, const float * mask, cudaStream_t stream)
{
  if (frames.voxels <= 0 || frames.count <= 0)
    return cudaSuccess;
  AverageOutsideMask<<<Blocks(frames.voxels), Threads, 0, stream>>>(frames, mask);
  return cudaGetLastError();
}

cudaError_t
LaunchTemporalTotalVariation(const CudaTemporalTV & tv, cudaStream_t stream)
{
  if (tv.frames.voxels <= 0 || tv.frames.count < 2 || tv.iterations <= 0)
    return cudaSuccess;
  TemporalTotalVariation<<<Blocks(tv.frames.voxels), Threads, 0, stream>>>(tv);
  return cudaGetLastError();
}

} // namespace cbct
