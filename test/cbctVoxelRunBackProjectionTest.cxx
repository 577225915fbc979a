// The CPU backprojectors' inner loop: the AVX2 path against the reference loop, bit for bit, on
// detectors and volumes where voxels project inside, across the border and off the detector, lie
// behind the source, and rows whose length is not a multiple of eight.
#include "cbctDetectorCoordinates.h"
#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctVoxelRunBackProjection.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** Bit patterns equal (so -0 differs from +0 and NaN must match NaN exactly). */
bool
SameBits(float a, float b)
{
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

/** A stack of `count` random projections of 37 x 29 pixels of 3 mm, whose first pixel is stack pixel (-5, 4). */
ImageType::Pointer
RandomStack(unsigned int count, std::mt19937 & random)
{
  auto stack = ImageType::New();
  ImageType::RegionType region(ImageType::IndexType{ { -5, 4, 0 } }, ImageType::SizeType{ { 37, 29, count } });
  stack->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing.Fill(3.);
  stack->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -40.;
  origin[1] = -60.;
  origin[2] = 0.;
  stack->SetOrigin(origin);
  stack->Allocate();
  std::uniform_real_distribution<float> value(-2.f, 3.f);
  for (float * p = stack->GetBufferPointer(); p != stack->GetBufferPointer() + region.GetNumberOfPixels(); ++p)
    *p = value(random);
  return stack;
}

} // namespace

TEST(VoxelRunBackProjection, Avx2PathEqualsTheReferenceBitForBit)
{
  if (!VoxelRunUsesAvx2())
    GTEST_SKIP() << "this processor has no AVX2: the reference loop is the only path";
  std::mt19937 random(7);
  // Offsets, tilts and a short source distance, so that some voxels are behind the source (SID 60 mm
  // inside a volume 120 mm across) and many project off the small detector.
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(1000., 1500., 10., 30., -20.);
  geometry->AddProjection(400., 700., 77., -15., 5., 4., 3., 10., -8.);
  geometry->AddProjection(60., 200., 200.);
  auto projections = RandomStack(geometry->GetNumberOfProjections(), random);
  auto volume = ImageType::New();
  ImageType::RegionType region(ImageType::IndexType{ { -3, 2, -7 } }, ImageType::SizeType{ { 61, 9, 13 } }); // 61 = 7 x 8 + 5
  volume->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing[0] = 2.;
  spacing[1] = 7.;
  spacing[2] = 1.5;
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -55.;
  origin[1] = -30.;
  origin[2] = -60.; // z in [-70.5, -52.5]: the third source, at z = -56.4, is inside
  volume->SetOrigin(origin);
  const auto matrices = VoxelToPixelMatrices(volume.GetPointer(), projections.GetPointer(), geometry.GetPointer(), 0, 3);

  const auto & stack = projections->GetBufferedRegion();
  std::size_t compared = 0, behind = 0, changed = 0, unchanged = 0;
  for (unsigned int k = 0; k < 3; ++k)
    for (bool weighted : { false, true })
      for (int y = 2; y < 11; ++y)
        for (int z = -8; z < 6; z += BackProjectionRun)
          for (const auto & steps : { std::pair<int, int>{ 0, 8 }, std::pair<int, int>{ 3, 6 } })
          {
            VoxelRunLaunch<float> launch;
            launch.matrix = matrices[k].matrix;
            launch.projection = projections->GetBufferPointer() + k * stack.GetSize(0) * stack.GetSize(1);
            launch.nx = static_cast<int>(stack.GetSize(0));
            launch.ny = static_cast<int>(stack.GetSize(1));
            launch.firstColumn = static_cast<int>(stack.GetIndex(0));
            launch.firstRow = static_cast<int>(stack.GetIndex(1));
            launch.x0 = -3;
            launch.width = 61;
            launch.y = static_cast<float>(y);
            launch.z = static_cast<float>(RunStart(z));
            launch.rFirst = steps.first;
            launch.rEnd = steps.second;
            launch.distanceWeight = weighted;
            // Start from random sums, negative zeros among them.
            std::vector<float> fast(61 * BackProjectionRun), reference;
            std::uniform_real_distribution<float> start(-1.f, 1.f);
            for (std::size_t i = 0; i < fast.size(); ++i)
              fast[i] = i % 13 == 0 ? -0.f : start(random);
            reference = fast;
            const std::vector<float> initial = fast;
            launch.sum = fast.data();
            AccumulateVoxelRun(launch);
            launch.sum = reference.data();
            AccumulateVoxelRunScalar(launch);
            for (std::size_t i = 0; i < fast.size(); ++i)
            {
              ASSERT_TRUE(SameBits(fast[i], reference[i]))
                << "projection " << k << " y " << y << " run " << launch.z << " voxel " << i % 61 << " step " << i / 61
                << ": " << fast[i] << " vs " << reference[i];
              ++compared;
            }
            // What the cases covered: voxels behind the source, and voxels whose sum moved.
            for (int x = 0; x < 61; ++x)
            {
              float hu, hv, hw;
              HomogeneousAt(launch.matrix, static_cast<float>(launch.x0 + x), launch.y, launch.z, hu, hv, hw);
              for (int r = 0; r < BackProjectionRun; ++r, hw += launch.matrix[10])
                behind += !(hw < 0.f);
            }
            for (std::size_t i = 0; i < fast.size(); ++i)
              (SameBits(fast[i], initial[i]) ? unchanged : changed) += 1;
          }
  std::cout << compared << " sums compared, " << changed << " changed, " << unchanged << " not (off the detector, "
            << "behind the source or outside the steps); " << behind << " voxels behind the source" << std::endl;
  EXPECT_GT(behind, 0u);
  EXPECT_GT(changed, compared / 10);
  EXPECT_GT(unchanged, compared / 10);
}
