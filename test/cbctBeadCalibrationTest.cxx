// Bead calibration: the projection-matrix fit and the circular-orbit fit on exact data with known
// answers, the whole calibration from simulated projections of the helix bead phantom (a circular
// orbit with known offsets recovered in its parameters, a wobbling orbit in one matrix per view),
// FDK with the fitted matrices against FDK with the true ones, and bad input.
#include "cbctBeadCalibration.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctOrbitWobble.h"
#include "cbctProjectionMatrixBeadFit.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** The helix phantom projected onto a square detector of `pixels` of `mm`. */
ImageType::Pointer
BeadScan(const ThreeDCircularProjectionGeometry * geometry, unsigned int pixels = 300, double mm = 0.5)
{
  auto beads = BeadPhantom::New();
  return ProjectPhantom(geometry, beads->GetPhantom(), pixels, mm);
}

/** Mean distance in pixels (of `mm`) between the projections of a grid of points filling a 80 mm
 * cube under two geometries: how far apart two geometries put the same object. */
double
GridReprojectionDistance(const ThreeDCircularProjectionGeometry * a, const ThreeDCircularProjectionGeometry * b, double mm)
{
  double sum = 0.;
  unsigned int count = 0;
  for (unsigned int k = 0; k < a->GetNumberOfProjections(); ++k)
    for (int x = -40; x <= 40; x += 20)
      for (int y = -40; y <= 40; y += 20)
        for (int z = -40; z <= 40; z += 20)
        {
          const std::array<double, 3> point{ { double(x), double(y), double(z) } };
          const auto p = ProjectionMatrixBeadFit::Project(a->GetMatrix(k), point);
          const auto q = ProjectionMatrixBeadFit::Project(b->GetMatrix(k), point);
          sum += std::hypot(p[0] - q[0], p[1] - q[1]) / mm;
          ++count;
        }
  return sum / count;
}

ThreeDCircularProjectionGeometry::Pointer
WobblingOrbit(unsigned int views, std::uint32_t seed)
{
  return OrbitWobble::Apply(CircularGeometry(views), 2., 1., seed);
}
} // namespace

TEST(OrbitWobble, MovesEachProjectionWithinItsBoundsTheSameWayForASeed)
{
  auto circle = CircularGeometry(200, 360., 1000., 1500., 3., -2.);
  auto a = OrbitWobble::Apply(circle, 2., 1., 7);
  auto b = OrbitWobble::Apply(circle, 2., 1., 7);
  auto c = OrbitWobble::Apply(circle, 2., 1., 8);
  ASSERT_EQ(a->GetNumberOfProjections(), 200u);
  double largestSource = 0., largestAngle = 0., differs = 0.;
  for (unsigned int k = 0; k < 200; ++k)
  {
    const auto & p = a->GetParameters(k);
    const auto & q = circle->GetParameters(k);
    EXPECT_EQ(p.sourceToDetectorDistance, 1500.);
    EXPECT_NEAR(p.sourceOffsetX - p.projectionOffsetX, q.sourceOffsetX - q.projectionOffsetX, 1e-12); // moved together
    largestSource = std::max({ largestSource, std::abs(p.sourceToIsocenterDistance - 1000.), std::abs(p.sourceOffsetX),
                               std::abs(p.sourceOffsetY) });
    double turn = std::abs(std::remainder(p.gantryAngle - q.gantryAngle, 2. * Pi));
    largestAngle = std::max({ largestAngle, turn, std::abs(std::remainder(p.outOfPlaneAngle, 2. * Pi)),
                              std::abs(std::remainder(p.inPlaneAngle, 2. * Pi)) });
    EXPECT_EQ(a->GetMatrix(k), b->GetMatrix(k));
    differs += std::abs(c->GetParameters(k).sourceOffsetX - p.sourceOffsetX);
  }
  EXPECT_LE(largestSource, 2.);
  EXPECT_GT(largestSource, 1.9); // 600 draws fill the interval
  EXPECT_LE(largestAngle, Pi / 180.);
  EXPECT_GT(largestAngle, 0.95 * Pi / 180.);
  EXPECT_GT(differs, 100.);
  EXPECT_THROW(OrbitWobble::Apply(circle, -1., 1., 1), itk::ExceptionObject);
}

