// Joseph's and the ray caster's projector pairs on cylindrical detectors, on the GPU against their CPU
// twins, and their adjointness: a cylinder centred on the source and one that is not. Skips without a
// device.
#include "cbctCudaDevice.h"
#include "cbctCudaJosephOperator.h"
#include "cbctCudaRayCastOperator.h"
#include "cbctFDKGeometryCases.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctRayCastOperator.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>

using namespace cbct;
using namespace cbct::test;

namespace
{
class CudaCylindricalProjectors : public ::testing::Test
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

std::vector<ThreeDCircularProjectionGeometry::Pointer>
Cylinders()
{
  auto centred = FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 6.; }, 90);
  centred->SetRadiusCylindricalDetector(1500.);
  auto other = FullScan([](RtkParameters & p, double a) {
    p.sourceOffsetX = 15.;
    p.projectionOffsetY = 4.;
    p.outOfPlane = 2.;
    p.sid = 1000. + 5. * Sin(a);
  }, 90);
  other->SetRadiusCylindricalDetector(1200.);
  return { centred, other };
}

/** {adjoint ratio of the GPU pair, forward difference from the CPU, back difference} (relative L2). */
std::array<double, 3>
CheckPair(CudaProjectorOperator & A, const ProjectorOperator & cpu, const ImageType * x, const ImageType * y, unsigned int count)
{
  const std::size_t voxels = A.Voxels(), pixels = A.PixelsPerProjection() * count;
  CudaDeviceBuffer<float> dx(voxels), dy(pixels), ax(pixels), aty(voxels);
  EXPECT_EQ(cudaMemcpy(dx.Data(), x->GetBufferPointer(), voxels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dy.Data(), y->GetBufferPointer(), pixels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<unsigned int> all(count);
  for (unsigned int k = 0; k < count; ++k)
    all[k] = k;
  auto * subset = A.Subset(all);
  A.Forward(dx.Data(), ax.Data(), subset, static_cast<int>(count));
  A.Back(dy.Data(), aty.Data(), subset, static_cast<int>(count), false);
  std::vector<float> hax(pixels), haty(voxels);
  EXPECT_EQ(cudaMemcpy(hax.data(), ax.Data(), pixels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(haty.data(), aty.Data(), voxels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  double axy = 0., xaty = 0.;
  for (std::size_t i = 0; i < pixels; ++i)
    axy += static_cast<double>(hax[i]) * y->GetBufferPointer()[i];
  for (std::size_t i = 0; i < voxels; ++i)
    xaty += static_cast<double>(x->GetBufferPointer()[i]) * haty[i];
  std::vector<float> cpuAx(pixels), cpuAty(voxels);
  cpu.Forward(x->GetBufferPointer(), cpuAx.data(), all, false);
  cpu.Back(y->GetBufferPointer(), cpuAty.data(), all, false);
  auto relative = [](const std::vector<float> & a, const std::vector<float> & b) {
    double d = 0., n = 0.;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
      d += (a[i] - b[i]) * double(a[i] - b[i]);
      n += b[i] * double(b[i]);
    }
    return n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN();
  };
  return { axy / xaty, relative(hax, cpuAx), relative(haty, cpuAty) };
}
} // namespace

TEST_F(CudaCylindricalProjectors, JosephPairIsAdjointAndMatchesCpu)
{
  for (const auto & g : Cylinders())
  {
    auto x = Copy<ImageType>(VoxelizedPhantom(SheppLogan(), 64, 2., 1), false, 1);
    auto y = Copy<ImageType>(ProjectPhantom(g, SheppLogan(), 64, 3.), false, 2);
    const JosephOperator<ImageType> cpu(x, y, g);
    // Reading four voxels: the CPU's samples and weights (the adjoint is scattered on a cylinder).
    CudaJosephOperator A(x, y, g);
    A.SetVolumeTexture(false);
    const auto r = CheckPair(A, cpu, x, y, g->GetNumberOfProjections());
    std::cout << "CUDA Joseph on a cylinder of " << g->GetRadiusCylindricalDetector() << " mm: <Ax, y> / <x, A^T y> = " << r[0]
              << "; vs CPU: forward " << r[1] << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-3);
    EXPECT_LT(r[1], 1e-5);
    EXPECT_LT(r[2], 1e-5);
  }
}

TEST_F(CudaCylindricalProjectors, RayCastPairIsAdjointAndMatchesCpu)
{
  for (const auto & g : Cylinders())
  {
    auto x = Copy<ImageType>(VoxelizedPhantom(SheppLogan(), 64, 2., 1), false, 1);
    auto y = Copy<ImageType>(ProjectPhantom(g, SheppLogan(), 64, 3.), false, 2);
    CudaRayCastOperator A(x, y, g, 1.3);
    const RayCastOperator<ImageType> cpu(x, y, g, 1.3);
    const auto r = CheckPair(A, cpu, x, y, g->GetNumberOfProjections());
    std::cout << "CUDA ray caster on a cylinder of " << g->GetRadiusCylindricalDetector() << " mm: <Ax, y> / <x, A^T y> = "
              << r[0] << "; vs CPU: forward " << r[1] << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-3);
    EXPECT_LT(r[1], 5e-4); // the texture unit's trilinear blend, as on a flat panel (cbctCudaIterativeTest)
    EXPECT_LT(r[2], 1e-5);
  }
}
