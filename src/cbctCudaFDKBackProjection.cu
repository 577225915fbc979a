#include "cbctCudaFDKBackProjection.hcu"

#include <algorithm>

namespace cbct
{

namespace
{
// Threads of a block: 32 along x (one warp: coalesced volume access, neighbouring texels) and 4
// along y. Chosen on an H100 (see benchmarks/README.md).
constexpr int BlockX = 32;
constexpr int BlockY = 4;

// 16 blocks of 128 threads per multiprocessor, all it holds: caps the kernel at 32 registers (it
// took 40 with the matrices in shared memory; a few bytes spill): 884 against 842 GUPS for S.
constexpr int BlocksPerMultiprocessor = 16;

// The kernel along y: 12 blocks (40 registers) let it hold a matrix row read as one float4 without
// spilling; on the H100 it beat 16 blocks (S 54.2 against 54.9 ms, R 0.592 against 0.595 s).
constexpr int BlocksPerMultiprocessorAlongY = 12;

/** The field of view's column through voxel (x, b) of launch `p` (b: the index other than x and the
 * column's axis). */
__device__ __forceinline__ int2
FieldOfViewAt(const CudaBackProjectionLaunch & p, int x, int b)
{
  const int * c = p.fieldOfView + 2 * (static_cast<size_t>(b - p.fieldOfViewFirst[1]) * p.fieldOfViewColumns + (x - p.fieldOfViewFirst[0]));
  return make_int2(c[0], c[1]);
}

/** Whether voxel (x, y, z) of launch `p` is in the field of view (true without one). */
__device__ __forceinline__ bool
InsideFieldOfView(const CudaBackProjectionLaunch & p, int x, int y, int z)
{
  if (!p.fieldOfView)
    return true;
  const int2 c = p.fieldOfViewAxis == 1 ? FieldOfViewAt(p, x, z) : FieldOfViewAt(p, x, y);
  const int t = p.fieldOfViewAxis == 1 ? y : z;
  return t >= c.x && t <= c.y;
}

/** Whether the run [run, run + BackProjectionRun) of the column (x, b) along the field of view's axis
 * misses the field of view; true only with a field of view along the run's axis. */
__device__ __forceinline__ bool
RunOutsideFieldOfView(const CudaBackProjectionLaunch & p, int runAxis, int x, int b, int run)
{
  if (!p.fieldOfView || p.fieldOfViewAxis != runAxis)
    return false;
  const int2 c = FieldOfViewAt(p, x, b);
  return c.y < run || c.x > run + BackProjectionRun - 1 || c.y < c.x;
}

/** Adds a thread's run sums to its voxels, as AddRun() does, where the voxel is in the field of view;
 * a voxel outside it is set to the outside value with writeOutside, else left alone. Voxel r of the run
 * has absolute coordinates voxel + r * step (step: the run's axis). */
__device__ __forceinline__ void
AddRunInFieldOfView(const CudaBackProjectionLaunch & p, float * out, size_t stride, const float (&sum)[BackProjectionRun], int run,
                    int first, int size, int3 voxel, int3 step)
{
#pragma unroll
  for (int r = 0; r < BackProjectionRun; ++r)
  {
    const int i = run + r - first;
    if (i >= 0 && i < size)
    {
      if (InsideFieldOfView(p, voxel.x + r * step.x, voxel.y + r * step.y, voxel.z + r * step.z))
        out[static_cast<size_t>(i) * stride] += sum[r];
      else if (p.writeOutside)
        out[static_cast<size_t>(i) * stride] = p.outsideValue;
    }
  }
}

/** A run wholly outside the field of view: its voxels set to the outside value with writeOutside. */
__device__ __forceinline__ void
WriteRunOutside(const CudaBackProjectionLaunch & p, float * out, size_t stride, int run, int first, int size)
{
  if (!p.writeOutside)
    return;
#pragma unroll
  for (int r = 0; r < BackProjectionRun; ++r)
  {
    const int i = run + r - first;
    if (i >= 0 && i < size)
      out[static_cast<size_t>(i) * stride] = p.outsideValue;
  }
}

/** Adds a thread's run sums to its voxels: voxel r of the run is at out + (run + r - first) * stride,
 * written where that index falls inside the block (0 to size - 1). */
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

template <bool DistanceWeight>
__global__ void __launch_bounds__(BlockX * BlockY, BlocksPerMultiprocessor)
BackProject(const __grid_constant__ CudaBackProjectionLaunch p)
{
  // The matrices, read from the kernel parameter by projection index inside the loop, streamed 3 KB
  // through the constant cache and evicted the kernel's other constants: ncu showed 21 of 30 cycles
  // between instructions stalled on constant-cache misses, and the speed swung between 300 and 840
  // GUPS with unrelated changes to the parameter's neighbours. Copied once per block into shared
  // memory (3 KB, every thread reading the same word: a broadcast), they cost nothing.
  __shared__ float matrices[CudaBackProjectionBatch * 12];
  for (int q = threadIdx.y * BlockX + threadIdx.x; q < p.count * 12; q += BlockX * BlockY)
    matrices[q] = p.matrices[q / 12].matrix[q % 12];
  __syncthreads();
  const int x = blockIdx.x * BlockX + threadIdx.x;
  const int y = blockIdx.y * BlockY + threadIdx.y;
  // Runs are aligned to absolute z so that every piece of a streamed volume steps alike.
  const int run = RunStart(p.first[2]) + blockIdx.z * BackProjectionRun;
  if (x >= p.size[0] || y >= p.size[1])
    return;
  const size_t plane = static_cast<size_t>(p.size[0]) * p.size[1];
  float * const column = p.volume + static_cast<size_t>(y) * p.size[0] + x;
  // A run the field of view misses: nothing to add (only the outside value to write, once).
  if (RunOutsideFieldOfView(p, 2, p.first[0] + x, p.first[1] + y, run))
  {
    WriteRunOutside(p, column, plane, run, p.first[2], p.size[2]);
    return;
  }
  const float fx = static_cast<float>(p.first[0] + x);
  const float fy = static_cast<float>(p.first[1] + y);
  const float fz = static_cast<float>(run);
  // The matrices give pixel index + 0.5 (TexelCentred()): the texture coordinate is that minus the
  // texture's first column and row, an exact subtraction.
  const float uShift = p.columnOffset, vShift = p.rowOffset;

  float sum[BackProjectionRun] = {};

  for (int k = 0; k < p.count; ++k)
  {
    const float * m = matrices + 12 * k;
    float hu, hv, hw;
    HomogeneousAt(m, fx, fy, fz, hu, hv, hw);
#pragma unroll
    for (int r = 0; r < BackProjectionRun; ++r)
    {
      const float inv = __frcp_rn(hw);
      const float u = MulRn(hu, inv) - uShift;
      const float v = MulRn(hv, inv) - vShift;
      const float sample = tex2DLayered<float>(p.projections, u, v, k);
      sum[r] += (hw < 0.f) ? (DistanceWeight ? sample * (inv * inv) : sample) : 0.f;
      hu += m[2];
      hv += m[6];
      hw += m[10];
    }
  }
  if (p.fieldOfView)
    AddRunInFieldOfView(p, column, plane, sum, run, p.first[2], p.size[2], make_int3(p.first[0] + x, p.first[1] + y, run),
                        make_int3(0, 0, 1));
  else
    AddRun(column, plane, sum, run, p.first[2], p.size[2]);
}

/** One homogeneous coordinate from a matrix row: HomogeneousAt's operations, in its order. */
__device__ __forceinline__ float
RowAt(const float4 row, float x, float y, float z)
{
  return AddRn(AddRn(AddRn(MulRn(row.x, x), MulRn(row.y, y)), MulRn(row.z, z)), row.w);
}

/** The kernel above for launches whose every matrix leaves u and w unchanged along y
 * (RunsAlongYAllowed: the rotation axis along the volume's y, no tilt out of the orbit's plane), as
 * a circular scan's do. Each thread walks a run of BackProjectionRun voxels along y instead of z,
 * aligned to absolute y so that pieces cut along y step alike: the reciprocal of w, u and the
 * distance weight are computed once per run and projection, and each voxel costs a multiply and a
 * subtraction for v, the texture fetch and a multiply-add. That leaves the texture path as the only
 * limit (H100, ncu: L1/TEX throughput 96.6% of its peak, issue slots 38% busy, against 89.7% and
 * 86% for the kernel above). Threads: 32 along x, 4 along z; the grid's z walks the runs, so that
 * the blocks in flight together share detector rows (y) and the texture's working set stays in L2:
 * with the runs on the grid's y instead, R's backprojection took 0.69 s instead of 0.59 s. */
template <bool DistanceWeight>
__global__ void __launch_bounds__(BlockX * BlockY, BlocksPerMultiprocessorAlongY)
BackProjectAlongY(const __grid_constant__ CudaBackProjectionLaunch p)
{
  // Rows of the matrices as float4: three shared-memory reads per projection instead of twelve
  // (shared memory and the texture units share the L1's data path, the kernel's limit).
  __shared__ float4 rows[CudaBackProjectionBatch * 3];
  for (int q = threadIdx.y * BlockX + threadIdx.x; q < p.count * 3; q += BlockX * BlockY)
  {
    const float * m = p.matrices[q / 3].matrix + 4 * (q % 3);
    rows[q] = make_float4(m[0], m[1], m[2], m[3]);
  }
  __syncthreads();
  const int x = blockIdx.x * BlockX + threadIdx.x;
  const int z = blockIdx.y * BlockY + threadIdx.y;
  const int run = RunStart(p.first[1]) + blockIdx.z * BackProjectionRun;
  if (x >= p.size[0] || z >= p.size[2])
    return;
  const size_t plane = static_cast<size_t>(p.size[0]) * p.size[1];
  float * const column = p.volume + static_cast<size_t>(z) * plane + x;
  // A run the field of view misses: nothing to add (only the outside value to write, once).
  if (RunOutsideFieldOfView(p, 1, p.first[0] + x, p.first[2] + z, run))
  {
    WriteRunOutside(p, column, static_cast<size_t>(p.size[0]), run, p.first[1], p.size[1]);
    return;
  }
  const float fx = static_cast<float>(p.first[0] + x);
  const float fy = static_cast<float>(run);
  const float fz = static_cast<float>(p.first[2] + z);
  const float uShift = p.columnOffset, vShift = p.rowOffset;

  float sum[BackProjectionRun] = {};

  for (int k = 0; k < p.count; ++k)
  {
    const float hw = RowAt(rows[3 * k + 2], fx, fy, fz);
    const float hu = RowAt(rows[3 * k], fx, fy, fz);
    const float4 vRow = rows[3 * k + 1];
    float hv = RowAt(vRow, fx, fy, fz);
    if (!(hw < 0.f))
      continue; // behind the source
    const float inv = __frcp_rn(hw);
    const float u = MulRn(hu, inv) - uShift;
    const float weight = DistanceWeight ? inv * inv : 1.f;
    const float step = vRow.y; // m[5]: v's change per voxel along y
#pragma unroll
    for (int r = 0; r < BackProjectionRun; ++r)
    {
      const float v = MulRn(hv, inv) - vShift;
      sum[r] += tex2DLayered<float>(p.projections, u, v, k) * weight;
      hv += step;
    }
  }
  if (p.fieldOfView)
    AddRunInFieldOfView(p, column, static_cast<size_t>(p.size[0]), sum, run, p.first[1], p.size[1],
                        make_int3(p.first[0] + x, run, p.first[2] + z), make_int3(0, 1, 0));
  else
    AddRun(column, static_cast<size_t>(p.size[0]), sum, run, p.first[1], p.size[1]);
}

/** The grid of a backprojection launch: BlockX threads along x, BlockY along axis `across`, and the
 * runs of BackProjectionRun voxels along axis `runs` (starting at absolute multiples) last. */
dim3
RunGrid(const CudaBackProjectionLaunch & launch, int runs, int across)
{
  const int firstRun = RunStart(launch.first[runs]);
  const int count = (launch.first[runs] + launch.size[runs] - firstRun + BackProjectionRun - 1) / BackProjectionRun;
  return dim3((launch.size[0] + BlockX - 1) / BlockX, (launch.size[across] + BlockY - 1) / BlockY, count);
}

__global__ void
FieldOfViewColumns(const CudaFieldOfViewColumnsLaunch p)
{
  const int other = p.axis == 1 ? 2 : 1;
  const size_t columns = static_cast<size_t>(p.size[0]) * p.size[other];
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < columns;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
  {
    FieldOfViewColumn c;
    c.axis = p.axis;
    c.a = p.first[0] + static_cast<int>(i % p.size[0]);
    c.b = p.first[other] + static_cast<int>(i / p.size[0]);
    c.first = p.first[p.axis];
    c.last = p.first[p.axis] + p.size[p.axis] - 1;
    ClipToFieldOfView(p.matrices, p.count, p.detector, c);
    p.columns[2 * i] = c.first;
    p.columns[2 * i + 1] = c.last;
  }
}

__global__ void
Fill(float * data, size_t count, float value)
{
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    data[i] = value;
}
__global__ void
ProbeTexture(cudaTextureObject_t texture, const float * x, const float * y, float * values, int count)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    values[i] = tex2DLayered<float>(texture, x[i], y[i], 0);
}
} // namespace

