// GeometryCalibration (auto: opposite views refined by sharpness) on full, half-fan and short scans with
// Poisson noise at I0 = 1e4, the reconstruction with the calibrated geometry against the true one's,
// AxisCorrection, and the methods it refuses.
#include "cbctCalibrationTestProblem.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctGeometryCalibration.h"

#include <gtest/gtest.h>

namespace
{
using namespace cbct;
using namespace cbct::test;

GeometryCalibrationResult
Calibrate(const CalibrationScan & scan, GeometryCalibration::Method method = GeometryCalibration::Method::Auto)
{
  auto calibration = GeometryCalibration::New();
  calibration->SetProjections(scan.projections);
  calibration->SetGeometry(scan.nominal);
  calibration->SetMethod(method);
  calibration->SetComputeCurves(false);
  return calibration->Compute();
}

void
ExpectRecovered(const GeometryCalibrationResult & result, const CalibrationScan & scan,
                const std::string & method = "opposite views, then sharpness")
{
  ASSERT_NE(result.Find("offset"), nullptr);
  ASSERT_NE(result.Find("roll"), nullptr);
  EXPECT_LT(std::abs(result.Find("offset")->value - scan.correction.offset / CalibrationPixel), 0.1);
  EXPECT_LT(std::abs(result.Find("roll")->value - scan.correction.roll / DegreesToRadians), 0.05);
  EXPECT_EQ(result.method, method);
}

/** FDK of the scan's middle 48 x 16 x 48 voxels of 0.2 mm with `geometry`. */
ImageType::Pointer
Reconstruct(const CalibrationScan & scan, const ThreeDCircularProjectionGeometry * geometry)
{
  auto grid = ConstantImageSource<ImageType>::New();
  CentredGrid(grid, ImageType::SizeType{ { 48, 16, 48 } }, 0.2, 0.2, 0.2);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  return fdk->GetOutput();
}

TEST(AxisCorrection, StageAndDetectorModels)
{
  const auto nominal = NominalCalibrationGeometry(ScanKind::Full, 8);
  AxisCorrection stage;
  stage.offset = 2.;
  stage.roll = 0.01;
  const auto moved = stage.Apply(nominal);
  const double magnification = CalibrationSDD / CalibrationSID;
  EXPECT_NEAR(moved->GetParameters(3).sourceOffsetX, -2. / magnification, 1e-12);
  EXPECT_NEAR(moved->GetParameters(3).projectionOffsetX, -2. / magnification, 1e-12);
  EXPECT_NEAR(moved->GetParameters(3).inPlaneAngle, 0.01, 1e-12);
  // Both models move the projected axis by the offset (on the axis' point at the isocenter).
  AxisCorrection detector = stage;
  detector.model = AxisCorrection::OffsetModel::Detector;
  detector.roll = 0.;
  stage.roll = 0.;
  for (const auto & c : { stage, detector })
    EXPECT_NEAR(AxisCorrection::ProjectedAxisU(c.Apply(nominal), 0, 0.) - AxisCorrection::ProjectedAxisU(nominal, 0, 0.),
                2., 1e-9);
  EXPECT_EQ(detector.Apply(nominal)->GetParameters(0).sourceOffsetX, 0.);
  // FitToAxisPoints inverts the projection: axis points of a known correction give it back.
  AxisCorrection truth;
  truth.offset = 1.3;
  truth.roll = 0.008;
  const std::vector<double> heights{ -5., 0., 5. };
  std::vector<double> targets;
  for (double y : heights)
    targets.push_back(AxisCorrection::ProjectedAxisU(truth.Apply(nominal), 0, y));
  const AxisCorrection fitted = AxisCorrection::FitToAxisPoints(nominal, AxisCorrection(), heights, targets, { 1., 1., 1. }, true);
  EXPECT_NEAR(fitted.offset, truth.offset, 1e-9);
  EXPECT_NEAR(fitted.roll, truth.roll, 1e-12);
}

TEST(AxisCorrection, BadMatrixAndNonFinite)
{
  auto matrices = ThreeDCircularProjectionGeometry::New();
  matrices->AddProjection(NominalCalibrationGeometry(ScanKind::Full, 4)->GetMatrix(0));
  AxisCorrection c;
  EXPECT_THROW(c.Apply(matrices), itk::ExceptionObject);
  c.offset = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(c.Apply(NominalCalibrationGeometry(ScanKind::Full, 4)), itk::ExceptionObject);
}

TEST(GeometryCalibration, FullScanWithNoiseAndReconstruction)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5, 1e4);
  const GeometryCalibrationResult result = Calibrate(scan);
  ExpectRecovered(result, scan);
  // FDK with the calibrated geometry errs within 5% of FDK with the true one (mean absolute error
  // against the phantom, supersampled), and clearly less than with the nominal one.
  const auto truth = [&] {
    auto source = PhantomVolumeSource<ImageType>::New();
    CentredGrid(source, ImageType::SizeType{ { 48, 16, 48 } }, 0.2, 0.2, 0.2);
    source->SetPhantom(CalibrationPhantom());
    source->SetSupersampling(2);
    source->Update();
    return ImageType::Pointer(source->GetOutput());
  }();
  auto error = [&](const ThreeDCircularProjectionGeometry * g) {
    const auto volume = Reconstruct(scan, g);
    return Compare(volume, truth, truth->GetLargestPossibleRegion(), 0.4).meanAbsoluteError;
  };
  const double withTruth = error(scan.truth), calibrated = error(result.geometry), nominal = error(scan.nominal);
  EXPECT_LT(calibrated, 1.05 * withTruth) << "true " << withTruth << ", nominal " << nominal;
  EXPECT_GT(nominal, 1.5 * withTruth);
}

TEST(GeometryCalibration, HalfFanWithNoise)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::HalfFan, 13., 0.5, 1e4);
  ExpectRecovered(Calibrate(scan), scan, "opposite views (a half fan: no sharpness refinement)");
}

TEST(GeometryCalibration, ShortScanWithNoise)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Short, 13., 0.5, 1e4);
  ExpectRecovered(Calibrate(scan), scan);
}

TEST(GeometryCalibration, MethodNames)
{
  for (auto m : { GeometryCalibration::Method::Auto, GeometryCalibration::Method::OppositeViews,
                  GeometryCalibration::Method::Sharpness, GeometryCalibration::Method::Beads })
    EXPECT_EQ(GeometryCalibration::ParseMethod(GeometryCalibration::MethodName(m)), m);
}

TEST(GeometryCalibration, BadMethodsAndFits)
{
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 0., 0.);
  EXPECT_THROW(GeometryCalibration::ParseMethod("manual"), itk::ExceptionObject);
  try
  {
    Calibrate(scan, GeometryCalibration::Method::Beads);
    FAIL() << "the bead method ran";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("bead"), std::string::npos) << e.GetDescription();
  }
  auto calibration = GeometryCalibration::New();
  calibration->SetProjections(scan.projections);
  calibration->SetGeometry(scan.nominal);
  calibration->SetFitOffset(false);
  calibration->SetFitRoll(false);
  EXPECT_THROW(calibration->Compute(), itk::ExceptionObject); // nothing to fit
  calibration->SetFitOffset(true);
  calibration->SetFitTilt(true);
  calibration->SetMethod(GeometryCalibration::Method::OppositeViews);
  EXPECT_THROW(calibration->Compute(), itk::ExceptionObject); // opposite views fit no tilt
}
} // namespace
