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
  const double h = p.response[f];
  // Rows along y of the grid, in chunks when there are more than a grid dimension holds.
  for (long long row = blockIdx.y; row < p.rows; row += gridDim.y)
  {
    cufftDoubleComplex & z = p.spectra[row * p.bins + f];
    z.x *= h;
    z.y *= h;
  }
}
__global__ void
CropRows(const CudaCropRowsLaunch p)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= p.columns)
    return;
  for (long long row = blockIdx.y; row < p.rows; row += gridDim.y)
    p.output[row * p.outputPitch + c] = static_cast<float>(p.input[row * p.inputPitch + p.firstColumn + c]);
}
} // namespace

cudaError_t
LaunchCropRows(const CudaCropRowsLaunch & launch, cudaStream_t stream)
{
  if (launch.rows <= 0 || launch.columns <= 0)
    return cudaSuccess;
  const dim3 block(128);
  const dim3 grid((launch.columns + block.x - 1) / block.x,
                  static_cast<unsigned int>(launch.rows < 65535 ? launch.rows : 65535));
  CropRows<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

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
