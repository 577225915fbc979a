// Iterative reconstructions shared by participants holding slabs of the volume (several GPUs, MPI
// ranks): the reduction's sums, and SART, CGLS and OSEM run by three threads on three slabs (CPU
// filters, ThreadSlabReduction) against the same method on the whole volume.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctSlabSplit.h"
#include "cbctThreadSlabReduction.h"

#include <gtest/gtest.h>
#include <itkImageAlgorithm.h>

#include <thread>

using namespace cbct;
using namespace cbct::test;

TEST(ThreadSlabReduction, SumsInParticipantOrderTheSameForEveryone)
{
  constexpr unsigned int participants = 3;
  constexpr std::size_t count = 1001;
  ThreadSlabReduction reduction(participants);
  std::vector<std::vector<float>> buffers(participants, std::vector<float>(count));
  for (unsigned int p = 0; p < participants; ++p)
    for (std::size_t i = 0; i < count; ++i)
      buffers[p][i] = static_cast<float>((p + 1) * 1e-3 * (i % 17)) + (p == 1 ? 1e4f : 0.f);
  std::vector<double> sums(participants);
  const auto original = buffers;
  std::vector<std::thread> threads;
  for (unsigned int p = 0; p < participants; ++p)
    threads.emplace_back([&, p] {
      reduction.Participant(p)->SumProjections(buffers[p].data(), count);
      sums[p] = reduction.Participant(p)->Sum(0.5 * (p + 1));
    });
  for (auto & t : threads)
    t.join();
  for (std::size_t i = 0; i < count; ++i)
  {
    const float expected = (original[0][i] + original[1][i]) + original[2][i]; // participant order
    for (unsigned int p = 0; p < participants; ++p)
      ASSERT_EQ(buffers[p][i], expected) << "element " << i << " of participant " << p;
  }
  for (unsigned int p = 0; p < participants; ++p)
    EXPECT_EQ(sums[p], 3.);
}

TEST(ThreadSlabReduction, AbandonStopsTheOthersWaiting)
{
  ThreadSlabReduction reduction(2);
  bool threw = false;
  std::thread waiting([&] {
    try
    {
      reduction.Participant(0)->Sum(1.);
    }
    catch (const itk::ExceptionObject & e)
    {
      threw = std::string(e.GetDescription()).find("another GPU of this reconstruction failed") != std::string::npos;
    }
  });
  reduction.Abandon(); // participant 1 failed before its first sum
  waiting.join();
  EXPECT_TRUE(threw);
}

namespace
{
/** `configure`d filters of type TFilter run on the whole volume, and by three threads on three slabs
 * sharing their sums; the relative L2 difference of the two volumes, and of the whole one from the
 * initial volume (so that a method that did nothing cannot pass). */
template <typename TFilter>
std::pair<double, double>
WholeAgainstSlabs(const std::function<void(TFilter *)> & configure, float initialValue)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 96, 2.);
  auto initial = ZeroVolume(64, 2.);
  initial->SetConstant(initialValue);
  initial->Update();
  const ImageType * start = initial->GetOutput();

  auto whole = TFilter::New();
  configure(whole);
  whole->SetInput(0, start);
  whole->SetProjections(projections);
  whole->SetGeometry(geometry);
  whole->Update();

  const auto region = start->GetLargestPossibleRegion();
  const auto slabs = SlabSplit::Equal(region, 3);
  ThreadSlabReduction reduction(3);
  auto shared = ImageType::New();
  shared->CopyInformation(start);
  shared->SetRegions(region);
  shared->Allocate();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(3);
  for (unsigned int p = 0; p < 3; ++p)
    threads.emplace_back([&, p] {
      try
      {
        auto slab = ImageType::New();
        slab->CopyInformation(start);
        slab->SetRegions(slabs[p]);
        slab->Allocate();
        itk::ImageAlgorithm::Copy(start, slab.GetPointer(), slabs[p], slabs[p]);
        auto filter = TFilter::New();
        configure(filter);
        filter->SetInput(0, slab);
        filter->SetProjections(projections);
        filter->SetGeometry(geometry);
        filter->SetSlabReduction(reduction.Participant(p));
        filter->Update();
        itk::ImageAlgorithm::Copy(filter->GetOutput(), shared.GetPointer(), slabs[p], slabs[p]);
      }
      catch (const std::exception & e)
      {
        errors[p] = e.what();
        reduction.Abandon();
      }
    });
  for (auto & t : threads)
    t.join();
  for (const auto & e : errors)
    EXPECT_TRUE(e.empty()) << e;
  return { RelativeDifference(shared, whole->GetOutput()), RelativeDifference(whole->GetOutput(), start) };
}
} // namespace