TEST(ProjectionMatrixBeadFit, RecoversAMatrixFromExactAndNoisyPoints)
{
  ThreeDCircularProjectionGeometry::Parameters p;
  p.sourceToIsocenterDistance = 980.;
  p.sourceToDetectorDistance = 1530.;
  p.gantryAngle = 0.7;
  p.projectionOffsetX = 12.;
  p.projectionOffsetY = -4.;
  p.outOfPlaneAngle = 0.05;
  p.inPlaneAngle = -0.03;
  p.sourceOffsetX = 3.;
  p.sourceOffsetY = 1.;
  const auto truth = ThreeDCircularProjectionGeometry::ComputeMatrix(p);
  std::mt19937 random(3);
  std::uniform_real_distribution<double> position(-40., 40.);
  std::normal_distribution<double> noise(0., 0.05); // mm: 0.1 pixel of 0.5 mm
  std::vector<std::array<double, 3>> points;
  std::vector<std::array<double, 2>> exact, noisy;
  for (int k = 0; k < 20; ++k)
  {
    points.push_back({ { position(random), position(random), position(random) } });
    exact.push_back(ProjectionMatrixBeadFit::Project(truth, points.back()));
    noisy.push_back({ { exact.back()[0] + noise(random), exact.back()[1] + noise(random) } });
  }
  DetectorPixels pixels;
  pixels.mmToPixels = { { 2., 0., 0., 2. } };
  auto fit = ProjectionMatrixBeadFit::Fit(points, exact, pixels, "view 0");
  EXPECT_LT(fit.error.max, 1e-6);
  auto a = ThreeDCircularProjectionGeometry::New(), b = ThreeDCircularProjectionGeometry::New();
  a->AddProjection(truth);
  b->AddProjection(fit.matrix);
  EXPECT_LT(GridReprojectionDistance(a, b, 0.5), 1e-6);
  EXPECT_NEAR(b->GetSourcePosition(0)[0], a->GetSourcePosition(0)[0], 1e-5);
  // With 0.1 pixel of noise the fit's residual is about the noise and the matrix close (20 points
  // for 11 unknowns: within twice the noise over the whole cube).
  fit = ProjectionMatrixBeadFit::Fit(points, noisy, pixels, "view 0");
  EXPECT_GT(fit.error.mean, 0.03);
  EXPECT_LT(fit.error.mean, 0.15);
  b = ThreeDCircularProjectionGeometry::New();
  b->AddProjection(fit.matrix);
  EXPECT_LT(GridReprojectionDistance(a, b, 0.5), 0.2);
}

TEST(ProjectionMatrixBeadFitBadInput, TooFewOrCoplanarPoints)
{
  const auto truth = ThreeDCircularProjectionGeometry::ComputeMatrix({ 1000., 1500., 0.3, 0., 0., 0., 0., 0., 0. });
  std::vector<std::array<double, 3>> points;
  std::vector<std::array<double, 2>> uv;
  for (int k = 0; k < 8; ++k)
  {
    points.push_back({ { 10. * (k % 3), 7. * k, 10. * (k % 3) } }); // all in the plane x = z
    uv.push_back(ProjectionMatrixBeadFit::Project(truth, points.back()));
  }
  try
  {
    ProjectionMatrixBeadFit::Fit(points, uv, DetectorPixels(), "projection 5");
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("projection 5"), std::string::npos) << e.GetDescription();
    EXPECT_NE(std::string(e.GetDescription()).find("one plane"), std::string::npos) << e.GetDescription();
  }
  points.resize(5);
  uv.resize(5);
  EXPECT_THROW(ProjectionMatrixBeadFit::Fit(points, uv, DetectorPixels(), "projection 5"), itk::ExceptionObject);
}

