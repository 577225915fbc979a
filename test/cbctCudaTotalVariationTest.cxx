// The total-variation filters and methods on the GPU against their CPU twins: the TV gradient, TV
// denoising, ASD-POCS and ADMM-TV, and ASD-POCS's parts alone (its projector pair on its scan, its TV
// steps from one volume), which tell where a difference of the whole method comes from. Skips
// without a device.
#include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"
#include "cbctCudaDevice.h"
#include "cbctCudaTotalVariationDenoisingImageFilter.h"
#include "cbctCudaTotalVariationGradientImageFilter.h"
#include "cbctCudaJosephOperator.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

class CudaTotalVariation : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    std::string why;
    if (!CudaDeviceAvailable(&why))
      GTEST_SKIP() << why;
  }
};

namespace
{
/** A random volume of 37 x 30 x 23 voxels of 0.8 x 1.5 x 2 mm. */
ImageType::Pointer
RandomVolume()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 37, 30, 23 } });
  ImageType::SpacingType spacing;
  spacing[0] = 0.8;
  spacing[1] = 1.5;
  spacing[2] = 2.;
  image->SetSpacing(spacing);
  image->Allocate();
  return Copy<ImageType>(image, false, 17);
}

/** `image` with each value scaled by 1 + relative u, u uniform in [-1, 1] (float rounding's size for
 * relative 1e-7); as the CPU test's. */
ImageType::Pointer
Perturbed(const ImageType * image, double relative, unsigned int seed)
{
  auto out = Copy<ImageType>(image);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1., 1.);
  float * o = out->GetBufferPointer();
  for (std::size_t i = 0; i < out->GetBufferedRegion().GetNumberOfPixels(); ++i)
    o[i] = static_cast<float>(o[i] * (1. + relative * uniform(generator)));
  return out;
}

/** The relative L2 difference of a CUDA image from a CPU image (NaN fails). */
double
Difference(CudaImageType * gpu, const ImageType * cpu)
{
  auto host = Copy<ImageType>(cpu, true);
  std::copy(gpu->GetBufferPointer(), gpu->GetBufferPointer() + cpu->GetBufferedRegion().GetNumberOfPixels(), host->GetBufferPointer());
  return RelativeDifference(host, cpu);
}

struct FewViews
{
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(15);
  ImageType::Pointer projections = ProjectPhantom(geometry, Ellipsoids(), 80, 2.5);
  ImageType::Pointer zeros = Zeros(VoxelizedPhantom(Ellipsoids(), 48, 2.5, 1));
};

template <typename TFilter>
void
Prepare(TFilter * filter, const FewViews & scan, unsigned int iterations)
{
  filter->SetInput(0, scan.zeros);
  filter->SetProjections(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetNumberOfIterations(iterations);
}
} // namespace

TEST_F(CudaTotalVariation, GradientMatchesCpu)
{
  auto x = RandomVolume();
  auto cpu = TotalVariationGradientImageFilter<ImageType>::New();
  cpu->SetInput(x);
  cpu->SetEpsilon(0.01);
  cpu->Update();
  auto gpu = CudaTotalVariationGradientImageFilter<CudaImageType>::New();
  gpu->SetInput(Copy<CudaImageType>(x));
  gpu->SetEpsilon(0.01);
  gpu->Update();
  const double difference = Difference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA TV gradient vs CPU: " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
}

TEST_F(CudaTotalVariation, DenoisingMatchesCpu)
{
  auto f = RandomVolume();
  auto cpu = TotalVariationDenoisingImageFilter<ImageType>::New();
  cpu->SetInput(f);
  cpu->SetLambda(0.05);
  cpu->SetNumberOfIterations(50);
  cpu->Update();
  auto gpu = CudaTotalVariationDenoisingImageFilter<CudaImageType>::New();
  gpu->SetInput(Copy<CudaImageType>(f));
  gpu->SetLambda(0.05);
  gpu->SetNumberOfIterations(50);
  gpu->Update();
  const double difference = Difference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA TV denoising vs CPU (50 iterations): " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
}

