// ASD-POCS and ADMM-TV on the CPU: ASD-POCS without TV steps is OS-SART bit for bit, both reconstruct a
// few-view scan, the TV step adapts, events and abort, bad input.
#include "cbctADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctASDPOCSConeBeamReconstructionFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKWarmStart.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** A few-view scan of the ellipsoid phantom: 15 projections of 80 x 80 pixels of 2.5 mm, a 48^3 grid
 * of 2.5 mm. */
struct FewViews
{
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(15);
  ImageType::Pointer projections = ProjectPhantom(geometry, Ellipsoids(), 80, 2.5);
  ImageType::Pointer truth = VoxelizedPhantom(Ellipsoids(), 48, 2.5, 2);
  ImageType::RegionType central = [] {
    ImageType::RegionType r(ImageType::SizeType{ { 48, 24, 48 } });
    r.SetIndex(1, 12);
    return r;
  }();
};

template <typename TFilter>
typename TFilter::Pointer
Prepare(const FewViews & scan, unsigned int iterations)
{
  auto filter = TFilter::New();
  filter->SetInput(0, Zeros(scan.truth));
  filter->SetProjections(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetNumberOfIterations(iterations);
  return filter;
}
} // namespace

TEST(ASDPOCS, WithoutTotalVariationStepsItIsOsSartBitForBit)
{
  FewViews scan;
  auto sart = Prepare<SARTConeBeamReconstructionFilter<ImageType>>(scan, 3);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetLambda(0.8);
  sart->SetEnforcePositivity(true);
  sart->Update();
  auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 3);
  asd->SetNumberOfProjectionsPerSubset(5);
  asd->SetLambda(0.8);
  asd->SetLambdaReduction(1.);
  asd->SetNumberOfTVIterations(0);
  asd->Update();
  const std::size_t n = scan.truth->GetBufferedRegion().GetNumberOfPixels();
  EXPECT_TRUE(AllFinite(asd->GetOutput()));
  EXPECT_EQ(std::memcmp(asd->GetOutput()->GetBufferPointer(), sart->GetOutput()->GetBufferPointer(), n * sizeof(float)), 0);
  EXPECT_GT(Dot(asd->GetOutput(), asd->GetOutput()), 0.);
}

namespace
{
/** `image` with each value scaled by 1 + relative u, u uniform in [-1, 1]: a perturbation of the size
 * of float rounding (relative 1e-7), as two correct implementations of the same arithmetic in
 * another order (the GPU's texture unit, another summation order) produce. */
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
} // namespace

TEST(ASDPOCS, TotalVariationStepsWithATinyEpsilonAmplifyRounding)
{
  // Why CUDA and CPU ASD-POCS differ by 2e-3 after three iterations with TIGRE's eps (1e-8 per mm)
  // although their OS-SART passes and their TV steps agree (CudaTotalVariation tests): with so small
  // an eps the TV derivative is the sign of the differences between neighbours wherever they are
  // above 1e-8, so in flat regions it follows the last bits of the volume, and each normalised step
  // (x -= step g / |g|) moves those voxels by a sizeable share of the step. The CPU alone shows it:
  // projections perturbed by float rounding (relative 1e-7) move the OS-SART passes by 1e-7 but the
  // whole method by ~2e-3. With eps 0.01 per mm the TV derivative is smooth at that scale and the
  // method is as well conditioned as its passes. So the CUDA test of the method against the CPU holds
  // DESIGN.md's 1e-4 with eps 0.01, and with eps 1e-8 it can only be held to the CPU's own spread.
  FewViews scan;
  const auto perturbed = Perturbed(scan.projections, 1e-7, 3);
  auto run = [&](const ImageType * projections, unsigned int tvSteps, double epsilon) {
    auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 3);
    asd->SetProjections(projections);
    asd->SetNumberOfProjectionsPerSubset(5);
    asd->SetLambda(0.8);
    asd->SetAlpha(0.05);
    asd->SetNumberOfTVIterations(tvSteps);
    asd->SetEpsilon(epsilon);
    asd->Update();
    ImageType::Pointer out = asd->GetOutput();
    out->DisconnectPipeline();
    return out;
  };
  auto spread = [&](unsigned int tvSteps, double epsilon) {
    const double difference = RelativeDifference(run(perturbed, tvSteps, epsilon), run(scan.projections, tvSteps, epsilon));
    std::cout << "ASD-POCS, " << tvSteps << " TV steps, eps " << epsilon << ": projections perturbed by 1e-7 move the result by "
              << difference << std::endl;
    return difference;
  };
  EXPECT_LT(spread(0, 1e-8), 1e-6);  // the passes alone: measured 7.7e-8
  EXPECT_GT(spread(20, 1e-8), 2e-4); // measured 1.9e-3
  EXPECT_LT(spread(20, 1e-2), 5e-5); // measured 8.1e-6
}

