// Joseph's and the ray caster's projector pairs and SART on the GPU against their CPU twins. Skips without a device.
#include "cbctCudaDevice.h"
#include "cbctCudaRayCastOperator.h"
#include "cbctCudaSARTConeBeamReconstructionFilter.h"
#include "cbctCudaVoxelBackProjectionOperator.h"
#include "cbctRayCastOperator.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <random>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
/** Two ellipsoids (the GPU tests' phantom). */
GeometricPhantom::Pointer
TwoEllipsoids()
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

namespace
{
/** Adjointness of a GPU pair on random data, and its difference from its CPU twin; returns
 * {adjoint ratio, forward difference, back difference} (relative L2). */
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
    return n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN(); // NaN fails every check below
  };
  return { axy / xaty, relative(hax, cpuAx), relative(haty, cpuAty) };
}
} // namespace

TEST_F(CudaIterative, JosephPairIsAdjointAndMatchesCpu)
{
  auto geometry = CircularGeometry(180, 360., 1000., 1500., 3., -2.);
  auto volumeGrid = VoxelizedPhantom(TwoEllipsoids(), 64, 2., 1);
  auto projectionGrid = ProjectPhantom(geometry, TwoEllipsoids(), 64, 3.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);
  const JosephOperator<ImageType> cpu(x, y, geometry);
  for (bool texture : { false, true })
  {
    CudaJosephOperator A(x, y, geometry);
    A.SetVolumeTexture(texture);
    A.SetBackProjectionSlab(texture ? 16 : 0); // 16-slice slabs, or one pass
    const auto r = CheckPair(A, cpu, x, y, 180);
    std::cout << "CUDA Joseph (" << (texture ? "texture reads, slabs of 16" : "global reads, one pass")
              << "): <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1] << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-3);
    // Reading four voxels reproduces the CPU to float rounding (measured 1.2e-7). The texture unit's
    // interpolation of these random volumes differs from the CPU's by 1.7e-4 (measured on an H100),
    // more than the 1e-6 of its blend alone (see benchmarks/README.md); phantom data agree better.
    EXPECT_LT(r[1], texture ? 5e-4 : 1e-5);
    EXPECT_LT(r[2], 1e-5);
  }
}

// Joseph's pair on a grid that is not a cube of cubes: sizes of no common factor, voxels that are not
// cubes, a projection stack that does not start at index 0, and rays along every axis (a projection
// 75 degrees out of plane has rays along z; a source moved off the orbit).
TEST_F(CudaIterative, JosephPairMatchesCpuOnAnyGrid)
{
  auto geometry = CircularGeometry(24, 360., 400., 700., 3., -2.);
  geometry->AddProjection(400., 700., 30., 0., 0., 75.);
  geometry->AddProjection(400., 700., 200., 5., 0., -60., 10.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 0, 0, 0 } }, ImageType::SizeType{ { 45, 38, 21 } }));
  const double spacing[3] = { 2., 2.5, 3. };
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
    origin[d] = -0.5 * (volume->GetLargestPossibleRegion().GetSize(d) - 1) * spacing[d] + 1.5 * d;
  volume->SetOrigin(origin);
  volume->Allocate();
  auto projections = ImageType::New();
  projections->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 5, -3, 0 } },
                                                ImageType::SizeType{ { 70, 50, geometry->GetNumberOfProjections() } }));
  const double pixel[3] = { 2.2, 2.6, 1. };
  projections->SetSpacing(pixel);
  ImageType::PointType detectorOrigin;
  detectorOrigin[0] = -80.;
  detectorOrigin[1] = -60.;
  detectorOrigin[2] = 0.;
  projections->SetOrigin(detectorOrigin);
  projections->Allocate();
  auto x = Copy<ImageType>(volume, false, 3);
  auto y = Copy<ImageType>(projections, false, 4);
  const JosephOperator<ImageType> cpu(x, y, geometry);
  CudaJosephOperator A(x, y, geometry);
  A.SetVolumeTexture(false);
  A.SetBackProjectionSlab(8);
  const auto r = CheckPair(A, cpu, x, y, geometry->GetNumberOfProjections());
  std::cout << "CUDA Joseph on a 45 x 38 x 21 grid: <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1] << ", back "
            << r[2] << std::endl;
  EXPECT_NEAR(r[0], 1., 1e-3);
  EXPECT_LT(r[1], 1e-5);
  EXPECT_LT(r[2], 1e-5);
}

