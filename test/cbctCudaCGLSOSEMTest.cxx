// CGLS, OSEM and the forward and back projection filters on the GPU against their CPU twins, with
// Joseph's projector pair and with the ray caster. Skips without a device, except the bad-input
// tests, which must throw before the device is touched.
#include "cbctCudaBackProjectionImageFilter.h"
#include "cbctCudaCGLSConeBeamReconstructionFilter.h"
#include "cbctCudaDevice.h"
#include "cbctCudaForwardProjectionImageFilter.h"
#include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#include "cbctCudaSARTConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>
#include <itkCommand.h>

#include <functional>
#include <random>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
/** `count` projections of 64 x 48 pixels of 4 mm (the whole phantom is seen). */
ImageType::Pointer
Projections(const ThreeDCircularProjectionGeometry * geometry)
{
  auto source = PhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { 64, 48, geometry->GetNumberOfProjections() } }, 4., 4., 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(Ellipsoids());
  source->Update();
  return source->GetOutput();
}




struct Problem
{
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(60);
  ImageType::Pointer projections = Projections(geometry);
  ImageType::Pointer truth = VoxelizedPhantom(Ellipsoids(), 48, 2.5, 1);
};

/** CPU and CUDA CGLS after 3 iterations: the volumes and the residual norms agree. */
void
ExpectCglsMatches(ForwardProjectorKind kind)
{
  Problem problem;
  auto cpu = CGLSConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetInput(0, Zeros(problem.truth));
  cpu->SetProjections(problem.projections);
  cpu->SetGeometry(problem.geometry);
  cpu->SetForwardProjector(kind);
  cpu->SetNumberOfIterations(3);
  cpu->Update();
  auto gpu = CudaCGLSConeBeamReconstructionFilter<CudaImageType>::New();
  gpu->SetInput(0, Copy<CudaImageType>(problem.truth, true));
  gpu->SetProjections(Copy<CudaImageType>(problem.projections));
  gpu->SetGeometry(problem.geometry);
  gpu->SetForwardProjector(kind);
  gpu->SetNumberOfIterations(3);
  unsigned int events = 0;
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&events);
  observer->SetCallback([](itk::Object *, const itk::EventObject &, void * data) { ++*static_cast<unsigned int *>(data); });
  gpu->AddObserver(itk::IterationEvent(), observer);
  gpu->Update();

  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA CGLS (" << ToString(kind) << ") vs CPU after 3 iterations: " << difference << "; residuals CPU "
            << cpu->GetInitialResidualNorm();
  for (double r : cpu->GetResidualNorms())
    std::cout << " " << r;
  std::cout << ", CUDA " << gpu->GetInitialResidualNorm();
  for (double r : gpu->GetResidualNorms())
    std::cout << " " << r;
  std::cout << std::endl;
  EXPECT_LE(difference, 1e-3);
  EXPECT_EQ(events, 3u);
  EXPECT_EQ(gpu->GetCurrentIteration(), 3u);
  ASSERT_TRUE(std::isfinite(gpu->GetInitialResidualNorm()));
  EXPECT_NEAR(gpu->GetInitialResidualNorm(), cpu->GetInitialResidualNorm(), 1e-4 * cpu->GetInitialResidualNorm());
  ASSERT_EQ(gpu->GetResidualNorms().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
  {
    ASSERT_TRUE(std::isfinite(gpu->GetResidualNorms()[i]));
    EXPECT_NEAR(gpu->GetResidualNorms()[i], cpu->GetResidualNorms()[i], 1e-3 * cpu->GetResidualNorms()[i])
      << "iteration " << i + 1;
  }
}

