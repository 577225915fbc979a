// 4D ROOSTER on the CPU: it beats 4D FDK's per-frame error on a few-projections-per-frame scan of
// a breathing phantom and its frames follow the motion; one frame without regularisation is CGLS; the temporal TV's exact solutions;
// the motion mask; events and abort; bad input.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#include "cbctFourDTestProblem.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionIteratorWithIndex.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>

using namespace cbct;
using namespace cbct::test;

using ROOSTER = FourDROOSTERConeBeamReconstructionFilter<SeriesType>;

namespace
{
ROOSTER::Pointer
MakeROOSTER(const FourDProblem & problem, const SeriesType * initial)
{
  auto rooster = ROOSTER::New();
  rooster->SetInput(initial);
  rooster->SetProjections(problem.projections);
  rooster->SetGeometry(problem.geometry);
  rooster->SetPhases(problem.phases);
  rooster->SetNumberOfIterations(6);
  rooster->SetNumberOfCGIterations(4);
  rooster->SetNumberOfTVIterations(10);
  rooster->SetGammaSpace(0.05);
  rooster->SetGammaTime(0.05);
  return rooster;
}

bool
AllFinite(const SeriesType * series)
{
  const float * p = series->GetBufferPointer();
  for (std::size_t i = 0; i < series->GetBufferedRegion().GetNumberOfPixels(); ++i)
    if (!std::isfinite(p[i]))
      return false;
  return true;
}
} // namespace

TEST(FourDROOSTER, BeatsFourDFDKPerFrameAndFollowsTheMotion)
{
  const FourDProblem problem;
  auto fdk = problem.FourDFDK();
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, problem.frames);
  auto rooster = MakeROOSTER(problem, initial);
  rooster->Update();
  SeriesType * out = rooster->GetOutput();
  ASSERT_TRUE(AllFinite(out));
  for (unsigned int f = 0; f < problem.frames; ++f)
  {
    const double maeFDK = problem.FrameMAE(fdk, f), maeROOSTER = problem.FrameMAE(out, f);
    std::cout << "frame " << f << ": MAE 4D FDK " << maeFDK << ", 4D ROOSTER " << maeROOSTER << std::endl;
    EXPECT_LT(maeROOSTER, 0.5 * maeFDK) << "frame " << f;
  }
  // Positivity (on by default).
  const float * p = out->GetBufferPointer();
  EXPECT_GE(*std::min_element(p, p + out->GetBufferedRegion().GetNumberOfPixels()), 0.f);
  // The data term the conjugate gradients reduce is recorded, finite and decreasing overall.
  ASSERT_EQ(rooster->GetResidualNorms().size(), 6u);
  EXPECT_LT(rooster->GetResidualNorms().back(), rooster->GetResidualNorms().front());
  EXPECT_EQ(rooster->GetCurrentIteration(), 6u);

  // The frames follow the motion: the moving sphere's centre of mass along y in frames 0 (exhale,
  // y = -6 mm) and 2 of 5 (y = -6 + 12 sin^2(0.4 pi) = 4.85 mm).
  auto centreY = [&](unsigned int f) {
    auto frame = Frame(out, f);
    double sum = 0., weighted = 0.;
    itk::ImageRegionConstIteratorWithIndex<ImageType> it(frame, frame->GetLargestPossibleRegion());
    for (; !it.IsAtEnd(); ++it)
    {
      ImageType::PointType point;
      frame->TransformIndexToPhysicalPoint(it.GetIndex(), point);
      // The sphere's column: x near -4, z near 3 (the body and the insert are the same in every frame).
      if (std::abs(point[0] + 4.) > 5. || std::abs(point[2] - 3.) > 5.)
        continue;
      const double excess = std::max(0., it.Get() - 1.2); // above the body's density
      sum += excess;
      weighted += excess * point[1];
    }
    return sum > 0. ? weighted / sum : std::numeric_limits<double>::quiet_NaN();
  };
  const double y0 = centreY(0), y2 = centreY(2);
  std::cout << "sphere centre y: frame 0 " << y0 << " mm, frame 2 " << y2 << " mm" << std::endl;
  EXPECT_NEAR(y0, -6., 1.);
  EXPECT_NEAR(y2, -6. + 12. * std::pow(std::sin(0.4 * M_PI), 2.), 1.);
}

