#include "cbctCudaRampFilter.hcu"

namespace cbct
{

namespace
{
__global__ void
MultiplyRows(const CudaRampMultiplyLaunch p)
{
  const int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= p.bins)
    return;
  const float h = p.response[f];
  // Rows along y of the grid, in chunks when there are more than a grid dimension holds.
  for (long long row = blockIdx.y; row < p.rows; row += gridDim.y)
  {
    cufftComplex & z = p.spectra[row * p.bins + f];
    z.x *= h;
    z.y *= h;
  }
}
} // namespace

cudaError_t
LaunchRampMultiply(const CudaRampMultiplyLaunch & launch, cudaStream_t stream)
{
  if (launch.rows <= 0 || launch.bins <= 0)
    return cudaSuccess;
  const dim3 block(128);
  const unsigned int rowBlocks = static_cast<unsigned int>(launch.rows < 65535 ? launch.rows : 65535);
  const dim3 grid((launch.bins + block.x - 1) / block.x, rowBlocks);
  MultiplyRows<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
