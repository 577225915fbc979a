// Projection preprocessing against its definitions: intensities to line integrals and back, the air
// estimate of I0 on noisy readings, crop, binning, conditional median, scatter correction and water
// precorrection on hand-computed cases, and their composition (ProjectionPreprocessingFilter).
#include "cbctBoellaardScatterCorrectionImageFilter.h"
#include "cbctConditionalMedianImageFilter.h"
#include "cbctI0Estimate.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctProjectionPreprocessingFilter.h"
#include "cbctTestHelpers.h"
#include "cbctWaterPrecorrectionImageFilter.h"

#include <itkImageRegionConstIteratorWithIndex.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace cbct;
using namespace cbct::test;

namespace
{
using CountImage = itk::Image<std::uint16_t, 3>;

/** An ellipsoid of water-like attenuation (0.02 per mm): line integrals up to about 1.6, and air
 * around it on a detector of `pixels` pixels of 1 mm. */
ImageType::Pointer
WaterProjections(unsigned int count, unsigned int pixels)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 0.02;
  e.semiAxes = { { 30., 25., 40. } };
  phantom->AddEllipsoid(e);
  e.density = 0.01;
  e.center = { { 5., 0., -8. } };
  e.semiAxes = { { 8., 8., 8. } };
  phantom->AddEllipsoid(e);
  return ProjectPhantom(CircularGeometry(count), phantom, pixels, 1.);
}

/** A small image with the given values (u fastest), spacing (su, sv, 1) and origin (10, 20, 0). */
ImageType::Pointer
SmallImage(unsigned int nu, unsigned int nv, unsigned int nk, const std::vector<float> & values, double su = 0.5,
           double sv = 2.)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::SizeType{ { nu, nv, nk } }));
  ImageType::SpacingType spacing;
  spacing[0] = su;
  spacing[1] = sv;
  spacing[2] = 1.;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = 10.;
  origin[1] = 20.;
  origin[2] = 0.;
  image->SetOrigin(origin);
  image->Allocate();
  EXPECT_EQ(values.size(), image->GetBufferedRegion().GetNumberOfPixels());
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
  return image;
}

std::vector<float>
Values(const ImageType * image)
{
  const auto n = image->GetBufferedRegion().GetNumberOfPixels();
  return std::vector<float>(image->GetBufferPointer(), image->GetBufferPointer() + n);
}
} // namespace

TEST(LineIntegral, RoundTripRecoversTheLineIntegrals)
{
  // I = (I0 - Idark) exp(-p) + Idark in float, then p back: equal to float precision.
  auto p = WaterProjections(4, 96);
  auto toIntensity = LineIntegralToIntensityImageFilter<ImageType>::New();
  toIntensity->SetInput(p);
  toIntensity->SetI0(10000.);
  toIntensity->SetIDark(100.);
  auto toLine = IntensityToLineIntegralImageFilter<ImageType>::New();
  toLine->SetInput(toIntensity->GetOutput());
  toLine->SetI0(10000.);
  toLine->SetIDark(100.);
  toLine->Update();
  double worst = 0., largest = 0.;
  itk::ImageRegionConstIterator<ImageType> a(toLine->GetOutput(), p->GetBufferedRegion()), b(p, p->GetBufferedRegion());
  for (; !a.IsAtEnd(); ++a, ++b)
  {
    ASSERT_TRUE(std::isfinite(a.Get()));
    worst = std::max(worst, std::abs(static_cast<double>(a.Get()) - b.Get()));
    largest = std::max(largest, static_cast<double>(b.Get()));
  }
  EXPECT_GT(largest, 1.2); // rays through the ellipsoids, not only air
  EXPECT_LT(worst, 2e-6);  // float rounding of the intensity and of p
  for (double i0 : toLine->GetI0s())
    EXPECT_EQ(i0, 10000.);

  // Through 16-bit counts: rounding to the nearest count costs at most 0.5 / (I - Idark).
  auto toCounts = LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
  toCounts->SetInput(p);
  toCounts->SetI0(10000.);
  toCounts->SetIDark(100.);
  auto fromCounts = IntensityToLineIntegralImageFilter<CountImage, ImageType>::New();
  fromCounts->SetInput(toCounts->GetOutput());
  fromCounts->SetI0(10000.);
  fromCounts->SetIDark(100.);
  fromCounts->Update();
  itk::ImageRegionConstIterator<ImageType> c(fromCounts->GetOutput(), p->GetBufferedRegion()), d(p, p->GetBufferedRegion());
  for (; !c.IsAtEnd(); ++c, ++d)
  {
    const double signal = 9900. * std::exp(-static_cast<double>(d.Get()));
    ASSERT_NEAR(c.Get(), d.Get(), 0.5 / signal * 1.01 + 1e-6);
  }
}