TEST(FourDROOSTER, OneFrameWithoutRegularisationIsCGLS)
{
  // One frame: every projection sees it with weight 1, so the 4D model is A and 1 iteration of 5
  // conjugate gradient steps is CGLS's 5 iterations.
  const FourDProblem problem(1, 30, 2.);
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, 1);
  auto rooster = ROOSTER::New();
  rooster->SetInput(initial);
  rooster->SetProjections(problem.projections);
  rooster->SetGeometry(problem.geometry);
  rooster->SetPhases(problem.phases);
  rooster->SetNumberOfIterations(1);
  rooster->SetNumberOfCGIterations(5);
  rooster->PositivityOff();
  rooster->Update();

  auto zero = ZeroVolume(FourDProblem::Voxels, FourDProblem::Spacing);
  auto cgls = CGLSConeBeamReconstructionFilter<ImageType>::New();
  cgls->SetInput(0, zero->GetOutput());
  cgls->SetProjections(problem.projections);
  cgls->SetGeometry(problem.geometry);
  cgls->SetNumberOfIterations(5);
  cgls->Update();
  const double difference = RelativeDifference(Frame(rooster->GetOutput(), 0), cgls->GetOutput());
  std::cout << "one-frame 4D ROOSTER vs CGLS: relative difference " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
  ASSERT_EQ(rooster->GetResidualNorms().size(), 1u);
  EXPECT_NEAR(rooster->GetResidualNorms()[0], cgls->GetResidualNorms().back(), 1e-5 * cgls->GetResidualNorms().back());
}

TEST(FourDROOSTER, InterpolationWeightsPerFrame)
{
  // Phase 0.3 of 4 frames: x = 1.2, frames 1 (0.8) and 2 (0.2); phase 0.9: frames 3 (0.4) and 0 (0.6).
  const auto w = ROOSTER::FrameWeights({ 0.3, 0.9, 0. }, 4);
  ASSERT_EQ(w.size(), 4u);
  EXPECT_NEAR(w[1][0], 0.8f, 1e-6f);
  EXPECT_NEAR(w[2][0], 0.2f, 1e-6f);
  EXPECT_EQ(w[0][0], 0.f);
  EXPECT_NEAR(w[3][1], 0.4f, 1e-6f);
  EXPECT_NEAR(w[0][1], 0.6f, 1e-6f);
  EXPECT_EQ(w[0][2], 1.f);
  // One frame: both links are frame 0, the weights add up to 1.
  const auto one = ROOSTER::FrameWeights({ 0.3, 0.7 }, 1);
  EXPECT_NEAR(one[0][0], 1.f, 1e-6f);
  EXPECT_NEAR(one[0][1], 1.f, 1e-6f);
}

