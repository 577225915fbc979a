// The emission projector pair and OSEM with it on the GPU against their CPU twins: adjointness, CUDA
// equal to the CPU within 1e-5 (relative L2) in parallel and cone beam, with each view's composite in
// a thread-block cluster (bands of rows, halos from the neighbours) and in one block (the planes in
// shared memory and in global memory), in one batch of views and in several. Skips without a device.
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

#include <algorithm>
#include <array>
#include <cmath>
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

/** Whether the device can launch thread-block clusters (sm_90 and later). */
bool
ClustersAvailable()
{
  int device = 0, clusters = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device) == cudaSuccess && clusters != 0;
}

struct PairCheck
{
  double adjoint = 0.; ///< GPU <Ax, y> / <x, A^T y>
  double forward = 0.; ///< GPU vs CPU forward (relative L2)
  double back = 0.;    ///< GPU vs CPU back
  int clusterSize = 0; ///< blocks per view's cluster the GPU used (0: one block per view)
  bool tiles = false;  ///< whether the GPU splatted by lattice rows
};

/** The emission pair on RandomEmissionProblem() data, its blur's sigma0 and slope times `blurScale`;
 * `budget` > 0 caps the GPU's batch memory (bytes) and keeps no transmissions between calls;
 * `clusterSize` as CudaEmissionOperator::SetCompositeClusterSize(), `splatRun` (>= 0) as SetSplatRun(),
 * `splatTiles` as SetSplatTiles() (the default: off). */
PairCheck
CheckEmissionPair(const ThreeDCircularProjectionGeometry * geometry, unsigned int columns, unsigned int rows, double budget,
                  int clusterSize = 0, double blurScale = 1., int splatRun = -1, bool splatTiles = false)
{
  EmissionProblem e = RandomEmissionProblem(geometry, columns, rows);
  e.blur.sigma0 *= blurScale;
  e.blur.slope *= blurScale;
  const EmissionOperator<ImageType> cpu(e.x, e.y, geometry, e.mu, e.blur);
  CudaEmissionOperator A(e.x, e.y, geometry, e.mu, e.blur);
  A.SetCompositeClusterSize(clusterSize);
  if (splatRun >= 0)
    A.SetSplatRun(splatRun);
  A.SetSplatTiles(splatTiles);
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
  return { axy / xaty, Relative(hax, cpuAx), Relative(haty, cpuAty), A.CompositeClusterSize(), A.SplatTilesUsed() };
}
} // namespace

TEST_F(CudaEmission, PairIsAdjointAndEqualsTheCpuInParallelAndConeBeam)
{
  for (bool cone : { false, true })
  {
    auto geometry = cone ? IrregularConeGeometry() : IrregularSpectGeometry();
    const auto r = CheckEmissionPair(geometry, 36, 30, 0.);
    std::cout << (cone ? "cone beam" : "parallel") << ": <Ax, y> / <x, A^T y> = " << r.adjoint << "; vs CPU: forward "
              << r.forward << ", back " << r.back << " (clusters of " << r.clusterSize << ")" << std::endl;
    EXPECT_NEAR(r.adjoint, 1., 1e-5);
    EXPECT_LT(r.forward, 1e-5);
    EXPECT_LT(r.back, 1e-5);
  }
}

TEST_F(CudaEmission, ClusterCompositesEqualTheCpuForEveryClusterSize)
{
  // Each view's recursion spread over clusters of 2 to 16 blocks (30 rows: bands of 15 down to 2
  // rows, the last band shorter than the others when 30 does not divide), and in one block (1): the
  // same results. The blur at 3 times the usual reaches more rows than a band of 15 blocks (2 rows)
  // holds, so halos come from blocks two and more away. On sm_90 the clusters asked for are used.
  const bool clusters = ClustersAvailable();
  for (bool cone : { false, true })
    for (double blurScale : { 1., 3. })
      for (int size : { 1, 2, 3, 7, 8, 16 })
      {
        auto geometry = cone ? IrregularConeGeometry() : IrregularSpectGeometry();
        const auto r = CheckEmissionPair(geometry, 36, 30, 0., size, blurScale);
        std::cout << (cone ? "cone beam" : "parallel") << ", blur x" << blurScale << ", clusters of " << size << " (used "
                  << r.clusterSize << "): <Ax, y> / <x, A^T y> = " << r.adjoint << "; vs CPU: forward " << r.forward
                  << ", back " << r.back << std::endl;
        EXPECT_NEAR(r.adjoint, 1., 1e-5);
        EXPECT_LT(r.forward, 1e-5);
        EXPECT_LT(r.back, 1e-5);
        // Fewer blocks than asked when the rows do not give every band one (7 -> 6 for 30 rows, 16 ->
        // 15), 8 where the device refuses non-portable clusters.
        if (size == 1 || !clusters)
          EXPECT_EQ(r.clusterSize, 0);
        else
        {
          EXPECT_GE(r.clusterSize, std::min(size - 1, 8));
          EXPECT_LE(r.clusterSize, size);
        }
      }
}

