#ifndef cbctCudaFFTRampImageFilter_hxx
#define cbctCudaFFTRampImageFilter_hxx

#include "cbctCudaFDKWeighting.hcu"
#include "cbctCudaRampExtensions.hcu"
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
  const int extent = this->GetTruncationCorrectionExtent();
  const bool smoothY = this->GetHannCutFrequencyY() > 0.;
  // With the low-pass along v every input row is filtered (the input holds them all); else only
  // the output's rows.
  const int rowsPerProjection = static_cast<int>(smoothY ? in.GetSize(1) : out.GetSize(1));
  const int firstRow = static_cast<int>(smoothY ? in.GetIndex(1) : out.GetIndex(1));
  const int projections = static_cast<int>(out.GetSize(2));
  // Projections per chunk so that padded rows (length floats) and spectra fit the work memory.
  const std::size_t bytesPerProjection =
    static_cast<std::size_t>(rowsPerProjection) * (length * sizeof(double) + (length / 2 + 1) * sizeof(cufftDoubleComplex));
  const int chunk = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(projections, m_WorkMemoryBytes / bytesPerProjection)));
  m_Plan.Prepare(length, chunk * rowsPerProjection, this->ComputeResponse());
  CudaDeviceBuffer<double> taps;
  if (smoothY)
    taps.Upload(HannLowPassKernel(this->GetPaddedLengthY(), this->GetHannCutFrequencyY()));

  const auto * inputData = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  auto * outputData = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  for (int k0 = 0; k0 < projections; k0 += chunk)
  {
    const int count = std::min(chunk, projections - k0);
    // Pad: the weighting kernel without weights copies whole input rows into zeroed FFT rows.
    CudaWeightingLaunch pad;
    pad.input = inputData + ((out.GetIndex(2) + k0 - in.GetIndex(2)) * static_cast<long long>(in.GetSize(1)) +
                             (firstRow - in.GetIndex(1))) *
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
    pad.firstRow = firstRow;
    pad.projections = count;
    pad.applyWeights = 0;
    CudaCheck(LaunchFDKWeighting(pad, nullptr), "LaunchFDKWeighting (padding rows)");
    // Truncation correction: the rows extended before the transform.
    CudaTruncationExtensionLaunch extend;
    extend.rows = m_Plan.PaddedRows();
    extend.pitch = length;
    extend.columns = static_cast<int>(in.GetSize(0));
    extend.extent = extent;
    extend.count = static_cast<long long>(count) * rowsPerProjection;
    CudaCheck(LaunchTruncationExtension(extend, nullptr), "LaunchTruncationExtension");
    m_Plan.Filter(nullptr);
    if (smoothY)
    {
      // Crop with the low-pass along v: the output's rows from every filtered row.
      CudaCropSmoothColumnsLaunch crop;
      crop.input = m_Plan.PaddedRows();
      crop.inputPitch = length;
      crop.inputProjectionStride = static_cast<long long>(length) * rowsPerProjection;
      crop.rows = rowsPerProjection;
      crop.firstColumn = static_cast<int>(out.GetIndex(0) - in.GetIndex(0));
      crop.output = outputData + static_cast<std::size_t>(k0) * out.GetSize(0) * out.GetSize(1);
      crop.outputPitch = static_cast<int>(out.GetSize(0));
      crop.outputProjectionStride = static_cast<long long>(out.GetSize(0)) * out.GetSize(1);
      crop.columns = static_cast<int>(out.GetSize(0));
      crop.firstOutputRow = static_cast<int>(out.GetIndex(1) - in.GetIndex(1));
      crop.outputRows = static_cast<int>(out.GetSize(1));
      crop.projections = count;
      crop.taps = taps.Data();
      crop.tapCount = static_cast<int>(this->GetPaddedLengthY());
      CudaCheck(LaunchCropSmoothColumns(crop, nullptr), "LaunchCropSmoothColumns");
    }
    else
    {
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
  }
  CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (ramp filter)");
}

} // namespace cbct

#endif
