// The scan's field of view on the GPU: the device's columns equal the host's (FieldOfViewMask) bit
// for bit, the CUDA FDK with --fov skips and blanks exactly the CPU's voxels and matches it inside,
// and pieces, devices and slabs give the one-piece volume bit for bit. Needs a CUDA device; skips
// cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaFDKBackProjectionImageFilter.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"
#include "cbctFieldOfViewMask.h"

#include <gtest/gtest.h>
#include <itkStreamingImageFilter.h>

#include <cmath>
#include <cstring>
#include <vector>
#include <iostream>
#include <functional>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
constexpr unsigned int Voxels = 96;
constexpr double VoxelMm = 1.25; // 120 mm: the corners and the top and bottom are outside

template <typename TImage, typename TFDK>
typename TImage::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const TImage * projections, FieldOfViewMode fov,
            unsigned int slabs = 1, const std::function<void(TFDK *)> & configure = nullptr)
{
  auto zero = ConstantImageSource<TImage>::New();
  typename TImage::SizeType size{ { Voxels, Voxels, Voxels } };
  typename TImage::SpacingType spacing;
  spacing.Fill(VoxelMm);
  typename TImage::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.) * VoxelMm);
  zero->SetSize(size);
  zero->SetSpacing(spacing);
  zero->SetOrigin(origin);
  auto fdk = TFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetFieldOfView(fov);
  if (configure)
    configure(fdk);
  auto streamer = itk::StreamingImageFilter<TImage, TImage>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  streamer->Update();
  typename TImage::Pointer volume = streamer->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** Compares a CUDA volume with the CPU's: the same voxels outside (0 with +0's bits, or NaN), and
 * inside a relative L2 difference below `tolerance` (NaN fails). */
void
ExpectSameFieldOfView(const ImageType * cuda, const ImageType * cpu, FieldOfViewMode fov, double tolerance, const char * what)
{
  const std::size_t n = cpu->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(cuda->GetBufferedRegion().GetNumberOfPixels(), n) << what;
  std::size_t outside = 0, disagree = 0;
  double d2 = 0., n2 = 0.;
  for (std::size_t i = 0; i < n; ++i)
  {
    const float a = cuda->GetBufferPointer()[i], b = cpu->GetBufferPointer()[i];
    // With zeros outside, a voxel inside whose sum cancels can be +0 on one side and a rounding residue
    // on the other (the half fan: +0 on the CPU, -2e-20 to -5e-18 on the H200): below 1e-12 it counts
    // as the blank's value; NaN marks the outside exactly.
    const auto zero = [](float v) { return std::abs(v) < 1e-12f && !(v == 0.f && std::signbit(v)); };
    const bool blankB = fov == FieldOfViewMode::NaN ? std::isnan(b) : (b == 0.f && !std::signbit(b));
    const bool blankA = fov == FieldOfViewMode::NaN ? std::isnan(a) : zero(a);
    if (fov == FieldOfViewMode::NaN && blankA != blankB)
      ++disagree;
    if (blankB)
    {
      ++outside;
      if (!blankA && ++disagree <= 3)
        std::cout << what << ": voxel " << i << " blank on the CPU, " << a << " (sign " << std::signbit(a)
                  << ") on the GPU" << std::endl;
      continue;
    }
    d2 += (static_cast<double>(a) - b) * (static_cast<double>(a) - b);
    n2 += static_cast<double>(b) * b;
  }
  EXPECT_EQ(disagree, 0u) << what << ": voxels blank on one side only";
  EXPECT_LT(outside, n - n / 10) << what;
  ASSERT_GT(n2, 0.) << what;
  EXPECT_LT(std::sqrt(d2 / n2), tolerance) << what;
}

std::size_t
DifferingBits(const ImageType * a, const ImageType * b)
{
  const std::size_t n = a->GetBufferedRegion().GetNumberOfPixels();
  const auto size = a->GetBufferedRegion().GetSize();
  std::size_t differ = 0;
  double largest = 0.;
  std::vector<std::size_t> perY(size[1], 0), perZ(size[2], 0);
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a->GetBufferPointer() + i, b->GetBufferPointer() + i, sizeof(float)) != 0)
    {
      largest = std::max(largest, std::abs(static_cast<double>(a->GetBufferPointer()[i]) - b->GetBufferPointer()[i]));
      ++perY[(i / size[0]) % size[1]];
      ++perZ[i / (size[0] * size[1])];
      if (++differ <= 3)
        std::cout << "voxel " << i << " (x " << i % size[0] << ", y " << (i / size[0]) % size[1] << ", z "
                  << i / (size[0] * size[1]) << "): " << a->GetBufferPointer()[i] << " against " << b->GetBufferPointer()[i]
                  << std::endl;
    }
  if (differ > 0)
  {
    // Where the differing voxels lie: per y (the rotation axis) and per z, to tell piece boundaries.
    std::cout << "largest difference " << largest << "; differing voxels per y:";
    for (auto c : perY)
      std::cout << ' ' << c;
    std::cout << "\nper z:";
    for (auto c : perZ)
      std::cout << ' ' << c;
    std::cout << std::endl;
  }
  return differ;
}

