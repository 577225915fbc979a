#include "cbctCudaHelicalFDKBackProjection.hcu"

namespace cbct
{

namespace
{
constexpr int BlockX = 32;
constexpr int BlockZ = 4;
constexpr int Floats = sizeof(CudaHelicalView) / sizeof(float);

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

template <bool Cylindrical>
__global__ void __launch_bounds__(BlockX * BlockZ)
BackProjectHelix(const __grid_constant__ CudaHelicalBackProjectionLaunch p)
{
  __shared__ float views[CudaBackProjectionBatch * Floats];
  const float * source = reinterpret_cast<const float *>(p.views);
  for (int q = threadIdx.y * BlockX + threadIdx.x; q < p.count * Floats; q += BlockX * BlockZ)
    views[q] = source[q];
  __syncthreads();
  const int x = blockIdx.x * BlockX + threadIdx.x;
  const int z = blockIdx.y * BlockZ + threadIdx.y;
  const int run = RunStart(p.first[1]) + blockIdx.z * BackProjectionRun;
  if (x >= p.size[0] || z >= p.size[2])
    return;
  const float fx = static_cast<float>(p.first[0] + x);
  const float fz = static_cast<float>(p.first[2] + z);
  const float fy = static_cast<float>(run);
  const float * m = p.voxelToWorld;
  const float wx = m[0] * fx + m[1] * fy + m[2] * fz + m[3];
  const float wz = m[8] * fx + m[9] * fy + m[10] * fz + m[11];
  const float wy0 = m[4] * fx + m[5] * fy + m[6] * fz + m[7];
  const float dy = m[5];
  const float wyLast = wy0 + dy * static_cast<float>(BackProjectionRun - 1);
  const HelicalScan s = p.scan;
  float sum[BackProjectionRun] = {};
  for (int k = 0; k < p.count; ++k)
  {
    const CudaHelicalView & v = *reinterpret_cast<const CudaHelicalView *>(views + Floats * k);
    HelicalColumnWeights weights;
    weights.SetOwn(s, v.view, wx, wz);
    const float qFirst = weights.qAtY0 + weights.qPerY * wy0, qLast = weights.qAtY0 + weights.qPerY * wyLast;
    if ((qFirst >= 1.f && qLast >= 1.f) || (qFirst <= -1.f && qLast <= -1.f))
      continue; // none of the run's voxels reaches the detector's rows in this view
    weights.SetConjugate(s, v.view, wx, wz);
    float hu, hv, hw;
    HomogeneousAt(v.matrix, fx, fy, fz, hu, hv, hw);
    if (!(hw < 0.f))
      continue;
    float inv = 0.f, u = 0.f, distanceWeight = 0.f;
    CylindricalColumn column;
    if (Cylindrical)
      column.Column(p.grid, v.pixelOffset, hu, hw);
    else
    {
      inv = __frcp_rn(hw);
      u = MulRn(hu, inv) - p.columnOffset;
      distanceWeight = inv * inv;
    }
#pragma unroll
    for (int r = 0; r < BackProjectionRun; ++r)
    {
      const float w = weights.At(s, v.view.lambda, wy0 + dy * static_cast<float>(r));
      if (w == 0.f)
        continue;
      // Only v changes along the run (the matrices leave u and w unchanged along y): its row alone,
      // with HomogeneousAt()'s operations in its order.
      const float fr = fy + static_cast<float>(r);
      hv = AddRn(AddRn(AddRn(MulRn(v.matrix[4], fx), MulRn(v.matrix[5], fr)), MulRn(v.matrix[6], fz)), v.matrix[7]);
      if (Cylindrical)
      {
        float i, j;
        column.At(p.grid, v.pixelOffset, hv, i, j);
        sum[r] += tex2DLayered<float>(p.projections, i - p.columnOffset, j - p.rowOffset, k) * column.weight * w;
      }
      else
        sum[r] += tex2DLayered<float>(p.projections, u, MulRn(hv, inv) - p.rowOffset, k) * distanceWeight * w;
    }
  }
  const size_t plane = p.planeStride > 0 ? static_cast<size_t>(p.planeStride) : static_cast<size_t>(p.size[0]) * p.size[1];
  AddRun(p.volume + static_cast<size_t>(z) * plane + x, static_cast<size_t>(p.size[0]), sum, run, p.first[1], p.size[1]);
}
} // namespace

cudaError_t
LaunchHelicalFDKBackProjection(const CudaHelicalBackProjectionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0 || launch.size[0] <= 0 || launch.size[1] <= 0 || launch.size[2] <= 0)
    return cudaSuccess;
  if (launch.count > CudaBackProjectionBatch || launch.views == nullptr)
    return cudaErrorInvalidValue;
  const int firstRun = RunStart(launch.first[1]);
  const int runs = (launch.first[1] + launch.size[1] - firstRun + BackProjectionRun - 1) / BackProjectionRun;
  const dim3 grid((launch.size[0] + BlockX - 1) / BlockX, (launch.size[2] + BlockZ - 1) / BlockZ, runs);
  if (grid.y > 65535 || grid.z > 65535)
    return cudaErrorInvalidConfiguration;
  if (launch.cylindrical)
    BackProjectHelix<true><<<grid, dim3(BlockX, BlockZ), 0, stream>>>(launch);
  else
    BackProjectHelix<false><<<grid, dim3(BlockX, BlockZ), 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