TEST(LineIntegral, ReadingsAtOrBelowTheDarkLevelAreClampedToOneCount)
{
  auto image = SmallImage(4, 1, 1, { 50.f, 100.f, 101.f, 1100.f });
  auto toLine = IntensityToLineIntegralImageFilter<ImageType>::New();
  toLine->SetInput(image);
  toLine->SetI0(1100.);
  toLine->SetIDark(100.);
  toLine->Update();
  const auto p = Values(toLine->GetOutput());
  const double top = std::log(1000.);
  EXPECT_NEAR(p[0], top, 1e-6); // below the dark level: ln(1000) - ln(1)
  EXPECT_NEAR(p[1], top, 1e-6);
  EXPECT_NEAR(p[2], top, 1e-6); // one count above
  EXPECT_NEAR(p[3], 0., 1e-7);
  // NaN readings stay NaN (they are not hidden as the largest line integral).
  image->GetBufferPointer()[2] = std::numeric_limits<float>::quiet_NaN();
  image->Modified();
  toLine->Update();
  EXPECT_TRUE(std::isnan(toLine->GetOutput()->GetBufferPointer()[2]));
}

TEST(LineIntegral, BadSettingsNameTheParameter)
{
  auto image = SmallImage(2, 1, 1, { 1.f, 2.f });
  auto toLine = IntensityToLineIntegralImageFilter<ImageType>::New();
  toLine->SetInput(image);
  toLine->SetI0(100.);
  toLine->SetIDark(200.);
  try
  {
    toLine->Update();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("I0 is 100; expected an air reading above Idark (200)"), std::string::npos)
      << e.GetDescription();
  }
  toLine->SetI0(-1.);
  EXPECT_THROW(toLine->Update(), itk::ExceptionObject);
}

TEST(LineIntegral, AirEstimateOfI0WithinOnePercentOnNoisyReadings)
{
  // Poisson readings in 16 bits with a dark current; every projection's I0 is estimated from its air.
  const double i0 = 6000., dark = 150.;
  auto p = WaterProjections(12, 96);
  auto counts = LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
  counts->SetInput(p);
  counts->SetI0(i0);
  counts->SetIDark(dark);
  counts->PoissonNoiseOn();
  counts->SetSeed(7);
  counts->Update();
  auto estimate = IntensityToLineIntegralImageFilter<CountImage, ImageType>::New();
  estimate->SetInput(counts->GetOutput());
  estimate->SetIDark(dark); // I0 0: estimated
  estimate->Update();
  ASSERT_EQ(estimate->GetI0s().size(), 12u);
  for (double e : estimate->GetI0s())
    EXPECT_LT(std::abs(e - i0) / i0, 0.01) << e; // NaN fails
  // Noise averages out in the estimate: much better than 1% in fact.
  for (double e : estimate->GetI0s())
    EXPECT_LT(std::abs(e - i0) / i0, 0.002) << e;
  // The line integrals of the air are then 0 on average.
  const auto * out = estimate->GetOutput();
  double air = 0.;
  std::size_t n = 0;
  for (itk::ImageRegionConstIterator<ImageType> it(out, out->GetBufferedRegion()), q(p, p->GetBufferedRegion()); !it.IsAtEnd(); ++it, ++q)
    if (q.Get() == 0.f)
    {
      air += it.Get();
      ++n;
    }
  ASSERT_GT(n, 1000u);
  EXPECT_LT(std::abs(air / n), 0.002);

  // With an air threshold: the mean of the pixels above it, to the same precision.
  estimate->SetAirThreshold(0.9 * i0);
  estimate->Update();
  for (double e : estimate->GetI0s())
    EXPECT_LT(std::abs(e - i0) / i0, 0.002) << e;

  // Same seed, same readings: the simulation is reproducible, whatever the threads.
  auto again = LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
  again->SetInput(p);
  again->SetI0(i0);
  again->SetIDark(dark);
  again->PoissonNoiseOn();
  again->SetSeed(7);
  again->SetNumberOfWorkUnits(1);
  again->Update();
  EXPECT_TRUE(std::equal(again->GetOutput()->GetBufferPointer(),
                         again->GetOutput()->GetBufferPointer() + p->GetBufferedRegion().GetNumberOfPixels(),
                         counts->GetOutput()->GetBufferPointer()));
}

