// SharpnessCalibration and SharpnessScore on simulated scans with a known axis offset and roll: full and
// short scans, noise, and the inputs it refuses.
#include "cbctCalibrationTestProblem.h"
#include "cbctCalibrationSliceReconstructor.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctSharpnessCalibration.h"

#include <gtest/gtest.h>

namespace
{
using namespace cbct;
using namespace cbct::test;

GeometryCalibrationResult
Calibrate(const ImageType * projections, const ThreeDCircularProjectionGeometry * nominal, bool fitRoll,
          const AxisCorrection & start = AxisCorrection(), double range = 0., bool fitTilt = false)
{
  auto calibration = SharpnessCalibration::New();
  calibration->SetProjections(projections);
  calibration->SetGeometry(nominal);
  calibration->SetFitRoll(fitRoll);
  calibration->SetFitTilt(fitTilt);
  calibration->SetStart(start);
  calibration->SetSearchRange(range);
  calibration->SetComputeCurves(false);
  return calibration->Compute();
}

TEST(SharpnessScore, EdgesDoubledScoreLower)
{
  // A square edge, and the same edge split into two half steps two voxels apart: the doubled one is
  // less sharp by every measure.
  auto make = [](bool doubled) {
    auto image = ImageType::New();
    image->SetRegions(ImageType::SizeType{ { 40, 1, 40 } });
    ImageType::PointType origin;
    origin.Fill(-19.5);
    origin[1] = 0.;
    image->SetOrigin(origin);
    image->Allocate();
    for (int z = 0; z < 40; ++z)
      for (int x = 0; x < 40; ++x)
      {
        const bool inside = std::abs(x - 19.5) < 8 && std::abs(z - 19.5) < 8;
        const bool shifted = std::abs(x - 17.5) < 8 && std::abs(z - 19.5) < 8;
        image->GetBufferPointer()[z * 40 + x] = doubled ? 0.5f * (inside + shifted) : float(inside);
      }
    return image;
  };
  const auto sharp = make(false), blurred = make(true);
  for (auto measure : { SharpnessScore::Measure::GradientEnergy, SharpnessScore::Measure::Variance,
                        SharpnessScore::Measure::GradientEnergyPerVariation })
    EXPECT_GT(SharpnessScore::Compute(measure, sharp, 15.), SharpnessScore::Compute(measure, blurred, 15.))
      << SharpnessScore::Name(measure);
  // The edges' measure does not change when the square is scaled (an axis error on a half fan moves
  // outer edges instead of doubling them).
  auto big = ImageType::New();
  big->SetRegions(ImageType::SizeType{ { 40, 1, 40 } });
  big->SetOrigin(sharp->GetOrigin());
  big->Allocate();
  for (int z = 0; z < 40; ++z)
    for (int x = 0; x < 40; ++x)
      big->GetBufferPointer()[z * 40 + x] = std::abs(x - 19.5) < 12 && std::abs(z - 19.5) < 12;
  const double edges = SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergyPerVariation, sharp, 19.);
  EXPECT_NEAR(SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergyPerVariation, big, 19.), edges, 0.01 * edges);
  EXPECT_EQ(SharpnessScore::Parse("edges"), SharpnessScore::Measure::GradientEnergyPerVariation);
}

TEST(SharpnessScore, BadNaNAndEmptyDisc)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 8, 1, 8 } });
  image->Allocate();
  image->FillBuffer(1.f);
  EXPECT_THROW(SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergy, image, -1.), itk::ExceptionObject);
  image->GetBufferPointer()[9] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergy, image, 100.)));
  EXPECT_THROW(SharpnessScore::Parse("entropy"), itk::ExceptionObject);
}

TEST(SharpnessCalibration, FullScanOffset)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.);
  const GeometryCalibrationResult result = Calibrate(scan.projections, scan.nominal, false);
  EXPECT_LT(std::abs(result.Find("offset")->value - 13.), 0.1);
  EXPECT_EQ(result.Find("roll"), nullptr);
}

TEST(SharpnessCalibration, FullScanOffsetAndRoll)
{
  // The roll from the slices' offsets at five heights (a secant step on their pull toward the current
  // roll): 0.04 degree off on this 128-row detector, where a roll of 0.5 degree moves the outer slices'
  // axis by 0.3 pixel; the opposite views measure it better (GeometryCalibration uses theirs).
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5);
  const GeometryCalibrationResult result = Calibrate(scan.projections, scan.nominal, true);
  EXPECT_LT(std::abs(result.Find("offset")->value - 13.), 0.1);
  EXPECT_LT(std::abs(result.Find("roll")->value - 0.5), 0.1);
}

