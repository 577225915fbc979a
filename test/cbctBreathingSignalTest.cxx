// Breathing signal: the Amsterdam shroud's values on projections whose derivatives are known,
// the phases found in simulated breathing scans (the static Shepp-Logan around a moving ellipsoid)
// against the simulation's, phases from signals, and bad inputs refused.
#include "cbctAmsterdamShroudImageFilter.h"
#include "cbctBreathingPhantom.h"
#include "cbctBreathingPhantomProjectionSource.h"
#include "cbctBreathingSignal.h"
#include "cbctPhaseSignal.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkImageRegionIteratorWithIndex.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
using ShroudType = BreathingSignal::ShroudType;
using ShroudFilter = AmsterdamShroudImageFilter<ImageType, ShroudType>;

/** A stack of `count` projections of columns x rows pixels with p(u, v, k) = f(u, v, k). */
template <typename F>
ImageType::Pointer
Stack(unsigned int columns, unsigned int rows, unsigned int count, double du, double dv, F f)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { columns, rows, count } });
  ImageType::SpacingType spacing;
  spacing[0] = du;
  spacing[1] = dv;
  spacing[2] = 1.;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -0.5 * (columns - 1.) * du;
  origin[1] = -0.5 * (rows - 1.) * dv;
  origin[2] = 0.;
  image->SetOrigin(origin);
  image->Allocate();
  for (itk::ImageRegionIteratorWithIndex<ImageType> it(image, image->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    ImageType::PointType point;
    image->TransformIndexToPhysicalPoint(it.GetIndex(), point);
    it.Set(static_cast<float>(f(point[0], point[1], it.GetIndex()[2])));
  }
  return image;
}

ShroudType::Pointer
Shroud(const ImageType * projections, double sigma, ShroudFilter::EdgeDirection direction = ShroudFilter::EdgeDirection::DenserBelow)
{
  auto filter = ShroudFilter::New();
  filter->SetInput(projections);
  filter->SetSigma(sigma);
  filter->SetEdgeDirection(direction);
  filter->Update();
  return filter->GetOutput();
}

/** Largest distance along the cycle between `found` shifted by their mean offset and `truth`; the
 * offset (the choice of phase 0) is returned in `offset`. */
double
PhaseError(const std::vector<double> & found, const std::vector<double> & truth, double & offset)
{
  EXPECT_EQ(found.size(), truth.size());
  double c = 0., s = 0.;
  for (std::size_t k = 0; k < found.size(); ++k)
  {
    c += std::cos(2. * M_PI * (found[k] - truth[k]));
    s += std::sin(2. * M_PI * (found[k] - truth[k]));
  }
  offset = std::atan2(s, c) / (2. * M_PI);
  double worst = 0.;
  for (std::size_t k = 0; k < found.size(); ++k)
  {
    if (!std::isfinite(found[k]))
      return std::numeric_limits<double>::infinity();
    double shifted = found[k] - offset;
    shifted -= std::floor(shifted);
    worst = std::max(worst, PhaseSignal::CyclicDistance(shifted, truth[k]));
  }
  return worst;
}

/** The Shepp-Logan head (scale 60 mm) with a dense ellipsoid under its centre that breathes: the
 * static anatomy around one moving structure. */
BreathingPhantom::Pointer
BreathingHead(double amplitude)
{
  auto phantom = SheppLogan();
  GeometricPhantom::Ellipsoid moving;
  moving.density = 0.5;
  moving.center = { { 5., -25., 0. } };
  moving.semiAxes = { { 25., 15., 20. } };
  phantom->AddEllipsoid(moving);
  auto breathing = BreathingPhantom::New();
  breathing->SetPhantom(phantom);
  breathing->SetMovingEllipsoids({ static_cast<unsigned int>(phantom->GetEllipsoids().size() - 1) });
  breathing->SetAmplitude({ { 0., amplitude, 0. } });
  return breathing;
}

ImageType::Pointer
BreathingScan(const BreathingPhantom * breathing, const std::vector<double> & phases, unsigned int pixels, double pixelMm)
{
  auto geometry = CircularGeometry(static_cast<unsigned int>(phases.size()));
  auto source = BreathingPhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { pixels, pixels, geometry->GetNumberOfProjections() } }, pixelMm, pixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetBreathingPhantom(breathing);
  source->SetPhases(phases);
  source->Update();
  return source->GetOutput();
}
} // namespace