TEST(SlabSharing, OSSartOnThreeSlabsEqualsTheWholeVolume)
{
  using Filter = SARTConeBeamReconstructionFilter<ImageType>;
  const auto [difference, moved] = WholeAgainstSlabs<Filter>(
    [](Filter * f) {
      f->SetNumberOfIterations(2);
      f->SetNumberOfProjectionsPerSubset(10);
      f->SetLambda(0.8);
      f->SetEnforcePositivity(true);
    },
    0.f);
  std::cout << "OS-SART: slabs vs whole " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
  EXPECT_GT(moved, 0.5);
}

TEST(SlabSharing, CglsOnThreeSlabsEqualsTheWholeVolume)
{
  using Filter = CGLSConeBeamReconstructionFilter<ImageType>;
  const auto [difference, moved] = WholeAgainstSlabs<Filter>([](Filter * f) { f->SetNumberOfIterations(4); }, 0.f);
  std::cout << "CGLS: slabs vs whole " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
  EXPECT_GT(moved, 0.5);
}

TEST(SlabSharing, OsemWithTheVoxelBackProjectorOnThreeSlabsEqualsTheWholeVolume)
{
  using Filter = OSEMConeBeamReconstructionFilter<ImageType>;
  const auto [difference, moved] = WholeAgainstSlabs<Filter>(
    [](Filter * f) {
      f->SetNumberOfIterations(2);
      f->SetNumberOfProjectionsPerSubset(15);
      f->SetBackProjector(BackProjectorKind::VoxelBased);
    },
    1.f);
  std::cout << "OSEM: slabs vs whole " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
  EXPECT_GT(moved, 0.1);
}

TEST(SlabSharing, TheEmissionProjectorIsRefused)
{
  // Emission OSEM split over slabs: each slab would lay the views' slices out over itself, so the
  // slabs' projections would not add up to the whole volume's; refused with the reason.
  auto geometry = CircularGeometry(8);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 16, 8.);
  auto initial = ZeroVolume(8, 8.);
  ThreadSlabReduction reduction(1);
  auto osem = OSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, initial->GetOutput());
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  osem->SetForwardProjector(ForwardProjectorKind::Emission);
  osem->SetCollimatorBlur({ 1., 0.02 });
  osem->SetSlabReduction(reduction.Participant(0));
  try
  {
    osem->Update();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("forward projector of a reconstruction shared among GPUs or MPI ranks is emission"), std::string::npos)
      << message;
    EXPECT_NE(message.find("one process and one GPU"), std::string::npos) << message;
  }
}

TEST(SlabSharing, TheRayCasterIsRefused)
{
  auto geometry = CircularGeometry(8);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 16, 8.);
  auto initial = ZeroVolume(8, 8.);
  ThreadSlabReduction reduction(1);
  auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
  sart->SetInput(0, initial->GetOutput());
  sart->SetProjections(projections);
  sart->SetGeometry(geometry);
  sart->SetForwardProjector(ForwardProjectorKind::RayCast);
  sart->SetSlabReduction(reduction.Participant(0));
  try
  {
    sart->Update();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("forward projector of a reconstruction shared among GPUs or MPI ranks is raycast"),
              std::string::npos)
      << e.GetDescription();
  }
}
