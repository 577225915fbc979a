// FDK within a memory budget: projections weighted, filtered and backprojected in batches (the same
// volume bit for bit, the projections asked for one batch at a time), the plan of slabs and batches
// (FDKMemoryPlan), and memory sizes as people write them (MemorySize).
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKMemoryPlan.h"
#include "cbctMemorySize.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionSplitterDirection.h>
#include <itkImageSource.h>
#include <itkStreamingImageFilter.h>

#include <algorithm>
#include <vector>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** A projection stack in memory handed over region by region, remembering the regions asked for:
 * what a reader that streams from disk would be asked to read. */
class RecordingSource : public itk::ImageSource<ImageType>
{
public:
  using Self = RecordingSource;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  ImageType::Pointer stack;
  std::vector<ImageType::RegionType> asked;

protected:
  void
  GenerateOutputInformation() override
  {
    this->GetOutput()->CopyInformation(stack);
    this->GetOutput()->SetLargestPossibleRegion(stack->GetLargestPossibleRegion());
  }
  void
  GenerateData() override
  {
    ImageType * output = this->GetOutput();
    const auto region = output->GetRequestedRegion();
    asked.push_back(region);
    output->SetBufferedRegion(region);
    output->Allocate();
    itk::ImageAlgorithm::Copy(stack.GetPointer(), output, region, region);
  }
};

struct Problem
{
  ThreeDCircularProjectionGeometry::Pointer geometry;
  ImageType::Pointer projections;
};

/** 150 projections (two whole batches of 64 and a part) of 40 x 40 pixels, a 28^3 volume. */
const Problem &
SmallProblem(bool tilted)
{
  static Problem problems[2];
  Problem & p = problems[tilted ? 1 : 0];
  if (!p.geometry)
  {
    p.geometry = ThreeDCircularProjectionGeometry::New();
    for (unsigned int k = 0; k < 150; ++k) // an out-of-plane tilt leaves the columns along y: runs along z
      p.geometry->AddProjection(1000., 1500., k * 360. / 150, 0., 0., tilted ? 3. : 0.);
    p.projections = ProjectPhantom(p.geometry, SheppLogan(), 40, 4.5);
  }
  return p;
}

/** FDK of the small problem in `slabs` slabs, the projections through `source` when given (else the
 * stack in memory), `perBatch` projections at a time (0: all). */
ImageType::Pointer
Reconstruct(const Problem & p, unsigned int slabs, itk::SizeValueType perBatch, RecordingSource * source = nullptr)
{
  auto zero = ZeroVolume(28, 4.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  if (source)
    fdk->SetProjections(source->GetOutput());
  else
    fdk->SetProjections(p.projections);
  fdk->SetGeometry(p.geometry);
  fdk->SetProjectionsPerBatch(perBatch);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  auto splitter = itk::ImageRegionSplitterDirection::New();
  splitter->SetDirection(2); // slabs along y, the rotation axis, as cbct-fdk cuts them
  streamer->SetRegionSplitter(splitter);
  streamer->Update();
  ImageType::Pointer volume = streamer->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

::testing::AssertionResult
SameVoxels(const ImageType * a, const ImageType * b)
{
  const auto n = a->GetBufferedRegion().GetNumberOfPixels();
  if (b->GetBufferedRegion() != a->GetBufferedRegion())
    return ::testing::AssertionFailure() << "regions differ";
  std::size_t differ = 0, nonFinite = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const float x = a->GetBufferPointer()[i], y = b->GetBufferPointer()[i];
    nonFinite += !std::isfinite(x) || !std::isfinite(y);
    differ += !(x == y) || std::signbit(x) != std::signbit(y);
  }
  if (differ > 0 || nonFinite > 0)
    return ::testing::AssertionFailure() << differ << " of " << n << " voxels differ, " << nonFinite << " not finite";
  return ::testing::AssertionSuccess();
}
} // namespace

TEST(StreamedFDK, BatchesOfProjectionsGiveTheSameVolumeBitForBit)
{
  for (bool tilted : { false, true }) // columns along y, and runs along z
  {
    const Problem & p = SmallProblem(tilted);
    const ImageType::Pointer whole = Reconstruct(p, 1, 0);
    double sum = 0.;
    for (std::size_t i = 0; i < whole->GetBufferedRegion().GetNumberOfPixels(); ++i)
      sum += std::abs(whole->GetBufferPointer()[i]);
    ASSERT_GT(sum, 1.) << "the phantom reconstructs to something";
    for (const auto & [slabs, perBatch] : { std::pair<unsigned int, itk::SizeValueType>{ 1, 64 }, { 3, 128 } })
      EXPECT_TRUE(SameVoxels(Reconstruct(p, slabs, perBatch), whole))
        << (tilted ? "tilted, " : "") << slabs << " slabs, batches of " << perBatch;
  }
}

TEST(StreamedFDK, EachBatchAsksForItsProjectionsAndTheSlabsRowsAlone)
{
  const Problem & p = SmallProblem(false);
  auto source = RecordingSource::New();
  source->stack = p.projections;
  const ImageType::Pointer batched = Reconstruct(p, 3, 64, source);
  EXPECT_TRUE(SameVoxels(batched, Reconstruct(p, 1, 0)));
  // Three slabs, each asking for [0, 64), [64, 128) and [128, 150), in that order, of fewer rows than
  // the detector has.
  ASSERT_EQ(source->asked.size(), 9u);
  for (std::size_t i = 0; i < source->asked.size(); ++i)
  {
    const auto & r = source->asked[i];
    const itk::IndexValueType first = static_cast<itk::IndexValueType>(i % 3) * 64;
    EXPECT_EQ(r.GetIndex(2), first) << "request " << i;
    EXPECT_EQ(r.GetSize(2), std::min<itk::SizeValueType>(64, 150 - first)) << "request " << i;
    EXPECT_LT(r.GetSize(1), 40u) << "request " << i;
  }
}

