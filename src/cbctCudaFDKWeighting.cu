#include "cbctCudaFDKWeighting.hcu"

namespace cbct
{

namespace
{
template <typename TOutput, bool Cylindrical>
__global__ void
WeightRows(const CudaWeightingLaunch p, TOutput * output)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y; // row of the block
  const int k = blockIdx.z; // projection of the block
  if (c >= p.outputPitch)
    return;
  const int column = p.outputFirstColumn + c;
  const int inColumn = column - p.inputFirstColumn;
  float value = 0.f;
  if (c < p.outputColumns && inColumn >= 0 && inColumn < p.inputColumns)
  {
    const long long at = k * p.inputProjectionStride + static_cast<long long>(j) * p.inputColumns + inColumn;
    value = p.inputCounts ? LineIntegralFromIntensity(p.inputCounts[at], p.logFlat[k], p.conversion) : p.input[at];
    if (p.applyWeights)
      value *= Cylindrical ? CylindricalFDKPixelWeight(p.cylindricalParameters[k], p.scan, static_cast<float>(column),
                                                       static_cast<float>(p.firstRow + j))
                           : FDKPixelWeight(p.parameters[k], p.scan, static_cast<float>(column), static_cast<float>(p.firstRow + j));
  }
  output[k * p.outputProjectionStride + static_cast<long long>(j) * p.outputPitch + c] = static_cast<TOutput>(value);
}
} // namespace

cudaError_t
LaunchFDKWeighting(const CudaWeightingLaunch & launch, cudaStream_t stream)
{
  if (launch.rows <= 0 || launch.projections <= 0 || launch.outputPitch <= 0)
    return cudaSuccess;
  const dim3 block(128);
  if (launch.rows > 65535 || launch.projections > 65535)
    return cudaErrorInvalidConfiguration;
  const dim3 grid((launch.outputPitch + block.x - 1) / block.x, launch.rows, launch.projections);
  const bool cylindrical = launch.cylindricalParameters != nullptr;
  if (launch.outputDouble && cylindrical)
    WeightRows<double, true><<<grid, block, 0, stream>>>(launch, launch.outputDouble);
  else if (launch.outputDouble)
    WeightRows<double, false><<<grid, block, 0, stream>>>(launch, launch.outputDouble);
  else if (cylindrical)
    WeightRows<float, true><<<grid, block, 0, stream>>>(launch, launch.output);
  else
    WeightRows<float, false><<<grid, block, 0, stream>>>(launch, launch.output);
  return cudaGetLastError();
}

} // namespace cbct
