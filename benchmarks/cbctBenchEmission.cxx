// cbct-bench --method emission: problem E (SPECT): the emission projector and one OSEM iteration, on
// the CPU or the GPU.
#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctEmissionOperator.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctPhantomVolumeSource.h"
#if CBCT_USE_CUDA
#  include "cbctCudaEmissionOperator.h"
#  include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#endif

#include <itkCommand.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <functional>

namespace cbct::bench
{
namespace
{
/** The emission problem E: a 128^3 activity of 4 mm voxels (a body-sized elliptic cylinder of water,
 * activity 1, with a hot sphere of 6 and a cold one of 0.2), its attenuation map (mu 0.015/mm), 120
 * parallel views over 360 degrees of 128^2 pixels of 4 mm with the detector 250 mm from the axis, and
 * a collimator blur sigma(d) = 1.5 + 0.03 d mm (a low-energy high-resolution collimator's). */
struct EmissionProblem
{
  using Image = itk::Image<float, 3>;
  Image::Pointer activity, mu, projections;
  cbct::ThreeDCircularProjectionGeometry::Pointer geometry;
  cbct::CollimatorBlur blur;

  EmissionProblem()
  {
    geometry = cbct::ThreeDCircularProjectionGeometry::New();
    for (unsigned int k = 0; k < 120; ++k)
      geometry->AddProjection(250., 0., k * 3.);
    blur.sigma0 = 1.5;
    blur.slope = 0.03;
    auto voxelize = [](std::initializer_list<std::pair<double, std::array<double, 6>>> ellipsoids) {
      auto phantom = cbct::GeometricPhantom::New();
      for (const auto & e : ellipsoids)
      {
        cbct::GeometricPhantom::Ellipsoid ellipsoid;
        ellipsoid.density = e.first;
        ellipsoid.center = { { e.second[0], e.second[1], e.second[2] } };
        ellipsoid.semiAxes = { { e.second[3], e.second[4], e.second[5] } };
        phantom->AddEllipsoid(ellipsoid);
      }
      auto source = cbct::PhantomVolumeSource<Image>::New();
      source->SetSize(Image::SizeType{ { 128, 128, 128 } });
      Image::SpacingType spacing;
      spacing.Fill(4.);
      Image::PointType origin;
      origin.Fill(-254.);
      source->SetSpacing(spacing);
      source->SetOrigin(origin);
      source->SetPhantom(phantom);
      source->Update();
      Image::Pointer image = source->GetOutput();
      image->DisconnectPipeline();
      return image;
    };
    activity = voxelize({ { 1., { 0., 0., 0., 160., 220., 110. } },
                          { 5., { 40., 20., 10., 25., 25., 25. } },
                          { -0.8, { -50., -30., -20., 30., 30., 30. } } });
    mu = voxelize({ { 0.015, { 0., 0., 0., 160., 220., 110. } } });
    projections = Image::New();
    projections->SetRegions(Image::SizeType{ { 128, 128, 120 } });
    Image::SpacingType pixel;
    pixel.Fill(4.);
    pixel[2] = 1.;
    projections->SetSpacing(pixel);
    Image::PointType first;
    first[0] = first[1] = -254.;
    first[2] = 0.;
    projections->SetOrigin(first);
    projections->Allocate();
  }
};

} // namespace

/** Problem E on `hardware` (cpu or cuda): the forward and back projection of all 120 views (median of
 * `runs` after a warm-up) and one OSEM iteration of 8 subsets (the median of `runs` iterations after
 * the first, which also computes the sensitivities), one JSON line each. */
void
RunEmission(const std::string & hardware, const std::string & device, unsigned int runs)
{
  using Image = EmissionProblem::Image;
  const EmissionProblem e;
  const std::size_t voxels = e.activity->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t pixels = e.projections->GetBufferedRegion().GetNumberOfPixels();
  std::vector<unsigned int> all(120);
  for (unsigned int k = 0; k < 120; ++k)
    all[k] = k;
  auto report = [&](const char * what, const std::vector<double> & seconds) {
    std::string list;
    for (double t : seconds)
      list += (list.empty() ? "" : ",") + std::to_string(t);
    std::printf("{\"problem\":\"E\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"median\",\"method\":\"%s\","
                "\"volume\":128,\"projections\":120,\"detector\":[128,128],\"seconds\":%.4f,\"runs_s\":[%s]}\n",
                hardware.c_str(), device.c_str(), what, Median(seconds), list.c_str());
    std::fflush(stdout);
  };
  auto timeIt = [&](const std::function<void()> & f, const std::function<void()> & sync) {
    std::vector<double> t;
    for (unsigned int r = 0; r <= runs; ++r)
    {
      sync();
      const auto start = std::chrono::steady_clock::now();
      f();
      sync();
      if (r > 0)
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return t;
  };
  // Projected: the activity plus 0.05 everywhere, positive like every OSEM iterate (a zero voxel is
  // not splatted, so the phantom alone, zero outside the body, would time less than an iteration does).
  std::vector<float> x(e.activity->GetBufferPointer(), e.activity->GetBufferPointer() + voxels), p(pixels), back(voxels);
  for (float & a : x)
    a += 0.05f;
  if (hardware == "cpu")
  {
    const cbct::EmissionOperator<Image> A(e.activity, e.projections, e.geometry, e.mu, e.blur);
    report("emission-forward", timeIt([&] { A.Forward(x.data(), p.data(), all, false); }, [] {}));
    report("emission-back", timeIt([&] { A.Back(p.data(), back.data(), all, false); }, [] {}));
  }
#if CBCT_USE_CUDA
  else
  {
    cbct::CudaEmissionOperator A(e.activity, e.projections, e.geometry, e.mu, e.blur);
    auto * subset = A.Subset(all);
    cbct::CudaDeviceBuffer<float> dx(voxels), dp(pixels), dback(voxels);
    cbct::CudaCheck(cudaMemcpy(dx.Data(), x.data(), voxels * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy (activity)");
    auto sync = [] { cbct::CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize (emission)"); };
    report("emission-forward", timeIt([&] { A.Forward(dx.Data(), dp.Data(), subset, 120); }, sync));
    report("emission-back", timeIt([&] { A.Back(dp.Data(), dback.Data(), subset, 120, false); }, sync));
    cbct::CudaCheck(cudaMemcpy(p.data(), dp.Data(), pixels * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy (projections)");
  }
#endif
  // OSEM of the noise-free projections (those of the timed forward projections): 8 subsets of 15 views.
  auto measured = Image::New();
  measured->CopyInformation(e.projections);
  measured->SetRegions(e.projections->GetLargestPossibleRegion());
  measured->Allocate();
  std::copy(p.begin(), p.end(), measured->GetBufferPointer());
  auto zero = Image::New();
  zero->CopyInformation(e.activity);
  zero->SetRegions(e.activity->GetLargestPossibleRegion());
  zero->Allocate(true);
  cbct::OSEMConeBeamReconstructionFilter<Image>::Pointer osem;
#if CBCT_USE_CUDA
  if (hardware == "cuda")
    osem = cbct::CudaOSEMConeBeamReconstructionFilter<Image>::New().GetPointer();
  else
#endif
    osem = cbct::OSEMConeBeamReconstructionFilter<Image>::New();
  osem->SetInput(0, zero);
  osem->SetProjections(measured);
  osem->SetGeometry(e.geometry);
  osem->SetForwardProjector(cbct::ForwardProjectorKind::Emission);
  osem->SetAttenuationMap(e.mu);
  osem->SetCollimatorBlur(e.blur);
  osem->SetNumberOfProjectionsPerSubset(15);
  osem->SetNumberOfIterations(runs + 1);
  std::vector<std::chrono::steady_clock::time_point> ends;
  osem->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
  osem->Update();
  std::vector<double> seconds;
  for (std::size_t i = 1; i < ends.size(); ++i)
    seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
  report("emission-osem-iteration-8-subsets", seconds);
}

} // namespace cbct::bench
