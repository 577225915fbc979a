// cbct-bench --method rings: ring (stripe) removal of problem S's projections, 360 x 512^2 line
// integrals (or --views projections), with stripes in a few columns; each filter (Vo et al.'s sorting,
// Münch et al.'s wavelet-Fourier) on the CPU, and on the GPU with the projections resident on the
// device ("device_s": the filter alone, as a GPU pipeline would run it) and host to host ("total_s":
// upload, filter, download). One JSON line per filter and hardware: medians of the timed runs; the
// CUDA sorting filter's line adds the device time of its sort, detection and correction (sort_s,
// detection_s, correction_s: CUDA events, one more run timed stage by stage).

#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctSortingStripeRemovalImageFilter.h"
#include "cbctWaveletFourierStripeRemovalImageFilter.h"
#if CBCT_USE_CUDA
#  include "cbctCudaImage.h"
#  include "cbctCudaSortingStripeRemovalImageFilter.h"
#  include "cbctCudaWaveletFourierStripeRemovalImageFilter.h"
#endif

#include <itkImage.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace cbct::bench
{
namespace
{

/** Line integrals of a water-like disc with a moving blob in every row, 512 x 512 pixels x
 * `projections`, and stripes (gain errors of 1-3 %) in four columns. */
template <typename TImage>
typename TImage::Pointer
StripedProjections(unsigned int projections)
{
  constexpr unsigned int U = 512, V = 512;
  auto image = TImage::New();
  image->SetRegions(typename TImage::SizeType{ { U, V, projections } });
  image->Allocate();
  float * p = image->GetBufferPointer();
  for (unsigned int k = 0; k < projections; ++k)
  {
    const double blob = 0.5 * (U - 1.) + 100. * std::sin(2. * M_PI * k / projections);
    for (unsigned int v = 0; v < V; ++v)
      for (unsigned int u = 0; u < U; ++u)
      {
        const double x = (u - 0.5 * (U - 1.)) / (0.45 * U), d = (u - blob) / 4.;
        double value = (std::abs(x) < 1. ? 2. * std::sqrt(1. - x * x) : 0.) * (1. - 0.3 * v / V) + 0.3 * std::exp(-0.5 * d * d);
        if (u == 140 || u == 300)
          value -= std::log1p(0.02);
        if (u == 301 || u == 400)
          value -= std::log1p(-0.03 * (u == 301 ? 1. : 0.5));
        p[(static_cast<std::size_t>(k) * V + v) * U + u] = static_cast<float>(value);
      }
  }
  return image;
}

double
RingsMedian(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/** Times `filter` (one of the stripe removal filters, its input set) `runs` times after a warm-up. */
template <typename TFilter>
void
TimeRingsOnCpu(TFilter * filter, const char * name, const std::string & device, unsigned int projections, unsigned int runs)
{
  std::vector<double> seconds;
  for (unsigned int r = 0; r <= runs; ++r)
  {
    filter->Modified();
    const auto start = std::chrono::steady_clock::now();
    filter->Update();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0)
      seconds.push_back(s);
  }
  std::printf("{\"problem\":\"S\",\"method\":\"rings\",\"filter\":\"%s\",\"hardware\":\"cpu\",\"device\":\"%s\","
              "\"run\":\"median\",\"projections\":%u,\"runs\":%u,\"total_s\":%.4f}\n",
              name, device.c_str(), projections, runs, RingsMedian(seconds));
  std::fflush(stdout);
}

#if CBCT_USE_CUDA
template <typename TFilter, typename TImage>
void
TimeRingsOnCuda(TFilter * filter, TImage * input, const char * name, const std::string & device, unsigned int projections,
                unsigned int runs)
{
  std::vector<double> upload, filtering, download;
  auto now = [] {
    cudaDeviceSynchronize();
    return std::chrono::steady_clock::now();
  };
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  for (unsigned int r = 0; r <= runs; ++r)
  {
    input->GetCudaDataManager()->MarkHostModified();
    auto t = now();
    input->GetCudaDataManager()->DeviceBufferForRead();
    cudaDeviceSynchronize();
    const double up = since(t);
    filter->Modified();
    t = now();
    filter->Update();
    cudaDeviceSynchronize();
    const double f = since(t);
    t = now();
    filter->GetOutput()->GetCudaDataManager()->SynchronizeHost();
    const double down = since(t);
    if (r > 0)
    {
      upload.push_back(up);
      filtering.push_back(f);
      download.push_back(down);
    }
  }
  // The sorting filter's stages (CUDA events; one more run, timed stage by stage, each waited for).
  std::string stages;
  if constexpr (std::is_same<TFilter, CudaSortingStripeRemovalImageFilter<TImage>>::value)
  {
    filter->SetTimeStages(true);
    filter->Modified();
    filter->Update();
    cudaDeviceSynchronize();
    filter->SetTimeStages(false);
    const auto & ms = filter->GetStageMilliseconds();
    char text[160];
    std::snprintf(text, sizeof(text), ",\"sort_s\":%.4f,\"detection_s\":%.4f,\"correction_s\":%.4f", ms.sort * 1e-3,
                  ms.detection * 1e-3, ms.correction * 1e-3);
    stages = text;
  }
  std::printf("{\"problem\":\"S\",\"method\":\"rings\",\"filter\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\","
              "\"run\":\"median\",\"projections\":%u,\"runs\":%u,\"upload_s\":%.4f,\"device_s\":%.4f,\"download_s\":%.4f,"
              "\"total_s\":%.4f%s}\n",
              name, device.c_str(), projections, runs, RingsMedian(upload), RingsMedian(filtering), RingsMedian(download),
              RingsMedian(upload) + RingsMedian(filtering) + RingsMedian(download), stages.c_str());
  std::fflush(stdout);
}
#endif

} // namespace

void
RunRings(const std::string & hardware, const std::string & device, unsigned int projections, unsigned int runs)
{
  if (hardware == "cpu")
  {
    using Image = itk::Image<float, 3>;
    auto input = StripedProjections<Image>(projections);
    auto sorting = SortingStripeRemovalImageFilter<Image>::New();
    sorting->SetInput(input);
    TimeRingsOnCpu(sorting.GetPointer(), "sorting", device, projections, runs);
    sorting = nullptr;
    auto wavelet = WaveletFourierStripeRemovalImageFilter<Image>::New();
    wavelet->SetInput(input);
    TimeRingsOnCpu(wavelet.GetPointer(), "wavelet", device, projections, runs);
    return;
  }
#if CBCT_USE_CUDA
  using Image = CudaImage<float, 3>;
  auto input = StripedProjections<Image>(projections);
  auto sorting = CudaSortingStripeRemovalImageFilter<Image>::New();
  sorting->SetInput(input);
  TimeRingsOnCuda(sorting.GetPointer(), input.GetPointer(), "sorting", device, projections, runs);
  sorting = nullptr;
  auto wavelet = CudaWaveletFourierStripeRemovalImageFilter<Image>::New();
  wavelet->SetInput(input);
  TimeRingsOnCuda(wavelet.GetPointer(), input.GetPointer(), "wavelet", device, projections, runs);
#endif
}

} // namespace cbct::bench
