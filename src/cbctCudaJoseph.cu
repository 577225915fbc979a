#include "cbctCudaJoseph.hcu"
#include "cbctCudaRayThreads.cuh"

namespace cbct
{

namespace
{
// 16 x 8 rays per block: 360 GUPS for problem S on an H100, against 349 for 32 x 4, 340 for 64 x 2
// and 276 for 128 x 1 (the slices are read in 2D tiles).
using Threads = RayThreads<16, 8>;

// The texture path waits on its fetches (ncu: 39 of 43 cycles between instructions), so it wants
// every warp a multiprocessor can hold: 16 blocks of 128 rays, which caps it at 32 registers (the
// double set-up spills a little, once per ray). Problem S on an H100: 446 GUPS against 372 with the
// 50 registers it takes freely (10 blocks); unrolling the slice loop by 8 instead of 4: 455.
constexpr int ForwardBlocksPerMultiprocessor = 16;
constexpr int ForwardUnroll = 8;

/** The sum of a ray's samples through slice-stack textures (CudaSlicedVolume): one bilinear fetch
 * per slice. NaN when the launch lacks the slices across the ray's dominant axis, so that a caller
 * who forgot them shows. */
__device__ inline float
SliceSum(const CudaJosephLaunch & p, const JosephLine & line)
{
  const cudaTextureObject_t slices = Pick(p.slices, line.a);
  if (!slices)
    return __int_as_float(0x7fffffff);
  // The texture unit interpolates with JosephSample()'s weights (texel centres at integer + 0.5,
  // zero outside the volume, as JosephSample() skips); all four voxels share the weight's step.
  // Positions in the volume's index space, made relative to the slices in memory (exactly: a float
  // minus an integer no larger), texel centres at + 0.5.
  const float sb = static_cast<float>(-line.sb), sc = static_cast<float>(-line.sc);
  float sum = 0.f;
#pragma unroll ForwardUnroll
  for (int s = line.first; s <= line.last; ++s)
  {
    const float pb = AddRn(line.b0, MulRn(static_cast<float>(s), line.kb));
    const float pc = AddRn(line.c0, MulRn(static_cast<float>(s), line.kc));
    sum += tex2DLayered<float>(slices, AddRn(AddRn(pb, sb), 0.5f), AddRn(AddRn(pc, sc), 0.5f), s - line.sa);
  }
  return sum * line.step;
}

/** The sum of a ray's samples reading their four voxels from the volume. */
__device__ inline float
VoxelSum(const CudaJosephLaunch & p, const JosephLine & line)
{
  const long long stride[3] = { 1, p.size[0], static_cast<long long>(p.size[0]) * p.size[1] };
  const long long sa = Pick(stride, line.a), sb = Pick(stride, line.b), sc = Pick(stride, line.c);
  const int nb = Pick(p.size, line.b), nc = Pick(p.size, line.c);
  float sum = 0.f;
  for (int s = line.first; s <= line.last; ++s)
  {
    int ib, ic;
    float w[4];
    if (!JosephSample(line, nb, nc, s, ib, ic, w))
      continue;
    float v[4];
    {
      const float * base = p.volume + (s - line.sa) * sa + ib * sb + ic * sc;
      const bool b0 = ib >= 0, b1 = ib + 1 < nb, c0 = ic >= 0, c1 = ic + 1 < nc;
      v[0] = b0 && c0 ? __ldg(base) : 0.f;
      v[1] = b1 && c0 ? __ldg(base + sb) : 0.f;
      v[2] = b0 && c1 ? __ldg(base + sc) : 0.f;
      v[3] = b1 && c1 ? __ldg(base + sb + sc) : 0.f;
    }
    sum += w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3];
  }
  return sum;
}

/** JosephSetup() of pixel (i, j) of projection k: on a cylinder the ray through the cylinder's pixel,
 * set up from the flat panel's point it crosses. */
__device__ __forceinline__ bool
PixelRay(const CudaJosephLaunch & p, unsigned int k, int i, int j, JosephLine & line)
{
  double fi = p.firstColumn + i, fj = p.firstRow + j;
  if (p.cylinders && !FlatPixelOfCylinderPixel(p.cylinders[k], fi, fj, fi, fj))
    return false;
  return JosephSetup(p.rays[k], p.size, fi, fj, line);
}

/** Forward projection, one thread per ray, through the slice stacks (Slices) or the volume. Two
 * kernels, not one choosing per ray, because the texture path alone needs few enough registers for
 * every warp a multiprocessor holds, which hides its fetches' latency. */
template <bool Slices>
__global__ void
__launch_bounds__(Threads::Count, Slices ? ForwardBlocksPerMultiprocessor : 0) // 0: no minimum
Forward(const CudaJosephLaunch p)
{
  int i, j;
  unsigned int k;
  if (!Threads::Pixel(p, i, j, k))
    return;
  float sum = 0.f;
  JosephLine line;
  if (PixelRay(p, k, i, j, line))
    sum = Slices ? SliceSum(p, line) : VoxelSum(p, line);
  p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i] = sum;
}