TEST(StreamedFDKBadInput, ABatchNotAMultipleOfTheBackProjectionBatch)
{
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  try
  {
    fdk->SetProjectionsPerBatch(50);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("FDK projections per batch is 50; expected 0 (all at once) or a multiple of 64"),
              std::string::npos)
      << e.GetDescription();
  }
}

TEST(FDKMemoryPlan, SlabsCoverTheVolumeWithinTheBudgetAndBatchesAreMultiplesOf64)
{
  itk::ImageRegion<3> volume;
  volume.SetSize({ { 10, 100, 10 } });
  // A slab of h rows: h kB of volume; each projection reads h + 2 |centre distance| / 10 rows of 1 kB.
  const auto cost = [](const itk::ImageRegion<3> & slab) {
    FDKMemoryPlan::Cost c;
    const long long first = slab.GetIndex(1), end = first + static_cast<long long>(slab.GetSize(1));
    const long long spread = std::max(std::abs(first - 50), std::abs(end - 50)) / 5;
    c.fixed = slab.GetSize(1) * 1000;
    c.rows = slab.GetSize(1) + static_cast<std::uint64_t>(spread);
    c.perProjection = c.rows * 1000;
    return c;
  };
  for (std::uint64_t budget : { std::uint64_t(800000), std::uint64_t(2000000), std::uint64_t(10000000) })
  {
    const FDKMemoryPlan plan = FDKMemoryPlan::Make(volume, 720, budget, cost);
    itk::IndexValueType next = 0;
    for (const auto & slab : plan.Slabs())
    {
      EXPECT_EQ(slab.region.GetIndex(1), next);
      next += static_cast<itk::IndexValueType>(slab.region.GetSize(1));
      EXPECT_LE(slab.bytes, budget);
      EXPECT_EQ(slab.bytes, cost(slab.region).fixed + cost(slab.region).perProjection *
                                                        (plan.ProjectionsPerBatch() ? plan.ProjectionsPerBatch() : 720));
    }
    EXPECT_EQ(next, 100);
    EXPECT_EQ(plan.ProjectionsPerBatch() % 64, 0u);
    EXPECT_LE(plan.PeakBytes(), budget);
    std::cout << "budget " << budget << ": " << plan.Describe() << std::endl;
  }
  // Enough for everything at once: one slab, all projections.
  const FDKMemoryPlan all = FDKMemoryPlan::Make(volume, 720, 1000000000, cost);
  EXPECT_EQ(all.Slabs().size(), 1u);
  EXPECT_EQ(all.ProjectionsPerBatch(), 0u);
  // Fewer projections than a batch: all at once.
  EXPECT_EQ(FDKMemoryPlan::Make(volume, 30, 800000, cost).ProjectionsPerBatch(), 0u);
}

TEST(FDKMemoryPlanBadInput, ABudgetTooSmallForOneRowSaysWhatIsNeeded)
{
  itk::ImageRegion<3> volume;
  volume.SetSize({ { 10, 100, 10 } });
  const auto cost = [](const itk::ImageRegion<3> & slab) {
    FDKMemoryPlan::Cost c;
    c.fixed = 5000 + slab.GetSize(1) * 100;
    c.perProjection = slab.GetIndex(1) == 99 ? 300 : 200; // the last row's band is the widest
    return c;
  };
  try
  {
    FDKMemoryPlan::Make(volume, 720, 10000, cost);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    // The largest one-row slab: 5000 + 100 + 64 x 300 = 24300 bytes.
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("a memory budget of 9.77 kB is too small"), std::string::npos) << message;
    EXPECT_NE(message.find("needs 23.7 kB (24300 bytes)"), std::string::npos) << message;
  }
  EXPECT_NO_THROW(FDKMemoryPlan::Make(volume, 720, 24300, cost));
}

TEST(MemorySize, ReadsSizesAsPeopleWriteThem)
{
  EXPECT_EQ(MemorySize::Parse("8G", "--memory"), std::uint64_t(8) << 30);
  EXPECT_EQ(MemorySize::Parse("512M", "--memory"), std::uint64_t(512) << 20);
  EXPECT_EQ(MemorySize::Parse("512mb", "--memory"), std::uint64_t(512) << 20);
  EXPECT_EQ(MemorySize::Parse("1.5GiB", "--memory"), std::uint64_t(3) << 29);
  EXPECT_EQ(MemorySize::Parse("64k", "--memory"), std::uint64_t(64) << 10);
  EXPECT_EQ(MemorySize::Parse("2T", "--memory"), std::uint64_t(2) << 40);
  EXPECT_EQ(MemorySize::Parse(" 300000000 ", "--memory"), 300000000u);
  EXPECT_EQ(MemorySize::Parse("4096B", "--memory"), 4096u);
  EXPECT_EQ(MemorySize::Parse("8 G", "--memory"), std::uint64_t(8) << 30);
}

TEST(MemorySizeBadInput, NamesTheOptionTheTextAndWhatIsExpected)
{
  for (const char * text : { "", "G", "-1G", "0", "0.1", "8X", "8 G B", "nan", "inf", "1e30G", "8GG" })
  {
    try
    {
      MemorySize::Parse(text, "--gpu-memory");
      FAIL() << "'" << text << "' was accepted";
    }
    catch (const itk::ExceptionObject & e)
    {
      const std::string message = e.GetDescription();
      EXPECT_NE(message.find("--gpu-memory is '" + std::string(text) + "'; expected a memory size > 0 such as 8G, 512M"),
                std::string::npos)
        << message;
    }
  }
}