// Parallel beam (SourceToDetectorDistance 0): the rays' per-pixel origins and whole lines on the GPU,
// for Joseph's pair (texture and four-voxel reads) and the ray caster's, against the CPU.
TEST_F(CudaIterative, ParallelBeamPairsMatchCpu)
{
  auto geometry = CircularGeometry(36, 360., 300., 0., 2., -1.);
  geometry->AddProjection(300., 0., 17., 0., 0., 20., 5.);
  auto volumeGrid = VoxelizedPhantom(TwoEllipsoids(), 48, 2.5, 1);
  auto projectionGrid = ProjectPhantom(geometry, TwoEllipsoids(), 64, 2.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);
  const JosephOperator<ImageType> cpuJoseph(x, y, geometry);
  for (bool texture : { false, true })
  {
    CudaJosephOperator A(x, y, geometry);
    A.SetVolumeTexture(texture);
    const auto r = CheckPair(A, cpuJoseph, x, y, geometry->GetNumberOfProjections());
    std::cout << "CUDA Joseph, parallel beam (" << (texture ? "texture" : "global reads") << "): <Ax, y> / <x, A^T y> = " << r[0]
              << "; vs CPU: forward " << r[1] << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-3);
    EXPECT_LT(r[1], texture ? 5e-4 : 1e-5);
    EXPECT_LT(r[2], 1e-5);
  }
  const RayCastOperator<ImageType> cpuRayCast(x, y, geometry, 2.5);
  CudaRayCastOperator B(x, y, geometry, 2.5);
  const auto r = CheckPair(B, cpuRayCast, x, y, geometry->GetNumberOfProjections());
  std::cout << "CUDA ray caster, parallel beam: <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1] << ", back " << r[2]
            << std::endl;
  EXPECT_NEAR(r[0], 1., 1e-3);
  EXPECT_LT(r[1], 5e-4); // the texture unit's trilinear blend
  EXPECT_LT(r[2], 1e-5);
}