TEST(AmsterdamShroud, ValuesOfARamp)
{
  // p = -0.1 (k + 1) v + 0.3 u: -dp/dv = 0.1 (k + 1) on every pixel, 12 columns summed.
  const auto projections = Stack(12, 20, 5, 1.5, 2., [](double u, double v, long k) { return -0.1 * (k + 1) * v + 0.3 * u; });
  for (const double sigma : { 0., 3. })
  {
    const auto shroud = Shroud(projections, sigma);
    ASSERT_EQ(shroud->GetLargestPossibleRegion().GetSize(0), 5u);
    ASSERT_EQ(shroud->GetLargestPossibleRegion().GetSize(1), 20u);
    EXPECT_EQ(shroud->GetSpacing()[0], 1.);
    EXPECT_EQ(shroud->GetSpacing()[1], 2.);
    EXPECT_NEAR(shroud->GetOrigin()[1], -19., 1e-12);
    // The Gaussian (edge rows repeated) bends the ramp near the ends: only rows away from them when smoothing.
    const long margin = sigma > 0. ? 8 : 0;
    for (long k = 0; k < 5; ++k)
      for (long j = margin; j < 20 - margin; ++j)
        EXPECT_NEAR(shroud->GetPixel({ { k, j } }), 12. * 0.1 * (k + 1), 1e-4) << "sigma " << sigma << " k " << k << " j " << j;
  }
  // The other edges: none here; both: the absolute value.
  const auto above = Shroud(projections, 0., ShroudFilter::EdgeDirection::DenserAbove);
  const auto both = Shroud(projections, 0., ShroudFilter::EdgeDirection::Both);
  for (long k = 0; k < 5; ++k)
    for (long j = 0; j < 20; ++j)
    {
      EXPECT_EQ(above->GetPixel({ { k, j } }), 0.f);
      EXPECT_NEAR(both->GetPixel({ { k, j } }), 12. * 0.1 * (k + 1), 1e-4);
    }
}

