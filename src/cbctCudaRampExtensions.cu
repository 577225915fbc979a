#include "cbctCudaRampExtensions.hcu"
#include "cbctTruncationCorrection.hcu"

namespace cbct
{

namespace
{
__global__ void
ExtendRows(const CudaTruncationExtensionLaunch p)
{
  const int d = blockIdx.x * blockDim.x + threadIdx.x + 1; // 1 .. extent
  if (d > p.extent)
    return;
  const double w = TruncationMirrorWeight(d, p.extent);
  for (long long row = blockIdx.y; row < p.count; row += gridDim.y)
  {
    double * r = p.rows + row * p.pitch;
    // Only columns beyond the pixels are written: the reads of other threads are not disturbed.
    r[p.columns - 1 + d] = w * (2. * r[p.columns - 1] - r[p.columns - 1 - d]);
    r[p.pitch - d] = w * (2. * r[0] - r[d]);
  }
}

__global__ void
CropSmoothColumns(const CudaCropSmoothColumnsLaunch p)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y;
  const int k = blockIdx.z;
  if (c >= p.columns)
    return;
  const double * column = p.input + k * p.inputProjectionStride + p.firstColumn + c;
  const int row = p.firstOutputRow + j;
  double sum = 0.;
  for (int m = 0; m < p.rows; ++m)
  {
    int shift = (row - m) % p.tapCount;
    shift += shift < 0 ? p.tapCount : 0;
    sum += p.taps[shift] * column[static_cast<long long>(m) * p.inputPitch];
  }
  p.output[k * p.outputProjectionStride + static_cast<long long>(j) * p.outputPitch + c] = static_cast<float>(sum);
}
} // namespace

cudaError_t
LaunchTruncationExtension(const CudaTruncationExtensionLaunch & launch, cudaStream_t stream)
{
  if (launch.extent <= 0 || launch.count <= 0)
    return cudaSuccess;
  if (launch.columns < launch.extent + 1 || launch.pitch < launch.columns + 2 * launch.extent)
    return cudaErrorInvalidValue; // the extension needs as many pixels inside and room outside
  const dim3 block(64);
  const dim3 grid((launch.extent + block.x - 1) / block.x, static_cast<unsigned int>(launch.count < 65535 ? launch.count : 65535));
  ExtendRows<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchCropSmoothColumns(const CudaCropSmoothColumnsLaunch & launch, cudaStream_t stream)
{
  if (launch.columns <= 0 || launch.outputRows <= 0 || launch.projections <= 0)
    return cudaSuccess;
  if (launch.outputRows > 65535 || launch.projections > 65535 || launch.tapCount < 2 * launch.rows - 1 ||
      launch.firstOutputRow < 0 || launch.firstOutputRow + launch.outputRows > launch.rows)
    return cudaErrorInvalidValue;
  const dim3 block(128);
  const dim3 grid((launch.columns + block.x - 1) / block.x, launch.outputRows, launch.projections);
  CropSmoothColumns<<<grid, block, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
