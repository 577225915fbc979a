// OppositeViewAxisCalibration on simulated scans with a known axis offset and roll (the stage model):
// full, half-fan and short scans, Poisson noise, defective detector columns, and the inputs it refuses.
#include "cbctCalibrationTestProblem.h"
#include "cbctOppositeViewAxisCalibration.h"

#include <gtest/gtest.h>

namespace
{
using namespace cbct;
using namespace cbct::test;

GeometryCalibrationResult
Calibrate(const ImageType * projections, const ThreeDCircularProjectionGeometry * nominal, bool fitRoll = true,
          double range = 0.)
{
  auto calibration = OppositeViewAxisCalibration::New();
  calibration->SetProjections(projections);
  calibration->SetGeometry(nominal);
  calibration->SetFitRoll(fitRoll);
  calibration->SetSearchRange(range);
  calibration->SetComputeCurves(false);
  return calibration->Compute();
}

/** The fit within 0.1 pixel and 0.05 degree of the truth (written so that NaN fails). */
void
ExpectRecovered(const GeometryCalibrationResult & result, const CalibrationScan & scan, double pixels = 0.1,
                double degrees = 0.05)
{
  ASSERT_NE(result.Find("offset"), nullptr);
  ASSERT_NE(result.Find("roll"), nullptr);
  EXPECT_LT(std::abs(result.Find("offset")->value - scan.correction.offset / CalibrationPixel), pixels);
  EXPECT_LT(std::abs(result.Find("roll")->value - scan.correction.roll / DegreesToRadians), degrees);
  EXPECT_TRUE(std::isfinite(result.Find("offset")->uncertainty));
  EXPECT_TRUE(result.Find("offset")->fitted);
}

TEST(OppositeViewAxisCalibration, FullScanWithoutMiscalibration)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 0., 0.);
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, FullScanOffsetAndRoll)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 7.3, 0.5);
  const GeometryCalibrationResult result = Calibrate(scan.projections, scan.nominal);
  ExpectRecovered(result, scan);
  // The corrected geometry is the nominal one plus the correction: its projected axis is the truth's.
  for (double y : { -4., 0., 4. })
    EXPECT_NEAR(AxisCorrection::ProjectedAxisU(result.geometry, 0, y), AxisCorrection::ProjectedAxisU(scan.truth, 0, y),
                0.1 * CalibrationPixel);
}

TEST(OppositeViewAxisCalibration, FullScanLargeOffsetAndRoll)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, -20., 1.);
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, HalfFanScan)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::HalfFan, 13., 0.5);
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, ShortScan)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Short, 13., 0.5);
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, PoissonNoise)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5, 1e4);
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, ObjectOffCentreAndDetectorModel)
{
  const CalibrationScan scan =
    MakeCalibrationScan(ScanKind::Full, 10., 0.3, 0., AxisCorrection::OffsetModel::Detector, 2.);
  auto calibration = OppositeViewAxisCalibration::New();
  calibration->SetProjections(scan.projections);
  calibration->SetGeometry(scan.nominal);
  calibration->SetOffsetModel(AxisCorrection::OffsetModel::Detector);
  calibration->SetComputeCurves(false);
  const GeometryCalibrationResult result = calibration->Compute();
  ExpectRecovered(result, scan);
  EXPECT_EQ(result.correction.model, AxisCorrection::OffsetModel::Detector);
  // The detector model leaves the source where it was.
  EXPECT_EQ(result.geometry->GetParameters(0).sourceOffsetX, scan.nominal->GetParameters(0).sourceOffsetX);
}

TEST(OppositeViewAxisCalibration, DefectiveColumnsLeaveTheFit)
{
  // Three detector columns 3% off in gain: stripes that stand still on the detector (rings in FDK).
  CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5);
  const auto size = scan.projections->GetLargestPossibleRegion().GetSize();
  float * p = scan.projections->GetBufferPointer();
  for (std::size_t k = 0; k < size[2]; ++k)
    for (std::size_t v = 0; v < size[1]; ++v)
      for (std::size_t column : { 40u, 71u, 90u })
        p[(k * size[1] + v) * size[0] + column] += 0.03f; // -log(0.97)
  ExpectRecovered(Calibrate(scan.projections, scan.nominal), scan);
}