TEST(ASDPOCS, ReconstructsFewViews)
{
  FewViews scan;
  auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 4);
  asd->SetNumberOfProjectionsPerSubset(5);
  asd->SetLambda(0.8);
  asd->SetAlpha(0.01);
  const std::vector<double> errors = UpdateWatchingErrors(asd.GetPointer(), scan.truth, scan.central);
  const Quality q = Compare(asd->GetOutput(), scan.truth, scan.central);
  PrintQuality("ASD-POCS, 15 views", q, errors);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_LT(q.meanAbsoluteError, 0.1);
  for (std::size_t k = 1; k < errors.size(); ++k)
    EXPECT_LT(errors[k], errors[k - 1]);
}

TEST(ASDPOCS, ReducesItsTotalVariationStepWhenItOutweighsTheData)
{
  // A first TV step of 0.2 times the first SART pass's change: 20 such steps outweigh the passes that
  // follow, and the step must shrink by AlphaReduction until they no longer do.
  FewViews scan;
  auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 6);
  asd->SetNumberOfProjectionsPerSubset(5);
  asd->SetLambda(0.8);
  asd->SetAlpha(0.2);
  asd->Update();
  const auto & steps = asd->GetTVStepSizes();
  std::cout << "TV steps:";
  for (double s : steps)
    std::cout << " " << s;
  std::cout << std::endl;
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_GT(steps[0], 0.);
  for (std::size_t k = 1; k < steps.size(); ++k)
    EXPECT_TRUE(steps[k] == steps[k - 1] || std::fabs(steps[k] - 0.95 * steps[k - 1]) < 1e-12 * steps[0]) << k;
  EXPECT_LT(steps.back(), steps.front()); // reduced at least once
  EXPECT_TRUE(AllFinite(asd->GetOutput()));
}

TEST(ADMMTotalVariation, ReconstructsFewViews)
{
  FewViews scan;
  auto admm = Prepare<ADMMTotalVariationConeBeamReconstructionFilter<ImageType>>(scan, 4);
  admm->SetAlpha(50.);
  admm->SetBeta(500.);
  admm->SetNumberOfCGIterations(3);
  const std::vector<double> errors = UpdateWatchingErrors(admm.GetPointer(), scan.truth, scan.central);
  const Quality q = Compare(admm->GetOutput(), scan.truth, scan.central);
  PrintQuality("ADMM-TV, 15 views", q, errors);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_LT(q.meanAbsoluteError, 0.1);
  EXPECT_LT(errors.back(), errors.front());
}

