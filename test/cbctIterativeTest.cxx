// Joseph's projector pair, the ray caster's, and SART/OS-SART/SIRT on the CPU: adjointness, accuracy against exact line
// integrals, reconstruction quality, convergence, bad input.
#include "cbctJosephBackProjectionImageFilter.h"
#include "cbctJosephForwardProjectionImageFilter.h"
#include "cbctRayCastOperator.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>


using namespace cbct;
using namespace cbct::test;

TEST(Joseph, ForwardAndBackProjectionsAreAdjoint)
{
  // Random 64^3 volume and 180 random projections of 64^2, with a detector offset and a bare matrix
  // among the projections.
  auto geometry = CircularGeometry(179, 360., 1000., 1500., 3., -2.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  auto volumeGrid = VoxelizedPhantom(SheppLogan(), 64, 2., 1);
  auto projectionGrid = ProjectPhantom(geometry, SheppLogan(), 64, 3.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);

  auto forward = JosephForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Zeros(y));
  forward->SetVolume(x);
  forward->SetGeometry(geometry);
  forward->Update();
  auto back = JosephBackProjectionImageFilter<ImageType>::New();
  back->SetInput(0, Zeros(x));
  back->SetProjections(y);
  back->SetGeometry(geometry);
  back->Update();
  const double ratio = Dot(forward->GetOutput(), y) / Dot(x, back->GetOutput());
  std::cout << "<Ax, y> / <x, A^T y> = " << ratio << std::endl;
  EXPECT_NEAR(ratio, 1., 1e-3);
  EXPECT_GT(Dot(forward->GetOutput(), y), 0.); // not trivially zero
}

TEST(Joseph, ForwardProjectionOfTheVoxelizedPhantomMatchesExactLineIntegrals)
{
  auto geometry = CircularGeometry(60);
  auto exact = ProjectPhantom(geometry, SheppLogan(), 128, 1.2);
  auto volume = VoxelizedPhantom(SheppLogan(), 128, 1., 2);
  auto forward = JosephForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Zeros(exact));
  forward->SetVolume(volume);
  forward->SetGeometry(geometry);
  forward->Update();
  // RTK's measure for projections: PSNR with a peak of 255.
  const Quality q = Compare(forward->GetOutput(), exact, exact->GetLargestPossibleRegion(), 255.);
  std::cout << "Joseph vs exact line integrals: PSNR " << q.psnr << " dB, mean absolute error " << q.meanAbsoluteError
            << std::endl;
  EXPECT_GE(q.psnr, 44.);
}

TEST(RayCast, ForwardAndBackProjectionsAreAdjoint)
{
  // As for Joseph: random 64^3 volume, 180 random 64^2 projections, detector offset, a bare matrix;
  // the step (1.3 mm for 2 mm voxels) does not divide the rays' lengths, so last segments are short.
  auto geometry = CircularGeometry(179, 360., 1000., 1500., 3., -2.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  auto volumeGrid = VoxelizedPhantom(SheppLogan(), 64, 2., 1);
  auto projectionGrid = ProjectPhantom(geometry, SheppLogan(), 64, 3.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);
  auto ax = Zeros(y);
  auto aty = Zeros(x);
  const RayCastOperator<ImageType> A(x, y, geometry, 1.3);
  std::vector<unsigned int> all(180);
  for (unsigned int k = 0; k < 180; ++k)
    all[k] = k;
  A.Forward(x->GetBufferPointer(), ax->GetBufferPointer(), all, false);
  A.Back(y->GetBufferPointer(), aty->GetBufferPointer(), all, false);
  const double ratio = Dot(ax, y) / Dot(x, aty);
  std::cout << "ray caster <Ax, y> / <x, A^T y> = " << ratio << std::endl;
  EXPECT_NEAR(ratio, 1., 1e-3);
  EXPECT_GT(Dot(ax, y), 0.);
}

TEST(RayCast, ForwardProjectionOfTheVoxelizedPhantomMatchesExactLineIntegrals)
{
  auto geometry = CircularGeometry(60);
  auto exact = ProjectPhantom(geometry, SheppLogan(), 128, 1.2);
  auto volume = VoxelizedPhantom(SheppLogan(), 128, 1., 2);
  std::vector<unsigned int> all(60);
  for (unsigned int k = 0; k < 60; ++k)
    all[k] = k;
  for (double step : { 0.5, 1. })
  {
    auto projected = Zeros(exact);
    RayCastOperator<ImageType>(volume, exact, geometry, step).Forward(volume->GetBufferPointer(), projected->GetBufferPointer(), all, false);
    const Quality q = Compare(projected, exact, exact->GetLargestPossibleRegion(), 255.);
    std::cout << "ray caster (step " << step << " mm) vs exact line integrals: PSNR " << q.psnr << " dB, mean absolute error "
              << q.meanAbsoluteError << std::endl;
    EXPECT_GE(q.psnr, 44.) << "step " << step;
  }
}

TEST(RayCast, OsSartWithTheRayCasterReconstructsThePhantom)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
  sart->SetInput(0, Zeros(truth));
  sart->SetProjections(projections);
  sart->SetGeometry(geometry);
  sart->SetForwardProjector(ForwardProjectorKind::RayCast);
  sart->SetNumberOfIterations(4);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetLambda(0.8);
  sart->EnforcePositivityOn();
  sart->Update();
  const Quality q = Compare(sart->GetOutput(), truth, Central());
  std::cout << "OS-SART with the ray caster (step: one voxel): MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
  EXPECT_LE(q.meanAbsoluteError, 0.032);
  EXPECT_GE(q.psnr, 28.);
}

