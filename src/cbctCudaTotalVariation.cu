#include "cbctCudaTotalVariation.hcu"

namespace cbct
{

namespace
{
// 32 x 8 voxels of an xy slice per block, one grid layer per z.
constexpr int BlockX = 32, BlockY = 8;

dim3
Grid(const TVGrid & g)
{
  return dim3((g.size[0] + BlockX - 1) / BlockX, (g.size[1] + BlockY - 1) / BlockY, g.size[2]);
}

/** This thread's voxel; false past the volume's edge. */
__device__ inline bool
Voxel(const TVGrid & g, int & X, int & Y, int & Z, long long & v)
{
  X = blockIdx.x * BlockX + threadIdx.x;
  Y = blockIdx.y * BlockY + threadIdx.y;
  Z = blockIdx.z;
  v = TVOffset(g, X, Y, Z);
  return X < g.size[0] && Y < g.size[1];
}

__global__ void
Derivative(const float * x, float * out, const TVGrid g, float epsilon2)
{
  int X, Y, Z;
  long long v;
  if (Voxel(g, X, Y, Z, v))
    out[v] = TVDerivative(x, g, epsilon2, X, Y, Z);
}

__global__ void
Gradient(const float * x, float * p0, float * p1, float * p2, const TVGrid g)
{
  int X, Y, Z;
  long long v;
  if (!Voxel(g, X, Y, Z, v))
    return;
  float d[3];
  TVForwardDifferences(x, g, X, Y, Z, d);
  p0[v] = d[0];
  p1[v] = d[1];
  p2[v] = d[2];
}

__global__ void
Divergence(const float * p0, const float * p1, const float * p2, float * out, const TVGrid g, float scale, const float * offset,
           float offsetScale)
{
  int X, Y, Z;
  long long v;
  if (!Voxel(g, X, Y, Z, v))
    return;
  out[v] = TVScaledDivergence(p0, p1, p2, g, X, Y, Z, scale, offset, offsetScale);
}

__global__ void
ChambolleStep(const float * z, float * p0, float * p1, float * p2, const TVGrid g, float tau)
{
  int X, Y, Z;
  long long v;
  if (!Voxel(g, X, Y, Z, v))
    return;
  TVChambolleStep(z, p0, p1, p2, g, tau, X, Y, Z);
}

__global__ void
ShrinkStep(const CudaShrinkLaunch p)
{
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < p.voxels;
       v += static_cast<long long>(gridDim.x) * blockDim.x)
    TVShrinkStep(p.q, p.g, p.d, p.threshold, v);
}

} // namespace

cudaError_t
LaunchTVDerivative(const float * x, float * g, const TVGrid & grid, float epsilon2, cudaStream_t stream)
{
  Derivative<<<Grid(grid), dim3(BlockX, BlockY), 0, stream>>>(x, g, grid, epsilon2);
  return cudaGetLastError();
}

cudaError_t
LaunchTVGradient(const float * x, float * p0, float * p1, float * p2, const TVGrid & grid, cudaStream_t stream)
{
  Gradient<<<Grid(grid), dim3(BlockX, BlockY), 0, stream>>>(x, p0, p1, p2, grid);
  return cudaGetLastError();
}

cudaError_t
LaunchTVDivergence(const float * p0, const float * p1, const float * p2, float * out, const TVGrid & grid, float scale,
                   const float * offset, float offsetScale, cudaStream_t stream)
{
  Divergence<<<Grid(grid), dim3(BlockX, BlockY), 0, stream>>>(p0, p1, p2, out, grid, scale, offset, offsetScale);
  return cudaGetLastError();
}

cudaError_t
LaunchChambolleStep(const float * z, float * p0, float * p1, float * p2, const TVGrid & grid, float tau, cudaStream_t stream)
{
  ChambolleStep<<<Grid(grid), dim3(BlockX, BlockY), 0, stream>>>(z, p0, p1, p2, grid, tau);
  return cudaGetLastError();
}

cudaError_t
LaunchTVShrinkStep(const CudaShrinkLaunch & launch, cudaStream_t stream)
{
  if (launch.voxels <= 0)
    return cudaSuccess;
  const long long blocks = (launch.voxels + 255) / 256;
  ShrinkStep<<<static_cast<unsigned int>(blocks < 65535 ? blocks : 65535), 256, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
