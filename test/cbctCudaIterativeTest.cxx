// Joseph's projector pair and SART on the GPU against their CPU twins. Skips without a device.
#include "cbctCudaDevice.h"
#include "cbctCudaSARTConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
GeometricPhantom::Pointer
Ellipsoids()
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 1.;
  e.semiAxes = { { 45., 40., 55. } };
  phantom->AddEllipsoid(e);
  e.density = 0.5;
  e.center = { { -15., 5., 10. } };
  e.semiAxes = { { 12., 15., 8. } };
  e.angleY = 0.5;
  phantom->AddEllipsoid(e);
  return phantom;
}

template <typename TImage>
typename TImage::Pointer
Copy(const ImageType * image, bool zero = false, unsigned int seed = 0)
{
  auto out = TImage::New();
  out->CopyInformation(image);
  out->SetRegions(image->GetLargestPossibleRegion());
  out->Allocate();
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  const float * in = image->GetBufferPointer();
  float * o = out->GetBufferPointer();
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
    o[i] = zero ? 0.f : (seed ? uniform(generator) : in[i]);
  return out;
}
} // namespace

class CudaIterative : public ::testing::Test
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

TEST_F(CudaIterative, JosephPairIsAdjointAndMatchesCpu)
{
  auto geometry = CircularGeometry(180, 360., 1000., 1500., 3., -2.);
  auto volumeGrid = VoxelizedPhantom(Ellipsoids(), 64, 2., 1);
  auto projectionGrid = ProjectPhantom(geometry, Ellipsoids(), 64, 3.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);
  CudaJosephOperator A(x, y, geometry);
  const std::size_t voxels = A.Voxels(), pixels = A.PixelsPerProjection() * 180;
  CudaDeviceBuffer<float> dx(voxels), dy(pixels), ax(pixels), aty(voxels);
  ASSERT_EQ(cudaMemcpy(dx.Data(), x->GetBufferPointer(), voxels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy.Data(), y->GetBufferPointer(), pixels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<unsigned int> all(180);
  for (unsigned int k = 0; k < 180; ++k)
    all[k] = k;
  auto * subset = A.Subset(all);
  A.Forward(dx.Data(), ax.Data(), subset, 180);
  A.Back(dy.Data(), aty.Data(), subset, 180, false);
  std::vector<float> hax(pixels), haty(voxels);
  ASSERT_EQ(cudaMemcpy(hax.data(), ax.Data(), pixels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(haty.data(), aty.Data(), voxels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  double axy = 0., xaty = 0.;
  for (std::size_t i = 0; i < pixels; ++i)
    axy += static_cast<double>(hax[i]) * y->GetBufferPointer()[i];
  for (std::size_t i = 0; i < voxels; ++i)
    xaty += static_cast<double>(x->GetBufferPointer()[i]) * haty[i];
  std::cout << "CUDA <Ax, y> / <x, A^T y> = " << axy / xaty << std::endl;
  EXPECT_NEAR(axy / xaty, 1., 1e-3);

  // Against the CPU operator.
  std::vector<float> cpuAx(pixels), cpuAty(voxels);
  JosephOperator<ImageType> cpu(x, y, geometry);
  cpu.Forward(x->GetBufferPointer(), cpuAx.data(), all, false);
  cpu.Back(y->GetBufferPointer(), cpuAty.data(), all, false);
  double dA = 0., nA = 0., dB = 0., nB = 0.;
  for (std::size_t i = 0; i < pixels; ++i)
  {
    dA += (hax[i] - cpuAx[i]) * double(hax[i] - cpuAx[i]);
    nA += cpuAx[i] * double(cpuAx[i]);
  }
  for (std::size_t i = 0; i < voxels; ++i)
  {
    dB += (haty[i] - cpuAty[i]) * double(haty[i] - cpuAty[i]);
    nB += cpuAty[i] * double(cpuAty[i]);
  }
  std::cout << "CUDA vs CPU: forward " << std::sqrt(dA / nA) << ", back " << std::sqrt(dB / nB) << std::endl;
  EXPECT_LT(std::sqrt(dA / nA), 1e-5);
  EXPECT_LT(std::sqrt(dB / nB), 1e-5);
}

TEST_F(CudaIterative, SartMatchesCpuAfterThreeIterations)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto cpu = SARTConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetInput(0, Copy<ImageType>(truth, true));
  cpu->SetProjections(projections);
  cpu->SetGeometry(geometry);
  cpu->SetNumberOfIterations(3);
  cpu->SetNumberOfProjectionsPerSubset(5);
  cpu->SetLambda(0.8);
  cpu->EnforcePositivityOn();
  cpu->Update();
  auto gpu = CudaSARTConeBeamReconstructionFilter<CudaImageType>::New();
  gpu->SetInput(0, Copy<CudaImageType>(truth, true));
  gpu->SetProjections(Copy<CudaImageType>(projections));
  gpu->SetGeometry(geometry);
  gpu->SetNumberOfIterations(3);
  gpu->SetNumberOfProjectionsPerSubset(5);
  gpu->SetLambda(0.8);
  gpu->EnforcePositivityOn();
  gpu->Update();
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  const Quality q = Compare(gpu->GetOutput(), truth, truth->GetLargestPossibleRegion());
  std::cout << "CUDA SART vs CPU after 3 iterations: " << difference << "; vs phantom MAE " << q.meanAbsoluteError << std::endl;
  EXPECT_LT(difference, 1e-3);
  EXPECT_EQ(gpu->GetCurrentIteration(), 3u);
}