TEST(FourDROOSTER, TemporalTotalVariationSolutions)
{
  // Two frames, cyclic: 1/2 (u0 - f0)^2 + 1/2 (u1 - f1)^2 + 2 lambda |u1 - u0| gives u0 = f0 + 2 lambda,
  // u1 = f1 - 2 lambda while f1 - f0 > 4 lambda. A spike of 1 in one frame of 8 falls to 1 - 2 lambda
  // and the 7 others rise to 2 lambda / 7 (the mean is kept). A constant series is unchanged.
  FourDOperations operations({}, 0, 3);
  std::vector<std::vector<float>> two{ { 0.f, 5.f, 2.f }, { 1.f, 5.f, 2.f } };
  operations.TemporalTotalVariation(two, 0.1, 500);
  EXPECT_NEAR(two[0][0], 0.2f, 1e-4f);
  EXPECT_NEAR(two[1][0], 0.8f, 1e-4f);
  EXPECT_NEAR(two[0][1], 5.f, 1e-5f);
  EXPECT_NEAR(two[1][1], 5.f, 1e-5f);
  EXPECT_NEAR(two[0][2], 2.f, 1e-5f);
  EXPECT_NEAR(two[1][2], 2.f, 1e-5f);

  FourDOperations eight({}, 0, 1);
  std::vector<std::vector<float>> spike(8, std::vector<float>{ 0.f });
  spike[2][0] = 1.f;
  eight.TemporalTotalVariation(spike, 0.1, 1000);
  for (unsigned int t = 0; t < 8; ++t)
    EXPECT_NEAR(spike[t][0], t == 2 ? 0.8f : 0.2f / 7.f, 1e-4f) << "frame " << t;
  // Fewer than two frames: nothing to regularise.
  std::vector<std::vector<float>> single{ { 3.f } };
  FourDOperations(std::vector<std::vector<float>>{}, 0, 1).TemporalTotalVariation(single, 0.5, 10);
  EXPECT_EQ(single[0][0], 3.f);
}

TEST(FourDROOSTER, MotionMaskAveragesOutside)
{
  const FourDProblem problem(3, 45, 4.3);
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, problem.frames);
  auto mask = Frame(initial, 0);
  // Motion only in the half x >= 0 (index >= 16).
  itk::ImageRegionIteratorWithIndex<ImageType> it(mask, mask->GetLargestPossibleRegion());
  for (; !it.IsAtEnd(); ++it)
    it.Set(it.GetIndex()[0] >= 16 ? 1.f : 0.f);
  auto rooster = MakeROOSTER(problem, initial);
  rooster->SetNumberOfIterations(2);
  rooster->SetGammaSpace(0.); // the spatial TV would couple voxels across the mask's edge
  rooster->SetGammaTime(0.);
  rooster->SetMotionMask(mask);
  rooster->Update();
  const SeriesType * out = rooster->GetOutput();
  ASSERT_TRUE(AllFinite(out));
  const std::size_t voxels = FourDProblem::Voxels * FourDProblem::Voxels * FourDProblem::Voxels;
  const float * p = out->GetBufferPointer();
  const float * m = mask->GetBufferPointer();
  double outsideSpread = 0., insideSpread = 0.;
  for (std::size_t v = 0; v < voxels; ++v)
  {
    double lo = p[v], hi = p[v];
    for (unsigned int f = 1; f < problem.frames; ++f)
    {
      lo = std::min(lo, static_cast<double>(p[f * voxels + v]));
      hi = std::max(hi, static_cast<double>(p[f * voxels + v]));
    }
    (m[v] == 0.f ? outsideSpread : insideSpread) = std::max(m[v] == 0.f ? outsideSpread : insideSpread, hi - lo);
  }
  std::cout << "largest spread over the frames: outside the mask " << outsideSpread << ", inside " << insideSpread << std::endl;
  // Outside, each voxel's frames were given one mean: exactly equal.
  EXPECT_EQ(outsideSpread, 0.);
  EXPECT_GT(insideSpread, 0.1); // the sphere moves there
}

