// The CPU FDK backprojector's columns along y: the layout of the projections, the AVX2 path against
// the reference loop (bit for bit), and the filter's columns against its runs along z.
#include "cbctColumnBackProjection.h"
#include "cbctConstantImageSource.h"
#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
bool
SameBits(float a, float b)
{
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

/** A stack of `count` random projections of 37 x 29 pixels of `pixelMm`, whose first pixel is stack
 * pixel (-5, 4), some pixels large (1e6) so that a wrongly picked neighbour shows. */
ImageType::Pointer
RandomStack(unsigned int count, double pixelMm, std::mt19937 & random)
{
  auto stack = ImageType::New();
  ImageType::RegionType region(ImageType::IndexType{ { -5, 4, 0 } }, ImageType::SizeType{ { 37, 29, count } });
  stack->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing.Fill(pixelMm);
  spacing[2] = 1.;
  stack->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -40. * pixelMm / 3.;
  origin[1] = -60. * pixelMm / 3.;
  origin[2] = 0.;
  stack->SetOrigin(origin);
  stack->Allocate();
  std::uniform_real_distribution<float> value(-2.f, 3.f);
  std::size_t i = 0;
  for (float * p = stack->GetBufferPointer(); p != stack->GetBufferPointer() + region.GetNumberOfPixels(); ++p, ++i)
    *p = i % 17 == 0 ? 1e6f : value(random);
  return stack;
}

/** A volume grid of 21 x `height` x 5 voxels from voxel index (-3, 2, -7), y spacing `yMm` (negative:
 * a y axis pointing down, so that v falls along the columns), centred on y = 0; z from -61 to -49 mm,
 * across the plane of the short-distance source of the tests' geometries. */
ImageType::Pointer
VolumeGrid(int height, double yMm)
{
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::RegionType(ImageType::IndexType{ { -3, 2, -7 } },
                                           ImageType::SizeType{ { 21, static_cast<itk::SizeValueType>(height), 5 } }));
  ImageType::SpacingType spacing;
  spacing[0] = 4.;
  spacing[1] = std::abs(yMm);
  spacing[2] = 3.;
  volume->SetSpacing(spacing);
  ImageType::DirectionType direction;
  direction.SetIdentity();
  direction(1, 1) = yMm < 0. ? -1. : 1.;
  volume->SetDirection(direction);
  ImageType::PointType origin;
  origin[0] = -40.;
  origin[1] = (yMm < 0. ? 1. : -1.) * std::abs(yMm) * (2. + height / 2);
  origin[2] = -40.;
  volume->SetOrigin(origin);
  return volume;
}
} // namespace

TEST(ColumnBackProjection, LayoutHoldsEveryPixelWithZerosAround)
{
  std::mt19937 random(3);
  auto projections = RandomStack(2, 3., random);
  ColumnStack stack;
  stack.Resize(2, 37, 29, -5, 4);
  for (int k = 0; k < 2; ++k)
    stack.Fill(k, projections->GetBufferPointer() + k * 37 * 29);
  ASSERT_EQ(stack.stride, 29 + ColumnStack::RowsBefore + ColumnStack::RowsAfter);
  for (int k = 0; k < 2; ++k)
    for (int c = 0; c < 39; ++c)
      for (int r = 0; r < stack.stride; ++r)
      {
        const int i = c - 1, j = r - ColumnStack::RowsBefore;
        const float expected =
          i >= 0 && i < 37 && j >= 0 && j < 29 ? projections->GetBufferPointer()[k * 37 * 29 + j * 37 + i] : 0.f;
        ASSERT_TRUE(SameBits(stack.Projection(k)[c * stack.stride + r], expected)) << k << " " << c << " " << r;
      }
}

