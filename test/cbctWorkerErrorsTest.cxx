// Errors on worker threads reach the caller: WorkerErrors and the ParallelizeArray(),
// ParallelizeImageRegion() and RunThreads() built on it, then failures injected into the jobs of an
// FDK reconstruction, an OS-SART iteration and the conversion of readings to line integrals (ITK's
// thread pool would have dropped them and returned a wrong volume as if all went well).
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"
#include "cbctWorkerErrors.h"

#include <gtest/gtest.h>
#include <itkImageToImageFilter.h>
#include <itkStreamingImageFilter.h>

#include <atomic>
#include <new>
#include <stdexcept>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** Injects a std::bad_alloc into the `failing`-th job run through WorkerErrors (counting from 1)
 * while it lives; counts the jobs. */
class InjectedFailure
{
public:
  explicit InjectedFailure(int failing)
  {
    WorkerErrors::SetInjectedFailure([this, failing]() {
      if (++m_Jobs == failing)
        throw std::bad_alloc();
    });
  }
  ~InjectedFailure() { WorkerErrors::SetInjectedFailure({}); }
  int
  Jobs() const
  {
    return m_Jobs;
  }

private:
  std::atomic<int> m_Jobs{ 0 };
};

/** FDK of 32^3 from 24 projections of 48^2 (a small Shepp-Logan problem), in `slabs` slabs. */
ImageType::Pointer
SmallFdk(unsigned int slabs = 1)
{
  static const auto geometry = CircularGeometry(24);
  static const auto projections = ProjectPhantom(geometry, SheppLogan(), 48, 4.);
  auto zero = ZeroVolume(32, 4.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  streamer->Update();
  ImageType::Pointer volume = streamer->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** A filter whose DynamicThreadedGenerateData() throws std::bad_alloc on the piece holding z = 0:
 * ITK runs it through its own ParallelizeImageRegion(). */
class ThrowingFilter : public itk::ImageToImageFilter<ImageType, ImageType>
{
public:
  using Self = ThrowingFilter;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

protected:
  ThrowingFilter() { this->DynamicMultiThreadingOn(); }
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override
  {
    if (region.GetIndex(2) == 0)
      throw std::bad_alloc();
  }
};
} // namespace

TEST(WorkerErrors, AnExceptionInAParallelizeArrayJobReachesTheCallerWithItsType)
{
  std::atomic<int> done{ 0 };
  EXPECT_THROW(ParallelizeArray(0, 100,
                                [&](itk::SizeValueType i) {
                                  if (i == 57)
                                    throw std::bad_alloc();
                                  ++done;
                                }),
               std::bad_alloc);
  EXPECT_LT(done.load(), 100);
  // An ITK exception keeps its class (an abort stays an abort), on a threader with a filter too.
  auto threader = itk::MultiThreaderBase::New();
  auto filter = ThrowingFilter::New();
  EXPECT_THROW(ParallelizeArray(
                 threader.GetPointer(), 0, 10,
                 [](itk::SizeValueType i) {
                   if (i == 3)
                     throw itk::ProcessAborted(__FILE__, __LINE__);
                 },
                 filter.GetPointer()),
               itk::ProcessAborted);
  // One item alone runs on the caller's thread in ITK's pool: the same outcome.
  EXPECT_THROW(ParallelizeArray(5, 6, [](itk::SizeValueType) { throw std::runtime_error("one"); }), std::runtime_error);
}

TEST(WorkerErrors, JobsAfterAFailureAreSkippedAndEveryJobReturnsBeforeTheRethrow)
{
  // One work unit: the items run in order on one thread, so that item 0 fails before the others
  // start, and they all skip their work.
  std::atomic<int> worked{ 0 }, running{ 0 };
  auto threader = itk::MultiThreaderBase::New();
  threader->SetNumberOfWorkUnits(1);
  EXPECT_THROW(ParallelizeArray(threader.GetPointer(), 0, 50,
                                [&](itk::SizeValueType i) {
                                  ++running;
                                  if (i == 0)
                                  {
                                    --running;
                                    throw std::runtime_error("item 0");
                                  }
                                  ++worked;
                                  --running;
                                }),
               std::runtime_error);
  EXPECT_EQ(worked.load(), 0);
  EXPECT_EQ(running.load(), 0); // nothing still runs when the caller sees the error
  try
  {
    ParallelizeArray(threader.GetPointer(), 0, 50, [](itk::SizeValueType i) {
      throw std::runtime_error("item " + std::to_string(i));
    });
    FAIL() << "no exception";
  }
  catch (const std::runtime_error & e)
  {
    EXPECT_STREQ(e.what(), "item 0"); // the first, not a later one
  }
}

TEST(WorkerErrors, ParallelizeImageRegionAndThreadsPassTheFirstErrorOn)
{
  ImageType::RegionType region;
  region.SetSize({ { 8, 8, 16 } });
  auto threader = itk::MultiThreaderBase::New();
  EXPECT_THROW(ParallelizeImageRegion<3>(threader.GetPointer(), region,
                                         [](const ImageType::RegionType & piece) {
                                           if (piece.GetIndex(2) == 0)
                                             throw std::bad_alloc();
                                         }),
               std::bad_alloc);
  std::atomic<int> released{ 0 };
  EXPECT_THROW(RunThreads(
                 4,
                 [](std::size_t i) {
                   if (i == 2)
                     throw std::runtime_error("thread 2");
                 },
                 [&] { ++released; }),
               std::runtime_error);
  EXPECT_GE(released.load(), 1);
  EXPECT_NO_THROW(RunThreads(3, [](std::size_t) {}));
}

TEST(WorkerErrors, ItksOwnThreadsPassAFiltersErrorOn)
{
  // Filters' DynamicThreadedGenerateData() run through ITK's ParallelizeImageRegion, which passes
  // exceptions on (its ParallelizeArray does not): if a version of ITK stopped doing so, this fails.
  ImageType::RegionType region;
  region.SetSize({ { 8, 8, 16 } });
  auto image = ImageType::New();
  image->SetRegions(region);
  image->Allocate();
  auto filter = ThrowingFilter::New();
  filter->SetInput(image);
  EXPECT_THROW(filter->Update(), std::bad_alloc);
}

TEST(WorkerErrors, AFailureInjectedIntoAnyJobOfAnFdkReconstructionReachesTheCaller)
{
  const ImageType::Pointer reference = SmallFdk(2);
  int jobs = 0;
  {
    InjectedFailure count(-1); // never fails: counts the jobs of one run
    SmallFdk(2);
    jobs = count.Jobs();
  }
  ASSERT_GT(jobs, 4);
  for (int failing : { 1, jobs / 2, jobs })
  {
    InjectedFailure failure(failing);
    EXPECT_THROW(SmallFdk(2), std::bad_alloc) << "job " << failing << " of " << jobs;
  }
  // Without the injection the same run gives the same volume again, bit for bit.
  const ImageType::Pointer again = SmallFdk(2);
  const auto n = reference->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(again->GetBufferedRegion().GetNumberOfPixels(), n);
  EXPECT_TRUE(std::equal(again->GetBufferPointer(), again->GetBufferPointer() + n, reference->GetBufferPointer()));
}

TEST(WorkerErrors, AFailureInjectedIntoAnIterationOrAConversionReachesTheCaller)
{
  const auto geometry = CircularGeometry(12);
  const auto projections = ProjectPhantom(geometry, SheppLogan(), 32, 6.);
  auto zero = ZeroVolume(24, 5.);
  auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
  sart->SetInput(0, zero->GetOutput());
  sart->SetProjections(projections);
  sart->SetGeometry(geometry);
  sart->SetNumberOfIterations(1);
  sart->SetNumberOfProjectionsPerSubset(4);
  {
    InjectedFailure failure(3);
    EXPECT_THROW(sart->Update(), std::bad_alloc);
  }
  sart->Modified();
  EXPECT_NO_THROW(sart->Update());

  // Readings whose I0 is estimated per projection on the thread pool.
  auto readings = ImageType::New();
  readings->SetRegions(ImageType::SizeType{ { 16, 4, 8 } });
  readings->Allocate();
  readings->FillBuffer(1000.f);
  auto convert = IntensityToLineIntegralImageFilter<ImageType, ImageType>::New();
  convert->SetInput(readings);
  {
    InjectedFailure failure(2);
    EXPECT_THROW(convert->Update(), std::bad_alloc);
  }
  convert->Modified();
  EXPECT_NO_THROW(convert->Update());
}