TEST(CircularOrbitBeadFit, RecoversOrbitAndPlacementFromExactObservations)
{
  auto phantom = BeadPhantom::New();
  std::vector<std::array<double, 3>> beads;
  for (const auto & b : phantom->GetBeads())
    beads.push_back(b.center);
  CircularOrbitBeadFit::Parameters truth;
  truth.sourceToIsocenterDistance = 985.;
  truth.sourceToDetectorDistance = 1520.;
  truth.projectionOffsetX = 9.;
  truth.projectionOffsetY = -5.;
  truth.sourceOffsetX = 2.;
  truth.sourceOffsetY = 1.5;
  truth.outOfPlaneAngle = 0.01;
  truth.inPlaneAngle = -0.015;
  CircularOrbitBeadFit::Placement placement;
  placement.angleX = 0.02;
  placement.angleY = 0.4;
  placement.angleZ = -0.01;
  placement.shiftX = 3.;
  placement.shiftZ = -2.;
  std::vector<double> gantry;
  std::vector<BeadObservation> observations;
  for (unsigned int k = 0; k < 20; ++k)
  {
    gantry.push_back(k * 2. * Pi / 20.);
    for (unsigned int b = 0; b < beads.size(); ++b)
    {
      const auto uv = CircularOrbitBeadFit::Project(truth, gantry.back(), placement, beads[b]);
      observations.push_back({ k, b, uv[0], uv[1] });
    }
  }
  CircularOrbitBeadFit::Parameters start;
  start.sourceToIsocenterDistance = 1000.;
  start.sourceToDetectorDistance = 1500.;
  CircularOrbitBeadFit::Placement near;
  near.angleY = 0.38;
  std::array<bool, CircularOrbitBeadFit::NumberOfOrbitParameters> all;
  all.fill(true);
  DetectorPixels pixels;
  pixels.mmToPixels = { { 2., 0., 0., 2. } };
  const auto fit = CircularOrbitBeadFit::Fit(beads, observations, gantry, start, near, all, pixels);
  EXPECT_LT(fit.error.max, 1e-5);
  EXPECT_NEAR(fit.orbit.sourceToIsocenterDistance, 985., 1e-4);
  EXPECT_NEAR(fit.orbit.sourceToDetectorDistance, 1520., 1e-4);
  EXPECT_NEAR(fit.orbit.projectionOffsetX, 9., 1e-4);
  EXPECT_NEAR(fit.orbit.projectionOffsetY, -5., 1e-4);
  EXPECT_NEAR(fit.orbit.sourceOffsetX, 2., 1e-4);
  EXPECT_NEAR(fit.orbit.sourceOffsetY, 1.5, 1e-4);
  EXPECT_NEAR(fit.orbit.outOfPlaneAngle, 0.01, 1e-7);
  EXPECT_NEAR(fit.orbit.inPlaneAngle, -0.015, 1e-7);
  EXPECT_NEAR(fit.placement.angleY, 0.4, 1e-7);
  EXPECT_NEAR(fit.placement.shiftX, 3., 1e-4);
  EXPECT_NEAR(fit.placement.shiftZ, -2., 1e-4);
  // Only some parameters fitted: the others keep their start.
  all.fill(false);
  all[CircularOrbitBeadFit::ProjectionOffsetX] = true;
  start = truth;
  start.projectionOffsetX = 0.;
  const auto offsetOnly = CircularOrbitBeadFit::Fit(beads, observations, gantry, start, placement, all, pixels);
  EXPECT_NEAR(offsetOnly.orbit.projectionOffsetX, 9., 1e-5);
  EXPECT_EQ(offsetOnly.orbit.sourceToIsocenterDistance, 985.);
  EXPECT_EQ(offsetOnly.uncertainty[CircularOrbitBeadFit::SourceToIsocenterDistance], 0.);
  // Too few observations for the unknowns.
  observations.resize(6);
  all.fill(true);
  EXPECT_THROW(CircularOrbitBeadFit::Fit(beads, observations, gantry, start, near, all, pixels), itk::ExceptionObject);
}