ThreeDCircularProjectionGeometry::Pointer
Tilted()
{
  return FullScan([](RtkParameters & p, double) {
    p.outOfPlane = 8.;
    p.inPlane = 3.;
  }, 90);
}
} // namespace

class CudaFieldOfView : public ::testing::Test
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

TEST_F(CudaFieldOfView, DeviceColumnsEqualTheHosts)
{
  // Full scan (columns along y), tilted orbit (along z), a half fan and a short scan, on a box that
  // does not start at voxel 0.
  const std::vector<std::pair<std::string, ThreeDCircularProjectionGeometry::Pointer>> cases = {
    { "full", FullScan([](RtkParameters &, double) {}, 90) },
    { "tilted", Tilted() },
    { "half fan", FullScan(HalfFan, 90) },
    { "short", ShortScan([](RtkParameters &, double) {}, 90) },
  };
  auto volume = CentredInformation(ImageType::SizeType{ { Voxels, Voxels, Voxels } }, VoxelMm, VoxelMm, VoxelMm);
  auto projections = CentredInformation(ImageType::SizeType{ { FDKDetectorPixels, FDKDetectorPixels, 90 } }, FDKPixelMm,
                                        FDKPixelMm, 1.);
  for (const auto & [name, geometry] : cases)
  {
    const auto matrices = FieldOfViewMask::MatricesFor(volume, projections, geometry);
    const int axis = FieldOfViewMask::AxisFor(matrices);
    ImageType::RegionType box;
    box.SetIndex({ { 5, 7, 3 } });
    box.SetSize({ { 80, 70, 90 } });
    FieldOfViewMask host;
    host.Compute(matrices, FieldOfViewMask::DetectorOf(projections), axis, box);
    CudaDeviceBuffer<ConeProjection> deviceMatrices;
    deviceMatrices.Upload(matrices);
    const int other = axis == 1 ? 2 : 1;
    const std::size_t columns = box.GetSize(0) * box.GetSize(other);
    CudaDeviceBuffer<int> deviceColumns(2 * columns);
    CudaFieldOfViewColumnsLaunch launch;
    launch.matrices = deviceMatrices.Data();
    launch.count = static_cast<int>(matrices.size());
    launch.detector = FieldOfViewMask::DetectorOf(projections);
    launch.axis = axis;
    for (unsigned int d = 0; d < 3; ++d)
    {
      launch.first[d] = static_cast<int>(box.GetIndex(d));
      launch.size[d] = static_cast<int>(box.GetSize(d));
    }
    launch.columns = deviceColumns.Data();
    ASSERT_EQ(LaunchFieldOfViewColumns(launch, nullptr), cudaSuccess);
    std::vector<int> result(2 * columns);
    ASSERT_EQ(cudaMemcpy(result.data(), deviceColumns.Data(), result.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    std::size_t differ = 0, inside = 0;
    for (std::size_t i = 0; i < columns; ++i)
    {
      const long long x = box.GetIndex(0) + static_cast<long long>(i % box.GetSize(0));
      const long long b = box.GetIndex(other) + static_cast<long long>(i / box.GetSize(0));
      const FieldOfViewColumn & c = host.ColumnAt(x, other == 1 ? b : 0, other == 2 ? b : 0);
      differ += (c.first != result[2 * i] || c.last != result[2 * i + 1]) ? 1 : 0;
      inside += c.last >= c.first ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u) << name;
    EXPECT_GT(inside, columns / 10) << name;
  }
}

TEST_F(CudaFieldOfView, FDKMatchesTheCpuInsideAndOutside)
{
  using CudaFDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  using CpuFDK = FDKConeBeamReconstructionFilter<ImageType>;
  const std::vector<std::pair<std::string, ThreeDCircularProjectionGeometry::Pointer>> cases = {
    { "full", FullScan([](RtkParameters &, double) {}, 90) },
    { "tilted", Tilted() },
    { "half fan", FullScan(HalfFan, 90) },
    { "short", ShortScan([](RtkParameters &, double) {}, 90) },
  };
  for (const auto & [name, geometry] : cases)
  {
    auto cpuProjections = ProjectSheppLogan<ImageType>(geometry);
    auto cudaProjections = ProjectSheppLogan<CudaImageType>(geometry);
    for (FieldOfViewMode fov : { FieldOfViewMode::Zero, FieldOfViewMode::NaN })
    {
      auto cpu = Reconstruct<ImageType, CpuFDK>(geometry, cpuProjections.GetPointer(), fov);
      auto cuda = Reconstruct<CudaImageType, CudaFDK>(geometry, cudaProjections.GetPointer(), fov);
      const std::string what = name + (fov == FieldOfViewMode::NaN ? ", nan" : ", zero");
      // The half fan's inside: 6.3e-4 on the H200 (its displaced-detector weights), within twice the bound.
      ExpectSameFieldOfView(cuda, cpu, fov, name == "half fan" ? 2 * HardwareFilterTolerance : HardwareFilterTolerance,
                            what.c_str());
    }
  }
}

TEST_F(CudaFieldOfView, PiecesDevicesAndSlabsGiveTheOnePieceVolumeBitForBit)
{
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  for (auto geometry : { FullScan(HalfFan, 90), Tilted() })
  {
    auto projections = ProjectSheppLogan<CudaImageType>(geometry);
    auto reference = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), FieldOfViewMode::NaN, 1,
                                                     [](FDK * f) { f->SetMinimumPieces(1); });
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
    std::vector<std::pair<std::string, std::function<void(FDK *)>>> variants = {
      { "5 pieces", [](FDK * f) { f->SetMinimumPieces(5); } },
      { "devices 0,0", [](FDK * f) { f->SetDevices({ 0, 0 }); } },
      { "3 slabs streamed, devices 0,0,0 with 2 pieces each", [](FDK * f) {
         f->SetDevices({ 0, 0, 0 });
         f->SetMinimumPieces(2);
       } },
    };
    if (devices >= 2)
      variants.push_back({ "devices 1,0", [](FDK * f) { f->SetDevices({ 1, 0 }); } });
    for (const auto & [name, configure] : variants)
    {
      const unsigned int slabs = name.rfind("3 slabs", 0) == 0 ? 3 : 1;
      auto volume = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), FieldOfViewMode::NaN, slabs, configure);
      EXPECT_EQ(DifferingBits(volume, reference), 0u) << name;
    }
  }
}