TEST(SART, OrderedSubsetsReconstructThePhantomAndImproveEachIteration)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
  sart->SetInput(0, Zeros(truth));
  sart->SetProjections(projections);
  sart->SetGeometry(geometry);
  sart->SetNumberOfIterations(4);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetLambda(0.8);
  sart->EnforcePositivityOn();
  const std::vector<double> errors = UpdateWatchingErrors(sart.GetPointer(), truth, Central());
  const Quality q = Compare(sart->GetOutput(), truth, Central());
  PrintQuality("OS-SART (5 per subset, 4 iterations)", q, errors);
  EXPECT_LE(q.meanAbsoluteError, 0.032);
  EXPECT_GE(q.psnr, 28.);
  ASSERT_EQ(errors.size(), 4u);
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_LE(errors[i], errors[i - 1]) << "iteration " << i + 1;
}

TEST(SART, SirtWithAllProjectionsInOneSubsetConverges)
{
  auto geometry = CircularGeometry(30);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 64, 3.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 32, 4., 2);
  double previous = std::numeric_limits<double>::infinity();
  for (unsigned int iterations : { 1u, 3u, 6u })
  {
    auto sirt = SARTConeBeamReconstructionFilter<ImageType>::New();
    sirt->SetInput(0, Zeros(truth));
    sirt->SetProjections(projections);
    sirt->SetGeometry(geometry);
    sirt->SetNumberOfIterations(iterations);
    sirt->SetNumberOfProjectionsPerSubset(0); // all: SIRT
    sirt->SetLambda(1.);
    sirt->Update();
    const double mae = Compare(sirt->GetOutput(), truth, truth->GetLargestPossibleRegion()).meanAbsoluteError;
    std::cout << "SIRT " << iterations << " iterations: MAE " << mae << std::endl;
    EXPECT_LT(mae, previous);
    previous = mae;
  }
}

TEST(SARTBadInput, IterationsLambdaAndSubsets)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 16, 8.);
  auto volume = VoxelizedPhantom(SheppLogan(), 8, 16., 1);
  auto expectError = [&](auto configure, const std::string & word) {
    auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
    sart->SetInput(0, volume);
    sart->SetProjections(projections);
    sart->SetGeometry(geometry);
    configure(sart.GetPointer());
    try
    {
      sart->Update();
      FAIL() << "no exception for " << word;
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(word), std::string::npos) << e.GetDescription();
    }
  };
  expectError([](auto * f) { f->SetNumberOfIterations(0); }, "number of iterations is 0");
  expectError([](auto * f) { f->SetLambda(0.); }, "lambda is 0");
  expectError([](auto * f) { f->SetLambda(-0.5); }, "lambda is -0.5");
  expectError([](auto * f) { f->SetNumberOfProjectionsPerSubset(11); }, "projections per subset is 11");
  expectError([](auto * f) { f->SetRayCastStep(-1.); }, "ray-cast step (mm) is -1");
  auto other = CircularGeometry(12);
  expectError([&](auto * f) { f->SetGeometry(other); }, "number of projection images is 10");
}
