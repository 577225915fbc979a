#include "cbctCudaRayCast.hcu"

namespace cbct
{

namespace
{
constexpr int BlockColumns = 32, BlockRows = 4;

__device__ inline bool
ThreadPixel(const CudaRayCastLaunch & p, int & i, int & j, unsigned int & k)
{
  i = blockIdx.x * BlockColumns + threadIdx.x;
  j = blockIdx.y * BlockRows + threadIdx.y;
  k = p.subset[blockIdx.z];
  return i < p.columns && j < p.rows;
}

__global__ void
__launch_bounds__(BlockColumns * BlockRows)
Forward(const CudaRayCastLaunch p)
{
  int i, j;
  unsigned int k;
  if (!ThreadPixel(p, i, j, k))
    return;
  float sum = 0.f;
  RayCastSegments r;
  if (RayCastSetup(p.rays[k], p.size, static_cast<float>(p.firstColumn + i), static_cast<float>(p.firstRow + j), p.step, r))
    for (int n = 0; n < r.count; ++n)
    {
      float q[3];
      const float length = RayCastSample(r, n, q);
      // Texel centres at integer + 0.5; the border returns 0 outside the volume.
      sum += length * tex3D<float>(p.volumeTexture, AddRn(q[0], 0.5f), AddRn(q[1], 0.5f), AddRn(q[2], 0.5f));
    }
  p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i] = sum;
}

__global__ void
__launch_bounds__(BlockColumns * BlockRows)
Back(const CudaRayCastLaunch p)
{
  int i, j;
  unsigned int k;
  if (!ThreadPixel(p, i, j, k))
    return;
  const float value = p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i];
  if (value == 0.f)
    return;
  float * volume = p.volume;
  RayCastVisit(p.rays[k], p.size, static_cast<float>(p.firstColumn + i), static_cast<float>(p.firstRow + j), p.step,
               [volume, value](long long offset, float w) { atomicAdd(volume + offset, w * value); });
}

dim3
Grid(const CudaRayCastLaunch & launch)
{
  return dim3((launch.columns + BlockColumns - 1) / BlockColumns, (launch.rows + BlockRows - 1) / BlockRows, launch.count);
}
} // namespace

cudaError_t
LaunchRayCastForward(const CudaRayCastLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Forward<<<Grid(launch), dim3(BlockColumns, BlockRows), 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchRayCastBack(const CudaRayCastLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Back<<<Grid(launch), dim3(BlockColumns, BlockRows), 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