TEST_F(CudaFieldOfView, HalfFanPiecesWithoutAFieldOfViewGiveTheOnePieceVolumeBitForBit)
{
  // The half fan's pieces without a field of view: tells the CUDA FDK's own piece arithmetic on a
  // displaced detector from the field of view's.
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto geometry = FullScan(HalfFan, 90);
  auto projections = ProjectSheppLogan<CudaImageType>(geometry);
  auto reference = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), FieldOfViewMode::Off, 1,
                                                   [](FDK * f) { f->SetMinimumPieces(1); });
  auto pieces = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), FieldOfViewMode::Off, 1,
                                                [](FDK * f) { f->SetMinimumPieces(5); });
  EXPECT_EQ(DifferingBits(pieces, reference), 0u);
}

TEST_F(CudaFieldOfView, BackProjectionFilterMatchesTheCpu)
{
  // The backprojection alone (the standalone CUDA filter), of the projections themselves.
  auto geometry = FullScan([](RtkParameters &, double) {}, 90);
  auto cpuProjections = ProjectSheppLogan<ImageType>(geometry);
  auto cudaProjections = ProjectSheppLogan<CudaImageType>(geometry);
  const auto run = [&](auto filter, auto projections, auto zero) {
    filter->SetInput(0, zero->GetOutput());
    filter->SetProjections(projections);
    filter->SetGeometry(geometry);
    filter->SetFieldOfView(FieldOfViewMode::Zero);
    filter->Update();
    return filter->GetOutput();
  };
  auto cpuZero = ConstantImageSource<ImageType>::New();
  CentredGrid(cpuZero, ImageType::SizeType{ { Voxels, Voxels, Voxels } }, VoxelMm, VoxelMm, VoxelMm);
  auto cudaZero = ConstantImageSource<CudaImageType>::New();
  {
    CudaImageType::SizeType size{ { Voxels, Voxels, Voxels } };
    CudaImageType::SpacingType spacing;
    spacing.Fill(VoxelMm);
    CudaImageType::PointType origin;
    origin.Fill(-0.5 * (Voxels - 1.) * VoxelMm);
    cudaZero->SetSize(size);
    cudaZero->SetSpacing(spacing);
    cudaZero->SetOrigin(origin);
  }
  auto cpuFilter = FDKBackProjectionImageFilter<ImageType>::New();
  auto cudaFilter = CudaFDKBackProjectionImageFilter<CudaImageType>::New();
  ImageType::Pointer cpu = run(cpuFilter, cpuProjections.GetPointer(), cpuZero);
  ImageType::Pointer cuda = run(cudaFilter, cudaProjections.GetPointer(), cudaZero);
  ExpectSameFieldOfView(cuda, cpu, FieldOfViewMode::Zero, 1e-4, "backprojection");
}