TEST_F(CudaTotalVariation, AsdPocsWithoutTVStepsMatchesCpuAfterThreeIterations)
{
  // The SART passes alone (no TV steps, positivity kept): where a CUDA-vs-CPU difference of ASD-POCS
  // comes from, the passes or the TV steps.
  FewViews scan;
  auto cpu = ASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  for (ASDPOCSConeBeamReconstructionFilter<ImageType> * filter : { cpu.GetPointer(), static_cast<ASDPOCSConeBeamReconstructionFilter<ImageType> *>(gpu.GetPointer()) })
  {
    Prepare(filter, scan, 3);
    filter->SetNumberOfProjectionsPerSubset(5);
    filter->SetLambda(0.8);
    filter->SetNumberOfTVIterations(0);
    filter->Update();
  }
  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA ASD-POCS without TV steps vs CPU after 3 iterations: " << difference << std::endl;
  EXPECT_LT(difference, 1e-4); // DESIGN.md's CUDA-vs-CPU bound
}

namespace
{
/** ASD-POCS (three iterations, subsets of 5, lambda 0.8, alpha 0.05) of `projections` with TV eps
 * `epsilon` and `tvSteps` TV steps, on the CPU or the GPU; `keep` (if any) receives the volume after
 * each iteration. */
ImageType::Pointer
AsdPocs(bool gpu, const FewViews & scan, const ImageType * projections, double epsilon, unsigned int tvSteps,
        std::vector<ImageType::Pointer> * keep = nullptr)
{
  ASDPOCSConeBeamReconstructionFilter<ImageType>::Pointer filter;
  if (gpu)
    filter = CudaASDPOCSConeBeamReconstructionFilter<ImageType>::New().GetPointer();
  else
    filter = ASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  Prepare(filter.GetPointer(), scan, 3);
  filter->SetProjections(projections);
  filter->SetNumberOfProjectionsPerSubset(5);
  filter->SetLambda(0.8);
  filter->SetAlpha(0.05);
  filter->SetEpsilon(epsilon);
  filter->SetNumberOfTVIterations(tvSteps);
  auto * raw = filter.GetPointer();
  if (keep)
    filter->AddObserver(itk::IterationEvent(), [raw, keep](const itk::EventObject &) { keep->push_back(Copy<ImageType>(raw->GetOutput())); });
  filter->Update();
  ImageType::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** CUDA ASD-POCS against the CPU's with TV eps `epsilon`, held to what the CPU's own conditioning
 * allows. Their OS-SART passes differ by X (CUDA's forward projection goes through the texture unit,
 * whose blend is not float-exact; the TV steps give the same bits from the same volume:
 * TVStepsFromTheSameVolumeMatchCpuBitForBit). The CPU, given projections perturbed by about as much
 * (relative max(X, 1e-7)), moves by S with the TV steps (ASDPOCS.TotalVariationStepsWithATinyEpsilon-
 * AmplifyRounding: the steps amplify rounding, the more the smaller eps). CUDA must be within
 * max(1e-4, 3 S) of the CPU: DESIGN.md's 1e-4 where the method is well conditioned, the CPU's own
 * spread where it is not. A real difference (another subset order, a step missed or doubled) is far
 * outside either. Returns the difference. */
double
CheckAsdPocsAgainstCpu(double epsilon)
{
  FewViews scan;
  const double passes = RelativeDifference(AsdPocs(true, scan, scan.projections, epsilon, 0), AsdPocs(false, scan, scan.projections, epsilon, 0));
  const double perturbation = std::max(passes, 1e-7);
  std::vector<ImageType::Pointer> iterates[2];
  const auto cpu = AsdPocs(false, scan, scan.projections, epsilon, 20, &iterates[0]);
  const auto gpu = AsdPocs(true, scan, scan.projections, epsilon, 20, &iterates[1]);
  const double spread = RelativeDifference(AsdPocs(false, scan, Perturbed(scan.projections, perturbation, 3), epsilon, 20), cpu);
  EXPECT_TRUE(AllFinite(gpu));
  EXPECT_EQ(iterates[0].size(), 3u);
  EXPECT_EQ(iterates[1].size(), 3u);
  for (std::size_t k = 0; k < std::min(iterates[0].size(), iterates[1].size()); ++k)
    std::cout << "CUDA ASD-POCS (eps " << epsilon << ") vs CPU after iteration " << k + 1 << ": "
              << RelativeDifference(iterates[1][k], iterates[0][k]) << std::endl;
  const double difference = RelativeDifference(gpu, cpu);
  std::cout << "CUDA ASD-POCS (eps " << epsilon << ") vs CPU: " << difference << "; without TV steps: " << passes
            << "; the CPU's own spread with projections perturbed by " << perturbation << ": " << spread << std::endl;
  EXPECT_GT(spread, 0.);
  EXPECT_LT(difference, std::max(1e-4, 3. * spread));
  return difference;
}
} // namespace

TEST_F(CudaTotalVariation, AsdPocsMatchesCpuAfterThreeIterations)
{
  // eps 0.01 per mm: the TV steps are smooth at the scale of rounding (the CPU, perturbed by 1e-7,
  // moves by 8e-6 with them and 8e-8 without): CUDA is expected within DESIGN.md's 1e-4.
  const double difference = CheckAsdPocsAgainstCpu(0.01);
  std::cout << "(eps 0.01: " << (difference < 1e-4 ? "within" : "outside") << " DESIGN.md's 1e-4)" << std::endl;
}

TEST_F(CudaTotalVariation, AsdPocsWithTigresEpsilonStaysWithinTheCpusOwnRoundingSpread)
{
  // TIGRE's eps (1e-8 per mm, the default; the setting that differed by 2.4e-3): the TV derivative is
  // the sign of neighbours' differences down to their last bits, and the CPU alone moves by about
  // 2e-3 when its projections move by rounding. Printed per iteration, so that a failure tells when
  // the two parted.
  const double difference = CheckAsdPocsAgainstCpu(1e-8);
  EXPECT_LT(difference, 1e-2);
}

TEST_F(CudaTotalVariation, TVStepsFromTheSameVolumeMatchCpuBitForBit)
{
  // ASD-POCS's TV steps alone (20 of them, TIGRE's eps) from one volume, on both backends: the TV
  // arithmetic is rounded the same way on both (cbctTotalVariation.hcu: no fused multiply-adds) and
  // the norms are sums in double of exact float squares, so the steps give the same bits. What
  // differs in the whole method then comes from the passes, amplified by the steps.
  FewViews scan;
  auto sart = ASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  Prepare(sart.GetPointer(), scan, 3);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetLambda(0.8);
  sart->SetNumberOfTVIterations(0);
  sart->Update();
  const ImageType * x = sart->GetOutput();
  const TVGrid grid = MakeTVGrid(x);
  const std::size_t n = x->GetBufferedRegion().GetNumberOfPixels();
  CpuReconstructionBackend cpu(nullptr, grid, 0);
  CudaReconstructionBackend gpu(nullptr, grid, 0);
  CpuReconstructionBackend::Vector cx(n), cg(n);
  CudaReconstructionBackend::Vector gx(n), gg(n);
  cpu.Upload(x->GetBufferPointer(), cx, n);
  gpu.Upload(x->GetBufferPointer(), gx, n);
  const double step = 0.05 * std::sqrt(cpu.SquaredNorm(cx));
  ASDPOCSConeBeamReconstructionFilter<ImageType>::TotalVariationSteps(cpu, cx, cg, step, 20, 1e-8);
  ASDPOCSConeBeamReconstructionFilter<ImageType>::TotalVariationSteps(gpu, gx, gg, step, 20, 1e-8);
  std::vector<float> fromGpu(n);
  gpu.Download(gx, fromGpu.data(), n);
  std::size_t differing = 0;
  double difference = 0., norm = 0., moved = 0.;
  for (std::size_t v = 0; v < n; ++v)
  {
    differing += fromGpu[v] != cx[v] ? 1 : 0; // NaN counts as differing
    difference += (double(fromGpu[v]) - cx[v]) * (double(fromGpu[v]) - cx[v]);
    norm += double(cx[v]) * cx[v];
    moved += (double(cx[v]) - x->GetBufferPointer()[v]) * (double(cx[v]) - x->GetBufferPointer()[v]);
  }
  std::cout << "20 TV steps of " << step << " from the same volume: " << differing << " of " << n << " voxels differ, relative L2 "
            << std::sqrt(difference / norm) << "; the steps moved the volume by " << std::sqrt(moved / norm) << std::endl;
  EXPECT_GT(moved, 0.);
  EXPECT_EQ(differing, 0u);
  EXPECT_LT(std::sqrt(difference / norm), 1e-6);
}

TEST_F(CudaTotalVariation, JosephPairOnTheFewViewScanMatchesCpu)
{
  // The projector pair of ASD-POCS's passes on its own scan and a phantom-like volume (the CPU's OS-SART
  // result): the forward projection through the texture unit (the passes' only rounding that the CPU
  // does not reproduce bit for bit), reading four voxels, and the gather adjoint.
  FewViews scan;
  auto sart = ASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  Prepare(sart.GetPointer(), scan, 3);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetNumberOfTVIterations(0);
  sart->Update();
  const ImageType * x = sart->GetOutput();
  const ImageType * y = scan.projections;
  const std::size_t voxels = x->GetBufferedRegion().GetNumberOfPixels(), pixels = y->GetBufferedRegion().GetNumberOfPixels();
  const JosephOperator<ImageType> cpu(x, y, scan.geometry);
  std::vector<unsigned int> all(scan.geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  std::vector<float> cpuAx(pixels), cpuAty(voxels);
  cpu.Forward(x->GetBufferPointer(), cpuAx.data(), all, false);
  cpu.Back(y->GetBufferPointer(), cpuAty.data(), all, false);
  auto relative = [](const std::vector<float> & a, const std::vector<float> & b) {
    double d = 0., n = 0.;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
      d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
      n += double(b[i]) * b[i];
    }
    return n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN();
  };
  CudaDeviceBuffer<float> dx(voxels), dy(pixels), ax(pixels), aty(voxels);
  CudaUpload(dx.Data(), x->GetBufferPointer(), voxels, "test volume");
  CudaUpload(dy.Data(), y->GetBufferPointer(), pixels, "test projections");
  for (bool texture : { true, false })
  {
    CudaJosephOperator A(x, y, scan.geometry);
    A.SetVolumeTexture(texture);
    auto * subset = A.Subset(all);
    A.Forward(dx.Data(), ax.Data(), subset, static_cast<int>(all.size()));
    A.Back(dy.Data(), aty.Data(), subset, static_cast<int>(all.size()), false);
    std::vector<float> hax(pixels), haty(voxels);
    CudaDownload(hax.data(), ax.Data(), pixels, "test projections");
    CudaDownload(haty.data(), aty.Data(), voxels, "test volume");
    const double forward = relative(hax, cpuAx), back = relative(haty, cpuAty);
    std::cout << "Joseph on the few-view scan, CUDA vs CPU: forward (" << (texture ? "texture" : "four voxels") << ") " << forward
              << ", gather adjoint " << back << std::endl;
    // The texture unit's blend is not float-exact (CudaIterative.JosephPairIsAdjointAndMatchesCpu:
    // 1.7e-4 on random volumes); reading four voxels is the CPU's arithmetic up to summation order.
    EXPECT_LT(forward, texture ? 5e-4 : 1e-6);
    EXPECT_LT(back, 1e-5);
  }
}

TEST_F(CudaTotalVariation, AdmmTvMatchesCpuAfterThreeIterations)
{
  FewViews scan;
  auto cpu = ADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  unsigned int events = 0;
  gpu->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
    ++events;
    EXPECT_TRUE(AllFinite(gpu->GetOutput())); // observed: the current volume is in the output
  });
  for (ADMMTotalVariationConeBeamReconstructionFilter<ImageType> * filter :
       { cpu.GetPointer(), static_cast<ADMMTotalVariationConeBeamReconstructionFilter<ImageType> *>(gpu.GetPointer()) })
  {
    Prepare(filter, scan, 3);
    filter->SetAlpha(50.);
    filter->SetBeta(500.);
    filter->SetNumberOfCGIterations(3);
    filter->Update();
  }
  EXPECT_EQ(events, 3u);
  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA ADMM-TV vs CPU after 3 iterations: " << difference << std::endl;
  EXPECT_LT(difference, 1e-3);
}

TEST_F(CudaTotalVariation, AdmmTvWithPositivityMatchesCpuAfterThreeIterations)
{
  // The positivity split's z- and e-updates (LaunchZeroNegatives) and its block in the CG steps.
  FewViews scan;
  auto cpu = ADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  for (ADMMTotalVariationConeBeamReconstructionFilter<ImageType> * filter :
       { cpu.GetPointer(), static_cast<ADMMTotalVariationConeBeamReconstructionFilter<ImageType> *>(gpu.GetPointer()) })
  {
    Prepare(filter, scan, 3);
    filter->SetAlpha(50.);
    filter->SetBeta(500.);
    filter->SetNumberOfCGIterations(3);
    filter->SetEnforcePositivity(true);
    filter->Update();
  }
  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA ADMM-TV with positivity vs CPU after 3 iterations: " << difference << std::endl;
  EXPECT_LT(difference, 1e-3);
}