cudaError_t
LaunchTextureProbe(cudaTextureObject_t texture, const float * x, const float * y, float * values, int count,
                   cudaStream_t stream)
{
  if (count <= 0)
    return cudaSuccess;
  ProbeTexture<<<(count + 127) / 128, 128, 0, stream>>>(texture, x, y, values, count);
  return cudaGetLastError();
}

cudaError_t
LaunchFDKBackProjection(const CudaBackProjectionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0 || launch.size[0] <= 0 || launch.size[1] <= 0 || launch.size[2] <= 0)
    return cudaSuccess;
  if (launch.count > CudaBackProjectionBatch)
    return cudaErrorInvalidValue;
  const bool alongY = launch.runsAlongY && RunsAlongYAllowed(launch);
  const dim3 grid = alongY ? RunGrid(launch, 1, 2) : RunGrid(launch, 2, 1);
  if (grid.y > 65535 || grid.z > 65535)
    return cudaErrorInvalidConfiguration;
  if (alongY && launch.distanceWeight)
    BackProjectAlongY<true><<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  else if (alongY)
    BackProjectAlongY<false><<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  else if (launch.distanceWeight)
    BackProject<true><<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  else
    BackProject<false><<<grid, dim3(BlockX, BlockY), 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchFieldOfViewColumns(const CudaFieldOfViewColumnsLaunch & launch, cudaStream_t stream)
{
  if (launch.axis != 1 && launch.axis != 2)
    return cudaErrorInvalidValue;
  const size_t columns = static_cast<size_t>(launch.size[0]) * launch.size[launch.axis == 1 ? 2 : 1];
  if (columns == 0)
    return cudaSuccess;
  const unsigned int blocks = static_cast<unsigned int>(std::min<size_t>((columns + 127) / 128, 65535));
  FieldOfViewColumns<<<blocks, 128, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchFill(float * data, size_t count, float value, cudaStream_t stream)
{
  if (count == 0)
    return cudaSuccess;
  const unsigned int blocks = static_cast<unsigned int>((count + 255) / 256 < 65535 ? (count + 255) / 256 : 65535);
  Fill<<<blocks, 256, 0, stream>>>(data, count, value);
  return cudaGetLastError();
}

} // namespace cbct