/** CPU and CUDA OSEM (4 subsets of 15) after 3 iterations agree. */
void
ExpectOsemMatches(ForwardProjectorKind kind)
{
  Problem problem;
  auto cpu = OSEMConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetInput(0, Zeros(problem.truth)); // 0 everywhere: starts from 1
  cpu->SetProjections(problem.projections);
  cpu->SetGeometry(problem.geometry);
  cpu->SetForwardProjector(kind);
  cpu->SetNumberOfIterations(3);
  cpu->SetNumberOfProjectionsPerSubset(15);
  cpu->Update();
  auto gpu = CudaOSEMConeBeamReconstructionFilter<CudaImageType>::New();
  gpu->SetInput(0, Copy<CudaImageType>(problem.truth, true));
  gpu->SetProjections(Copy<CudaImageType>(problem.projections));
  gpu->SetGeometry(problem.geometry);
  gpu->SetForwardProjector(kind);
  gpu->SetNumberOfIterations(3);
  gpu->SetNumberOfProjectionsPerSubset(15);
  gpu->Update();

  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  const Quality q = Compare(gpu->GetOutput(), problem.truth, problem.truth->GetLargestPossibleRegion());
  std::cout << "CUDA OSEM (" << ToString(kind) << ") vs CPU after 3 iterations: " << difference << "; vs phantom MAE "
            << q.meanAbsoluteError << std::endl;
  EXPECT_LE(difference, 1e-3);
  EXPECT_EQ(gpu->GetCurrentIteration(), 3u);
}

/** CPU and CUDA forward and back projection filters (adding to random images) agree to `tolerance`. */
void
ExpectProjectionFiltersMatch(ForwardProjectorKind kind, double tolerance)
{
  Problem problem;
  auto volume = Copy<ImageType>(problem.truth);
  auto base = Copy<ImageType>(problem.projections, false, 3);
  auto cpuForward = ForwardProjectionImageFilter<ImageType>::New();
  cpuForward->SetInput(0, base);
  cpuForward->SetVolume(volume);
  cpuForward->SetGeometry(problem.geometry);
  cpuForward->SetForwardProjector(kind);
  cpuForward->Update();
  auto gpuForward = CudaForwardProjectionImageFilter<CudaImageType>::New();
  gpuForward->SetInput(0, Copy<CudaImageType>(base));
  gpuForward->SetVolume(Copy<CudaImageType>(volume));
  gpuForward->SetGeometry(problem.geometry);
  gpuForward->SetForwardProjector(kind);
  gpuForward->Update();
  ASSERT_TRUE(AllFinite(gpuForward->GetOutput()));
  const double forward = RelativeDifference(gpuForward->GetOutput(), cpuForward->GetOutput());

  auto start = Copy<ImageType>(problem.truth, false, 4);
  auto cpuBack = BackProjectionImageFilter<ImageType>::New();
  cpuBack->SetInput(0, start);
  cpuBack->SetProjections(problem.projections);
  cpuBack->SetGeometry(problem.geometry);
  cpuBack->SetForwardProjector(kind);
  cpuBack->Update();
  auto gpuBack = CudaBackProjectionImageFilter<CudaImageType>::New();
  gpuBack->SetInput(0, Copy<CudaImageType>(start));
  gpuBack->SetProjections(Copy<CudaImageType>(problem.projections));
  gpuBack->SetGeometry(problem.geometry);
  gpuBack->SetForwardProjector(kind);
  gpuBack->Update();
  ASSERT_TRUE(AllFinite(gpuBack->GetOutput()));
  const double back = RelativeDifference(gpuBack->GetOutput(), cpuBack->GetOutput());
  std::cout << "CUDA vs CPU projection filters (" << ToString(kind) << "): forward " << forward << ", back " << back
            << std::endl;
  EXPECT_LE(forward, tolerance);
  EXPECT_LE(back, tolerance);
}
} // namespace

class CudaCGLSOSEM : public ::testing::Test
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

TEST_F(CudaCGLSOSEM, CglsMatchesCpuAfterThreeIterations)
{
  ExpectCglsMatches(ForwardProjectorKind::Joseph);
}

