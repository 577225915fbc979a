// FDK on a cylindrical detector centred on the source, on the GPU, against the CPU filters: the
// weighting, the backprojection onto the cylinder (runs along y and along z), and the whole FDK on the
// geometries a centred cylinder allows. Needs a CUDA device; skips cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"

#include <gtest/gtest.h>
#include <itkStreamingImageFilter.h>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
std::vector<FDKGeometryCase>
CylinderCases()
{
  std::vector<FDKGeometryCase> cases;
  for (const auto & c : FDKGeometryCases())
  {
    auto g = c.make(4);
    bool fits = true;
    for (unsigned int k = 0; k < g->GetNumberOfProjections(); ++k)
      fits = fits && g->HasParameters(k) && g->GetParameters(k).sourceOffsetX == 0. &&
             g->GetParameters(k).sourceToDetectorDistance == g->GetParameters(0).sourceToDetectorDistance;
    if (fits)
      cases.push_back(c);
  }
  return cases;
}

template <typename TImage, typename TFDK>
typename TImage::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const TImage * projections)
{
  auto zero = ConstantImageSource<TImage>::New();
  typename TImage::PointType origin;
  origin.Fill(-0.5 * (FDKVoxels - 1.));
  zero->SetSize(typename TImage::SizeType{ { FDKVoxels, FDKVoxels, FDKVoxels } });
  zero->SetOrigin(origin);
  auto fdk = TFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  typename TImage::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

class CudaCylindricalFDK : public ::testing::Test
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

class CudaCylindricalFDKGeometry : public ::testing::TestWithParam<FDKGeometryCase>
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
} // namespace

TEST_F(CudaCylindricalFDK, BackProjectionOfSmoothProjectionsMatchesCpuAlongYAndAlongZ)
{
  // Unfiltered projections (smooth): the voxels' coordinates are the same float operations on both
  // sides and the texture unit's fractions are the CPU's, so only the sums' rounding differs.
  for (double outOfPlane : { 0., 3. }) // 3 degrees: hu changes along y, the runs go along z
  {
    auto geometry = CentredCylinder(FullScan([&](RtkParameters & p, double) {
      p.projectionOffsetX = 15.;
      p.outOfPlane = outOfPlane;
    }, 90));
    auto cpuIn = ProjectSheppLogan<ImageType>(geometry);
    auto gpuIn = ProjectSheppLogan<CudaImageType>(geometry);
    auto zeroCpu = ConstantImageSource<ImageType>::New();
    auto zeroGpu = ConstantImageSource<CudaImageType>::New();
    ImageType::PointType origin;
    origin.Fill(-0.5 * (FDKVoxels - 1.));
    zeroCpu->SetSize(ImageType::SizeType{ { FDKVoxels, FDKVoxels, FDKVoxels } });
    zeroGpu->SetSize(ImageType::SizeType{ { FDKVoxels, FDKVoxels, FDKVoxels } });
    zeroCpu->SetOrigin(origin);
    zeroGpu->SetOrigin(origin);
    auto cpu = FDKBackProjectionImageFilter<ImageType>::New();
    cpu->SetInput(0, zeroCpu->GetOutput());
    cpu->SetProjections(cpuIn);
    cpu->SetGeometry(geometry);
    cpu->Update();
    auto gpu = CudaFDKBackProjectionImageFilter<CudaImageType>::New();
    gpu->SetInput(0, zeroGpu->GetOutput());
    gpu->SetProjections(gpuIn);
    gpu->SetGeometry(geometry);
    gpu->Update();
    const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
    std::cout << "cylinder, out-of-plane " << outOfPlane << " deg: backprojection CUDA vs CPU " << difference << std::endl;
    EXPECT_LT(difference, 1e-5);
  }
}

TEST_P(CudaCylindricalFDKGeometry, WeightingAndWholeFDKMatchCpu)
{
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  const FDKGeometryCase & c = GetParam();
  auto geometry = CentredCylinder(c.make(c.weighted ? 360 : 180));
  auto cpuIn = ProjectSheppLogan<ImageType>(geometry);
  auto gpuIn = ProjectSheppLogan<CudaImageType>(geometry);

  auto cpuWeight = FDKWeightProjectionFilter<ImageType>::New();
  auto gpuWeight = CudaFDKWeightProjectionFilter<CudaImageType>::New();
  cpuWeight->SetInput(cpuIn);
  gpuWeight->SetInput(gpuIn);
  cpuWeight->SetGeometry(geometry);
  gpuWeight->SetGeometry(geometry);
  cpuWeight->SetFieldOfViewRadius(0.5 * (FDKVoxels - 1.));
  gpuWeight->SetFieldOfViewRadius(0.5 * (FDKVoxels - 1.));
  cpuWeight->Update();
  gpuWeight->Update();
  ASSERT_EQ(gpuWeight->GetOutput()->GetBufferedRegion(), cpuWeight->GetOutput()->GetBufferedRegion());
  EXPECT_LT(RelativeDifference(gpuWeight->GetOutput(), cpuWeight->GetOutput()), 1e-6) << "weighting";

  auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
  auto gpu = Reconstruct<CudaImageType, FDK>(geometry, gpuIn);
  const double difference = RelativeDifference(gpu, cpu);
  const Quality q = Compare(gpu, FDKTruth(), FDKCentralRegion());
  std::cout << c.name << " on a cylinder: CUDA vs CPU " << difference << "; CUDA vs phantom: MAE " << q.meanAbsoluteError
            << ", PSNR " << q.psnr << " dB" << std::endl;
  EXPECT_LT(difference, HardwareFilterTolerance);
  EXPECT_LE(q.meanAbsoluteError, 0.03);
  EXPECT_GE(q.psnr, 26.);
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaCylindricalFDKGeometry, ::testing::ValuesIn(CylinderCases()),
                         [](const auto & info) { return CaseTestName(info.param.name); });