TEST(ColumnBackProjection, ReferenceIsDetectorSampleAtEachVoxel)
{
  // The reference loop against DetectorSample() on the stack as it is, voxel by voxel: the layout
  // and the off-detector rule are right.
  std::mt19937 random(5);
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(1000., 1500., 10., 30., -20.);
  geometry->AddProjection(60., 200., 200.); // a short source distance: voxels behind the source
  auto projections = RandomStack(2, 3., random);
  auto volume = VolumeGrid(19, 7.);
  const auto matrices = VoxelToPixelMatrices(volume.GetPointer(), projections.GetPointer(), geometry.GetPointer(), 0, 2);
  ColumnStack stack;
  stack.Resize(2, 37, 29, -5, 4);
  std::size_t behind = 0, off = 0, on = 0;
  for (int k = 0; k < 2; ++k)
  {
    ASSERT_TRUE(ColumnsAllowed(matrices[k]));
    stack.Fill(k, projections->GetBufferPointer() + k * 37 * 29);
    for (float z = -7.f; z < -2.f; z += 1.f)
    {
      ColumnLaunch launch;
      launch.matrix = matrices[k].matrix;
      launch.stack = &stack;
      launch.projection = k;
      launch.x0 = -3;
      launch.width = 21;
      launch.y0 = 2;
      launch.height = 19;
      launch.z = z;
      launch.distanceWeight = true;
      std::vector<float> sum(21 * HeightPadded(19), 0.5f);
      launch.sum = sum.data();
      AccumulateColumnsScalar(launch);
      for (int x = 0; x < 21; ++x)
        for (int y = 0; y < 19; ++y)
        {
          float hu, hv, hw, expected = 0.5f;
          HomogeneousAt(launch.matrix, static_cast<float>(x - 3), static_cast<float>(y + 2), z, hu, hv, hw);
          if (hw < 0.f)
          {
            const float inv = 1.f / hw;
            const float sample = DetectorSample(projections->GetBufferPointer() + k * 37 * 29, 37, 29, -5, 4,
                                                hu * inv, hv * inv);
            expected += sample * (inv * inv);
            (sample != 0.f ? on : off) += 1;
          }
          else
            ++behind;
          ASSERT_TRUE(SameBits(sum[x * HeightPadded(19) + y], expected))
            << "projection " << k << " voxel " << x << " " << y << " " << z << ": " << sum[x * HeightPadded(19) + y]
            << " vs " << expected;
        }
    }
  }
  EXPECT_GT(behind, 0u);
  EXPECT_GT(off, 0u);
  EXPECT_GT(on, 100u);
}

TEST(ColumnBackProjection, VectorPathEqualsTheReferenceBitForBit)
{
  // Each vector path (AVX2, and AVX-512 where the processor has it). Fine voxels along y (2 mm:
  // |dv/dy| < 1.9, the rows picked from a window) and coarse ones (7 mm: gathered), v rising and
  // falling along y, columns of 5, 8, 19 and 37 voxels (not multiples of eight or sixteen), voxels projecting
  // inside, across the edges and off the detector, behind the source; sums starting random, with
  // negative zeros that a voxel off the detector must leave as they are.
  std::mt19937 random(7);
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(1000., 1500., 10., 30., -20.);
  geometry->AddProjection(400., 700., 170., -15., 5., 0., 0., 10., -8.);
  geometry->AddProjection(60., 200., 200.);
  geometry->AddProjection(1000., 1500., 300., 0., 0., 0., 0., 0., 0.);
  const unsigned int count = geometry->GetNumberOfProjections();
  if (ColumnInstructionsInUse() == ColumnInstructions::Reference)
    GTEST_SKIP() << "this processor has no AVX2: the reference loop is the only path";
  std::size_t compared = 0, changed = 0, windows = 0, gathers = 0, ran[3] = { 0, 0, 0 };
  auto projections = RandomStack(count, 3., random);
  ColumnStack stack;
  stack.Resize(static_cast<int>(count), 37, 29, -5, 4);
  for (unsigned int k = 0; k < count; ++k)
    stack.Fill(static_cast<int>(k), projections->GetBufferPointer() + k * 37 * 29);
  for (double yMm : { 2., -2., 7., -7. })
    for (int height : { 5, 8, 19, 37 })
    {
      auto volume = VolumeGrid(height, yMm);
      const auto matrices = VoxelToPixelMatrices(volume.GetPointer(), projections.GetPointer(), geometry.GetPointer(), 0, count);
      for (unsigned int k = 0; k < count; ++k)
        for (bool weighted : { false, true })
          for (float z = -7.f; z < -2.f; z += 1.f)
          {
            ASSERT_TRUE(ColumnsAllowed(matrices[k]));
            // Which path the columns take: the pixels per voxel along y at the slice's centre.
            float hu, hv, hw;
            HomogeneousAt(matrices[k].matrix, 7.f, 2.f, z, hu, hv, hw);
            (std::abs(matrices[k].matrix[5] / hw) < 1.9f ? windows : gathers) += 1;
            ColumnLaunch launch;
            launch.matrix = matrices[k].matrix;
            launch.stack = &stack;
            launch.projection = static_cast<int>(k);
            launch.x0 = -3;
            launch.width = 21;
            launch.y0 = 2;
            launch.height = height;
            launch.z = z;
            launch.distanceWeight = weighted;
            std::vector<float> initial(21 * HeightPadded(height));
            std::uniform_real_distribution<float> start(-1.f, 1.f);
            for (std::size_t i = 0; i < initial.size(); ++i)
              initial[i] = i % 13 == 0 ? -0.f : start(random);
            std::vector<float> reference = initial;
            launch.sum = reference.data();
            AccumulateColumnsScalar(launch);
            for (auto instructions : { ColumnInstructions::Avx2, ColumnInstructions::Avx512 })
            {
              std::vector<float> fast = initial;
              launch.sum = fast.data();
              if (!AccumulateColumnsWith(instructions, launch))
                continue; // not on this processor
              ++ran[static_cast<int>(instructions)];
              for (int x = 0; x < 21; ++x)
                for (int y = 0; y < height; ++y)
                {
                  const std::size_t i = static_cast<std::size_t>(x) * HeightPadded(height) + y;
                  ASSERT_TRUE(SameBits(fast[i], reference[i]))
                    << (instructions == ColumnInstructions::Avx2 ? "AVX2" : "AVX-512") << ", y spacing " << yMm
                    << ", height " << height << ", projection " << k << ", voxel " << x << " " << y << " " << z
                    << ": " << fast[i] << " vs " << reference[i];
                  ++compared;
                  changed += !SameBits(fast[i], initial[i]);
                }
            }
          }
    }
  std::cout << compared << " sums compared (AVX2 " << ran[1] << " slices, AVX-512 " << ran[2] << "), " << changed
            << " changed; slices taking the window " << windows << ", the gathers " << gathers << std::endl;
  EXPECT_GT(ran[1], 0u);
  EXPECT_GT(changed, compared / 6);
  EXPECT_LT(changed, compared - compared / 20);
  EXPECT_GT(windows, 0u);
  EXPECT_GT(gathers, 0u);
}

