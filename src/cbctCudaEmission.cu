#include "cbctCudaEmission.hcu"

namespace cbct
{

namespace
{
constexpr int CellThreads = 256; // threads per block of the per-cell and per-voxel kernels
// The composites: one block per view of 32 x 32 threads, thread (x, y) taking the pixels
// (x + 32 m, y + 32 n) of the plane (no division per pixel).
constexpr int CompositeSide = 32;
constexpr int CompositeThreads = CompositeSide * CompositeSide;

/** This thread's pixels (i, j) of a plane of `columns` x `rows`, q = j * columns + i. */
#define CBCT_FOR_PIXELS(i, j, q, columns, rows)                                                                        \
  for (int j = threadIdx.y; j < (rows); j += CompositeSide)                                                            \
    for (int i = threadIdx.x, q = j * (columns) + threadIdx.x; i < (columns); i += CompositeSide, q += CompositeSide)

/** plane = G(plane) for one blur step: along u into `scratch`, then along v back (the CPU's order). */
__device__ void
BlurPlane(const EmissionBlurStep & step, const float * taps, float * plane, float * scratch, int columns, int rows)
{
  if (step.radiusU == 0 && step.radiusV == 0)
    return;
  __syncthreads(); // the plane is complete
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  scratch[q] = EmissionBlurAt(plane + j * columns, 1, columns, i, taps + step.firstU, step.radiusU);
  __syncthreads();
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = EmissionBlurAt(scratch + i, columns, rows, j, taps + step.firstV, step.radiusV);
  __syncthreads();
}

__global__ void
__launch_bounds__(CellThreads)
Transmission(const CudaEmissionLaunch p)
{
  const int b = blockIdx.y;
  __shared__ EmissionView view;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const long long plane = static_cast<long long>(p.columns) * p.rows;
  const long long cell = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  if (cell >= plane * view.slices)
    return;
  const int s = static_cast<int>(cell / plane);
  const int rest = static_cast<int>(cell - s * plane);
  const int j = rest / p.columns, i = rest - j * p.columns;
  p.transmission[p.transmissionOffsets[b] + cell] = EmissionTransmission(view, p.mu, p.muSize, i, j, s);
}

__global__ void
__launch_bounds__(CellThreads)
Splat(const CudaEmissionLaunch p)
{
  const int b = blockIdx.y;
  __shared__ EmissionView view;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const long long voxel = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  const long long plane = static_cast<long long>(p.size[0]) * p.size[1];
  if (voxel >= plane * p.size[2])
    return;
  const float a = p.volume[voxel];
  if (a == 0.f)
    return;
  const int z = static_cast<int>(voxel / plane);
  const int rest = static_cast<int>(voxel - z * plane);
  const int y = rest / p.size[0], x = rest - y * p.size[0];
  float * cells = p.cells + p.offsets[b];
  EmissionVisitCells(view, p.columns, p.rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                     [cells, a](long long c, float w) { atomicAdd(cells + c, MulRn(w, a)); });
}

/** The two planes of batch view b: in shared memory or in the launch's scratch. */
__device__ float *
Planes(const CudaEmissionLaunch & p, float * shared, int b)
{
  return p.scratch == nullptr ? shared : p.scratch + 2ll * p.columns * p.rows * b;
}

__global__ void
__launch_bounds__(CompositeThreads)
ForwardComposite(const CudaEmissionLaunch p)
{
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const int b = blockIdx.x;
  const unsigned int k = p.batch[b];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    view = p.views[k];
  __syncthreads();
  const int columns = p.columns, rows = p.rows, pixels = columns * rows;
  float * plane = Planes(p, shared, b);
  float * scratch = plane + pixels;
  const float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = 0.f;
  for (int s = view.slices - 1; s >= 0; --s)
  {
    if (s + 1 < view.slices)
      BlurPlane(steps[s], p.taps, plane, scratch, columns, rows);
    const long long first = static_cast<long long>(s) * pixels;
    CBCT_FOR_PIXELS(i, j, q, columns, rows)
    {
      float length;
      const float scale = EmissionScale(view, i, j, s, length);
      const float t = transmission ? transmission[first + q] : 1.f;
      plane[q] = AddRn(MulRn(plane[q], t), MulRn(MulRn(cells[first + q], scale), sqrtf(t)));
    }
  }
  if (view.slices > 0)
    BlurPlane(steps[view.slices - 1], p.taps, plane, scratch, columns, rows);
  float * out = p.projections + static_cast<long long>(k) * pixels;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  out[q] = plane[q];
}

__global__ void
__launch_bounds__(CompositeThreads)
BackComposite(const CudaEmissionLaunch p)
{
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const int b = blockIdx.x;
  const unsigned int k = p.batch[b];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    view = p.views[k];
  __syncthreads();
  if (view.slices == 0)
    return;
  const int columns = p.columns, rows = p.rows, pixels = columns * rows;
  float * plane = Planes(p, shared, b);
  float * scratch = plane + pixels;
  float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
  const float * in = p.projections + static_cast<long long>(k) * pixels;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = in[q];
  BlurPlane(steps[view.slices - 1], p.taps, plane, scratch, columns, rows);
  for (int s = 0; s < view.slices; ++s)
  {
    const long long first = static_cast<long long>(s) * pixels;
    CBCT_FOR_PIXELS(i, j, q, columns, rows)
    {
      float length;
      const float scale = EmissionScale(view, i, j, s, length);
      const float t = transmission ? transmission[first + q] : 1.f;
      const float a = plane[q];
      cells[first + q] = MulRn(MulRn(a, scale), sqrtf(t));
      plane[q] = MulRn(a, t);
    }
    if (s + 1 < view.slices)
      BlurPlane(steps[s], p.taps, plane, scratch, columns, rows);
  }
}

/** Views of a batch staged in shared memory by the gather's blocks (the gather reads every one). */
constexpr int GatherViews = 32;

__global__ void
__launch_bounds__(CellThreads)
Gather(const CudaEmissionLaunch p, int firstView, int views, int accumulate)
{
  __shared__ EmissionView staged[GatherViews];
  for (int b = threadIdx.x; b < views; b += blockDim.x)
    staged[b] = p.views[p.batch[firstView + b]];
  __syncthreads();
  const long long voxel = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  const long long plane = static_cast<long long>(p.size[0]) * p.size[1];
  if (voxel >= plane * p.size[2])
    return;
  const int z = static_cast<int>(voxel / plane);
  const int rest = static_cast<int>(voxel - z * plane);
  const int y = rest / p.size[0], x = rest - y * p.size[0];
  float sum = 0.f;
  for (int b = 0; b < views; ++b)
  {
    const float * cells = p.cells + p.offsets[firstView + b];
    float view = 0.f;
    EmissionVisitCells(staged[b], p.columns, p.rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                       [cells, &view](long long c, float w) { view = AddRn(view, MulRn(w, cells[c])); });
    sum = AddRn(sum, view);
  }
  p.volume[voxel] = accumulate ? AddRn(p.volume[voxel], sum) : sum;
}

#undef CBCT_FOR_PIXELS

cudaError_t
LaunchComposite(void (*kernel)(const CudaEmissionLaunch), const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  const std::size_t bytes = launch.scratch ? 0 : 2 * sizeof(float) * launch.columns * launch.rows;
  if (bytes > 48 * 1024)
  {
    const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (status != cudaSuccess)
      return status;
  }
  kernel<<<launch.count, dim3(CompositeSide, CompositeSide), bytes, stream>>>(launch);
  return cudaGetLastError();
}

dim3
CellGrid(long long cells, int views)
{
  return dim3(static_cast<unsigned int>((cells + CellThreads - 1) / CellThreads), static_cast<unsigned int>(views));
}
} // namespace

bool
CudaEmissionPlanesFitSharedMemory(int columns, int rows)
{
  int device = 0, optin = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return false;
  // Two planes and the staged view must fit.
  return 2. * sizeof(float) * columns * rows + sizeof(EmissionView) <= static_cast<double>(optin);
}

cudaError_t
LaunchEmissionTransmission(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0 || launch.largestCells <= 0 || launch.mu == nullptr)
    return cudaSuccess;
  Transmission<<<CellGrid(launch.largestCells, launch.count), CellThreads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchEmissionSplat(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  const long long voxels = static_cast<long long>(launch.size[0]) * launch.size[1] * launch.size[2];
  if (launch.count <= 0 || voxels <= 0)
    return cudaSuccess;
  Splat<<<CellGrid(voxels, launch.count), CellThreads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchEmissionForwardComposite(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  return LaunchComposite(ForwardComposite, launch, stream);
}

cudaError_t
LaunchEmissionBackComposite(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  return LaunchComposite(BackComposite, launch, stream);
}

cudaError_t
LaunchEmissionGather(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  const long long voxels = static_cast<long long>(launch.size[0]) * launch.size[1] * launch.size[2];
  if (voxels <= 0)
    return cudaSuccess;
  if (launch.count <= 0)
    return launch.accumulate ? cudaSuccess : cudaMemsetAsync(launch.volume, 0, voxels * sizeof(float), stream);
  // Views in chunks of GatherViews, each chunk's sum added to the volume.
  for (int first = 0; first < launch.count; first += GatherViews)
  {
    const int views = launch.count - first < GatherViews ? launch.count - first : GatherViews;
    Gather<<<CellGrid(voxels, 1), CellThreads, 0, stream>>>(launch, first, views, first > 0 || launch.accumulate);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
      return status;
  }
  return cudaSuccess;
}

} // namespace cbct
