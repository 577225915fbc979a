// The emission projector pair and OSEM with it on the GPU against their CPU twins: adjointness, CUDA
// equal to the CPU within 1e-5 (relative L2) in parallel and cone beam, with the detector planes in
// shared memory and in global memory, in one batch of views and in several. Skips without a device.
#include "cbctCudaDevice.h"
#include "cbctCudaEmissionBackProjectionImageFilter.h"
#include "cbctCudaEmissionForwardProjectionImageFilter.h"
#include "cbctCudaEmissionOperator.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#include "cbctEmissionBackProjectionImageFilter.h"
#include "cbctEmissionForwardProjectionImageFilter.h"
#include "cbctEmissionOperator.h"
#include "cbctEmissionTestHelpers.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

class CudaEmission : public ::testing::Test
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
double
Relative(const std::vector<float> & a, const std::vector<float> & b)
{
  double d = 0., n = 0.;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    d += (a[i] - b[i]) * double(a[i] - b[i]);
    n += b[i] * double(b[i]);
  }
  return n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN(); // NaN fails every check
}

/** {GPU <Ax, y> / <x, A^T y>, GPU vs CPU forward, GPU vs CPU back (relative L2)} of the emission pair
 * on RandomEmissionProblem() data; `budget` > 0 caps the GPU's batch memory (bytes) and keeps no
 * transmissions between calls. */
std::array<double, 3>
CheckEmissionPair(const ThreeDCircularProjectionGeometry * geometry, unsigned int columns, unsigned int rows, double budget)
{
  const EmissionProblem e = RandomEmissionProblem(geometry, columns, rows);
  const EmissionOperator<ImageType> cpu(e.x, e.y, geometry, e.mu, e.blur);
  CudaEmissionOperator A(e.x, e.y, geometry, e.mu, e.blur);
  if (budget > 0.)
  {
    A.SetMemoryBudget(budget);
    A.SetTransmissionCacheBytes(0.);
  }
  const unsigned int count = geometry->GetNumberOfProjections();
  const std::size_t voxels = A.Voxels(), pixels = A.PixelsPerProjection() * count;
  CudaDeviceBuffer<float> dx(voxels), dy(pixels), ax(pixels), aty(voxels);
  CudaUpload(dx.Data(), e.x->GetBufferPointer(), voxels, "x");
  CudaUpload(dy.Data(), e.y->GetBufferPointer(), pixels, "y");
  std::vector<unsigned int> all(count);
  for (unsigned int k = 0; k < count; ++k)
    all[k] = k;
  auto * subset = A.Subset(all);
  A.Forward(dx.Data(), ax.Data(), subset, static_cast<int>(count));
  A.Back(dy.Data(), aty.Data(), subset, static_cast<int>(count), false);
  std::vector<float> hax(pixels), haty(voxels);
  CudaDownload(hax.data(), ax.Data(), pixels, "Ax");
  CudaDownload(haty.data(), aty.Data(), voxels, "A^T y");
  double axy = 0., xaty = 0.;
  for (std::size_t i = 0; i < pixels; ++i)
    axy += static_cast<double>(hax[i]) * e.y->GetBufferPointer()[i];
  for (std::size_t i = 0; i < voxels; ++i)
    xaty += static_cast<double>(e.x->GetBufferPointer()[i]) * haty[i];
  std::vector<float> cpuAx(pixels), cpuAty(voxels);
  cpu.Forward(e.x->GetBufferPointer(), cpuAx.data(), all, false);
  cpu.Back(e.y->GetBufferPointer(), cpuAty.data(), all, false);
  return { axy / xaty, Relative(hax, cpuAx), Relative(haty, cpuAty) };
}
} // namespace

TEST_F(CudaEmission, PairIsAdjointAndEqualsTheCpuInParallelAndConeBeam)
{
  for (bool cone : { false, true })
  {
    auto geometry = cone ? IrregularConeGeometry() : IrregularSpectGeometry();
    const auto r = CheckEmissionPair(geometry, 36, 30, 0.);
    std::cout << (cone ? "cone beam" : "parallel") << ": <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1]
              << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-5);
    EXPECT_LT(r[1], 1e-5);
    EXPECT_LT(r[2], 1e-5);
  }
}

TEST_F(CudaEmission, PlanesInGlobalMemoryAndSeveralBatchesGiveTheSame)
{
  // 190 x 160 pixels: two planes (243 KB) exceed a block's shared memory on an H100 (227 KB), so the
  // composites use global scratch; a 40 MB budget cuts the 20 views into several batches, each
  // computing its own transmissions.
  auto geometry = IrregularSpectGeometry();
  const auto r = CheckEmissionPair(geometry, 190, 160, 40e6);
  std::cout << "planes in global memory, batches: <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1]
            << ", back " << r[2] << std::endl;
  EXPECT_NEAR(r[0], 1., 1e-5);
  EXPECT_LT(r[1], 1e-5);
  EXPECT_LT(r[2], 1e-5);
}