TEST(LineIntegral, EstimateI0OfHandMadeProjections)
{
  // Two populations: object pixels at 1000..1999 and air at 5000 +- 3: the air's mean.
  std::vector<float> pixels;
  for (int i = 0; i < 1000; ++i)
    pixels.push_back(1000.f + static_cast<float>(i));
  for (int i = 0; i < 7 * 40; ++i)
    pixels.push_back(4997.f + static_cast<float>(i % 7));
  EXPECT_NEAR(EstimateI0(pixels.data(), pixels.size()), 5000., 1e-9);
  EXPECT_NEAR(EstimateI0(pixels.data(), pixels.size(), 3000.), 5000., 1e-9);
  EXPECT_TRUE(std::isnan(EstimateI0(pixels.data(), pixels.size(), 6000.))); // nothing above
  const float uniform[3] = { 7.f, 7.f, 7.f };
  EXPECT_EQ(EstimateI0(uniform, 3), 7.);
  const float nothing[2] = { std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity() };
  EXPECT_TRUE(std::isnan(EstimateI0(nothing, 2)));
}

TEST(Preprocessing, CropKeepsThePhysicalPositionOfEachPixel)
{
  // 5 x 4 pixels, value 10 v + u; crop 1 column and 2 rows at the start, 2 columns at the end.
  std::vector<float> values;
  for (int v = 0; v < 4; ++v)
    for (int u = 0; u < 5; ++u)
      values.push_back(static_cast<float>(10 * v + u));
  auto image = SmallImage(5, 4, 1, values);
  ProjectionPreprocessing settings;
  settings.lowerCrop = { { 1, 2 } };
  settings.upperCrop = { { 2, 0 } };
  auto filter = ProjectionPreprocessingFilter<ImageType>::New();
  filter->SetInput(image);
  filter->SetParameters(settings);
  filter->Update();
  const auto * out = filter->GetOutput();
  EXPECT_EQ(out->GetLargestPossibleRegion().GetSize(), (ImageType::SizeType{ { 2, 2, 1 } }));
  EXPECT_EQ(out->GetLargestPossibleRegion().GetIndex(), (ImageType::IndexType{ { 0, 0, 0 } }));
  EXPECT_DOUBLE_EQ(out->GetOrigin()[0], 10. + 1 * 0.5);
  EXPECT_DOUBLE_EQ(out->GetOrigin()[1], 20. + 2 * 2.);
  EXPECT_EQ(Values(out), (std::vector<float>{ 21.f, 22.f, 31.f, 32.f }));

  settings.lowerCrop = { { 3, 0 } };
  settings.upperCrop = { { 2, 0 } };
  filter->SetParameters(settings);
  try
  {
    filter->UpdateLargestPossibleRegion();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("crop along u (columns) is 3 + 2; expected fewer than the 5 pixels"),
              std::string::npos)
      << e.GetDescription();
  }
}

TEST(Preprocessing, BinningAveragesBlocksAndDropsTheRemainder)
{
  // 5 x 2 pixels binned 2 x 2: two blocks (the fifth column is dropped), each the mean of 4 pixels.
  auto image = SmallImage(5, 2, 1, { 1.f, 2.f, 3.f, 4.f, 100.f, 5.f, 6.f, 7.f, 8.f, 200.f });
  ProjectionPreprocessing settings;
  settings.binning = { { 2, 2 } };
  auto filter = ProjectionPreprocessingFilter<ImageType>::New();
  filter->SetInput(image);
  filter->SetParameters(settings);
  filter->Update();
  const auto * out = filter->GetOutput();
  EXPECT_EQ(out->GetLargestPossibleRegion().GetSize(), (ImageType::SizeType{ { 2, 1, 1 } }));
  EXPECT_EQ(Values(out), (std::vector<float>{ (1.f + 2.f + 5.f + 6.f) / 4.f, (3.f + 4.f + 7.f + 8.f) / 4.f }));
  // Pixels twice as large, centred on their blocks.
  EXPECT_DOUBLE_EQ(out->GetSpacing()[0], 1.);
  EXPECT_DOUBLE_EQ(out->GetSpacing()[1], 4.);
  EXPECT_DOUBLE_EQ(out->GetOrigin()[0], 10. + 0.25);
  EXPECT_DOUBLE_EQ(out->GetOrigin()[1], 20. + 1.);
  EXPECT_DOUBLE_EQ(out->GetSpacing()[2], 1.);
  EXPECT_DOUBLE_EQ(out->GetOrigin()[2], 0.);

  // RTK's single value bins along u only.
  settings.binning = { { 2, 1 } };
  filter->SetParameters(settings);
  filter->UpdateLargestPossibleRegion();
  EXPECT_EQ(Values(filter->GetOutput()), (std::vector<float>{ 1.5f, 3.5f, 5.5f, 7.5f }));
}

