#ifndef cbctCudaWaveletFourierStripeRemovalImageFilter_hxx
#define cbctCudaWaveletFourierStripeRemovalImageFilter_hxx

#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaStripeRemovalBands.h"

#include <algorithm>
#include <vector>

namespace cbct
{

namespace detail
{
/** A cuFFT plan destroyed with its scope. */
struct CudaStripeFFTPlan
{
  cufftHandle handle = 0;
  bool made = false;
  ~CudaStripeFFTPlan()
  {
    if (made)
      cufftDestroy(handle);
  }
};
} // namespace detail

template <typename TImage>
void
CudaWaveletFourierStripeRemovalImageFilter<TImage>::GPUGenerateData()
{
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto region = output->GetRequestedRegion();
  const std::size_t columns = region.GetSize(0), rows = region.GetSize(1), projections = region.GetSize(2);
  this->BeforeSinograms(projections, columns); // checks the parameters, sizes the levels
  const WaveletFourierStripeRemoval & removal = *this->GetRemoval();
  const unsigned int levels = removal.GetLevel();
  const std::vector<std::size_t> & levelRows = removal.GetRows();   // along the angle
  const std::vector<std::size_t> & levelColumns = removal.GetColumns();
  const std::size_t padded = removal.GetPaddedProjections();

  CudaWaveletFilters filters;
  const DaubechiesWavelet & wavelet = removal.GetWavelet();
  filters.length = static_cast<int>(wavelet.GetLength());
  for (int j = 0; j < filters.length; ++j)
  {
    filters.low[j] = static_cast<float>(wavelet.GetLowPass()[j]);
    filters.high[j] = static_cast<float>(wavelet.GetHighPass()[j]);
  }

  const std::size_t bandRows = std::max<std::size_t>(1, std::min<std::size_t>(rows, (std::size_t{ 64 } << 20) / (padded * columns)));
  // Work buffers for the largest band: two approximations (ping-pong), the row transform's two
  // halves, each level's three detail bands, and the spectra.
  const std::size_t paddedPixels = padded * bandRows * columns;
  CudaDeviceBuffer<float> approximations[2], lowU(paddedPixels), highU(paddedPixels);
  approximations[0].Reserve(paddedPixels, "stripe removal approximation");
  approximations[1].Reserve(paddedPixels, "stripe removal approximation");
  std::vector<CudaDeviceBuffer<float>> horizontal(levels), vertical(levels), diagonal(levels);
  std::size_t spectrumSize = 0;
  for (unsigned int n = 0; n < levels; ++n)
  {
    const std::size_t count = levelRows[n + 1] * bandRows * levelColumns[n + 1];
    horizontal[n].Reserve(count, "stripe removal details");
    vertical[n].Reserve(count, "stripe removal details");
    diagonal[n].Reserve(count, "stripe removal details");
    spectrumSize = std::max(spectrumSize, (levelRows[n + 1] / 2 + 1) * bandRows * levelColumns[n + 1]);
  }
  CudaDeviceBuffer<cufftComplex> spectra(std::max<std::size_t>(1, spectrumSize));
  CudaDeviceBuffer<int> firstBad(1);

  const auto * in = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  auto * out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  for (std::size_t first = 0; first < rows; first += bandRows)
  {
    const int count = static_cast<int>(std::min(bandRows, rows - first));
    const int none = INT_MAX;
    CudaCheck(cudaMemcpy(firstBad.Data(), &none, sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy (row check)");
    float * approximation = approximations[0].Data(); // the current level's; `next` the other
    float * next = approximations[1].Data();
    CudaWaveletPadLaunch pad;
    pad.band = CudaSinogramBandOf(input, output, in, out, static_cast<long long>(first), count);
    pad.padded = approximation;
    pad.paddedAngles = static_cast<int>(padded);
    pad.shift = static_cast<int>(removal.GetPadBefore());
    pad.firstNonFiniteRow = firstBad.Data();
    pad.detailPairs = static_cast<int>(WaveletFourierStripeRemoval::DetailPairs(removal.GetMedianSize()));
    CudaCheck(LaunchWaveletPad(pad, nullptr), "LaunchWaveletPad", paddedPixels * sizeof(float));
    auto dimensions = [&](std::size_t angles, std::size_t cols) {
      CudaWaveletDimensions d;
      d.angles = static_cast<int>(angles);
      d.rows = count;
      d.columns = static_cast<int>(cols);
      return d;
    };

    // Decomposition: across the detector, then along the angle.
    for (unsigned int n = 0; n < levels; ++n)
    {
      CudaWaveletAnalysisLaunch across;
      across.input = approximation;
      across.low = lowU.Data();
      across.high = highU.Data();
      across.in = dimensions(levelRows[n], levelColumns[n]);
      across.axis = 2;
      across.count = static_cast<int>(levelColumns[n + 1]);
      across.filters = filters;
      CudaCheck(LaunchWaveletAnalysis(across, nullptr), "LaunchWaveletAnalysis (across the detector)");
      CudaWaveletAnalysisLaunch along;
      along.in = dimensions(levelRows[n], levelColumns[n + 1]);
      along.axis = 0;
      along.count = static_cast<int>(levelRows[n + 1]);
      along.filters = filters;
      along.input = lowU.Data();
      along.low = next;
      along.high = horizontal[n].Data();
      CudaCheck(LaunchWaveletAnalysis(along, nullptr), "LaunchWaveletAnalysis (along the angle)");
      along.input = highU.Data();
      along.low = vertical[n].Data();
      along.high = diagonal[n].Data();
      CudaCheck(LaunchWaveletAnalysis(along, nullptr), "LaunchWaveletAnalysis (along the angle)");
      std::swap(approximation, next);
    }

    // The damping of the vertical details along the angle: one strided line per row and column.
    for (unsigned int n = 0; n < levels; ++n)
    {
      const int length = static_cast<int>(levelRows[n + 1]);
      const long long batch = static_cast<long long>(count) * static_cast<long long>(levelColumns[n + 1]);
      if (length < 2) // one coefficient along the angle: its mean, damped to 0
      {
        CudaCheck(cudaMemset(vertical[n].Data(), 0, batch * sizeof(float)), "cudaMemset (stripe removal details)");
        continue;
      }
      int size = length, bins = length / 2 + 1;
      detail::CudaStripeFFTPlan forward, inverse;
      CufftCheck(cufftPlanMany(&forward.handle, 1, &size, &size, static_cast<int>(batch), 1, &bins,
                               static_cast<int>(batch), 1, CUFFT_R2C, static_cast<int>(batch)),
                 "cufftPlanMany (stripe removal, forward)", batch * bins * sizeof(cufftComplex));
      forward.made = true;
      CufftCheck(cufftPlanMany(&inverse.handle, 1, &size, &bins, static_cast<int>(batch), 1, &size,
                               static_cast<int>(batch), 1, CUFFT_C2R, static_cast<int>(batch)),
                 "cufftPlanMany (stripe removal, inverse)", batch * bins * sizeof(cufftComplex));
      inverse.made = true;
      CufftCheck(cufftExecR2C(forward.handle, vertical[n].Data(), spectra.Data()), "cufftExecR2C (stripe removal)");
      CudaWaveletDampingLaunch damping;
      damping.spectra = spectra.Data();
      damping.batch = batch;
      damping.bins = bins;
      damping.length = length;
      damping.sigma = this->GetParameters().sigma;
      CudaCheck(LaunchWaveletDamping(damping, nullptr), "LaunchWaveletDamping");
      CufftCheck(cufftExecC2R(inverse.handle, spectra.Data(), vertical[n].Data()), "cufftExecC2R (stripe removal)");
    }

    // Reconstruction, deepest level first, each cropped to the level above.
    for (unsigned int n = levels; n-- > 0;)
    {
      CudaWaveletSynthesisLaunch along;
      along.coefficients = dimensions(levelRows[n + 1], levelColumns[n + 1]);
      along.axis = 0;
      along.samples = static_cast<int>(levelRows[n]);
      along.filters = filters;
      along.low = approximation;
      along.high = horizontal[n].Data();
      along.output = lowU.Data();
      CudaCheck(LaunchWaveletSynthesis(along, nullptr), "LaunchWaveletSynthesis (along the angle)");
      along.low = vertical[n].Data();
      along.high = diagonal[n].Data();
      along.output = highU.Data();
      CudaCheck(LaunchWaveletSynthesis(along, nullptr), "LaunchWaveletSynthesis (along the angle)");
      CudaWaveletSynthesisLaunch across;
      across.coefficients = dimensions(levelRows[n], levelColumns[n + 1]);
      across.axis = 2;
      across.samples = static_cast<int>(levelColumns[n]);
      across.filters = filters;
      across.low = lowU.Data();
      across.high = highU.Data();
      across.output = next;
      CudaCheck(LaunchWaveletSynthesis(across, nullptr), "LaunchWaveletSynthesis (across the detector)");
      std::swap(approximation, next);
    }

    pad.padded = approximation;
    CudaCheck(LaunchWaveletCrop(pad, nullptr), "LaunchWaveletCrop");
    int bad = INT_MAX;
    CudaCheck(cudaMemcpy(&bad, firstBad.Data(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy (row check)");
    ThrowIfNonFiniteRow(this->GetNameOfClass(), bad, region.GetIndex(1) + static_cast<long long>(first));
  }
}

} // namespace cbct

#endif
