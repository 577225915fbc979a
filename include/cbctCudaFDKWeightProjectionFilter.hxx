#ifndef cbctCudaFDKWeightProjectionFilter_hxx
#define cbctCudaFDKWeightProjectionFilter_hxx

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKWeighting.hcu"

namespace cbct
{

template <typename TImage>
void
CudaFDKWeightProjectionFilter<TImage>::GPUGenerateData()
{
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto & in = input->GetBufferedRegion();
  const auto & out = output->GetBufferedRegion();
  const auto firstProjection = input->GetLargestPossibleRegion().GetIndex(2);
  const auto first = static_cast<unsigned int>(out.GetIndex(2) - firstProjection);
  const auto count = static_cast<unsigned int>(out.GetSize(2));

  CudaDeviceBuffer<FDKWeightingProjection> parameters;
  CudaDeviceBuffer<CylindricalWeightingProjection> cylindricalParameters;
  if (this->GetGeometry()->IsCylindrical())
    cylindricalParameters.Upload(this->ComputeCylindricalParameters(input, first, count));
  else
    parameters.Upload(this->ComputeProjectionParameters(input, first, count));

  CudaWeightingLaunch launch;
  const auto * inputData = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  // Row out.GetIndex(1) of projection out.GetIndex(2) in the input's buffer.
  const long long inputRowOffset =
    ((out.GetIndex(2) - in.GetIndex(2)) * static_cast<long long>(in.GetSize(1)) + (out.GetIndex(1) - in.GetIndex(1))) *
    static_cast<long long>(in.GetSize(0));
  launch.input = inputData + inputRowOffset;
  launch.output = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  launch.inputColumns = static_cast<int>(in.GetSize(0));
  launch.inputProjectionStride = static_cast<long long>(in.GetSize(0)) * in.GetSize(1);
  launch.inputFirstColumn = static_cast<int>(in.GetIndex(0));
  launch.outputColumns = static_cast<int>(out.GetSize(0));
  launch.outputPitch = static_cast<int>(out.GetSize(0));
  launch.outputProjectionStride = static_cast<long long>(out.GetSize(0)) * out.GetSize(1);
  launch.outputFirstColumn = static_cast<int>(out.GetIndex(0));
  launch.rows = static_cast<int>(out.GetSize(1));
  launch.firstRow = static_cast<int>(out.GetIndex(1));
  launch.projections = static_cast<int>(count);
  launch.parameters = parameters.Data();
  launch.cylindricalParameters = this->GetGeometry()->IsCylindrical() ? cylindricalParameters.Data() : nullptr;
  launch.scan = this->ComputeScanParameters(input);
  launch.applyWeights = 1;
  CudaCheck(LaunchFDKWeighting(launch, nullptr), "LaunchFDKWeighting");
  CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (weighting)");
}

} // namespace cbct

#endif
