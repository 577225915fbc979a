// cbct-bench --method tv (CUDA builds only): one iteration of ASD-POCS and of ADMM-TV on the GPU.
#include "cbctBench.h"

#include "cbctConstantImageSource.h"
#include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"

#include <itkCommand.h>

#include <chrono>
#include <cstdio>

namespace cbct::bench
{

/** One iteration of each total-variation method on problem p (p.projections views) on the GPU:
 * ASD-POCS with subsets of 20 projections (TIGRE's OS-ASD-POCS) and 20 TV steps, ADMM-TV with 5
 * conjugate gradient steps (RTK's default) and with cbct-admmtv's 2 and positivity, each with the exact
 * adjoint (the gather); the median of
 * `runs` iterations after the first (which also uploads and, for ASD-POCS, computes the subsets'
 * sensitivities), timed by the filters' iteration events. */
void
RunTotalVariation(const Problem & p, const std::string & device, unsigned int runs)
{
  using Image = itk::Image<float, 3>;
  auto geometry = CircularGeometry(p.projections);
  auto projections = SheppLoganProjections<Image>(p, geometry);
  auto zero = ZeroVolume<Image>(p);
  zero->Update();

  auto time = [&](cbct::IterativeReconstructionFilter<Image> * filter, const char * method, const std::string & parameters) {
    filter->SetInput(0, zero->GetOutput());
    filter->SetProjections(projections);
    filter->SetGeometry(geometry);
    filter->SetNumberOfIterations(runs + 1);
    std::vector<std::chrono::steady_clock::time_point> ends;
    const auto start = std::chrono::steady_clock::now();
    filter->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
    filter->Update();
    std::vector<double> seconds;
    std::string list;
    for (std::size_t i = 1; i < ends.size(); ++i)
    {
      seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
      list += (list.empty() ? "" : ",") + std::to_string(seconds.back());
    }
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"%s\","
                "%s,\"first_iteration_s\":%.4f,\"iteration_s\":%.4f,\"warm_iterations_s\":[%s]}\n",
                p.name.c_str(), device.c_str(), p.projections, method, parameters.c_str(),
                ends.empty() ? 0. : std::chrono::duration<double>(ends[0] - start).count(), Median(seconds), list.c_str());
    std::fflush(stdout);
  };
  {
    auto asd = cbct::CudaASDPOCSConeBeamReconstructionFilter<Image>::New();
    asd->SetNumberOfProjectionsPerSubset(20);
    asd->SetNumberOfTVIterations(20);
    time(asd, "asd-pocs", "\"projections_per_subset\":20,\"tv_iterations\":20");
  }
  {
    auto admm = cbct::CudaADMMTotalVariationConeBeamReconstructionFilter<Image>::New();
    admm->SetNumberOfCGIterations(5);
    time(admm, "admm-tv", "\"cg_iterations\":5");
  }
  {
    // cbct-admmtv's defaults: 2 CG steps and the positivity split (an app run is 20 such iterations
    // after an FDK warm start).
    auto admm = cbct::CudaADMMTotalVariationConeBeamReconstructionFilter<Image>::New();
    admm->SetNumberOfCGIterations(2);
    admm->SetEnforcePositivity(true);
    time(admm, "admm-tv", "\"cg_iterations\":2,\"positivity\":true");
  }
}

} // namespace cbct::bench