// A textured forward launch reads the slices across each ray's dominant axis; a launch given the
// slices of only some of its rays' axes must not read a missing texture but mark those rays NaN (the
// operator always makes them all: the JosephPair tests).
TEST_F(CudaIterative, JosephTextureLaunchMarksRaysWithoutTheirSlicesNaN)
{
  auto geometry = CircularGeometry(2, 180.); // 0 degrees: rays along z; 90 degrees: along x
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::SizeType{ { 16, 16, 16 } });
  ImageType::SpacingType spacing;
  spacing.Fill(2.);
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  origin.Fill(-15.);
  volume->SetOrigin(origin);
  auto projections = ImageType::New();
  projections->SetRegions(ImageType::SizeType{ { 8, 8, 2 } });
  spacing.Fill(4.);
  projections->SetSpacing(spacing);
  ImageType::PointType detectorOrigin;
  detectorOrigin[0] = detectorOrigin[1] = -14.;
  detectorOrigin[2] = 0.;
  projections->SetOrigin(detectorOrigin);
  std::vector<JosephRay> rays;
  for (unsigned int k = 0; k < 2; ++k)
    rays.push_back(JosephProjector(volume.GetPointer(), projections.GetPointer(), geometry, k).Ray());
  CudaDeviceBuffer<JosephRay> deviceRays(rays.size());
  deviceRays.Upload(rays);
  const std::vector<unsigned int> both{ 0, 1 };
  CudaDeviceBuffer<unsigned int> subset(2);
  subset.Upload(both);
  const int size[3] = { 16, 16, 16 };
  CudaDeviceBuffer<float> ones(16 * 16 * 16), out(8 * 8 * 2);
  ASSERT_EQ(LaunchFill(ones.Data(), 16 * 16 * 16, 1.f, nullptr), cudaSuccess);
  CudaJosephLaunch launch;
  for (int d = 0; d < 3; ++d)
    launch.size[d] = size[d];
  launch.columns = launch.rows = 8;
  launch.rays = deviceRays.Data();
  launch.subset = subset.Data();
  launch.count = 2;
  launch.projections = out.Data();
  for (unsigned int axes : { 1u << 2, (1u << 0) | (1u << 2) })
  {
    CudaSlicedVolume slices;
    slices.CopyFromDevice(ones.Data(), size, axes, nullptr);
    for (int a = 0; a < 3; ++a)
      launch.slices[a] = slices.Slices(a);
    ASSERT_EQ(LaunchJosephForward(launch, nullptr), cudaSuccess);
    std::vector<float> p(8 * 8 * 2);
    ASSERT_EQ(cudaMemcpy(p.data(), out.Data(), p.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    // The central rays cross 32 mm of ones, a little more for the cone.
    const float alongZ = p[4 * 8 + 4], alongX = p[64 + 4 * 8 + 4];
    EXPECT_NEAR(alongZ, 32.f, 1.f) << "axes " << axes;
    if (axes & 1u)
      EXPECT_NEAR(alongX, 32.f, 1.f);
    else
      EXPECT_TRUE(std::isnan(alongX)) << alongX;
  }
}

// SART's update that also writes the forward projector's slice stacks (SARTUpdate(..., true)) leaves
// the volume and the next forward projection bit for bit those of the plain update followed by the
// copy, on a grid of no multiple of the kernel's 32 x 32 tiles and rays along each axis; the stacks
// are used once: a volume changed after that forward projection is copied again.
TEST_F(CudaIterative, SartUpdateWritingTheSliceStacksEqualsUpdateThenCopy)
{
  auto geometry = CircularGeometry(12, 360., 400., 700., 3., -2.);
  geometry->AddProjection(400., 700., 30., 0., 0., 75.);     // rays along y
  geometry->AddProjection(400., 700., 200., 5., 0., -60., 10.);
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::SizeType{ { 45, 38, 21 } });
  const double spacing[3] = { 2., 2.5, 3. };
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
    origin[d] = -0.5 * (volume->GetLargestPossibleRegion().GetSize(d) - 1) * spacing[d];
  volume->SetOrigin(origin);
  volume->Allocate();
  auto projections = ImageType::New();
  projections->SetRegions(ImageType::SizeType{ { 70, 50, geometry->GetNumberOfProjections() } });
  const double pixel[3] = { 2.2, 2.6, 1. };
  projections->SetSpacing(pixel);
  ImageType::PointType detectorOrigin;
  detectorOrigin[0] = -76.;
  detectorOrigin[1] = -64.;
  detectorOrigin[2] = 0.;
  projections->SetOrigin(detectorOrigin);
  projections->Allocate();

  const std::size_t voxels = 45 * 38 * 21, pixels = 70 * 50 * geometry->GetNumberOfProjections();
  auto x = Copy<ImageType>(volume, false, 5), c = Copy<ImageType>(volume, false, 6), s = Copy<ImageType>(volume, false, 7);
  for (std::size_t v = 0; v < voxels; ++v)
  {
    c->GetBufferPointer()[v] -= 0.6f;  // corrections of both signs: positivity clips some voxels
    s->GetBufferPointer()[v] -= 0.1f;  // a tenth of the sensitivities not positive: no update there
  }
  CudaDeviceBuffer<float> fused(voxels), plain(voxels), correction(voxels), sensitivity(voxels), pf(pixels), pp(pixels);
  for (auto * d : { &fused, &plain })
    CudaUpload(d->Data(), x->GetBufferPointer(), voxels, "volume");
  CudaUpload(correction.Data(), c->GetBufferPointer(), voxels, "correction");
  CudaUpload(sensitivity.Data(), s->GetBufferPointer(), voxels, "sensitivity");
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  const int count = static_cast<int>(all.size());
  CudaJosephOperator A(volume, projections, geometry);
  auto * subset = A.Subset(all);
  auto download = [](const CudaDeviceBuffer<float> & d, std::size_t n) {
    std::vector<float> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), d.Data(), n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  };
  CudaSARTLaunch step;
  step.correction = correction.Data();
  step.sensitivity = sensitivity.Data();
  step.voxels = static_cast<long long>(voxels);
  step.lambda = 0.7f;
  step.positivity = 1;
  for (int round = 0; round < 2; ++round) // the second round: the stacks of the first exist already
  {
    step.volume = fused.Data();
    A.SARTUpdate(step, true);
    A.Forward(fused.Data(), pf.Data(), subset, count);
    step.volume = plain.Data();
    ASSERT_EQ(LaunchSARTUpdate(step, nullptr), cudaSuccess);
    A.Forward(plain.Data(), pp.Data(), subset, count);
    const auto hf = download(fused, voxels), hp = download(plain, voxels), pfh = download(pf, pixels), pph = download(pp, pixels);
    EXPECT_EQ(hf, hp) << "round " << round;
    EXPECT_EQ(pfh, pph) << "round " << round;
    EXPECT_TRUE(std::all_of(pfh.begin(), pfh.end(), [](float v) { return std::isfinite(v); }));
    std::size_t clipped = 0, kept = 0;
    for (std::size_t v = 0; v < voxels; ++v)
    {
      clipped += hf[v] == 0.f;
      kept += s->GetBufferPointer()[v] <= 0.f && hf[v] > 0.f;
    }
    EXPECT_GT(clipped, 0u); // the case is not trivial
    EXPECT_GT(kept, 0u);
    double sum = 0.;
    for (float v : pfh)
      sum += v;
    EXPECT_GT(sum, 0.);
  }
  // Used once: after that forward projection the volume changes and is projected from its new values.
  ASSERT_EQ(LaunchFill(fused.Data(), voxels, 2.f, nullptr), cudaSuccess);
  ASSERT_EQ(LaunchFill(plain.Data(), voxels, 2.f, nullptr), cudaSuccess);
  A.Forward(fused.Data(), pf.Data(), subset, count);
  CudaJosephOperator B(volume, projections, geometry);
  B.Forward(plain.Data(), pp.Data(), B.Subset(all), count);
  EXPECT_EQ(download(pf, pixels), download(pp, pixels));
}