__global__ void
__launch_bounds__(Threads::Count)
Back(const CudaJosephLaunch p)
{
  int i, j;
  unsigned int k;
  if (!Threads::Pixel(p, i, j, k))
    return;
  const float value = p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i];
  JosephLine line;
  if (value == 0.f || !PixelRay(p, k, i, j, line))
    return;
  const long long stride[3] = { 1, p.size[0], static_cast<long long>(p.size[0]) * p.size[1] };
  const long long sa = Pick(stride, line.a), sb = Pick(stride, line.b), sc = Pick(stride, line.c);
  const int nb = Pick(p.size, line.b), nc = Pick(p.size, line.c);
  // The launch's slab of slices (counted from the first in memory).
  const int first = max(line.first, line.sa + p.sliceBegin), last = min(line.last, line.sa + p.sliceEnd - 1);
  for (int s = first; s <= last; ++s)
  {
    int ib, ic;
    float w[4];
    if (!JosephSample(line, nb, nc, s, ib, ic, w))
      continue;
    float * base = p.volume + (s - line.sa) * sa + ib * sb + ic * sc;
    const bool b0 = ib >= 0, b1 = ib + 1 < nb, c0 = ic >= 0, c1 = ic + 1 < nc;
    if (b0 && c0)
      atomicAdd(base, w[0] * value);
    if (b1 && c0)
      atomicAdd(base + sb, w[1] * value);
    if (b0 && c1)
      atomicAdd(base + sc, w[2] * value);
    if (b1 && c1)
      atomicAdd(base + sb + sc, w[3] * value);
  }
}

__global__ void
Residual(const CudaSARTLaunch p)
{
  const long long q = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (q >= p.pixelsPerProjection)
    return;
  const long long at = static_cast<long long>(p.subset[blockIdx.y]) * p.pixelsPerProjection + q;
  p.residual[at] = p.rayLength[at] > 0.f ? (p.measured[at] - p.residual[at]) / p.rayLength[at] : 0.f;
}

/** SART's update of voxel v (one expression for both kernels below: their volumes are the same). */
__device__ __forceinline__ float
UpdatedVoxel(const CudaSARTLaunch & p, long long v)
{
  float x = p.volume[v];
  if (p.sensitivity[v] > 0.f)
    x += p.lambda * p.correction[v] / p.sensitivity[v];
  if (p.positivity && x < 0.f)
    x = 0.f;
  return x;
}

__global__ void
Update(const CudaSARTLaunch p)
{
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < p.voxels;
       v += static_cast<long long>(gridDim.x) * blockDim.x)
    p.volume[v] = UpdatedVoxel(p, v);
}

/** The update of a 32 x 32 tile of (x, y) in slice z, written to the volume and to the slice
 * stacks: across z straight (a layer is an xy slice, width x), across x through shared memory as
 * SliceCopyTransposed does (width y: neighbouring threads must write neighbouring y), across y
 * straight (width z, height x; only tilted geometries have rays along y). */
__global__ void
UpdateSlices(const CudaSARTLaunch p, int nx, int ny, cudaSurfaceObject_t across0, cudaSurfaceObject_t across1,
             cudaSurfaceObject_t across2)
{
  __shared__ float tile[32][33];
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 32, z = blockIdx.z;
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
  {
    const int x = x0 + threadIdx.x, y = y0 + i;
    if (x < nx && y < ny)
    {
      const long long v = (static_cast<long long>(z) * ny + y) * nx + x;
      const float value = UpdatedVoxel(p, v);
      p.volume[v] = value;
      tile[i][threadIdx.x] = value;
      if (across2)
        surf2DLayeredwrite(value, across2, x * static_cast<int>(sizeof(float)), y, z);
      if (across1)
        surf2DLayeredwrite(value, across1, z * static_cast<int>(sizeof(float)), x, y);
    }
  }
  if (!across0)
    return;
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
  {
    const int x = x0 + i, y = y0 + threadIdx.x;
    if (x < nx && y < ny)
      surf2DLayeredwrite(tile[threadIdx.x][i], across0, y * static_cast<int>(sizeof(float)), z, x);
  }
}
__global__ void
__launch_bounds__(Threads::Count)
Axes(const CudaJosephLaunch p, unsigned int * axes)
{
  int i, j;
  unsigned int k;
  JosephLine line;
  if (Threads::Pixel(p, i, j, k) && PixelRay(p, k, i, j, line))
    atomicOr(axes, 1u << line.a);
}

