// cbct-bench --method iterative (CUDA builds only): the GPU projectors and one OS-SART iteration.
#include "cbctBench.h"

#include "cbctConstantImageSource.h"
#include "cbctCudaCGLSConeBeamReconstructionFilter.h"
#include "cbctCudaJosephOperator.h"
#include "cbctCudaRayCastOperator.h"
#include "cbctCudaSARTConeBeamReconstructionFilter.h"
#include "cbctCudaVoxelBackProjectionOperator.h"

#include <itkCommand.h>

#include <chrono>
#include <cstdio>
#include <functional>

namespace cbct::bench
{

/** The projectors' speed on problem p, on the GPU: forward and back projection of all projections
 * with each projector pair and variant (GUPS = voxels x projections / s; Joseph: through slice-stack
 * textures (the default) or reading voxels; its exact adjoint gathered (the default) or scattered
 * with atomics in 32-slice slabs or in one pass; the ray caster with a step of one voxel), the voxel-based
 * backprojection, and one OS-SART iteration (subsets of 20 projections) with each forward projector
 * and each backprojector: the median of `runs` iterations after the first (which also uploads and
 * computes the sensitivities); one SIRT iteration (one subset of every projection) and one CGLS
 * iteration with their defaults, to set beside ASTRA's SIRT3D and CGLS3D. */
void
RunIterative(const Problem & p, const std::string & device, unsigned int runs)
{
  using GpuImage = cbct::CudaImage<float, 3>;
  auto geometry = CircularGeometry(p.projections);
  auto projections = SheppLoganProjections<GpuImage>(p, geometry);
  auto zero = ZeroVolume<GpuImage>(p);
  zero->Update();

  const double updates = static_cast<double>(p.volume) * p.volume * p.volume * p.projections;
  std::vector<unsigned int> all(p.projections);
  for (unsigned int k = 0; k < p.projections; ++k)
    all[k] = k;
  cbct::CudaDeviceBuffer<float> volume(static_cast<std::size_t>(p.volume) * p.volume * p.volume),
    stack(static_cast<std::size_t>(p.columns) * p.rows * p.projections);
  cbct::CudaCheck(cbct::LaunchFill(volume.Data(), static_cast<std::size_t>(p.volume) * p.volume * p.volume, 1.f, nullptr), "LaunchFill");
  cbct::CudaCheck(cbct::LaunchFill(stack.Data(), static_cast<std::size_t>(p.columns) * p.rows * p.projections, 1.f, nullptr), "LaunchFill");
  // Median seconds of `runs` warm calls of f.
  auto timeIt = [&](const std::function<void()> & f) {
    std::vector<double> t;
    for (unsigned int r = 0; r <= runs; ++r)
    {
      cudaDeviceSynchronize();
      const auto start = std::chrono::steady_clock::now();
      f();
      cbct::CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize (projector)");
      if (r > 0)
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return Median(t);
  };
  auto report = [&](const char * method, const char * variant, double seconds) {
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"%s\","
                "\"variant\":\"%s\",\"seconds\":%.4f,\"gups\":%.1f}\n",
                p.name.c_str(), device.c_str(), p.projections, method, variant, seconds, updates / seconds / 1e9);
    std::fflush(stdout);
  };
  {
    cbct::CudaJosephOperator A(zero->GetOutput(), projections, geometry);
    auto * subset = A.Subset(all);
    const int n = static_cast<int>(p.projections);
    A.SetVolumeTexture(false);
    report("joseph-forward", "global", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    A.SetVolumeTexture(true);
    report("joseph-forward", "slices", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    report("joseph-back", "gather", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    // The other gather kernels, for comparison: a box per cell (records) and the first one (tiles).
    A.SetGatherKernel(cbct::CudaJosephGatherRecords);
    report("joseph-back", "gather-records", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    A.SetGatherKernel(cbct::CudaJosephGatherTiles);
    report("joseph-back", "gather-tiles", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    A.SetGatherKernel(cbct::CudaJosephGatherRuns);
    A.SetAdjoint(cbct::JosephAdjoint::Scatter);
    for (int slab : { 0, 32 })
    {
      A.SetBackProjectionSlab(slab);
      report("joseph-back", ("scatter-slab" + std::to_string(slab)).c_str(),
             timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    }
  }
  {
    cbct::CudaVoxelBackProjectionOperator B(
      std::unique_ptr<cbct::CudaProjectorOperator>(new cbct::CudaJosephOperator(zero->GetOutput(), projections, geometry)),
      zero->GetOutput(), projections, geometry);
    auto * subset = B.Subset(all);
    report("voxel-back", "texture", timeIt([&] { B.Back(stack.Data(), volume.Data(), subset, static_cast<int>(p.projections), false); }));
  }
  {
    cbct::CudaRayCastOperator A(zero->GetOutput(), projections, geometry, p.voxelMm);
    auto * subset = A.Subset(all);
    const int n = static_cast<int>(p.projections);
    report("raycast-forward", "step1", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    report("raycast-back", "step1", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
  }

  // Seconds of each iteration after the first (which also uploads and computes the sensitivities):
  // the CUDA filter synchronises before each IterationEvent, so the events time the iterations.
  auto timeSart = [&](unsigned int iterations, cbct::ForwardProjectorKind kind, cbct::BackProjectorKind back) {
    auto sart = cbct::CudaSARTConeBeamReconstructionFilter<GpuImage>::New();
    sart->SetInput(0, zero->GetOutput());
    sart->SetProjections(projections);
    sart->SetGeometry(geometry);
    sart->SetForwardProjector(kind);
    sart->SetBackProjector(back);
    sart->SetNumberOfIterations(iterations);
    sart->SetNumberOfProjectionsPerSubset(20);
    sart->SetLambda(0.8);
    std::vector<std::chrono::steady_clock::time_point> ends;
    sart->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
    sart->Update();
    std::vector<double> seconds;
    for (std::size_t i = 1; i < ends.size(); ++i)
      seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
    return seconds;
  };
  using Fp = cbct::ForwardProjectorKind;
  using Bp = cbct::BackProjectorKind;
  // SIRT: OS-SART with one subset of every projection (the update after all of them), timed as above.
  {
    auto sirt = cbct::CudaSARTConeBeamReconstructionFilter<GpuImage>::New();
    sirt->SetInput(0, zero->GetOutput());
    sirt->SetProjections(projections);
    sirt->SetGeometry(geometry);
    sirt->SetNumberOfIterations(runs + 1);
    sirt->SetNumberOfProjectionsPerSubset(p.projections);
    std::vector<std::chrono::steady_clock::time_point> ends;
    sirt->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
    sirt->Update();
    std::vector<double> seconds;
    for (std::size_t i = 1; i < ends.size(); ++i)
      seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"sirt\","
                "\"fp\":\"%s\",\"bp\":\"%s\",\"iteration_s\":%.4f}\n",
                p.name.c_str(), device.c_str(), p.projections, cbct::ToString(sirt->GetForwardProjector()).c_str(),
                cbct::ToString(sirt->GetBackProjector()).c_str(), Median(seconds));
    std::fflush(stdout);
  }
  // CGLS with its defaults: an observer would download the volume every iteration, so an iteration is
  // timed as the difference of a run of 1 + runs iterations and a run of one, over runs (each run also
  // uploads, allocates and computes the first residual: the same in both).
  {
    auto cglsSeconds = [&](unsigned int iterations) {
      auto cgls = cbct::CudaCGLSConeBeamReconstructionFilter<GpuImage>::New();
      cgls->SetInput(0, zero->GetOutput());
      cgls->SetProjections(projections);
      cgls->SetGeometry(geometry);
      cgls->SetNumberOfIterations(iterations);
      cudaDeviceSynchronize();
      const auto start = std::chrono::steady_clock::now();
      cgls->Update();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    cglsSeconds(1); // warm-up
    std::vector<double> one, many;
    for (unsigned int r = 0; r < 3; ++r)
    {
      one.push_back(cglsSeconds(1));
      many.push_back(cglsSeconds(1 + runs));
    }
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"cgls\","
                "\"iteration_s\":%.4f,\"run_of_1_s\":%.4f,\"run_of_%u_s\":%.4f}\n",
                p.name.c_str(), device.c_str(), p.projections, (Median(many) - Median(one)) / runs, Median(one), 1 + runs,
                Median(many));
    std::fflush(stdout);
  }
  for (auto [kind, back] : { std::make_pair(Fp::Joseph, Bp::VoxelBased), std::make_pair(Fp::RayCast, Bp::VoxelBased),
                             std::make_pair(Fp::Joseph, Bp::Adjoint), std::make_pair(Fp::RayCast, Bp::Adjoint) })
  {
    const std::vector<double> seconds = timeSart(runs + 1, kind, back);
    std::string list;
    for (double t : seconds)
      list += (list.empty() ? "" : ",") + std::to_string(t);
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"os-sart\","
                "\"fp\":\"%s\",\"bp\":\"%s\",\"projections_per_subset\":20,\"iteration_s\":%.4f,\"warm_iterations_s\":[%s]}\n",
                p.name.c_str(), device.c_str(), p.projections, cbct::ToString(kind).c_str(), cbct::ToString(back).c_str(), Median(seconds),
                list.c_str());
    std::fflush(stdout);
  }
}

} // namespace cbct::bench