TEST(ColumnBackProjection, ColumnRangesComputeTheirVoxelsAsTheWholeColumn)
{
  // yBegin / yEnd per column (the field of view): every instruction set computes the voxels of the
  // range exactly as without ranges, and the reference loop leaves the voxels outside untouched.
  std::mt19937 random(11);
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(1000., 1500., 10., 30., -20.);
  geometry->AddProjection(400., 700., 170., -15., 5., 0., 0., 10., -8.);
  const unsigned int count = geometry->GetNumberOfProjections();
  auto projections = RandomStack(count, 3., random);
  ColumnStack stack;
  stack.Resize(static_cast<int>(count), 37, 29, -5, 4);
  for (unsigned int k = 0; k < count; ++k)
    stack.Fill(static_cast<int>(k), projections->GetBufferPointer() + k * 37 * 29);
  const int height = 37, rows = HeightPadded(height);
  auto volume = VolumeGrid(height, 2.);
  const auto matrices = VoxelToPixelMatrices(volume.GetPointer(), projections.GetPointer(), geometry.GetPointer(), 0, count);
  // Ranges of every kind: empty, whole, starting inside an eight-voxel group, ending at the top.
  std::vector<int> yBegin(21), yEnd(21);
  for (int x = 0; x < 21; ++x)
  {
    yBegin[static_cast<std::size_t>(x)] = (x * 5) % 23;
    yEnd[static_cast<std::size_t>(x)] = x % 7 == 0 ? yBegin[static_cast<std::size_t>(x)] : std::min(height, yBegin[static_cast<std::size_t>(x)] + 3 + x);
  }
  std::size_t compared = 0;
  for (unsigned int k = 0; k < count; ++k)
    for (auto instructions : { ColumnInstructions::Reference, ColumnInstructions::Avx2, ColumnInstructions::Avx512 })
    {
      ColumnLaunch launch;
      launch.matrix = matrices[k].matrix;
      launch.stack = &stack;
      launch.projection = static_cast<int>(k);
      launch.x0 = -3;
      launch.width = 21;
      launch.y0 = 2;
      launch.height = height;
      launch.z = -5.f;
      launch.distanceWeight = true;
      std::vector<float> whole(21 * rows, 0.5f), ranged(21 * rows, 0.5f);
      launch.sum = whole.data();
      if (!AccumulateColumnsWith(instructions, launch))
        continue; // not on this processor
      launch.sum = ranged.data();
      launch.yBegin = yBegin.data();
      launch.yEnd = yEnd.data();
      ASSERT_TRUE(AccumulateColumnsWith(instructions, launch));
      for (int x = 0; x < 21; ++x)
        for (int y = 0; y < height; ++y)
        {
          const std::size_t i = static_cast<std::size_t>(x) * rows + y;
          if (y >= yBegin[static_cast<std::size_t>(x)] && y < yEnd[static_cast<std::size_t>(x)])
          {
            ASSERT_TRUE(SameBits(ranged[i], whole[i])) << "x " << x << ", y " << y;
            ++compared;
          }
          else if (instructions == ColumnInstructions::Reference)
            ASSERT_TRUE(SameBits(ranged[i], 0.5f)) << "x " << x << ", y " << y << " is outside its range";
        }
    }
  EXPECT_GT(compared, 200u);
}