TEST(BeadCalibration, CircularOrbitWithKnownOffsetsRecoveredInItsParameters)
{
  // The scanner: SID 990, SDD 1510, detector offsets (7.3, -3.1) mm (14.6 and 6.2 pixels), source
  // offsets (1.5, -0.8) mm, out-of-plane 0.4 deg, in-plane 0.7 deg; its file says 1000 / 1500 and nothing else.
  auto truth = ThreeDCircularProjectionGeometry::New();
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 16; ++k)
  {
    truth->AddProjection(990., 1510., 22.5 * k + 2., 7.3, -3.1, 0.4, 0.7, 1.5, -0.8);
    nominal->AddProjection(1000., 1500., 22.5 * k + 2.);
  }
  // The phantom stands turned by 137 degrees about the axis and 3 mm off it (x), 2 mm (-z).
  auto phantom = BeadPhantom::New();
  CircularOrbitBeadFit::Placement placed;
  placed.angleY = 137. * Pi / 180.;
  placed.shiftX = 3.;
  placed.shiftZ = -2.;
  auto moved = GeometricPhantom::New();
  for (auto solid : phantom->GetPhantom()->GetEllipsoids())
  {
    solid.center = placed.Apply(solid.center);
    solid.angleY = -placed.angleY; // the cylinder turns with it (round: no matter)
    moved->AddEllipsoid(solid);
  }
  const auto projections = ProjectPhantom(truth, moved, 300, 0.5);
  const auto result = BeadCalibration::Calibrate(projections, nominal, phantom);
  EXPECT_TRUE(result.circular) << BeadCalibration::Summary(result, phantom);
  EXPECT_NEAR(result.circularFit.placement.angleY, placed.angleY, 1e-4);
  EXPECT_NEAR(result.circularFit.placement.shiftX, 3., 0.01);
  EXPECT_NEAR(result.circularFit.placement.shiftZ, -2., 0.01);
  EXPECT_NEAR(std::remainder(result.azimuthDegrees - 137., 360.), 0., 2.5);
  EXPECT_GE(result.observations, 16u * 22u) << BeadCalibration::Summary(result, phantom); // a few beads leave the detector
  EXPECT_LT(result.error.mean, 0.01);
  EXPECT_LT(result.error.max, 0.1);
  const auto & orbit = result.circularFit.orbit;
  EXPECT_NEAR(orbit.sourceToIsocenterDistance, 990., 0.1);
  EXPECT_NEAR(orbit.sourceToDetectorDistance, 1510., 0.15);
  EXPECT_NEAR(orbit.projectionOffsetX, 7.3, 0.05);
  EXPECT_NEAR(orbit.projectionOffsetY, -3.1, 0.05);
  EXPECT_NEAR(orbit.sourceOffsetX, 1.5, 0.1);
  EXPECT_NEAR(orbit.sourceOffsetY, -0.8, 0.1);
  EXPECT_NEAR(orbit.outOfPlaneAngle * 180. / Pi, 0.4, 0.005);
  EXPECT_NEAR(orbit.inPlaneAngle * 180. / Pi, 0.7, 0.001);
  // The error of each value is within 4 of its stated uncertainties.
  const double values[] = { orbit.sourceToIsocenterDistance - 990., orbit.sourceToDetectorDistance - 1510.,
                            orbit.projectionOffsetX - 7.3,         orbit.projectionOffsetY + 3.1,
                            orbit.sourceOffsetX - 1.5,             orbit.sourceOffsetY + 0.8,
                            orbit.outOfPlaneAngle - 0.4 * Pi / 180., orbit.inPlaneAngle - 0.7 * Pi / 180. };
  for (unsigned int p = 0; p < CircularOrbitBeadFit::NumberOfOrbitParameters; ++p)
  {
    EXPECT_GT(result.circularFit.uncertainty[p], 0.) << CircularOrbitBeadFit::Name(p);
    EXPECT_LT(std::abs(values[p]), 4. * result.circularFit.uncertainty[p] + 1e-9) << CircularOrbitBeadFit::Name(p);
  }
  // The geometry written: RTK parameters, the nominal gantry angles, the fitted rest.
  ASSERT_EQ(result.geometry->GetNumberOfProjections(), 16u);
  EXPECT_TRUE(result.geometry->HasParameters(5));
  EXPECT_NEAR(result.geometry->GetParameters(5).gantryAngle, nominal->GetParameters(5).gantryAngle, 1e-12);
  EXPECT_LT(GridReprojectionDistance(truth, result.geometry, 0.5), 0.02);
}

