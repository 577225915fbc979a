// cbct-bench --method fourdrooster: one 4D ROOSTER iteration of FourDProblem (cbctBench.h) on the CPU
// or the GPU.
#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFourDROOSTERConeBeamReconstructionFilter.h"
#endif

#include <itkCommand.h>

#include <chrono>
#include <cstdio>

namespace cbct::bench
{
namespace
{
/** One 4D ROOSTER iteration on FourDProblem: 10 frames of 512^3 from 1440
 * projections of 512^2 over 10 breathing cycles (each projection seen by the two frames around its
 * phase), RTK's defaults (4 conjugate gradient steps, 10 Chambolle steps of spatial and of temporal
 * TV, positivity), gammas 1e-4. The filter runs runs + 1 iterations; each iteration's time is taken
 * between its itk::IterationEvents (the first, which includes the upload of the projections and
 * frames, untimed). Per iteration: 5 forward and 5 back projections of the 4D model, each two 3D
 * projections of the whole stack (2 x 1440 views of 512^3). Memory on the GPU some 30 GB. */
template <typename TFilter>
void
RunFourDROOSTERTemplate(const std::string & hardware, const std::string & device, unsigned int runs)
{
  const FourDProblem problem;
  const Problem & s = problem.s;
  const unsigned int count = FourDProblem::count, frames = FourDProblem::frames;
  const double cycles = FourDProblem::cycles;
  const auto & geometry = problem.geometry;
  const auto & phases = problem.phases;
  using Series = itk::Image<float, 4>;
  auto projections = problem.Projections<itk::Image<float, 3>>();
  auto initial = Series::New();
  initial->SetRegions(Series::SizeType{ { s.volume, s.volume, s.volume, frames } });
  Series::SpacingType spacing;
  spacing.Fill(s.voxelMm);
  spacing[3] = 1.;
  initial->SetSpacing(spacing);
  Series::PointType origin;
  origin.Fill(-0.5 * (s.volume - 1.) * s.voxelMm);
  origin[3] = 0.;
  initial->SetOrigin(origin);
  initial->Allocate(true);
  auto rooster = TFilter::New();
  rooster->SetInput(initial);
  rooster->SetProjections(projections);
  rooster->SetGeometry(geometry);
  rooster->SetPhases(phases);
  rooster->SetNumberOfIterations(runs + 1);
  rooster->SetGammaSpace(1e-4);
  rooster->SetGammaTime(1e-4);
  std::vector<std::chrono::steady_clock::time_point> ends;
  rooster->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
  const auto start = std::chrono::steady_clock::now();
  rooster->Update();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> seconds;
  const auto print = [&](const std::string & run, double iteration) {
    std::printf("{\"problem\":\"4D\",\"method\":\"fourdrooster\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"%s\","
                "\"frames\":%u,\"volume\":%u,\"projections\":%u,\"detector\":[%u,%u],\"cycles\":%.0f,\"cgiter\":%u,"
                "\"tviter\":%u,\"iteration_s\":%.4f,\"peak_rss_gib\":%.2f}\n",
                hardware.c_str(), device.c_str(), run.c_str(), frames, s.volume, count, s.columns, s.rows, cycles,
                rooster->GetNumberOfCGIterations(), rooster->GetNumberOfTVIterations(), iteration, PeakResidentGiB());
    std::fflush(stdout);
  };
  for (std::size_t i = 1; i < ends.size(); ++i)
  {
    seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
    print(std::to_string(i), seconds.back());
  }
  print("median", Median(seconds));
  std::printf("{\"problem\":\"4D\",\"method\":\"fourdrooster\",\"run\":\"whole\",\"iterations\":%u,\"total_s\":%.4f}\n",
              runs + 1, total);
}
} // namespace

void
RunFourDROOSTER(const std::string & hardware, const std::string & device, unsigned int runs)
{
  using Series = itk::Image<float, 4>;
  if (hardware == "cpu")
    RunFourDROOSTERTemplate<FourDROOSTERConeBeamReconstructionFilter<Series>>("cpu", device, runs);
#if CBCT_USE_CUDA
  else
    RunFourDROOSTERTemplate<CudaFourDROOSTERConeBeamReconstructionFilter<Series>>("cuda", device, runs);
#endif
}

} // namespace cbct::bench