TEST(FourDROOSTER, StageTimesAddUpAndChangeNothing)
{
  // StageTiming only measures: the frames are the same bits with it, every stage that ran has a time,
  // and together they are within the update's time.
  const FourDProblem problem(3, 45, 4.3);
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, problem.frames);
  auto plain = MakeROOSTER(problem, initial);
  plain->SetNumberOfIterations(1);
  plain->SetNumberOfCGIterations(1);
  plain->Update();
  EXPECT_EQ(plain->GetStageTimes().forward, 0.);
  auto timed = MakeROOSTER(problem, initial);
  timed->SetNumberOfIterations(1);
  timed->SetNumberOfCGIterations(1);
  timed->StageTimingOn();
  const auto start = std::chrono::steady_clock::now();
  timed->Update();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t n = plain->GetOutput()->GetBufferedRegion().GetNumberOfPixels();
  EXPECT_EQ(std::memcmp(plain->GetOutput()->GetBufferPointer(), timed->GetOutput()->GetBufferPointer(), n * sizeof(float)), 0);
  const auto & t = timed->GetStageTimes();
  std::cout << "stages (s): upload " << t.upload << ", forward " << t.forward << ", back " << t.back << ", vectors " << t.vectors
            << ", positivity " << t.positivity << ", spatial TV " << t.spatialTV << ", temporal TV " << t.temporalTV
            << ", download " << t.download << "; update " << total << std::endl;
  for (double stage : { t.forward, t.back, t.vectors, t.spatialTV, t.temporalTV, t.download })
    EXPECT_GT(stage, 0.);
  EXPECT_GE(t.upload, 0.);
  EXPECT_GE(t.positivity, 0.);
  const double sum = t.upload + t.forward + t.back + t.vectors + t.positivity + t.spatialTV + t.temporalTV + t.download;
  EXPECT_LE(sum, total);
}

TEST(FourDROOSTER, EventsAndAbort)
{
  const FourDProblem problem(2, 20, 3.);
  auto rooster = MakeROOSTER(problem, ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, 2));
  rooster->SetNumberOfIterations(5);
  unsigned int events = 0;
  auto observer = itk::CStyleCommand::New();
  observer->SetClientData(&events);
  struct Abort
  {
    static void
    Callback(itk::Object * caller, const itk::EventObject &, void * data)
    {
      auto * count = static_cast<unsigned int *>(data);
      if (++*count == 2)
        static_cast<ROOSTER *>(caller)->AbortGenerateDataOn();
    }
  };
  observer->SetCallback(&Abort::Callback);
  rooster->AddObserver(itk::IterationEvent(), observer);
  try
  {
    rooster->Update();
  }
  catch (const itk::ProcessAborted &)
  {
  }
  EXPECT_EQ(events, 2u);
  EXPECT_EQ(rooster->GetCurrentIteration(), 2u);
  EXPECT_EQ(rooster->GetResidualNorms().size(), 2u);
}

TEST(FourDROOSTER, BadParameters)
{
  const FourDProblem problem(2, 12, 2.);
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, 2);
  auto expectThrow = [&](const std::function<void(ROOSTER *)> & change, const std::string & words) {
    auto rooster = MakeROOSTER(problem, initial);
    rooster->SetNumberOfIterations(1);
    change(rooster);
    try
    {
      rooster->Update();
      ADD_FAILURE() << "no exception for " << words;
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(words), std::string::npos) << e.GetDescription();
    }
  };
  expectThrow([](ROOSTER * r) { r->SetPhases({ 0.1, 0.2 }); }, "phases");
  expectThrow([&](ROOSTER * r) {
    auto phases = problem.phases;
    phases[3] = 1.;
    r->SetPhases(phases);
  }, "phases");
  expectThrow([&](ROOSTER * r) {
    auto phases = problem.phases;
    phases[1] = std::nan("");
    r->SetPhases(phases);
  }, "phases");
  expectThrow([](ROOSTER * r) { r->SetNumberOfIterations(0); }, "niter");
  expectThrow([](ROOSTER * r) { r->SetNumberOfCGIterations(0); }, "cgiter");
  expectThrow([](ROOSTER * r) { r->SetNumberOfTVIterations(0); }, "tviter");
  expectThrow([](ROOSTER * r) { r->SetGammaSpace(-1.); }, "gamma_space");
  expectThrow([](ROOSTER * r) { r->SetGammaTime(std::nan("")); }, "gamma_time");
  expectThrow([](ROOSTER * r) { r->SetForwardProjector(ForwardProjectorKind::Emission); }, "forward projector");
  expectThrow([](ROOSTER * r) { r->SetGeometry(CircularGeometry(5)); }, "phases");
  expectThrow([&](ROOSTER * r) {
    auto source = ZeroVolume(16, 2.);
    source->Update();
    r->SetMotionMask(source->GetOutput());
  }, "motion mask grid");
}