TEST(SharpnessCalibration, ShortScanOffsetWithNoise)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Short, 13., 0., 1e4);
  const GeometryCalibrationResult result = Calibrate(scan.projections, scan.nominal, false);
  EXPECT_LT(std::abs(result.Find("offset")->value - 13.), 0.1);
}

TEST(SharpnessCalibration, BadHalfFan)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::HalfFan, 13., 0.);
  try
  {
    Calibrate(scan.projections, scan.nominal, false);
    FAIL() << "a half fan was calibrated by sharpness";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("half-fan"), std::string::npos) << e.GetDescription();
    EXPECT_NE(std::string(e.GetDescription()).find("opposite views"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadTooFewViews)
{
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 12; ++k)
    nominal->AddProjection(CalibrationSID, CalibrationSDD, k * 30.);
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  try
  {
    Calibrate(projections, nominal, false);
    FAIL() << "12 views were accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("12 projections"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadLimitedAngle)
{
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 60; ++k)
    nominal->AddProjection(CalibrationSID, CalibrationSDD, k * 2.);
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  try
  {
    Calibrate(projections, nominal, false);
    FAIL() << "118 degrees were accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("at least 180"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadBlankScan)
{
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 60);
  auto blank = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid far;
  far.center = { 500., 0., 0. };
  blank->AddEllipsoid(far);
  const auto projections = CalibrationProjections(nominal, blank, 0., 32, 32);
  try
  {
    Calibrate(projections, nominal, false);
    FAIL() << "a blank scan was fitted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("blank"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadOptimumAtTheSearchEdge)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 20., 0.);
  try
  {
    Calibrate(scan.projections, scan.nominal, false, AxisCorrection(), 4.);
    FAIL() << "an axis 20 pixels off was fitted within +-4 pixels";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("edge of the search"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadRollNotDetermined)
{
  // An object 0.2 mm tall (a disc): one slice holds it, and the roll, found from slices at several
  // heights, cannot be fitted.
  auto disc = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 0.5;
  e.center = { 1., 0., 0.5 };
  e.semiAxes = { 3., 0.1, 2. };
  disc->AddEllipsoid(e);
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 90);
  const auto projections = CalibrationProjections(nominal, disc, 0., 64, 64);
  try
  {
    Calibrate(projections, nominal, true);
    FAIL() << "a roll was fitted from a flat object";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("do not determine the roll"), std::string::npos) << e.GetDescription();
  }
}
} // namespace

namespace
{
/** FDK of the slab at height y (n x 1 x n voxels of `spacing`) with the composite filter, from scratch. */
ImageType::Pointer
FreshSlab(const ImageType * projections, const ThreeDCircularProjectionGeometry * geometry, double y, unsigned int n,
          double spacing)
{
  auto grid = ConstantImageSource<ImageType>::New();
  grid->SetSize(ImageType::SizeType{ { n, 1, n } });
  ImageType::SpacingType s;
  s.Fill(spacing);
  grid->SetSpacing(s);
  ImageType::PointType origin;
  origin[0] = origin[2] = -0.5 * (n - 1.) * spacing;
  origin[1] = y;
  grid->SetOrigin(origin);
  grid->SetConstant(0.f);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->GetRampFilter()->SetWindow(RampWindow::Hann);
  fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(false);
  fdk->Update();
  ImageType::Pointer slab = fdk->GetOutput();
  slab->DisconnectPipeline();
  return slab;
}
} // namespace

TEST(CalibrationSliceReconstructor, SharedFilteringMatchesAFreshFDK)
{
  // The candidates of one height share one filtering when their FDK weights are the same (stage offsets
  // and rolls); a detector offset moves the principal point and a new height needs other rows: each
  // filters anew. Every slab is the composite FDK's.
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5);
  auto reconstructor = CalibrationSliceReconstructor::New();
  reconstructor->SetProjections(scan.projections);
  reconstructor->SetDisplacedDetectorWeighting(false);
  for (const SliceCandidate & c : SliceCandidates())
  {
    const auto geometry = c.Apply(scan.nominal);
    const auto shared = reconstructor->Reconstruct(geometry, c.y, 64, 0.15, 1);
    const auto fresh = FreshSlab(scan.projections, geometry, c.y, 64, 0.15);
    EXPECT_LT(RelativeDifference(shared, fresh), 1e-5) << "offset " << c.offset << ", roll " << c.roll << ", height "
                                                       << c.y << ", " << AxisCorrection::ModelName(c.model);
  }
  EXPECT_EQ(reconstructor->GetTimings().filterings, 3u);
  EXPECT_EQ(reconstructor->GetTimings().backProjections, SliceCandidates().size());
}