TEST(Preprocessing, ConditionalMedianReplacesOnlyOutliers)
{
  // A row with a hot pixel (100) and a bright one (9); radius 1 along u, edges repeated.
  auto image = SmallImage(6, 1, 1, { 1.f, 9.f, 2.f, 3.f, 100.f, 4.f });
  auto median = ConditionalMedianImageFilter<ImageType>::New();
  median->SetInput(image);
  ConditionalMedianImageFilter<ImageType>::RadiusType radius;
  radius.Fill(0);
  radius[0] = 1;
  median->SetRadius(radius);
  median->Update(); // multiplier 0: the plain median of {x[i-1], x[i], x[i+1]}
  EXPECT_EQ(Values(median->GetOutput()), (std::vector<float>{ 1.f, 2.f, 3.f, 3.f, 4.f, 4.f }));
  // Multiplier 1: replaced where |x - median| > the neighbourhood's standard deviation: 9 (|9-2| = 7 >
  // 3.56) and 100 (96 > 45.6), not 2 (|2-3| = 1 < 3.09).
  median->SetThresholdMultiplier(1.);
  median->Update();
  EXPECT_EQ(Values(median->GetOutput()), (std::vector<float>{ 1.f, 2.f, 2.f, 3.f, 4.f, 4.f }));
  // Radius 0: unchanged.
  radius.Fill(0);
  median->SetRadius(radius);
  median->Update();
  EXPECT_EQ(Values(median->GetOutput()), Values(image));
  // Along the projection axis: the median of the same pixel in neighbouring projections.
  auto stack = SmallImage(1, 1, 3, { 5.f, 50.f, 6.f });
  median->SetInput(stack);
  radius[2] = 1;
  median->SetRadius(radius);
  median->SetThresholdMultiplier(0.);
  median->UpdateLargestPossibleRegion();
  EXPECT_EQ(Values(median->GetOutput()), (std::vector<float>{ 5.f, 6.f, 6.f }));
}

TEST(Preprocessing, BoellaardScatterCorrection)
{
  // Projection 0: pixels 100, 40000 (air), 200, 300: behind = (100 + 200 + 300) / 4 = 150, scatter
  // 0.5 * 150 = 75, the darkest keeps 25 >= 20. Projection 1: the same with spr 2 would give 300,
  // limited to darkest - 20 = 80 (the non-negativity threshold).
  auto image = SmallImage(2, 2, 2, { 100.f, 40000.f, 200.f, 300.f, 100.f, 40000.f, 400.f, 700.f });
  auto scatter = BoellaardScatterCorrectionImageFilter<ImageType>::New();
  scatter->SetInput(image);
  scatter->SetScatterToPrimaryRatio(0.5);
  scatter->Update();
  // Projection 1: behind = (100 + 400 + 700) / 4 = 300, 0.5 * 300 = 150 > 100 - 20: 80.
  EXPECT_EQ(scatter->GetScatter(), (std::vector<double>{ 75., 80. }));
  EXPECT_EQ(Values(scatter->GetOutput()),
            (std::vector<float>{ 25.f, 39925.f, 125.f, 225.f, 20.f, 39920.f, 320.f, 620.f }));
}

