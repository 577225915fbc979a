#ifndef cbctCudaFFTRampImageFilter_hxx
#define cbctCudaFFTRampImageFilter_hxx

#include "cbctCudaFDKWeighting.hcu"
#include "cbctCudaRampFilter.hcu"

#include <algorithm>

namespace cbct
{

template <typename TImage>
void
CudaFFTRampImageFilter<TImage>::GPUGenerateData()
{
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto & in = input->GetBufferedRegion();
  const auto & out = output->GetBufferedRegion();
  const int length = static_cast<int>(this->GetPaddedLength());
  const int rowsPerProjection = static_cast<int>(out.GetSize(1));
  const int projections = static_cast<int>(out.GetSize(2));
  // Projections per chunk so that padded rows (length floats) and spectra fit the work memory.
  const std::size_t bytesPerProjection =
    static_cast<std::size_t>(rowsPerProjection) * (length * sizeof(double) + (length / 2 + 1) * sizeof(cufftDoubleComplex));
  const int chunk = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(projections, m_WorkMemoryBytes / bytesPerProjection)));
  m_Plan.Prepare(length, chunk * rowsPerProjection, this->ComputeResponse());

  const auto * inputData = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  auto * outputData = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  for (int k0 = 0; k0 < projections; k0 += chunk)
  {
    const int count = std::min(chunk, projections - k0);
    // Pad: the weighting kernel without weights copies whole input rows into zeroed FFT rows.
    CudaWeightingLaunch pad;
    pad.input = inputData + ((out.GetIndex(2) + k0 - in.GetIndex(2)) * static_cast<long long>(in.GetSize(1)) +
                             (out.GetIndex(1) - in.GetIndex(1))) *
                              static_cast<long long>(in.GetSize(0));
    pad.outputDouble = m_Plan.PaddedRows();
    pad.inputColumns = static_cast<int>(in.GetSize(0));
    pad.inputProjectionStride = static_cast<long long>(in.GetSize(0)) * in.GetSize(1);
    pad.inputFirstColumn = static_cast<int>(in.GetIndex(0));
    pad.outputColumns = static_cast<int>(in.GetSize(0));
    pad.outputPitch = length;
    pad.outputProjectionStride = static_cast<long long>(length) * rowsPerProjection;
    pad.outputFirstColumn = static_cast<int>(in.GetIndex(0));
    pad.rows = rowsPerProjection;
    pad.firstRow = static_cast<int>(out.GetIndex(1));
    pad.projections = count;
    pad.applyWeights = 0;
    CudaCheck(LaunchFDKWeighting(pad, nullptr), "LaunchFDKWeighting (padding rows)");
    m_Plan.Filter(nullptr);
    // Crop: the output's columns of each filtered row, back to float.
    CudaCropRowsLaunch crop;
    crop.input = m_Plan.PaddedRows();
    crop.inputPitch = length;
    crop.firstColumn = static_cast<int>(out.GetIndex(0) - in.GetIndex(0));
    crop.output = outputData + static_cast<std::size_t>(k0) * out.GetSize(0) * out.GetSize(1);
    crop.outputPitch = static_cast<int>(out.GetSize(0));
    crop.columns = static_cast<int>(out.GetSize(0));
    crop.rows = static_cast<long long>(count) * rowsPerProjection;
    CudaCheck(LaunchCropRows(crop, nullptr), "LaunchCropRows");
  }
  CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (ramp filter)");
}

} // namespace cbct

#endif