TEST_F(CudaEmission, FiltersAndOsemEqualTheCpu)
{
  // A warm cylinder with a hot sphere, attenuation and blur, 60 parallel views: the CUDA filters and
  // OSEM (4 subsets, 2 iterations) against the CPU's.
  auto geometry = SpectGeometry(60, 180.);
  auto grid = Volume(32, 4.);
  auto mu = Cylinder(grid, 50., 0.015f);
  auto activity = Cylinder(grid, 50., 1.f);
  CollimatorBlur blur;
  blur.sigma0 = 1.5;
  blur.slope = 0.025;
  auto detector = Detector(geometry, 40, 4.);

  auto cpuForward = EmissionForwardProjectionImageFilter<ImageType>::New();
  cpuForward->SetInput(0, detector);
  cpuForward->SetActivity(activity);
  cpuForward->SetAttenuationMap(mu);
  cpuForward->SetCollimatorBlur(blur);
  cpuForward->SetGeometry(geometry);
  cpuForward->Update();
  auto gpuForward = CudaEmissionForwardProjectionImageFilter<ImageType>::New();
  gpuForward->SetInput(0, detector);
  gpuForward->SetActivity(activity);
  gpuForward->SetAttenuationMap(mu);
  gpuForward->SetCollimatorBlur(blur);
  gpuForward->SetGeometry(geometry);
  gpuForward->Update();
  const double forward = RelativeDifference(gpuForward->GetOutput(), cpuForward->GetOutput());

  auto cpuBack = EmissionBackProjectionImageFilter<ImageType>::New();
  cpuBack->SetInput(0, grid);
  cpuBack->SetProjections(cpuForward->GetOutput());
  cpuBack->SetAttenuationMap(mu);
  cpuBack->SetCollimatorBlur(blur);
  cpuBack->SetGeometry(geometry);
  cpuBack->Update();
  auto gpuBack = CudaEmissionBackProjectionImageFilter<ImageType>::New();
  gpuBack->SetInput(0, grid);
  gpuBack->SetProjections(cpuForward->GetOutput());
  gpuBack->SetAttenuationMap(mu);
  gpuBack->SetCollimatorBlur(blur);
  gpuBack->SetGeometry(geometry);
  gpuBack->Update();
  const double back = RelativeDifference(gpuBack->GetOutput(), cpuBack->GetOutput());

  auto osem = [&](auto filter) -> ImageType::Pointer {
    filter->SetInput(0, Zeros(grid));
    filter->SetProjections(cpuForward->GetOutput());
    filter->SetGeometry(geometry);
    filter->SetForwardProjector(ForwardProjectorKind::Emission);
    filter->SetAttenuationMap(mu);
    filter->SetCollimatorBlur(blur);
    filter->SetNumberOfIterations(2);
    filter->SetNumberOfProjectionsPerSubset(15);
    filter->Update();
    return filter->GetOutput();
  };
  const double reconstruction = RelativeDifference(osem(CudaOSEMConeBeamReconstructionFilter<ImageType>::New()),
                                                   osem(OSEMConeBeamReconstructionFilter<ImageType>::New()));
  std::cout << "CUDA vs CPU: forward " << forward << ", back " << back << ", OSEM " << reconstruction << std::endl;
  EXPECT_LT(forward, 1e-5);
  EXPECT_LT(back, 1e-5);
  EXPECT_LT(reconstruction, 1e-5);
}

TEST_F(CudaEmission, NegativeAttenuationIsRefusedBeforeTheDevice)
{
  auto geometry = SpectGeometry(6);
  auto mu = Volume(8, 8., 0.01f);
  mu->SetPixel({ { 1, 2, 3 } }, -1.f);
  auto forward = CudaEmissionForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Detector(geometry, 12, 8.));
  forward->SetActivity(Volume(8, 8., 1.f));
  forward->SetAttenuationMap(mu);
  forward->SetGeometry(geometry);
  ExpectError(forward.GetPointer(), "attenuation map at voxel (1, 2, 3) is -1");
}

TEST_F(CudaEmission, OsemOnSeveralDevicesIsRefused)
{
  // Several GPUs share the volume in slabs, whose emission projections would not add up to the
  // whole volume's: refused before any device work, with the reason.
  auto geometry = SpectGeometry(6);
  auto grid = Volume(8, 8.);
  auto osem = CudaOSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(grid));
  osem->SetProjections(Detector(geometry, 12, 8.));
  osem->SetGeometry(geometry);
  osem->SetForwardProjector(ForwardProjectorKind::Emission);
  osem->SetAttenuationMap(Volume(8, 8., 0.01f));
  osem->SetDevices({ 0, 0 });
  ExpectError(osem.GetPointer(), "forward projector of a reconstruction shared among GPUs or MPI ranks is emission");
}
