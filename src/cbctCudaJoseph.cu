#include "cbctCudaJoseph.hcu"

namespace cbct
{

namespace
{
/** Walks the ray of pixel (i, j) of projection `ray`; calls f(offset, weight) per voxel sample,
 * exactly as JosephProjector::Visit does (in double). */
template <typename F>
__device__ inline void
WalkRay(const CudaJosephLaunch & p, const CudaJosephRay & ray, int i, int j, F f)
{
  const double fi = p.firstColumn + i, fj = p.firstRow + j;
  double dq[3], world[3];
  for (int r = 0; r < 3; ++r)
  {
    dq[r] = ray.toIndex[r * 3] * fi + ray.toIndex[r * 3 + 1] * fj + ray.toIndex[r * 3 + 2];
    world[r] = ray.toWorld[r * 3] * fi + ray.toWorld[r * 3 + 1] * fj + ray.toWorld[r * 3 + 2];
  }
  const double length = sqrt(world[0] * world[0] + world[1] * world[1] + world[2] * world[2]);
  int a = 0;
  if (fabs(dq[1]) > fabs(dq[a]))
    a = 1;
  if (fabs(dq[2]) > fabs(dq[a]))
    a = 2;
  if (dq[a] == 0.)
    return;
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  const long long stride[3] = { 1, p.size[0], static_cast<long long>(p.size[0]) * p.size[1] };
  const double step = length / fabs(dq[a]);
  for (int s = 0; s < p.size[a]; ++s)
  {
    const double t = (s - ray.q0[a]) / dq[a];
    if (t < 0.)
      continue;
    const double pb = ray.q0[b] + t * dq[b], pc = ray.q0[c] + t * dq[c];
    const double fb = floor(pb), fc = floor(pc);
    const long long ib = static_cast<long long>(fb), ic = static_cast<long long>(fc);
    if (ib < -1 || ic < -1 || ib >= p.size[b] || ic >= p.size[c])
      continue;
    const double wb = pb - fb, wc = pc - fc;
    const long long base = s * stride[a];
    const double w[4] = { (1. - wb) * (1. - wc) * step, wb * (1. - wc) * step, (1. - wb) * wc * step, wb * wc * step };
    for (int n = 0; n < 4; ++n)
    {
      const long long xb = ib + (n & 1), xc = ic + (n >> 1);
      if (xb >= 0 && xc >= 0 && xb < p.size[b] && xc < p.size[c])
        f(base + xb * stride[b] + xc * stride[c], w[n]);
    }
  }
}

__global__ void
Forward(const CudaJosephLaunch p)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, n = blockIdx.z;
  if (i >= p.columns)
    return;
  const unsigned int k = p.subset[n];
  double sum = 0.;
  WalkRay(p, p.rays[k], i, j, [&](long long offset, double w) { sum += w * p.volume[offset]; });
  p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i] = static_cast<float>(sum);
}

__global__ void
Back(const CudaJosephLaunch p)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, n = blockIdx.z;
  if (i >= p.columns)
    return;
  const unsigned int k = p.subset[n];
  const double value = p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i];
  if (value == 0.)
    return;
  WalkRay(p, p.rays[k], i, j, [&](long long offset, double w) { atomicAdd(p.volume + offset, static_cast<float>(w * value)); });
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

__global__ void
Update(const CudaSARTLaunch p)
{
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < p.voxels;
       v += static_cast<long long>(gridDim.x) * blockDim.x)
  {
    float x = p.volume[v];
    if (p.sensitivity[v] > 0.f)
      x += p.lambda * p.correction[v] / p.sensitivity[v];
    if (p.positivity && x < 0.f)
      x = 0.f;
    p.volume[v] = x;
  }
}
} // namespace

cudaError_t
LaunchJosephForward(const CudaJosephLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Forward<<<dim3((launch.columns + 63) / 64, launch.rows, launch.count), 64, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchJosephBack(const CudaJosephLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  Back<<<dim3((launch.columns + 63) / 64, launch.rows, launch.count), 64, 0, stream>>>(launch);
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

} // namespace cbct