TEST_F(CudaIterative, RayCastPairIsAdjointAndMatchesCpu)
{
  auto geometry = CircularGeometry(179, 360., 1000., 1500., 3., -2.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  auto volumeGrid = VoxelizedPhantom(TwoEllipsoids(), 64, 2., 1);
  auto projectionGrid = ProjectPhantom(geometry, TwoEllipsoids(), 64, 3.);
  auto x = Copy<ImageType>(volumeGrid, false, 1);
  auto y = Copy<ImageType>(projectionGrid, false, 2);
  for (double step : { 2., 1.3 })
  {
    CudaRayCastOperator A(x, y, geometry, step);
    const RayCastOperator<ImageType> cpu(x, y, geometry, step);
    const auto r = CheckPair(A, cpu, x, y, 180);
    std::cout << "CUDA ray caster (step " << step << " mm): <Ax, y> / <x, A^T y> = " << r[0] << "; vs CPU: forward " << r[1]
              << ", back " << r[2] << std::endl;
    EXPECT_NEAR(r[0], 1., 1e-3);
    EXPECT_LT(r[1], 5e-4); // the texture unit's interpolation: measured 2.7e-4 on these random volumes
    EXPECT_LT(r[2], 1e-5);
  }
}

TEST_F(CudaIterative, SartWithTheRayCasterMatchesCpuAfterThreeIterations)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, TwoEllipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(TwoEllipsoids(), 64, 2., 2);
  auto cpu = SARTConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetInput(0, Copy<ImageType>(truth, true));
  cpu->SetProjections(projections);
  cpu->SetGeometry(geometry);
  cpu->SetForwardProjector(ForwardProjectorKind::RayCast);
  cpu->SetNumberOfIterations(3);
  cpu->SetNumberOfProjectionsPerSubset(5);
  cpu->SetLambda(0.8);
  cpu->Update();
  auto gpu = CudaSARTConeBeamReconstructionFilter<CudaImageType>::New();
  gpu->SetInput(0, Copy<CudaImageType>(truth, true));
  gpu->SetProjections(Copy<CudaImageType>(projections));
  gpu->SetGeometry(geometry);
  gpu->SetForwardProjector(ForwardProjectorKind::RayCast);
  gpu->SetNumberOfIterations(3);
  gpu->SetNumberOfProjectionsPerSubset(5);
  gpu->SetLambda(0.8);
  gpu->Update();
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  const Quality q = Compare(gpu->GetOutput(), truth, truth->GetLargestPossibleRegion());
  std::cout << "CUDA OS-SART with the ray caster vs CPU after 3 iterations: " << difference << "; vs phantom MAE "
            << q.meanAbsoluteError << std::endl;
  EXPECT_LT(difference, 1e-3);
  EXPECT_LE(q.meanAbsoluteError, 0.032);
}