TEST(ColumnBackProjection, FilterColumnsEqualRunsAlongZToRounding)
{
  // The FDK backprojection filter on a circular scan: columns along y (the default) against the
  // runs along z that any matrix takes; they differ only in how each voxel's coordinates are
  // rounded. A volume not a multiple of eight along y, a detector offset, 70 projections (one batch
  // and a part), 2 threads and 5: the same volume.
  auto geometry = CircularGeometry(70, 360., 500., 800., 6., -4.);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 64, 2.);
  auto volume = ConstantImageSource<ImageType>::New();
  CentredGrid(volume, ImageType::SizeType{ { 45, 43, 41 } }, 3., 3., 3.);
  auto run = [&](bool columns, unsigned int threads) {
    auto bp = FDKBackProjectionImageFilter<ImageType>::New();
    bp->SetInput(0, volume->GetOutput());
    bp->SetProjections(projections);
    bp->SetGeometry(geometry);
    bp->SetColumnsAlongY(columns);
    bp->SetNumberOfWorkUnits(threads);
    bp->Update();
    ImageType::Pointer out = bp->GetOutput();
    out->DisconnectPipeline();
    return out;
  };
  const auto columns = run(true, 2), columns5 = run(true, 5), runs = run(false, 2);
  const double difference = RelativeDifference(columns, runs);
  std::cout << "columns vs runs along z: relative L2 " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
  EXPECT_EQ(RelativeDifference(columns5, columns), 0.);
  double norm = 0.;
  for (float v : std::vector<float>(columns->GetBufferPointer(), columns->GetBufferPointer() + 45 * 43 * 41))
    norm += std::abs(v);
  EXPECT_GT(norm, 1.); // the projections reached the volume
}

TEST(ColumnBackProjection, ReportsProgressPerSlabAndStopsWhenAborted)
{
  // The columns along y run slabs on the thread pool: their progress reaches the pipeline's thread
  // (observers, Python's progress callback) slab by slab and ends at 1; an abort set by an observer
  // stops the filter at the next slab (ProcessAborted), not after the whole volume. 70 projections:
  // two batches.
  auto geometry = CircularGeometry(70, 360., 500., 800., 0., 0.);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 64, 2.);
  auto volume = ConstantImageSource<ImageType>::New();
  CentredGrid(volume, ImageType::SizeType{ { 40, 40, 64 } }, 3., 3., 3.);
  for (double stopAt : { 2., 0.3 })
  {
    auto bp = FDKBackProjectionImageFilter<ImageType>::New();
    bp->SetInput(0, volume->GetOutput());
    bp->SetProjections(projections);
    bp->SetGeometry(geometry);
    bp->SetNumberOfWorkUnits(2);
    std::vector<float> seen;
    auto * filter = bp.GetPointer();
    bp->AddObserver(itk::ProgressEvent(), [&seen, filter, stopAt](const itk::EventObject &) {
      seen.push_back(filter->GetProgress());
      if (seen.back() > stopAt)
        filter->AbortGenerateDataOn();
    });
    if (stopAt > 1.)
    {
      bp->Update();
      EXPECT_GT(seen.size(), 8u); // 8 slabs of 8 slices per batch
      ASSERT_FALSE(seen.empty());
      EXPECT_FLOAT_EQ(seen.back(), 1.f);
      for (std::size_t i = 1; i < seen.size(); ++i)
        EXPECT_LE(seen[i - 1], seen[i]);
    }
    else
    {
      EXPECT_THROW(bp->Update(), itk::ProcessAborted);
      // ITK sets an aborted filter's progress to 1 at the end: the work done is the last value below 1.
      float done = 0.f;
      for (float p : seen)
        if (p < 1.f)
          done = std::max(done, p);
      EXPECT_GT(done, 0.3f);
      EXPECT_LE(done, 0.5f); // the first batch's remaining slabs skipped (counted done), the second not run
    }
  }
}