TEST_F(CudaCGLSOSEM, OsemMatchesCpuAfterThreeIterations)
{
  ExpectOsemMatches(ForwardProjectorKind::Joseph);
}

TEST_F(CudaCGLSOSEM, CglsWithTheRayCasterMatchesCpu)
{
  ExpectCglsMatches(ForwardProjectorKind::RayCast);
}

TEST_F(CudaCGLSOSEM, OsemWithTheRayCasterMatchesCpu)
{
  ExpectOsemMatches(ForwardProjectorKind::RayCast);
}

TEST_F(CudaCGLSOSEM, ProjectionFiltersMatchCpuWithJoseph)
{
  // The CUDA Joseph forward projector lets the texture unit interpolate (same weights as the CPU's,
  // not a float-exact blend): 1.7e-4 on random volumes in cbctCudaIterativeTest.
  ExpectProjectionFiltersMatch(ForwardProjectorKind::Joseph, 5e-4);
}

TEST_F(CudaCGLSOSEM, ProjectionFiltersMatchCpuWithTheRayCaster)
{
  ExpectProjectionFiltersMatch(ForwardProjectorKind::RayCast, 1e-3);
}

namespace
{
/** A CUDA iterative filter on the current device and on several (a device listed twice runs the
 * multi-device path, two threads and two slabs, on one GPU): the relative L2 difference. */
template <typename TFilter>
double
DevicesAgainstOne(const std::vector<int> & devices, const std::function<void(TFilter *)> & configure, float initialValue)
{
  Problem problem;
  auto initial = Zeros(problem.truth);
  initial->FillBuffer(initialValue);
  std::vector<typename TFilter::Pointer> runs;
  for (const std::vector<int> & list : { std::vector<int>{}, devices })
  {
    auto filter = TFilter::New();
    configure(filter);
    filter->SetInput(0, initial);
    filter->SetProjections(problem.projections);
    filter->SetGeometry(problem.geometry);
    filter->SetDevices(list);
    filter->Update();
    runs.push_back(filter);
  }
  EXPECT_TRUE(AllFinite(runs[1]->GetOutput()));
  EXPECT_GT(RelativeDifference(runs[0]->GetOutput(), initial), 0.1) << "the method did nothing";
  return RelativeDifference(runs[1]->GetOutput(), runs[0]->GetOutput());
}

std::vector<int>
SeveralDevices()
{
  int count = 0;
  cudaGetDeviceCount(&count);
  return count >= 2 ? std::vector<int>{ 0, 1 } : std::vector<int>{ 0, 0 };
}
} // namespace

TEST_F(CudaCGLSOSEM, SartCglsAndOsemOnSeveralDevicesEqualOneDevice)
{
  const auto devices = SeveralDevices();
  using Sart = CudaSARTConeBeamReconstructionFilter<ImageType>;
  using Cgls = CudaCGLSConeBeamReconstructionFilter<ImageType>;
  using Osem = CudaOSEMConeBeamReconstructionFilter<ImageType>;
  const double sart = DevicesAgainstOne<Sart>(devices,
                                              [](Sart * f) {
                                                f->SetNumberOfIterations(2);
                                                f->SetNumberOfProjectionsPerSubset(10);
                                                f->SetLambda(0.8);
                                              },
                                              0.f);
  const double cgls = DevicesAgainstOne<Cgls>(devices, [](Cgls * f) { f->SetNumberOfIterations(3); }, 0.f);
  const double osem = DevicesAgainstOne<Osem>(devices,
                                              [](Osem * f) {
                                                f->SetNumberOfIterations(2);
                                                f->SetNumberOfProjectionsPerSubset(15);
                                                f->SetBackProjector(BackProjectorKind::VoxelBased);
                                              },
                                              1.f);
  std::cout << "devices " << devices[0] << "," << devices[1] << " vs one: SART " << sart << ", CGLS " << cgls << ", OSEM "
            << osem << std::endl;
  EXPECT_LT(sart, 1e-5);
  EXPECT_LT(cgls, 1e-5);
  EXPECT_LT(osem, 1e-5);
}