TEST(ADMMTotalVariation, ThePositivitySplitLowersTheErrorFromAnFDKStart)
{
  // Few views leave streaks that go negative; the split z = x, z >= 0 draws x to non-negative volumes
  // (and from FDK, whose low frequencies are right, ADMM does not have to build the volume first).
  FewViews scan;
  auto start = FDKWarmStart<FDKConeBeamReconstructionFilter<ImageType>>(scan.projections.GetPointer(), scan.geometry,
                                                                        scan.truth.GetPointer());
  const float * s = start->GetBufferPointer();
  EXPECT_GE(*std::min_element(s, s + start->GetBufferedRegion().GetNumberOfPixels()), 0.f);
  EXPECT_LT(Compare(start, scan.truth, scan.central).meanAbsoluteError, 0.3);
  double errors[2];
  for (bool positivity : { false, true })
  {
    auto admm = Prepare<ADMMTotalVariationConeBeamReconstructionFilter<ImageType>>(scan, 4);
    admm->SetInput(0, start);
    admm->SetAlpha(50.);
    admm->SetBeta(500.);
    admm->SetNumberOfCGIterations(3);
    admm->SetEnforcePositivity(positivity);
    admm->Update();
    ASSERT_TRUE(AllFinite(admm->GetOutput()));
    const Quality q = Compare(admm->GetOutput(), scan.truth, scan.central);
    std::cout << "ADMM-TV from FDK, 15 views, positivity " << positivity << ": MAE " << q.meanAbsoluteError << std::endl;
    errors[positivity] = q.meanAbsoluteError;
    // Gamma by default: Beta x 4 sum 1 / s^2 on voxels of 2.5 mm.
    EXPECT_NEAR(admm->EffectivePositivityWeight(), 500. * 12. / (2.5 * 2.5), 1e-9);
  }
  EXPECT_LT(errors[1], 0.9 * errors[0]);
}

TEST(TotalVariationReconstruction, AnObserverStopsAfterTheCurrentIteration)
{
  FewViews scan;
  auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 5);
  asd->SetNumberOfProjectionsPerSubset(15);
  auto admm = Prepare<ADMMTotalVariationConeBeamReconstructionFilter<ImageType>>(scan, 5);
  admm->SetNumberOfCGIterations(1);
  for (IterativeReconstructionFilter<ImageType> * filter :
       { static_cast<IterativeReconstructionFilter<ImageType> *>(asd.GetPointer()), static_cast<IterativeReconstructionFilter<ImageType> *>(admm.GetPointer()) })
  {
    unsigned int events = 0;
    filter->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
      if (++events == 2)
        filter->AbortGenerateDataOn();
    });
    filter->Update();
    EXPECT_EQ(events, 2u) << filter->GetNameOfClass();
    EXPECT_EQ(filter->GetCurrentIteration(), 2u) << filter->GetNameOfClass();
    EXPECT_TRUE(AllFinite(filter->GetOutput()));
  }
}

TEST(TotalVariationReconstructionBadInput, Parameters)
{
  FewViews scan;
  auto asd = Prepare<ASDPOCSConeBeamReconstructionFilter<ImageType>>(scan, 1);
  asd->SetAlpha(-1.);
  ExpectError(asd.GetPointer(), "ASD-POCS alpha is -1");
  asd->SetAlpha(0.002);
  asd->SetAlphaReduction(0.);
  ExpectError(asd.GetPointer(), "ASD-POCS alpha reduction is 0");
  asd->SetAlphaReduction(0.95);
  asd->SetRatioMax(std::nan(""));
  ExpectError(asd.GetPointer(), "ASD-POCS ratio is nan");
  asd->SetRatioMax(0.95);
  asd->SetLambdaReduction(1.5);
  ExpectError(asd.GetPointer(), "ASD-POCS lambda reduction is 1.5");
  asd->SetLambdaReduction(0.99);
  asd->SetNumberOfProjectionsPerSubset(16);
  ExpectError(asd.GetPointer(), "projections per subset is 16");

  auto admm = Prepare<ADMMTotalVariationConeBeamReconstructionFilter<ImageType>>(scan, 1);
  admm->SetBeta(0.);
  ExpectError(admm.GetPointer(), "ADMM-TV beta is 0");
  admm->SetBeta(1.);
  admm->SetNumberOfCGIterations(0);
  ExpectError(admm.GetPointer(), "ADMM-TV conjugate gradient iterations is 0");
  admm->SetNumberOfCGIterations(2);
  admm->SetPositivityWeight(-1.);
  ExpectError(admm.GetPointer(), "ADMM-TV positivity weight is -1");
  admm->SetPositivityWeight(0.);
  admm->SetBackProjector(BackProjectorKind::VoxelBased);
  ExpectError(admm.GetPointer(), "ADMM-TV backprojector is voxel");
  admm->SetBackProjector(BackProjectorKind::Adjoint);
  admm->SetNumberOfIterations(0);
  ExpectError(admm.GetPointer(), "number of iterations is 0");
}