TEST(Preprocessing, WaterPrecorrectionIsThePolynomial)
{
  auto image = SmallImage(3, 1, 1, { 0.f, 1.f, 2.f });
  auto wpc = WaterPrecorrectionImageFilter<ImageType>::New();
  wpc->SetInput(image);
  wpc->SetCoefficients({ 0.1, 1., 0.5 });
  wpc->Update();
  EXPECT_EQ(Values(wpc->GetOutput()), (std::vector<float>{ 0.1f, 1.6f, 4.1f }));
  wpc->SetCoefficients({ 3. }); // one coefficient: the constant (RTK's rule)
  wpc->Update();
  EXPECT_EQ(Values(wpc->GetOutput()), (std::vector<float>{ 3.f, 3.f, 3.f }));
  wpc->SetCoefficients({ 1., std::numeric_limits<double>::quiet_NaN() });
  EXPECT_THROW(wpc->Update(), itk::ExceptionObject);
}

TEST(Preprocessing, ChainEqualsTheStepsOneAfterTheOther)
{
  // Counts of a water ellipsoid, cropped, binned, converted with an estimated I0 and precorrected:
  // the composite equals the steps applied by hand, and does not touch its input.
  auto p = WaterProjections(3, 96);
  auto counts = LineIntegralToIntensityImageFilter<ImageType>::New();
  counts->SetInput(p);
  counts->SetI0(8000.);
  counts->SetIDark(50.);
  counts->PoissonNoiseOn();
  counts->Update();
  ImageType::Pointer readings = counts->GetOutput();
  const auto before = Values(readings);

  ProjectionPreprocessing settings;
  settings.intensities = true;
  settings.dark = 50.;
  settings.lowerCrop = { { 2, 1 } };
  settings.upperCrop = { { 0, 3 } };
  settings.binning = { { 2, 2 } };
  settings.medianRadius = { { 1, 1, 0 } };
  settings.medianMultiplier = 2.;
  settings.waterPrecorrection = { 0., 1., 0.05 };
  auto chain = ProjectionPreprocessingFilter<ImageType>::New();
  chain->SetInput(readings);
  chain->SetParameters(settings);
  chain->Update();

  auto crop = itk::RegionOfInterestImageFilter<ImageType, ImageType>::New();
  crop->SetInput(readings);
  crop->SetRegionOfInterest(ImageType::RegionType(ImageType::IndexType{ { 2, 1, 0 } }, ImageType::SizeType{ { 94, 92, 3 } }));
  auto median = ConditionalMedianImageFilter<ImageType>::New();
  median->SetInput(crop->GetOutput());
  median->SetRadius(ConditionalMedianImageFilter<ImageType>::RadiusType{ { 1, 1, 0 } });
  median->SetThresholdMultiplier(2.);
  auto bin = itk::BinShrinkImageFilter<ImageType, ImageType>::New();
  bin->SetInput(median->GetOutput());
  itk::BinShrinkImageFilter<ImageType, ImageType>::ShrinkFactorsType factors;
  factors[0] = factors[1] = 2;
  factors[2] = 1;
  bin->SetShrinkFactors(factors);
  auto log = IntensityToLineIntegralImageFilter<ImageType>::New();
  log->SetInput(bin->GetOutput());
  log->SetIDark(50.);
  auto wpc = WaterPrecorrectionImageFilter<ImageType>::New();
  wpc->SetInput(log->GetOutput());
  wpc->SetCoefficients({ 0., 1., 0.05 });
  wpc->Update();

  EXPECT_EQ(chain->GetOutput()->GetLargestPossibleRegion().GetSize(), (ImageType::SizeType{ { 47, 46, 3 } }));
  EXPECT_EQ(Values(chain->GetOutput()), Values(wpc->GetOutput()));
  EXPECT_EQ(chain->GetOutput()->GetOrigin(), wpc->GetOutput()->GetOrigin());
  EXPECT_EQ(chain->GetOutput()->GetSpacing(), wpc->GetOutput()->GetSpacing());
  EXPECT_EQ(Values(readings), before);
  for (double i0 : chain->GetLineIntegralFilter()->GetI0s())
    EXPECT_NEAR(i0, 8000., 40.);
  // The line integrals are those of the phantom, to the noise.
  EXPECT_NE(settings.Describe().find("crop 2,1 pixels at the start"), std::string::npos) << settings.Describe();

  // Nothing to do: the input's values, in a new image.
  chain->SetParameters(ProjectionPreprocessing());
  chain->UpdateLargestPossibleRegion();
  EXPECT_EQ(Values(chain->GetOutput()), before);
  EXPECT_NE(chain->GetOutput()->GetBufferPointer(), readings->GetBufferPointer());
  EXPECT_EQ(ProjectionPreprocessing().Describe(), "nothing");

  // Scatter correction of line integrals is refused.
  settings = ProjectionPreprocessing();
  settings.scatterToPrimaryRatio = 0.1;
  chain->SetParameters(settings);
  EXPECT_THROW(chain->UpdateLargestPossibleRegion(), itk::ExceptionObject);
}