TEST_F(CudaEmission, SplatRunsEqualTheCpu)
{
  // The forward splat one voxel per thread (0, 1) and along runs of 2, 7, 24 (the whole y extent) and
  // 100 voxels: in the parallel views (tilted and offset ones among them) and the cone-beam ones, where
  // neighbours along y meet the same cells only sometimes.
  for (bool cone : { false, true })
    for (int run : { 0, 1, 2, 7, 24, 100 })
    {
      auto geometry = cone ? IrregularConeGeometry() : IrregularSpectGeometry();
      const auto r = CheckEmissionPair(geometry, 36, 30, 0., 0, 1., run, false);
      std::cout << (cone ? "cone beam" : "parallel") << ", splat runs of " << run << ": <Ax, y> / <x, A^T y> = " << r.adjoint
                << "; vs CPU: forward " << r.forward << ", back " << r.back << std::endl;
      EXPECT_NEAR(r.adjoint, 1., 1e-5);
      EXPECT_LT(r.forward, 1e-5);
      EXPECT_LT(r.back, 1e-5);
    }
}

TEST_F(CudaEmission, SplatTilesEqualTheCpu)
{
  // The splat by lattice rows (no global atomics) in a circular parallel orbit about y, whose detector
  // rows run along y, over 360 degrees (views along every diagonal), with one batch and with several
  // (each tile writes its whole row: no zeroing), and with a blur reaching far; the irregular views
  // (tilted, offset) do not suit it and splat runs of voxels instead.
  for (int geometryCase = 0; geometryCase < 3; ++geometryCase)
  {
    auto geometry = geometryCase == 2 ? IrregularSpectGeometry() : SpectGeometry(24);
    const auto r = CheckEmissionPair(geometry, 36, 30, geometryCase == 1 ? 2e6 : 0., 0, geometryCase == 1 ? 3. : 1., -1, true);
    std::cout << (geometryCase == 2 ? "irregular" : geometryCase == 1 ? "circular, batches" : "circular") << ", tiles "
              << (r.tiles ? "used" : "not used") << ": <Ax, y> / <x, A^T y> = " << r.adjoint << "; vs CPU: forward "
              << r.forward << ", back " << r.back << std::endl;
    EXPECT_NEAR(r.adjoint, 1., 1e-5);
    EXPECT_LT(r.forward, 1e-5);
    EXPECT_LT(r.back, 1e-5);
    EXPECT_EQ(r.tiles, geometryCase != 2);
  }
}

TEST_F(CudaEmission, GatherRunsEqualTheOneVoxelGatherBitForBit)
{
  // The back projection's gather along runs of 2 to 16 voxels reuses loaded cells, nothing else: the
  // same volume to the bit as one voxel per thread, in parallel (tilted views among them) and cone beam.
  for (bool cone : { false, true })
  {
    auto geometry = cone ? IrregularConeGeometry() : IrregularSpectGeometry();
    const EmissionProblem e = RandomEmissionProblem(geometry);
    std::vector<std::vector<float>> volumes;
    for (int run : { 0, 2, 4, 8, 16 })
    {
      CudaEmissionOperator A(e.x, e.y, geometry, e.mu, e.blur);
      A.SetGatherRun(run);
      const unsigned int count = geometry->GetNumberOfProjections();
      const std::size_t voxels = A.Voxels(), pixels = A.PixelsPerProjection() * count;
      CudaDeviceBuffer<float> dy(pixels), aty(voxels);
      CudaUpload(dy.Data(), e.y->GetBufferPointer(), pixels, "y");
      std::vector<unsigned int> all(count);
      for (unsigned int k = 0; k < count; ++k)
        all[k] = k;
      A.Back(dy.Data(), aty.Data(), A.Subset(all), static_cast<int>(count), false);
      volumes.emplace_back(voxels);
      CudaDownload(volumes.back().data(), aty.Data(), voxels, "A^T y");
    }
    std::size_t differ = 0;
    double norm = 0.;
    for (std::size_t i = 0; i < volumes[0].size(); ++i)
    {
      for (std::size_t v = 1; v < volumes.size(); ++v)
        differ += volumes[0][i] == volumes[v][i] ? 0 : 1; // NaN differs
      norm += std::abs(volumes[0][i]);
    }
    std::cout << (cone ? "cone beam" : "parallel") << ": " << differ << " voxels differ" << std::endl;
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(norm, 0.);
  }
}

TEST_F(CudaEmission, PlanesInGlobalMemoryAndSeveralBatchesGiveTheSame)
{
  // 190 x 160 pixels: two planes (243 KB) exceed a block's shared memory on an H100 (227 KB), so the
  // one-block composites (cluster size 1) use global scratch; with clusters (the default) each band
  // of 20 rows fits a block. A 40 MB budget cuts the 20 views into several batches, each computing
  // its own transmissions.
  auto geometry = IrregularSpectGeometry();
  for (int size : { 1, 0 })
  {
    const auto r = CheckEmissionPair(geometry, 190, 160, 40e6, size);
    std::cout << "190 x 160, batches, clusters of " << r.clusterSize << ": <Ax, y> / <x, A^T y> = " << r.adjoint
              << "; vs CPU: forward " << r.forward << ", back " << r.back << std::endl;
    EXPECT_NEAR(r.adjoint, 1., 1e-5);
    EXPECT_LT(r.forward, 1e-5);
    EXPECT_LT(r.back, 1e-5);
    if (size == 0 && ClustersAvailable())
      EXPECT_EQ(r.clusterSize, 8);
  }
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