/** Slices across x or y: a layer's rows run along y (axis 0) or z (axis 1), across the volume's
 * rows, so a 32 x 32 tile of (x, t) (t = y or z) goes through shared memory: read along x, written
 * along t (written straight, neighbouring threads wrote to 32 different layers). */
__global__ void
SliceCopyTransposed(const float * volume, int nx, int ny, int nz, int axis, cudaSurfaceObject_t surface)
{
  __shared__ float tile[32][33];
  const int tAxis = axis == 0 ? 1 : 2; // the layer's width axis
  const int nt = tAxis == 1 ? ny : nz;
  const int x0 = blockIdx.x * 32, t0 = blockIdx.y * 32, u = blockIdx.z; // u: the remaining axis
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
  {
    const int x = x0 + threadIdx.x, t = t0 + i;
    if (x < nx && t < nt)
    {
      const int y = tAxis == 1 ? t : u, z = tAxis == 1 ? u : t;
      tile[i][threadIdx.x] = volume[(static_cast<long long>(z) * ny + y) * nx + x];
    }
  }
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += blockDim.y)
  {
    const int x = x0 + i, t = t0 + threadIdx.x;
    if (x < nx && t < nt)
    {
      // Axis 0: layer x, width y, height z. Axis 1: layer y, width z, height x.
      if (axis == 0)
        surf2DLayeredwrite(tile[threadIdx.x][i], surface, t * static_cast<int>(sizeof(float)), u, x);
      else
        surf2DLayeredwrite(tile[threadIdx.x][i], surface, t * static_cast<int>(sizeof(float)), x, u);
    }
  }
}

/** Slices across z: a layer is an xy slice, written along x. */
__global__ void
SliceCopy(const float * volume, int nx, int ny, int nz, int axis, cudaSurfaceObject_t surface)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= nx)
    return;
  const float v = volume[(static_cast<long long>(z) * ny + y) * nx + x];
  const int q[3] = { x, y, z };
  // Layer: the index along `axis`; width: the next axis; height: the one after.
  surf2DLayeredwrite(v, surface, q[(axis + 1) % 3] * static_cast<int>(sizeof(float)), q[(axis + 2) % 3], q[axis]);
}

} // namespace

cudaError_t
LaunchJosephForward(const CudaJosephLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  if (launch.slices[0] || launch.slices[1] || launch.slices[2])
    Forward<true><<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch);
  else
    Forward<false><<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchJosephBack(const CudaJosephLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Back<<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchJosephAxes(const CudaJosephLaunch & launch, unsigned int * axes, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Axes<<<Threads::Grid(launch.columns, launch.rows, launch.count), Threads::Block(), 0, stream>>>(launch, axes);
  return cudaGetLastError();
}

cudaError_t
LaunchSliceCopy(const float * volume, const int size[3], int axis, cudaSurfaceObject_t surface, cudaStream_t stream)
{
  if (axis == 2)
    SliceCopy<<<dim3((size[0] + 127) / 128, size[1], size[2]), 128, 0, stream>>>(volume, size[0], size[1], size[2], axis, surface);
  else
  {
    const int nt = axis == 0 ? size[1] : size[2], nu = axis == 0 ? size[2] : size[1];
    SliceCopyTransposed<<<dim3((size[0] + 31) / 32, (nt + 31) / 32, nu), dim3(32, 8), 0, stream>>>(volume, size[0], size[1], size[2],
                                                                                                   axis, surface);
  }
  return cudaGetLastError();
}

cudaError_t
LaunchSARTResidual(const CudaSARTLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Residual<<<dim3(static_cast<unsigned int>((launch.pixelsPerProjection + 255) / 256), launch.count), 256, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchSARTUpdate(const CudaSARTLaunch & launch, cudaStream_t stream)
{
  if (launch.voxels <= 0)
    return cudaSuccess;
  const long long blocks = (launch.voxels + 255) / 256;
  Update<<<static_cast<unsigned int>(blocks < 65535 ? blocks : 65535), 256, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchSARTUpdateSlices(const CudaSARTLaunch & launch, const int size[3], const cudaSurfaceObject_t surfaces[3], cudaStream_t stream)
{
  if (launch.voxels <= 0)
    return cudaSuccess;
  if (launch.voxels != static_cast<long long>(size[0]) * size[1] * size[2])
    return cudaErrorInvalidValue;
  UpdateSlices<<<dim3((size[0] + 31) / 32, (size[1] + 31) / 32, size[2]), dim3(32, 8), 0, stream>>>(launch, size[0], size[1], surfaces[0],
                                                                                                   surfaces[1], surfaces[2]);
  return cudaGetLastError();
}

} // namespace cbct