TEST(AmsterdamShroud, ValuesOfAStep)
{
  // A dense slab below v = 0 whose top moves up one row per projection: with no smoothing the central
  // difference is (1 - 0) / (2 dv) on the two rows beside the step, summed over 7 columns.
  const double dv = 2.;
  const auto projections = Stack(7, 16, 4, 1., dv, [](double, double v, long k) { return v < 2. * k ? 1. : 0.; });
  const auto shroud = Shroud(projections, 0.);
  for (long k = 0; k < 4; ++k)
  {
    // Rows are at v = -15 + 2 j; the step lies between the last row with v < 2 k and the next.
    const long top = (2 * k + 15 - 1) / 2; // last row below the step
    for (long j = 0; j < 16; ++j)
    {
      const double expected = (j == top || j == top + 1) ? 7. * 1. / (2. * dv) : 0.;
      EXPECT_NEAR(shroud->GetPixel({ { k, j } }), expected, 1e-5) << "k " << k << " j " << j;
    }
  }
  // Flipped rows (direction -1 along v): the same edges in mm, so the same shroud, rows reversed.
  auto flipped = Stack(7, 16, 4, 1., dv, [](double, double v, long k) { return v < 2. * k ? 1. : 0.; });
  auto direction = flipped->GetDirection();
  direction(1, 1) = -1.;
  flipped->SetDirection(direction);
  auto origin = flipped->GetOrigin();
  origin[1] = 15.;
  flipped->SetOrigin(origin);
  for (itk::ImageRegionIteratorWithIndex<ImageType> it(flipped, flipped->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    ImageType::PointType point;
    flipped->TransformIndexToPhysicalPoint(it.GetIndex(), point);
    it.Set(point[1] < 2. * it.GetIndex()[2] ? 1.f : 0.f);
  }
  const auto flippedShroud = Shroud(flipped, 0.);
  EXPECT_EQ(flippedShroud->GetDirection()(1, 1), -1.);
  for (long k = 0; k < 4; ++k)
    for (long j = 0; j < 16; ++j)
      EXPECT_NEAR(flippedShroud->GetPixel({ { k, 15 - j } }), shroud->GetPixel({ { k, j } }), 1e-6);
}

TEST(AmsterdamShroud, StreamsAlongProjections)
{
  const auto projections = Stack(9, 11, 10, 1., 1., [](double u, double v, long k) { return std::sin(0.3 * v + 0.2 * k) + 0.1 * u; });
  const auto whole = Shroud(projections, 1.5);
  auto filter = ShroudFilter::New();
  filter->SetInput(projections);
  filter->SetSigma(1.5);
  filter->UpdateOutputInformation();
  ShroudType::RegionType part({ { 3, 4 } }, { { 4, 2 } });
  filter->GetOutput()->SetRequestedRegion(part);
  filter->Update();
  for (itk::ImageRegionConstIteratorWithIndex<ShroudType> it(filter->GetOutput(), part); !it.IsAtEnd(); ++it)
  {
    ASSERT_TRUE(std::isfinite(it.Get()));
    EXPECT_EQ(it.Get(), whole->GetPixel(it.GetIndex()));
  }
}

TEST(BreathingSignal, PhasesBetweenExtrema)
{
  const auto phases = BreathingSignal::PhasesBetween({ 2., 12., 17. }, 22);
  ASSERT_EQ(phases.size(), 22u);
  EXPECT_NEAR(phases[0], 1. - 2. / 7.5, 1e-12); // before the first: the mean cycle (7.5) backwards
  EXPECT_NEAR(phases[2], 0., 1e-12);
  EXPECT_NEAR(phases[7], 0.5, 1e-12);
  EXPECT_NEAR(phases[12], 0., 1e-12);
  EXPECT_NEAR(phases[14], 0.4, 1e-12);
  EXPECT_NEAR(phases[17], 0., 1e-12);
  EXPECT_NEAR(phases[21], 4. / 7.5, 1e-12); // after the last: the mean cycle
}

TEST(BreathingSignal, PhasesOfASyntheticSignal)
{
  // A sin^2 breathing of irregular cycles, with noise and a slow drift: phase 0 at the minima is the
  // waveform's phase 0.
  const auto truth = BreathingPhantom::IrregularScanPhases(600, 9.3, 0.25, 4, 0.6);
  std::mt19937 random(2);
  std::normal_distribution<double> noise(0., 0.4);
  std::vector<double> signal(truth.size());
  for (std::size_t k = 0; k < truth.size(); ++k)
    signal[k] = 12. * std::pow(std::sin(M_PI * truth[k]), 2) + noise(random) + 3. * std::sin(2. * M_PI * k / 600.) + 40.;
  // Between the first and last extrema found the phases follow the cycles; before and after them the
  // neighbouring cycle's length is a guess, as wrong as the cycles are irregular.
  double offset = 0.;
  const auto found = BreathingSignal::Phases(signal);
  const auto minima = BreathingSignal::Extrema(signal);
  ASSERT_GE(minima.size(), 8u);
  const auto first = static_cast<std::size_t>(std::ceil(minima.front()));
  const auto last = static_cast<std::size_t>(minima.back());
  EXPECT_LE(PhaseError({ found.begin() + first, found.begin() + last }, { truth.begin() + first, truth.begin() + last }, offset), 0.05);
  EXPECT_LT(std::abs(offset), 0.02);
  EXPECT_LE(PhaseError(found, truth, offset), 0.12);
  const double period = BreathingSignal::DominantPeriod(signal, 2);
  EXPECT_NEAR(period, 600. / 9.3, 6.);

  // Phase 0 at the maxima: half a cycle later.
  BreathingSignal::Options maxima;
  maxima.phaseZero = BreathingSignal::PhaseZero::Maxima;
  // (Linear between maxima differs from the simulation's phase, linear between minima, where two
  // consecutive cycles differ in length: compare where the maxima are.)
  const auto maximaAt = BreathingSignal::Extrema(signal, maxima);
  ASSERT_GE(maximaAt.size(), 8u);
  // (The noise moves an extremum by up to 0.03 cycle with GCC, 0.037 with Clang: rounding differs.)
  for (const double x : maximaAt)
    EXPECT_LE(PhaseSignal::CyclicDistance(truth[static_cast<std::size_t>(std::round(x))], 0.5), 0.05) << x;
  for (const double x : minima)
    EXPECT_LE(PhaseSignal::CyclicDistance(truth[static_cast<std::size_t>(std::round(x))], 0.), 0.05) << x;
  const auto fromMaxima = BreathingSignal::Phases(signal, maxima);
  EXPECT_LE(PhaseSignal::CyclicDistance(fromMaxima[static_cast<std::size_t>(std::ceil(maximaAt[3]))], 0.), 0.03);

  // Lujan's sin^4 (longer at exhale), regular.
  const auto regular = BreathingPhantom::ScanPhases(300, 7., 0.1);
  std::vector<double> lujan(regular.size());
  for (std::size_t k = 0; k < regular.size(); ++k)
    lujan[k] = -8. * std::pow(std::sin(M_PI * regular[k]), 4);
  BreathingSignal::Options inverted;
  inverted.phaseZero = BreathingSignal::PhaseZero::Maxima; // the signal is upside down
  EXPECT_LE(PhaseError(BreathingSignal::Phases(lujan, inverted), regular, offset), 0.03);
  EXPECT_LT(std::abs(offset), 0.02);
}

TEST(BreathingSignal, SimulatedBreathingScan)
{
  // 240 projections of 64^2 pixels of 4 mm, 6 cycles: the ellipsoid under the head's centre moves
  // 12 mm along y; the rest of the Shepp-Logan head stays.
  auto breathing = BreathingHead(12.);
  const auto truth = BreathingPhantom::ScanPhases(240, 6., 0.3);
  const auto projections = BreathingScan(breathing, truth, 64, 4.);
  for (const auto method : { BreathingSignal::Method::PrincipalMotion, BreathingSignal::Method::FollowEdge })
  {
    BreathingSignal::Options options;
    options.method = method;
    const auto result = BreathingSignal::FromProjections(projections, options);
    ASSERT_EQ(result.phases.size(), 240u);
    ASSERT_EQ(result.signal.size(), 240u);
    double offset = 0.;
    EXPECT_LE(PhaseError(result.phases, truth, offset), 0.05);
    EXPECT_LT(std::abs(offset), 0.05); // minima = the phantom's end-exhale = phase 0
    EXPECT_GT(BreathingSignal::Regularity(result.signal, 40., 2), 0.9);
    // Shroud layout: one column per projection, one row per detector row.
    EXPECT_EQ(result.shroud->GetLargestPossibleRegion().GetSize(0), 240u);
    EXPECT_EQ(result.shroud->GetLargestPossibleRegion().GetSize(1), 64u);
    if (method == BreathingSignal::Method::FollowEdge)
    {
      // The edge followed is the moving ellipsoid's top: 12 mm x 1.5 (magnification) on the detector.
      const auto [low, high] = std::minmax_element(result.signal.begin(), result.signal.end());
      EXPECT_GT(*high - *low, 0.7 * 18.);
      EXPECT_LT(*high - *low, 1.3 * 18.);
    }
  }
}

TEST(BreathingSignal, SimulatedSmallMotion)
{
  // 3 mm (4.5 mm on the detector, about one pixel), 12 cycles in 360 projections.
  auto breathing = BreathingHead(3.);
  const auto truth = BreathingPhantom::ScanPhases(360, 12., 0.);
  const auto projections = BreathingScan(breathing, truth, 64, 4.);
  const auto result = BreathingSignal::FromProjections(projections);
  double offset = 0.;
  EXPECT_LE(PhaseError(result.phases, truth, offset), 0.05);
  EXPECT_LT(std::abs(offset), 0.05);
}

TEST(BreathingSignal, SimulatedIrregularBreathingScan)
{
  auto breathing = BreathingHead(10.);
  breathing->SetWaveformExponent(2.);
  const auto truth = BreathingPhantom::IrregularScanPhases(300, 8., 0.2, 9, 0.);
  const auto projections = BreathingScan(breathing, truth, 64, 4.);
  const auto result = BreathingSignal::FromProjections(projections);
  // Between the first and last extrema; before and after them the mean cycle is extrapolated, as
  // wrong as the cycles there are irregular.
  const auto minima = BreathingSignal::Extrema(result.signal);
  ASSERT_GE(minima.size(), 6u);
  const auto first = static_cast<std::size_t>(std::ceil(minima.front()));
  const auto last = static_cast<std::size_t>(minima.back());
  double offset = 0.;
  EXPECT_LE(PhaseError({ result.phases.begin() + first, result.phases.begin() + last }, { truth.begin() + first, truth.begin() + last }, offset), 0.05);
  EXPECT_LT(std::abs(offset), 0.05);
  EXPECT_LE(PhaseError(result.phases, truth, offset), 0.1);
}

TEST(BreathingSignal, BadInputsAreRefused)
{
  BreathingSignal::Options options;
  EXPECT_THROW(BreathingSignal::Phases(std::vector<double>(5, 1.)), itk::ExceptionObject); // too short
  std::vector<double> withNaN(100, 0.);
  for (std::size_t k = 0; k < withNaN.size(); ++k)
    withNaN[k] = std::sin(0.5 * k);
  withNaN[40] = std::numeric_limits<double>::quiet_NaN();
  try
  {
    BreathingSignal::Phases(withNaN);
    FAIL() << "NaN accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("sample 40"), std::string::npos) << e.GetDescription();
  }
  EXPECT_THROW(BreathingSignal::Phases(std::vector<double>(100, 3.)), itk::ExceptionObject); // constant
  // Less than two cycles.
  std::vector<double> oneCycle(100);
  for (std::size_t k = 0; k < oneCycle.size(); ++k)
    oneCycle[k] = std::cos(2. * M_PI * k / 150.);
  options.period = 150.;
  EXPECT_THROW(BreathingSignal::Phases(oneCycle, options), itk::ExceptionObject);
  options = BreathingSignal::Options();
  options.maximumStep = 0;
  EXPECT_THROW(BreathingSignal::CheckOptions(options), itk::ExceptionObject);
  options = BreathingSignal::Options();
  options.sigma = -1.;
  EXPECT_THROW(BreathingSignal::CheckOptions(options), itk::ExceptionObject);
  options = BreathingSignal::Options();
  options.period = 2.;
  EXPECT_THROW(BreathingSignal::CheckOptions(options), itk::ExceptionObject);
  options = BreathingSignal::Options();
  options.stepPenalty = std::numeric_limits<double>::infinity();
  EXPECT_THROW(BreathingSignal::CheckOptions(options), itk::ExceptionObject);
  EXPECT_THROW(BreathingSignal::PhasesBetween({ 3. }, 10), itk::ExceptionObject);
  EXPECT_THROW(BreathingSignal::PhasesBetween({ 3., 2. }, 10), itk::ExceptionObject);

  // A static scan: nothing breathes.
  auto still = BreathingHead(0.);
  const auto projections = BreathingScan(still, BreathingPhantom::ScanPhases(40, 4.), 32, 8.);
  EXPECT_THROW(BreathingSignal::FromProjections(projections), itk::ExceptionObject);
  // A shroud filter with a negative sigma.
  auto filter = ShroudFilter::New();
  filter->SetInput(projections);
  filter->SetSigma(-2.);
  EXPECT_THROW(filter->Update(), itk::ExceptionObject);
}

TEST(BreathingSignal, BadSignalFilesAreRefused)
{
  const std::string dir = cbct::test::CurrentTestFolder().string() + "/";
  auto write = [&](const std::string & name, const std::string & text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const auto good = BreathingSignal::ReadSignal(write("cbct_signal_good.txt", "# marker\n1.5\n\n-2e-1  # low\n3\n"));
  ASSERT_EQ(good.size(), 3u);
  EXPECT_EQ(good[1], -0.2);
  auto refused = [&](const std::string & path, std::size_t count, const std::string & fragment) {
    try
    {
      BreathingSignal::ReadSignal(path, count);
      ADD_FAILURE() << path << " accepted";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(fragment), std::string::npos) << e.GetDescription();
    }
  };
  refused(write("cbct_signal_nan.txt", "1\nnan\n"), 0, "line 2 of breathing signal file");
  refused(write("cbct_signal_text.txt", "1\n2 3\n"), 0, "'2 3'");
  refused(write("cbct_signal_word.txt", "x\n"), 0, "line 1");
  refused(write("cbct_signal_empty.txt", "# nothing\n\n"), 0, "empty");
  refused(write("cbct_signal_count.txt", "1\n2\n"), 3, "3 (one per projection)");
  refused(dir + "cbct_signal_missing.txt", 0, "a readable text file");
}
