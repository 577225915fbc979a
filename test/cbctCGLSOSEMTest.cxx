// CGLS and OSEM/MLEM on the CPU: convergence and reconstruction quality on the ellipsoid phantom,
// bad input.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"

#include <gtest/gtest.h>
#include <itkCommand.h>

#include <limits>

using namespace cbct;
using namespace cbct::test;

TEST(CGLS, ResidualDecreasesMonotonicallyAndTheReconstructionBeatsZero)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto cgls = CGLSConeBeamReconstructionFilter<ImageType>::New();
  cgls->SetInput(0, Zeros(truth));
  cgls->SetProjections(projections);
  cgls->SetGeometry(geometry);
  cgls->SetNumberOfIterations(8);
  unsigned int events = 0;
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&events);
  observer->SetCallback([](itk::Object *, const itk::EventObject &, void * data) { ++*static_cast<unsigned int *>(data); });
  cgls->AddObserver(itk::IterationEvent(), observer);
  cgls->Update();

  const auto & residuals = cgls->GetResidualNorms();
  std::cout << "CGLS residual |p - Ax|: initial " << cgls->GetInitialResidualNorm() << ", per iteration:";
  for (double r : residuals)
    std::cout << " " << r;
  std::cout << std::endl;
  EXPECT_EQ(events, 8u);
  EXPECT_EQ(cgls->GetCurrentIteration(), 8u);
  ASSERT_EQ(residuals.size(), 8u);
  EXPECT_LT(residuals[0], cgls->GetInitialResidualNorm());
  for (std::size_t i = 1; i < residuals.size(); ++i)
    EXPECT_LT(residuals[i], residuals[i - 1]) << "iteration " << i + 1;
  EXPECT_LT(residuals.back(), 0.2 * cgls->GetInitialResidualNorm());

  const Quality q = Compare(cgls->GetOutput(), truth, Central());
  const Quality zero = Compare(Zeros(truth), truth, Central());
  std::cout << "CGLS (8 iterations): MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB; zero volume: MAE "
            << zero.meanAbsoluteError << ", PSNR " << zero.psnr << " dB" << std::endl;
  EXPECT_LT(q.meanAbsoluteError, 0.5 * zero.meanAbsoluteError);
  EXPECT_GT(q.psnr, zero.psnr + 6.);
}

TEST(CGLSBadInput, IterationsAndProjectionCount)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  auto cgls = CGLSConeBeamReconstructionFilter<ImageType>::New();
  cgls->SetInput(0, volume);
  cgls->SetProjections(projections);
  cgls->SetGeometry(geometry);
  cgls->SetNumberOfIterations(0);
  ExpectError(cgls.GetPointer(), "number of iterations is 0");
  cgls->SetNumberOfIterations(2);
  cgls->SetGeometry(CircularGeometry(12));
  ExpectError(cgls.GetPointer(), "number of projection images is 10");
}

TEST(OSEM, OrderedSubsetsReconstructThePhantomAndImproveEachIteration)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  float lowest = std::numeric_limits<float>::infinity();
  for (itk::ImageRegionConstIterator<ImageType> it(truth, truth->GetBufferedRegion()); !it.IsAtEnd(); ++it)
    lowest = std::min(lowest, it.Get());
  ASSERT_GE(lowest, 0.f) << "OSEM needs a non-negative phantom";

  auto osem = OSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(truth)); // 0 everywhere: starts from 1
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  // 4 subsets of 15. OSEM semi-converges here: the error is least after about 5 iterations (MAE 0.0155)
  // and then grows slowly (0.0176 after 8) as it fits the mismatch between the exact line integrals and
  // Joseph's model at the thin shell's edges; 5 per subset reaches its best after 2 iterations.
  osem->SetNumberOfIterations(4);
  osem->SetNumberOfProjectionsPerSubset(15);
  const std::vector<double> errors = UpdateWatchingErrors(osem.GetPointer(), truth, Central());
  const Quality q = Compare(osem->GetOutput(), truth, Central());
  PrintQuality("OSEM (15 per subset, 4 iterations)", q, errors);
  EXPECT_LE(q.meanAbsoluteError, 0.032);
  EXPECT_GE(q.psnr, 28.);
  ASSERT_EQ(errors.size(), 4u);
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_LE(errors[i], errors[i - 1]) << "iteration " << i + 1;
}

TEST(OSEM, MlemWithAllProjectionsInOneSubsetImproves)
{
  auto geometry = CircularGeometry(30);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 64, 3.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 32, 4., 2);
  double previous = std::numeric_limits<double>::infinity();
  for (unsigned int iterations : { 1u, 4u, 12u })
  {
    auto mlem = OSEMConeBeamReconstructionFilter<ImageType>::New();
    mlem->SetInput(0, Zeros(truth));
    mlem->SetProjections(projections);
    mlem->SetGeometry(geometry);
    mlem->SetNumberOfIterations(iterations);
    mlem->SetNumberOfProjectionsPerSubset(0); // all: MLEM
    mlem->Update();
    const double mae = Compare(mlem->GetOutput(), truth, truth->GetLargestPossibleRegion()).meanAbsoluteError;
    std::cout << "MLEM " << iterations << " iterations: MAE " << mae << std::endl;
    EXPECT_LT(mae, previous);
    previous = mae;
  }
}

TEST(OSEMBadInput, IterationsSubsetsNegativeProjectionsAndInitialVolume)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  auto make = [&]() {
    auto osem = OSEMConeBeamReconstructionFilter<ImageType>::New();
    osem->SetInput(0, Zeros(volume));
    osem->SetProjections(projections);
    osem->SetGeometry(geometry);
    return osem;
  };
  {
    auto osem = make();
    osem->SetNumberOfIterations(0);
    ExpectError(osem.GetPointer(), "number of iterations is 0");
  }
  {
    auto osem = make();
    osem->SetNumberOfProjectionsPerSubset(11);
    ExpectError(osem.GetPointer(), "projections per subset is 11");
  }
  {
    auto copy = ImageType::New();
    copy->CopyInformation(projections);
    copy->SetRegions(projections->GetLargestPossibleRegion());
    copy->Allocate();
    itk::ImageAlgorithm::Copy(projections.GetPointer(), copy.GetPointer(), copy->GetBufferedRegion(), copy->GetBufferedRegion());
    copy->SetPixel({ { 3, 5, 7 } }, -0.25f);
    copy->SetPixel({ { 4, 5, 8 } }, -1.f);
    auto osem = make();
    osem->SetProjections(copy);
    ExpectError(osem.GetPointer(), "projection value at pixel (3, 5) of projection 7 is -0.25");
  }
  {
    auto initial = Zeros(volume);
    initial->FillBuffer(1.f);
    initial->SetPixel({ { 2, 3, 4 } }, -2.f);
    auto osem = make();
    osem->SetInput(0, initial);
    ExpectError(osem.GetPointer(), "initial volume at voxel (2, 3, 4) is -2");
  }
}
