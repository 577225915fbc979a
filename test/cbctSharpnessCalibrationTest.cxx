// SharpnessCalibration and SharpnessScore on simulated scans with a known axis offset and roll: full and
// short scans, noise, and the inputs it refuses.
#include "cbctCalibrationTestProblem.h"
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
  EXPECT_NEAR(SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergyPerVariation, big, 19.),
              SharpnessScore::Compute(SharpnessScore::Measure::GradientEnergyPerVariation, sharp, 19.), 1e-9);
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

TEST(SharpnessCalibration, HalfFanRefinesAStart)
{
  // On a half fan the slices are scored within the overlap the detector sees from both sides; from a
  // start within a few pixels (the opposite views give one) the offset is refined.
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::HalfFan, 13., 0.);
  AxisCorrection start;
  start.offset = 11. * CalibrationPixel;
  const GeometryCalibrationResult result = Calibrate(scan.projections, scan.nominal, false, start, 4.);
  EXPECT_LT(std::abs(result.Find("offset")->value - 13.), 0.1);
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
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.);
  try
  {
    Calibrate(scan.projections, scan.nominal, false, AxisCorrection(), 6.);
    FAIL() << "an axis 13 pixels off was fitted within +-6 pixels";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("edge of the search"), std::string::npos) << e.GetDescription();
  }
}

TEST(SharpnessCalibration, BadTiltNotDetermined)
{
  // A nearly parallel beam (SID 10 m): a tilt of the axis toward the source changes nothing a slice
  // shows, so the tilt cannot be fitted and the calibration says so.
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 90; ++k)
    nominal->AddProjection(10000., 50000., k * 4.);
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 64, 64);
  AxisCorrection start;
  auto calibration = SharpnessCalibration::New();
  calibration->SetProjections(projections);
  calibration->SetGeometry(nominal);
  calibration->SetFitOffset(false);
  calibration->SetFitRoll(false);
  calibration->SetFitTilt(true);
  calibration->SetComputeCurves(false);
  try
  {
    calibration->Compute();
    FAIL() << "a tilt was fitted from a parallel beam";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("do not determine the tilt"), std::string::npos) << e.GetDescription();
  }
}
} // namespace