TEST(LineIntegral, NormalisedFloatReadingsWithARelativeFloor)
{
  // Readings normalised to I0 = 1 (flat-field corrected): MinimumSignal 0 floors I - Idark at 1e-6
  // of I0 - Idark instead of one count.
  auto image = SmallImage(4, 1, 1, { 1.f, 0.5f, 1e-3f, -0.2f });
  auto toLine = IntensityToLineIntegralImageFilter<ImageType>::New();
  toLine->SetInput(image);
  toLine->SetI0(1.);
  toLine->SetMinimumSignal(0.);
  toLine->Update();
  const auto p = Values(toLine->GetOutput());
  EXPECT_NEAR(p[0], 0., 1e-7);
  EXPECT_NEAR(p[1], std::log(2.), 1e-6);
  EXPECT_NEAR(p[2], std::log(1e3), 1e-5);
  EXPECT_NEAR(p[3], std::log(1e6), 1e-5); // below zero: the floor
  // With the default floor of one count every such reading would be floored to the air's: p = 0.
  toLine->SetMinimumSignal(1.);
  toLine->Update();
  EXPECT_EQ(Values(toLine->GetOutput()), (std::vector<float>{ 0.f, 0.f, 0.f, 0.f }));
  toLine->SetMinimumSignal(-1.);
  EXPECT_THROW(toLine->Update(), itk::ExceptionObject);
}

TEST(Preprocessing, ABandOfOutputRowsAsksForTheRowsItNeeds)
{
  // What an MPI rank of cbct-fdk reads: rows [4, 8) after cropping 3 rows at the start, a median of
  // radius 1 across rows and binning by 2 need input rows 3 + 2 * 4 - 1 = 10 to 3 + 2 * 8 = 19 (the
  // median's neighbours); estimating I0 from the air needs every row.
  auto information = ImageType::New();
  information->SetRegions(ImageType::RegionType(ImageType::SizeType{ { 8, 40, 2 } })); // no pixels
  auto rowsNeeded = [&](const ProjectionPreprocessing & settings) {
    auto chain = ProjectionPreprocessingFilter<ImageType>::New();
    chain->SetInput(information);
    chain->SetParameters(settings);
    chain->UpdateOutputInformation();
    auto band = chain->GetOutput()->GetLargestPossibleRegion();
    EXPECT_EQ(band.GetSize(1), (40u - 3u - 1u) / 2u);
    band.SetIndex(1, band.GetIndex(1) + 4);
    band.SetSize(1, 4);
    chain->GetOutput()->SetRequestedRegion(band);
    chain->GetOutput()->PropagateRequestedRegion();
    const auto needed = information->GetRequestedRegion();
    EXPECT_EQ(needed.GetSize(2), 2u);
    return std::make_pair(needed.GetIndex(1), needed.GetIndex(1) + static_cast<itk::IndexValueType>(needed.GetSize(1)));
  };
  ProjectionPreprocessing settings;
  settings.intensities = true;
  settings.i0 = 1000.;
  settings.lowerCrop = { { 0, 3 } };
  settings.upperCrop = { { 0, 1 } };
  settings.binning = { { 1, 2 } };
  EXPECT_EQ(rowsNeeded(settings), std::make_pair(itk::IndexValueType{ 11 }, itk::IndexValueType{ 19 }));
  settings.medianRadius = { { 1, 1, 0 } };
  EXPECT_EQ(rowsNeeded(settings), std::make_pair(itk::IndexValueType{ 10 }, itk::IndexValueType{ 20 }));
  settings.i0 = 0.; // estimated from each projection's air: whole projections
  EXPECT_EQ(rowsNeeded(settings), std::make_pair(itk::IndexValueType{ 3 }, itk::IndexValueType{ 39 }));
}
