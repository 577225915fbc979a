#include "cbctCudaRayCast.hcu"
#include "cbctCudaRayThreads.cuh"

namespace cbct
{

namespace
{
using Threads = RayThreads<32, 4>;


__global__ void
__launch_bounds__(Threads::Count)
Forward(const CudaRayCastLaunch p)
{
  int i, j;
  unsigned int k;
  if (!Threads::Pixel(p, i, j, k))
    return;
  float sum = 0.f;
  RayCastSegments r;
  double fi = p.firstColumn + i, fj = p.firstRow + j;
  const bool onPanel = !p.cylinders || FlatPixelOfCylinderPixel(p.cylinders[k], fi, fj, fi, fj);
  if (onPanel && RayCastSetup(p.rays[k], p.size, static_cast<float>(fi), static_cast<float>(fj), p.step, r))
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
__launch_bounds__(Threads::Count)
Back(const CudaRayCastLaunch p)
{
  int i, j;
  unsigned int k;
  if (!Threads::Pixel(p, i, j, k))
    return;
  const float value = p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i];
  if (value == 0.f)
    return;
  float * volume = p.volume;
  double fi = p.firstColumn + i, fj = p.firstRow + j;
  if (p.cylinders && !FlatPixelOfCylinderPixel(p.cylinders[k], fi, fj, fi, fj))
    return;
  RayCastVisit(p.rays[k], p.size, static_cast<float>(fi), static_cast<float>(fj), p.step,
               [volume, value](long long offset, float w) { atomicAdd(volume + offset, w * value); });
}

} // namespace

cudaError_t
LaunchRayCastForward(const CudaRayCastLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Forward<<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchRayCastBack(const CudaRayCastLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Back<<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
