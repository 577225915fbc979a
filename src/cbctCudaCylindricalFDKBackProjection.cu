#include "cbctCudaCylindricalFDKBackProjection.hcu"

namespace cbct
{

namespace
{
// 32 threads along x (one warp: coalesced volume access, neighbouring texels) and 4 across, as the
// flat panel's kernels.
constexpr int BlockX = 32;
constexpr int BlockY = 4;
constexpr int Floats = 14; // a CylindricalProjection

/** Adds a thread's run sums to its voxels: voxel r of the run is at out + (run + r - first) * stride,
 * written where that index falls inside the block. */
__device__ __forceinline__ void
AddRun(float * out, size_t stride, const float (&sum)[BackProjectionRun], int run, int first, int size)
{
#pragma unroll
  for (int r = 0; r < BackProjectionRun; ++r)
  {
    const int i = run + r - first;
    if (i >= 0 && i < size)
      out[static_cast<size_t>(i) * stride] += sum[r];
  }
}

/** The launch's matrices copied into shared memory (the parameter space's constant cache would be
 * streamed through by the loop over projections; see the flat panel's kernel). */
__device__ __forceinline__ void
LoadMatrices(const CudaCylindricalBackProjectionLaunch & p, float * shared)
{
  for (int q = threadIdx.y * BlockX + threadIdx.x; q < p.count * Floats; q += BlockX * BlockY)
  {
    const CylindricalProjection & m = p.matrices[q / Floats];
    const int e = q % Floats;
    shared[q] = e < 12 ? m.matrix[e] : m.pixelOffset[e - 12];
  }
  __syncthreads();
}

/** Runs along z: any matrix. */
__global__ void __launch_bounds__(BlockX * BlockY)
BackProjectAlongZ(const __grid_constant__ CudaCylindricalBackProjectionLaunch p)
{
  __shared__ float matrices[CudaBackProjectionBatch * Floats];
  LoadMatrices(p, matrices);
  const int x = blockIdx.x * BlockX + threadIdx.x;
  const int y = blockIdx.y * BlockY + threadIdx.y;
  const int run = RunStart(p.first[2]) + blockIdx.z * BackProjectionRun;
  if (x >= p.size[0] || y >= p.size[1])
    return;
  const float fx = static_cast<float>(p.first[0] + x);
  const float fy = static_cast<float>(p.first[1] + y);
  const CylindricalDetectorGrid g = p.grid;
  float sum[BackProjectionRun] = {};
  for (int k = 0; k < p.count; ++k)
  {
    const float * m = matrices + Floats * k;
#pragma unroll
    for (int r = 0; r < BackProjectionRun; ++r)
    {
      float hu, hv, hw;
      HomogeneousAt(m, fx, fy, static_cast<float>(run + r), hu, hv, hw);
      if (hw < 0.f)
      {
        float i, j, weight;
        CylindricalPixel(g, m + 12, hu, hv, hw, i, j, weight);
        sum[r] += tex2DLayered<float>(p.projections, i - p.columnOffset, j - p.rowOffset, k) * weight;
      }
    }
  }
  const size_t plane = static_cast<size_t>(p.size[0]) * p.size[1];
  AddRun(p.volume + static_cast<size_t>(y) * p.size[0] + x, plane, sum, run, p.first[2], p.size[2]);
}

/** Runs along y: the matrices leave hu and hw unchanged along y (m[1] = m[9] = 0), so the angle across
 * the cylinder's axis, the arc and the weight are computed once per run and projection. */
__global__ void __launch_bounds__(BlockX * BlockY)
BackProjectAlongY(const __grid_constant__ CudaCylindricalBackProjectionLaunch p)
{
  __shared__ float matrices[CudaBackProjectionBatch * Floats];
  LoadMatrices(p, matrices);
  const int x = blockIdx.x * BlockX + threadIdx.x;
  const int z = blockIdx.y * BlockY + threadIdx.y;
  const int run = RunStart(p.first[1]) + blockIdx.z * BackProjectionRun;
  if (x >= p.size[0] || z >= p.size[2])
    return;
  const float fx = static_cast<float>(p.first[0] + x);
  const float fz = static_cast<float>(p.first[2] + z);
  const CylindricalDetectorGrid g = p.grid;
  float sum[BackProjectionRun] = {};
  for (int k = 0; k < p.count; ++k)
  {
    const float * m = matrices + Floats * k;
    float hu, hv, hw;
    HomogeneousAt(m, fx, static_cast<float>(run), fz, hu, hv, hw);
    if (!(hw < 0.f))
      continue; // behind the source (the whole run)
    CylindricalColumn column;
    column.Column(g, m + 12, hu, hw);
#pragma unroll
    for (int r = 0; r < BackProjectionRun; ++r)
    {
      HomogeneousAt(m, fx, static_cast<float>(run + r), fz, hu, hv, hw);
      float i, j;
      column.At(g, m + 12, hv, i, j);
      sum[r] += tex2DLayered<float>(p.projections, i - p.columnOffset, j - p.rowOffset, k) * column.weight;
    }
  }
  const size_t plane = static_cast<size_t>(p.size[0]) * p.size[1];
  AddRun(p.volume + static_cast<size_t>(z) * plane + x, static_cast<size_t>(p.size[0]), sum, run, p.first[1], p.size[1]);
}

/** BlockX threads along x, BlockY along axis `across`, the runs along axis `runs` last. */
dim3
RunGrid(const CudaCylindricalBackProjectionLaunch & launch, int runs, int across)
{
  const int firstRun = RunStart(launch.first[runs]);
  const int count = (launch.first[runs] + launch.size[runs] - firstRun + BackProjectionRun - 1) / BackProjectionRun;
  return dim3((launch.size[0] + BlockX - 1) / BlockX, (launch.size[across] + BlockY - 1) / BlockY, count);
}
} // namespace

cudaError_t
LaunchCylindricalFDKBackProjection(const CudaCylindricalBackProjectionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0 || launch.size[0] <= 0 || launch.size[1] <= 0 || launch.size[2] <= 0)
    return cudaSuccess;
  if (launch.count > CudaBackProjectionBatch)
    return cudaErrorInvalidValue;
  bool alongY = launch.runsAlongY;
  for (int k = 0; k < launch.count && alongY; ++k)
    alongY = launch.matrices[k].matrix[1] == 0.f && launch.matrices[k].matrix[9] == 0.f;
  const dim3 grid = alongY ? RunGrid(launch, 1, 2) : RunGrid(launch, 2, 1);
  if (grid.y > 65535 || grid.z > 65535)
    return cudaErrorInvalidConfiguration;
  if (alongY)
    BackProjectAlongY<<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  else
    BackProjectAlongZ<<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