// The voxel-based backprojector on the GPU (FDK's kernel without the distance weight) against its CPU
// twin: 70 projections (two batches of texture layers), a subset in no particular order, a volume
// and stack that start at non-zero indices, adding to what the volume held.
TEST_F(CudaIterative, VoxelBackProjectionMatchesCpu)
{
  auto geometry = CircularGeometry(70, 360., 1000., 1500., 3., -2.);
  auto volumeGrid = VoxelizedPhantom(TwoEllipsoids(), 40, 3., 1);
  auto projectionGrid = ProjectPhantom(geometry, TwoEllipsoids(), 64, 3.);
  volumeGrid->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 3, -5, 2 } }, volumeGrid->GetLargestPossibleRegion().GetSize()));
  projectionGrid->SetRegions(ImageType::RegionType(ImageType::IndexType{ { -4, 6, 0 } }, projectionGrid->GetLargestPossibleRegion().GetSize()));
  auto x = Copy<ImageType>(volumeGrid, false, 5);
  std::vector<unsigned int> subset;
  for (unsigned int k = 0; k < 70; ++k)
    subset.push_back((k * 37) % 70);
  // Random projections, and the phantom's (smooth, as the residuals of a reconstruction are).
  for (bool random : { true, false })
  {
    auto y = Copy<ImageType>(projectionGrid, false, random ? 6 : 0);
    const VoxelBackProjectionOperator<ImageType> cpu(std::unique_ptr<ProjectorOperator>(new JosephOperator<ImageType>(x, y, geometry)), x,
                                                     y, geometry);
    CudaVoxelBackProjectionOperator gpu(std::unique_ptr<CudaProjectorOperator>(new CudaJosephOperator(x, y, geometry)), x, y, geometry);
    const std::size_t voxels = gpu.Voxels(), pixels = gpu.PixelsPerProjection() * 70;
    CudaDeviceBuffer<float> volume(voxels), stack(pixels);
    ASSERT_EQ(cudaMemcpy(volume.Data(), x->GetBufferPointer(), voxels * 4, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(stack.Data(), y->GetBufferPointer(), pixels * 4, cudaMemcpyHostToDevice), cudaSuccess);
    gpu.Back(stack.Data(), volume.Data(), gpu.Subset(subset), 70, true);
    std::vector<float> fromGpu(voxels), fromCpu(x->GetBufferPointer(), x->GetBufferPointer() + voxels);
    ASSERT_EQ(cudaMemcpy(fromGpu.data(), volume.Data(), voxels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cpu.Back(y->GetBufferPointer(), fromCpu.data(), subset, true);
    double d = 0., n = 0., added = 0.;
    for (std::size_t v = 0; v < voxels; ++v)
    {
      d += (fromGpu[v] - static_cast<double>(fromCpu[v])) * (fromGpu[v] - static_cast<double>(fromCpu[v]));
      n += static_cast<double>(fromCpu[v]) * fromCpu[v];
      added += fromCpu[v] - x->GetBufferPointer()[v];
    }
    const double relative = n > 0. ? std::sqrt(d / n) : std::numeric_limits<double>::quiet_NaN();
    std::cout << "CUDA voxel-based backprojection vs CPU, " << (random ? "random" : "phantom") << " projections: " << relative
              << " (mean added per voxel " << added / voxels << ")" << std::endl;
    // As for Joseph's texture path: the texture unit's interpolation of random data differs from
    // the CPU's by about 1.6e-4 (measured on an H100); smooth data agree to float rounding.
    EXPECT_LT(relative, random ? 5e-4 : 1e-5);
    EXPECT_GT(added / voxels, 1.); // most voxels see most of the 70 projections
  }
}

TEST_F(CudaIterative, SartWithTheVoxelBackProjectorMatchesCpuAfterThreeIterations)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, TwoEllipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(TwoEllipsoids(), 64, 2., 2);
  auto cpu = SARTConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaSARTConeBeamReconstructionFilter<CudaImageType>::New();
  cpu->SetInput(0, Copy<ImageType>(truth, true));
  cpu->SetProjections(projections);
  gpu->SetInput(0, Copy<CudaImageType>(truth, true));
  gpu->SetProjections(Copy<CudaImageType>(projections));
  auto configure = [&](auto * f) {
    f->SetGeometry(geometry);
    f->SetBackProjector(BackProjectorKind::VoxelBased);
    f->SetNumberOfIterations(3);
    f->SetNumberOfProjectionsPerSubset(5);
    f->SetLambda(0.8);
    f->EnforcePositivityOn();
    f->Update();
  };
  configure(cpu.GetPointer());
  configure(gpu.GetPointer());
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  const Quality q = Compare(gpu->GetOutput(), truth, truth->GetLargestPossibleRegion());
  std::cout << "CUDA OS-SART with the voxel-based backprojector vs CPU after 3 iterations: " << difference << "; vs phantom MAE "
            << q.meanAbsoluteError << std::endl;
  EXPECT_LT(difference, 1e-3);
  EXPECT_LE(q.meanAbsoluteError, 0.032);
}

TEST_F(CudaIterative, SartMatchesCpuAfterThreeIterations)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, TwoEllipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(TwoEllipsoids(), 64, 2., 2);
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