TEST_F(CudaCGLSOSEM, CglsAbortStopsAfterTheCurrentIterationWithTheVolumeSoFar)
{
  Problem problem;
  auto gpu = CudaCGLSConeBeamReconstructionFilter<ImageType>::New();
  gpu->SetInput(0, Zeros(problem.truth));
  gpu->SetProjections(problem.projections);
  gpu->SetGeometry(problem.geometry);
  gpu->SetNumberOfIterations(5);
  struct Context
  {
    unsigned int events = 0;
    double norm = 0.;
  } context;
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&context);
  observer->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    auto * c = static_cast<Context *>(data);
    auto * filter = static_cast<CudaCGLSConeBeamReconstructionFilter<ImageType> *>(caller);
    if (++c->events == 2)
    {
      // The output holds the current volume for observers.
      const float * x = filter->GetOutput()->GetBufferPointer();
      for (std::size_t v = 0; v < filter->GetOutput()->GetBufferedRegion().GetNumberOfPixels(); ++v)
        c->norm += static_cast<double>(x[v]) * x[v];
      filter->AbortGenerateDataOn();
    }
  });
  gpu->AddObserver(itk::IterationEvent(), observer);
  try
  {
    gpu->Update();
  }
  catch (const itk::ProcessAborted &)
  {
  }
  EXPECT_EQ(context.events, 2u);
  EXPECT_EQ(gpu->GetCurrentIteration(), 2u);
  EXPECT_EQ(gpu->GetResidualNorms().size(), 2u);
  EXPECT_GT(context.norm, 0.);
  EXPECT_TRUE(std::isfinite(context.norm));
}

// These throw before the device is touched, so they run without one too.
TEST(CudaCGLSOSEMBadInput, ZeroIterations)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  auto cgls = CudaCGLSConeBeamReconstructionFilter<ImageType>::New();
  cgls->SetInput(0, volume);
  cgls->SetProjections(projections);
  cgls->SetGeometry(geometry);
  cgls->SetNumberOfIterations(0);
  ExpectError(cgls.GetPointer(), "number of iterations is 0");
  auto osem = CudaOSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(volume));
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  osem->SetNumberOfIterations(0);
  ExpectError(osem.GetPointer(), "number of iterations is 0");
  cgls->SetNumberOfIterations(2);
  cgls->SetGeometry(CircularGeometry(12));
  ExpectError(cgls.GetPointer(), "number of projection images is 10");
}

TEST(CudaCGLSOSEMBadInput, OsemNegativeProjectionsAndInitialVolume)
{
  auto geometry = CircularGeometry(10);
  auto projections = Copy<ImageType>(ProjectPhantom(geometry, Ellipsoids(), 16, 8.));
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  projections->SetPixel({ { 3, 5, 7 } }, -0.25f);
  auto osem = CudaOSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(volume));
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  ExpectError(osem.GetPointer(), "projection value at pixel (3, 5) of projection 7 is -0.25");

  projections->SetPixel({ { 3, 5, 7 } }, 0.f);
  projections->Modified();
  auto initial = Zeros(volume);
  initial->FillBuffer(1.f);
  initial->SetPixel({ { 2, 3, 4 } }, -2.f);
  osem->SetInput(0, initial);
  ExpectError(osem.GetPointer(), "initial volume at voxel (2, 3, 4) is -2");
}

TEST(CudaCGLSOSEMBadInput, NegativeRayCastStep)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  auto forward = CudaForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, projections);
  forward->SetVolume(volume);
  forward->SetGeometry(geometry);
  forward->SetForwardProjector(ForwardProjectorKind::RayCast);
  forward->SetRayCastStep(-1.);
  ExpectError(forward.GetPointer(), "ray-cast step (mm) is -1");
}
