// The exact adjoint of Joseph's projector as a gather on the GPU (CudaJosephOperator's default), each
// of its kernels: adjoint to the forward projector, equal to the scatter with atomics and to the CPU's
// gather, on the cases of the CPU suite (cbctJosephGatherTest), a slab of a volume among them. Skips
// without a device.
#include "cbctCudaDevice.h"
#include "cbctCudaJosephOperator.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace cbct;
using namespace cbct::test;

class CudaJosephGather : public ::testing::Test
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
ImageType::Pointer
Grid(const std::array<unsigned int, 3> & size, const std::array<double, 3> & spacing, const std::array<double, 3> & origin,
     const std::array<long, 3> & start = { { 0, 0, 0 } })
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::IndexType{ { start[0], start[1], start[2] } },
                                          ImageType::SizeType{ { size[0], size[1], size[2] } }));
  ImageType::SpacingType s;
  ImageType::PointType o;
  for (unsigned int d = 0; d < 3; ++d)
  {
    s[d] = spacing[d];
    o[d] = origin[d];
  }
  image->SetSpacing(s);
  image->SetOrigin(o);
  image->Allocate(true);
  return image;
}

std::vector<float>
Download(const CudaDeviceBuffer<float> & buffer, std::size_t count)
{
  std::vector<float> host(count);
  EXPECT_EQ(cudaMemcpy(host.data(), buffer.Data(), count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

double
Relative(const std::vector<float> & a, const float * b)
{
  double d = 0., n = 0.;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    d += (a[i] - static_cast<double>(b[i])) * (a[i] - static_cast<double>(b[i]));
    n += static_cast<double>(b[i]) * b[i];
  }
  return n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN(); // NaN fails every check
}

/** On random x and y: the GPU gather's adjointness with the exact (four-voxel) forward projection,
 * its difference from the GPU scatter and from the CPU gather. */
void
Check(const ImageType * volume, const ImageType * projections, const ThreeDCircularProjectionGeometry * geometry, unsigned int seed,
      const std::string & what)
{
  auto x = Copy<ImageType>(volume, false, seed);
  auto y = Copy<ImageType>(projections, false, seed + 1);
  const unsigned int count = geometry->GetNumberOfProjections();
  std::vector<unsigned int> all(count);
  for (unsigned int k = 0; k < count; ++k)
    all[k] = k;
  JosephOperator<ImageType> cpu(x, y, geometry);
  auto cpuBack = Zeros(x);
  cpu.Back(y->GetBufferPointer(), cpuBack->GetBufferPointer(), all, false);

  CudaJosephOperator A(x, y, geometry);
  A.SetVolumeTexture(false);
  const std::size_t voxels = A.Voxels(), pixels = A.PixelsPerProjection() * count;
  CudaDeviceBuffer<float> dx(voxels), dy(pixels), ax(pixels), gathered(voxels), scattered(voxels);
  ASSERT_EQ(cudaMemcpy(dx.Data(), x->GetBufferPointer(), voxels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy.Data(), y->GetBufferPointer(), pixels * 4, cudaMemcpyHostToDevice), cudaSuccess);
  auto * subset = A.Subset(all);
  A.Forward(dx.Data(), ax.Data(), subset, static_cast<int>(count));
  A.SetAdjoint(JosephAdjoint::Scatter);
  A.Back(dy.Data(), scattered.Data(), subset, static_cast<int>(count), false);
  A.SetAdjoint(JosephAdjoint::Gather);
  const auto hax = Download(ax, pixels), hs = Download(scattered, voxels);
  double axy = 0.;
  for (std::size_t i = 0; i < pixels; ++i)
    axy += static_cast<double>(hax[i]) * y->GetBufferPointer()[i];
  // Each gather kernel: the default (runs), records and the first one (tiles).
  for (CudaJosephGatherKernel kernel : { CudaJosephGatherRuns, CudaJosephGatherRecords, CudaJosephGatherTiles })
  {
    A.SetGatherKernel(kernel);
    A.Back(dy.Data(), gathered.Data(), subset, static_cast<int>(count), false);
    const auto hg = Download(gathered, voxels);
    double xaty = 0.;
    for (std::size_t i = 0; i < voxels; ++i)
      xaty += static_cast<double>(x->GetBufferPointer()[i]) * hg[i];
    const double adjoint = std::fabs(axy - xaty) / std::fabs(axy);
    const double versusScatter = Relative(hg, hs.data()), versusCpu = Relative(hg, cpuBack->GetBufferPointer());
    const char * names[] = { ", tiles kernel", ", records kernel", ", runs kernel" };
    const std::string name = what + names[kernel];
    std::cout << name << ": CUDA gather |<Ax, y> - <x, A^T y>| / <Ax, y> = " << adjoint << ", vs CUDA scatter " << versusScatter
              << ", vs CPU gather " << versusCpu << std::endl;
    EXPECT_LT(adjoint, 1e-5) << name;
    EXPECT_LT(versusScatter, 1e-5) << name;
    EXPECT_LT(versusCpu, 1e-5) << name;
  }
}
} // namespace

TEST_F(CudaJosephGather, IsAdjointAndEqualsTheScatterAndTheCpuOnACircularScan)
{
  auto geometry = CircularGeometry(179, 360., 1000., 1500., 3., -2.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  Check(Grid({ { 64, 64, 64 } }, { { 2., 2., 2. } }, { { -63., -63., -63. } }),
        Grid({ { 64, 64, 180 } }, { { 3., 3., 1. } }, { { -94.5, -94.5, 0. } }), geometry, 1, "64^3, 180 projections");
}

TEST_F(CudaJosephGather, EqualsTheScatterAndTheCpuOnAnyGrid)
{
  auto geometry = CircularGeometry(24, 360., 400., 700., 3., -2.);
  geometry->AddProjection(400., 700., 30., 0., 0., 75.);
  geometry->AddProjection(400., 700., 200., 5., 0., -60., 10.);
  geometry->AddProjection(400., 700., 45.);
  geometry->AddProjection(400., 700., 135., 1., 1.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  const unsigned int n = geometry->GetNumberOfProjections();
  Check(Grid({ { 45, 38, 21 } }, { { 2., 2.5, 3. } }, { { -44., -44.75, -27. } }),
        Grid({ { 70, 50, n } }, { { 2.2, 2.6, 1. } }, { { -80., -60., 0. } }, { { 5, -3, 0 } }), geometry, 3, "45 x 38 x 21 grid");
}

TEST_F(CudaJosephGather, EqualsTheScatterAndTheCpuForRaysAlongTheVolumesFaces)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (double angle : { 0., 90., 45., 180., 270. })
    geometry->AddProjection(1e6, 1e6, angle);
  Check(Grid({ { 16, 16, 16 } }, { { 1., 1., 1. } }, { { -7.5, -7.5, -7.5 } }),
        Grid({ { 39, 39, 5 } }, { { 0.5, 0.5, 1. } }, { { -9.5, -9.5, 0. } }), geometry, 5, "nearly parallel rays along the faces");
}

TEST_F(CudaJosephGather, EqualsTheScatterAndTheCpuWithDenseAndSparseDetectors)
{
  auto geometry = CircularGeometry(20, 360., 300., 500., 1., 0.5);
  Check(Grid({ { 24, 20, 24 } }, { { 2., 2., 2. } }, { { -23., -19., -23. } }),
        Grid({ { 160, 130, 20 } }, { { 0.8, 0.8, 1. } }, { { -64., -52., 0. } }), geometry, 7, "dense detector");
  Check(Grid({ { 40, 36, 40 } }, { { 1., 1., 1. } }, { { -19.5, -17.5, -19.5 } }),
        Grid({ { 12, 11, 20 } }, { { 8., 8., 1. } }, { { -44., -40., 0. } }), geometry, 9, "sparse detector");
}

TEST_F(CudaJosephGather, EqualsTheScatterAndTheCpuWithTheSourceInsideTheVolume)
{
  // Tiles that reach the plane of the source go through the second, exhaustive kernel.
  auto geometry = CircularGeometry(6, 360., 20., 60.);
  Check(Grid({ { 24, 10, 24 } }, { { 2., 2., 2. } }, { { -23., -9., -23. } }),
        Grid({ { 24, 12, 6 } }, { { 6., 6., 1. } }, { { -69., -33., 0. } }), geometry, 11, "source inside the volume");
}

TEST_F(CudaJosephGather, ManyProjectionsInSeveralBatchesEqualTheCpu)
{
  // More projections than one launch takes (CudaJosephGatherBatch), and a batch limited by memory.
  auto geometry = CircularGeometry(75, 360., 500., 800.);
  Check(Grid({ { 40, 33, 35 } }, { { 1.5, 1.5, 1.5 } }, { { -29.25, -24., -25.5 } }),
        Grid({ { 48, 40, 75 } }, { { 2., 2., 1. } }, { { -47., -39., 0. } }), geometry, 13, "75 projections");
}

TEST_F(CudaJosephGather, EqualsTheScatterAndTheCpuOnASlabOfTheVolume)
{
  // A volume whose region starts at index (5, 3, 7): a slab of a larger one, sampled in its index space
  // (the CPU suite checks that the CPU gather there equals the whole volume's); in front of the source
  // and with the source inside (the exhaustive kernel).
  auto circular = CircularGeometry(12, 360., 400., 700., 3., -2.);
  circular->AddProjection(400., 700., 45.);
  circular->AddProjection(400., 700., 30., 0., 0., 75.);
  const unsigned int n = circular->GetNumberOfProjections();
  Check(Grid({ { 21, 21, 12 } }, { { 2., 2.5, 3. } }, { { -29., -31.25, -31.5 } }, { { 5, 3, 7 } }),
        Grid({ { 60, 50, n } }, { { 2.2, 2.6, 1. } }, { { -66., -64., 0. } }), circular, 15, "slab from (5, 3, 7)");
  auto inside = CircularGeometry(6, 360., 20., 60.);
  Check(Grid({ { 15, 5, 14 } }, { { 2., 2., 2. } }, { { -23., -9., -23. } }, { { 5, 3, 7 } }),
        Grid({ { 24, 12, 6 } }, { { 6., 6., 1. } }, { { -69., -33., 0. } }), inside, 17, "slab from (5, 3, 7), source inside");
}