TEST(BeadCalibration, WobblingOrbitRecoveredAsOneMatrixPerView)
{
  // +-2 mm source (and detector) and +-1 degree in every angle, per projection; the nominal
  // geometry is the circle.
  const auto truth = WobblingOrbit(16, 11);
  const auto projections = BeadScan(truth);
  auto phantom = BeadPhantom::New();
  const auto result = BeadCalibration::Calibrate(projections, CircularGeometry(16), phantom);
  EXPECT_FALSE(result.circular) << BeadCalibration::Summary(result, phantom);
  EXPECT_GT(result.circularError.mean, 1.) << BeadCalibration::Summary(result, phantom); // a circle cannot follow it
  EXPECT_LT(result.error.mean, 0.1) << BeadCalibration::Summary(result, phantom);
  EXPECT_LT(result.error.max, 0.5);
  ASSERT_EQ(result.geometry->GetNumberOfProjections(), 16u);
  EXPECT_FALSE(result.geometry->HasParameters(0));
  // Against the true matrices, an object's points fall within a few hundredths of a pixel.
  EXPECT_LT(GridReprojectionDistance(truth, result.geometry, 0.5), 0.05);
  EXPECT_GT(GridReprojectionDistance(truth, CircularGeometry(16), 0.5), 3.);
  for (const double e : result.viewError)
    EXPECT_LT(e, 0.2);
  // Noise of sigma 0.025 on the line integrals (Poisson noise at I0 = 10^4 behind 1.8 of the
  // cylinder's): the small beads' peaks are 18 sigma, the fit still within a tenth of a pixel.
  std::mt19937 random(4);
  std::normal_distribution<float> noise(0.f, 0.025f);
  float * p = projections->GetBufferPointer();
  for (std::size_t k = 0; k < projections->GetBufferedRegion().GetNumberOfPixels(); ++k)
    p[k] += noise(random);
  const auto noisy = BeadCalibration::Calibrate(projections, CircularGeometry(16), phantom);
  EXPECT_FALSE(noisy.circular);
  EXPECT_LT(noisy.error.mean, 0.1) << BeadCalibration::Summary(noisy, phantom);
  EXPECT_GT(noisy.error.mean, result.error.mean); // noise shows
  EXPECT_LT(GridReprojectionDistance(truth, noisy.geometry, 0.5), 0.1);
}

TEST(BeadCalibration, FDKWithTheFittedMatricesMatchesFDKWithTheTrueOnes)
{
  // Shepp-Logan (scale 40 mm) scanned on a wobbling orbit of 36 views, reconstructed on 64^3
  // voxels of 1.25 mm with the true matrices, the fitted ones and the nominal circle.
  const auto truth = WobblingOrbit(36, 21);
  auto phantom = BeadPhantom::New();
  const auto calibration = BeadCalibration::Calibrate(BeadScan(truth), CircularGeometry(36), phantom);
  ASSERT_FALSE(calibration.circular);
  auto head = GeometricPhantom::New();
  head->SetToSheppLogan(40.);
  const auto scan = ProjectPhantom(truth, head, 128, 1.);
  auto reconstruct = [&](const ThreeDCircularProjectionGeometry * geometry) {
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    auto volume = ZeroVolume(64, 1.25);
    fdk->SetInput(0, volume->GetOutput());
    fdk->SetProjections(scan);
    fdk->SetGeometry(geometry);
    fdk->Update();
    ImageType::Pointer output = fdk->GetOutput();
    output->DisconnectPipeline();
    return output;
  };
  const auto withTruth = reconstruct(truth), withFit = reconstruct(calibration.geometry),
             withNominal = reconstruct(CircularGeometry(36));
  const auto reference = VoxelizedPhantom(head, 64, 1.25, 2);
  ImageType::RegionType central({ { 12, 12, 12 } }, { { 40, 40, 40 } });
  const auto qualityTruth = Compare(withTruth, reference, central), qualityFit = Compare(withFit, reference, central),
             qualityNominal = Compare(withNominal, reference, central);
  // The fitted geometry's volume differs from the true one's by a small fraction of what the
  // nominal circle's does, and its error against the phantom within 2 % of the true one's.
  const double fitDifference = RelativeDifference(withFit, withTruth), nominalDifference = RelativeDifference(withNominal, withTruth);
  EXPECT_LT(fitDifference, 0.01) << "nominal: " << nominalDifference;
  EXPECT_GT(nominalDifference, 10. * fitDifference);
  EXPECT_LT(qualityFit.meanAbsoluteError, 1.02 * qualityTruth.meanAbsoluteError)
    << qualityFit.meanAbsoluteError << " vs " << qualityTruth.meanAbsoluteError;
  EXPECT_GT(qualityNominal.meanAbsoluteError, 1.1 * qualityTruth.meanAbsoluteError);
  std::cout << "FDK of a wobbling orbit (36 views, 64^3): MAE against the phantom with the true matrices "
            << qualityTruth.meanAbsoluteError << ", the fitted " << qualityFit.meanAbsoluteError << ", the nominal circle "
            << qualityNominal.meanAbsoluteError << "; relative L2 to the true-matrix volume: fitted " << fitDifference
            << ", nominal " << nominalDifference << std::endl;
}

