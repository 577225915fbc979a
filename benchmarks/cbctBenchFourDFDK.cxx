// cbct-bench --method fourd: 4D FDK of FourDProblem (cbctBench.h) on the CPU or the GPU.
#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.h"
#endif

#include <chrono>
#include <cstdio>
#include <map>
#include <type_traits>

namespace cbct::bench
{
namespace
{
/** 4D FDK of FourDProblem's 10 frames, each projection in its nearest frame, so each is backprojected
 * once: 4x the backprojection of S, and 5.4 GB of frames downloaded. "total" is projections in host
 * memory to the 4D volume in host memory, after an untimed warm-up (which page-locks the 4D output
 * once); GUPS counts each projection once. */
template <typename TImage, typename TFilter>
void
RunFourDTemplate(const std::string & hardware, const std::string & device, unsigned int runs, unsigned int pieces,
         unsigned int concurrent)
{
  const FourDProblem problem;
  const Problem & s = problem.s;
  const unsigned int count = FourDProblem::count, frames = FourDProblem::frames;
  const double cycles = FourDProblem::cycles;
  const auto & geometry = problem.geometry;
  const auto & phases = problem.phases;
  auto projections = problem.Projections<TImage>();
  auto zero = ZeroVolume<TImage>(s);
  auto fdk = TFilter::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetPhases(phases);
  fdk->SetNumberOfFrames(frames);
  if constexpr (!std::is_same_v<TImage, itk::Image<float, 3>>)
  {
    if (pieces > 0)
      fdk->SetMinimumPieces(pieces);
    if (concurrent > 0)
      fdk->SetConcurrentFrames(concurrent);
    concurrent = fdk->GetConcurrentFrames();
  }
  std::map<std::string, std::vector<double>> samples;
  const auto print = [&](const std::string & run, double total, double upload, double weighting, double filtering,
                         double backprojection, double download) {
    const double updates = static_cast<double>(s.volume) * s.volume * s.volume * count;
    std::printf("{\"problem\":\"4D\",\"method\":\"fourdfdk\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"%s\","
                "\"frames\":%u,\"volume\":%u,\"projections\":%u,\"detector\":[%u,%u],\"cycles\":%.0f,\"total_s\":%.4f,"
                "\"upload_s\":%.4f,\"weighting_s\":%.4f,\"filtering_s\":%.4f,\"backprojection_s\":%.4f,\"download_s\":%.4f,"
                "\"gups\":%.1f,\"output_gib\":%.2f,\"peak_rss_gib\":%.2f,\"concurrent_frames\":%u}\n",
                hardware.c_str(), device.c_str(), run.c_str(), frames, s.volume, count, s.columns, s.rows, cycles, total, upload,
                weighting, filtering, backprojection, download, backprojection > 0. ? updates / backprojection / 1e9 : 0.,
                static_cast<double>(s.volume) * s.volume * s.volume * frames * sizeof(float) / (1 << 30), PeakResidentGiB(),
                concurrent);
    std::fflush(stdout);
  };
  for (unsigned int r = 0; r <= runs; ++r) // run 0 is the untimed warm-up
  {
    projections->GetBufferPointer(); // host access: for a CudaImage the device copy is now stale
    projections->Modified();         // projections in host memory: a fresh upload each run
    fdk->Modified();
    fdk->ResetStageTimes();
    const auto start = std::chrono::steady_clock::now();
    fdk->Update();
    const auto computed = std::chrono::steady_clock::now();
    volatile float touch = fdk->GetOutput()->GetBufferPointer()[0]; // the frames in host memory
    (void)touch;
    const auto end = std::chrono::steady_clock::now();
    const double total = std::chrono::duration<double>(end - start).count();
    const double download = fdk->GetDownloadTime() + std::chrono::duration<double>(end - computed).count();
    if (r == 0)
      continue;
    print(std::to_string(r), total, fdk->GetUploadTime(), fdk->GetWeightingTime(), fdk->GetFilteringTime(),
          fdk->GetBackProjectionTime(), download);
    samples["total"].push_back(total);
    samples["upload"].push_back(fdk->GetUploadTime());
    samples["weighting"].push_back(fdk->GetWeightingTime());
    samples["filtering"].push_back(fdk->GetFilteringTime());
    samples["backprojection"].push_back(fdk->GetBackProjectionTime());
    samples["download"].push_back(download);
  }
  print("median", Median(samples["total"]), Median(samples["upload"]), Median(samples["weighting"]),
        Median(samples["filtering"]), Median(samples["backprojection"]), Median(samples["download"]));
}
} // namespace

void
RunFourD(const std::string & hardware, const std::string & device, unsigned int runs, unsigned int pieces,
         unsigned int concurrent)
{
  using CpuImage = itk::Image<float, 3>;
  if (hardware == "cpu")
    RunFourDTemplate<CpuImage, FourDFDKConeBeamReconstructionFilter<CpuImage, itk::Image<float, 4>>>("cpu", device, runs, 0, 0);
#if CBCT_USE_CUDA
  else
  {
    using GpuImage = CudaImage<float, 3>;
    RunFourDTemplate<GpuImage, CudaFourDFDKConeBeamReconstructionFilter<GpuImage>>("cuda", device, runs, pieces, concurrent);
  }
#else
  (void)pieces;
  (void)concurrent;
#endif
}

} // namespace cbct::bench