TEST(OppositeViewAxisCalibration, OffsetAloneAndCurves)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 5., 0.);
  auto calibration = OppositeViewAxisCalibration::New();
  calibration->SetProjections(scan.projections);
  calibration->SetGeometry(scan.nominal);
  calibration->SetFitRoll(false);
  const GeometryCalibrationResult result = calibration->Compute();
  EXPECT_LT(std::abs(result.Find("offset")->value - 5.), 0.1);
  EXPECT_EQ(result.Find("roll"), nullptr);
  ASSERT_EQ(result.curves.size(), 1u);
  const CalibrationScoreCurve & curve = result.curves.front();
  EXPECT_EQ(curve.parameter, "offset");
  EXPECT_FALSE(curve.higherIsBetter);
  // The cost's smallest sample is the one nearest the fit, and the curve rises on both sides.
  const auto best = std::min_element(curve.scores.begin(), curve.scores.end()) - curve.scores.begin();
  EXPECT_LT(std::abs(curve.values[best] - result.Find("offset")->value), 0.5);
  EXPECT_GT(curve.scores.front(), 2. * curve.scores[best]);
  EXPECT_GT(curve.scores.back(), 2. * curve.scores[best]);
}

TEST(OppositeViewAxisCalibration, BadTooFewViews)
{
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 20; ++k)
    nominal->AddProjection(CalibrationSID, CalibrationSDD, k * 18.);
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  try
  {
    Calibrate(projections, nominal);
    FAIL() << "20 views were accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("20 projections"), std::string::npos) << e.GetDescription();
    EXPECT_NE(std::string(e.GetDescription()).find("sharpness"), std::string::npos) << e.GetDescription();
  }
}

TEST(OppositeViewAxisCalibration, BadBlankScan)
{
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 60);
  auto blank = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid far;
  far.center = { 500., 0., 0. }; // never in the beam
  blank->AddEllipsoid(far);
  const auto projections = CalibrationProjections(nominal, blank, 0., 32, 32);
  try
  {
    Calibrate(projections, nominal);
    FAIL() << "a blank scan was fitted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("cannot be fitted"), std::string::npos) << e.GetDescription();
  }
}

TEST(OppositeViewAxisCalibration, BadOptimumAtTheSearchEdge)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.);
  try
  {
    Calibrate(scan.projections, scan.nominal, false, 6.);
    FAIL() << "an axis 13 pixels off was fitted within +-6 pixels";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("edge of the search"), std::string::npos) << e.GetDescription();
  }
}

TEST(OppositeViewAxisCalibration, BadShortOfHalfATurn)
{
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 60; ++k)
    nominal->AddProjection(CalibrationSID, CalibrationSDD, k * 2.);
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  try
  {
    Calibrate(projections, nominal);
    FAIL() << "a scan of 118 degrees was fitted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("180 degrees"), std::string::npos) << e.GetDescription();
  }
}

TEST(OppositeViewAxisCalibration, BadMatrixGeometry)
{
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 60);
  auto matrices = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < nominal->GetNumberOfProjections(); ++k)
    matrices->AddProjection(nominal->GetMatrix(k));
  const auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  try
  {
    Calibrate(projections, matrices);
    FAIL() << "a geometry of bare matrices was corrected";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("bare 3x4 matrix"), std::string::npos) << e.GetDescription();
  }
}

TEST(OppositeViewAxisCalibration, BadNonFiniteProjections)
{
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 60);
  auto projections = CalibrationProjections(nominal, CalibrationPhantom(), 0., 32, 32);
  projections->GetBufferPointer()[100] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(Calibrate(projections, nominal), itk::ExceptionObject);
}
} // namespace