TEST(BeadCalibrationBadInput, NamesWhatIsMissing)
{
  auto phantom = BeadPhantom::New();
  auto expectMessage = [&](const ImageType * projections, const ThreeDCircularProjectionGeometry * geometry,
                           const BeadCalibration::Options & options, const std::string & expected) {
    try
    {
      BeadCalibration::Calibrate(projections, geometry, phantom, options);
      ADD_FAILURE() << "no exception; expected '" << expected << "'";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(expected), std::string::npos) << e.GetDescription();
    }
  };
  const BeadCalibration::Options defaults;
  const auto circle = CircularGeometry(8);
  const auto scan = BeadScan(circle, 300, 0.5);
  // Counts that differ.
  expectMessage(scan, CircularGeometry(9), defaults, "number of projections is 8; expected 9");
  // Beads too small on a coarse detector.
  expectMessage(BeadScan(circle, 90, 1.5), circle, defaults, "smallest bead on the detector");
  // No beads: plastic only.
  auto plastic = GeometricPhantom::New();
  plastic->AddEllipsoid(phantom->GetPhantom()->GetEllipsoids()[0]);
  expectMessage(ProjectPhantom(circle, plastic, 300, 0.5), circle, defaults, "beads found in all 8 projections");
  // Two views cannot give a circular orbit.
  BeadCalibration::Options circular;
  circular.orbit = BeadCalibration::Options::Orbit::Circular;
  const auto two = CircularGeometry(2, 90.);
  expectMessage(BeadScan(two, 300, 0.5), two, circular, "at least 4 over 30 degrees");
  // A view whose detector sees only a few beads (moved 125 mm up): no matrix for it.
  auto shifted = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 8; ++k)
    shifted->AddProjection(1000., 1500., 45. * k, 0., k == 3 ? 125. : 0.);
  BeadCalibration::Options matrices;
  matrices.orbit = BeadCalibration::Options::Orbit::Matrices;
  expectMessage(BeadScan(shifted, 300, 0.5), shifted, matrices, "too few beads identified: 3 (");
  // A detector too small to see the pattern: nothing can be identified.
  expectMessage(BeadScan(circle, 100, 0.5), circle, defaults, "beads identified is none");
  // A fit held to a limit it cannot meet is refused, not written.
  BeadCalibration::Options strict;
  strict.maximumMeanError = 1e-6;
  expectMessage(scan, circle, strict, "mean reprojection error");
  // A phantom whose beads are all alike, cut by the detector: which beads are seen is ambiguous.
  auto alike = GeometricPhantom::New();
  for (const auto & solid : phantom->GetPhantom()->GetEllipsoids())
  {
    auto copy = solid;
    if (copy.shape == GeometricPhantom::Shape::Bead)
      copy.semiAxes = { { 1., 1., 1. } };
    alike->AddEllipsoid(copy);
  }
  auto alikePhantom = BeadPhantom::New();
  alikePhantom->SetPhantom(alike);
  try
  {
    BeadCalibration::Calibrate(ProjectPhantom(circle, alike, 300, 0.3), circle, alikePhantom, defaults);
    ADD_FAILURE() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("beads identified"), std::string::npos) << e.GetDescription();
  }
  // Parallel beam.
  auto parallel = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 8; ++k)
    parallel->AddProjection(1000., 0., 45. * k);
  EXPECT_THROW(BeadCalibration::Calibrate(scan, parallel, phantom, defaults), itk::ExceptionObject);
}
