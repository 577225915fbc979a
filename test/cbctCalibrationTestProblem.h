#ifndef cbctCalibrationTestProblem_h
#define cbctCalibrationTestProblem_h

// The geometry calibrations' test problem: a micro-CT-like scan (SID 100 mm, SDD 500 mm, a detector of
// 128 x 128 pixels of 0.5 mm, so 0.1 mm at the axis) of a Shepp-Logan head 12 mm tall with three
// small dense beads off its centre (objects are not symmetric about the axis), simulated exactly
// with a known axis offset and roll (AxisCorrection) and calibrated from the nominal geometry:
// full scans, half-fan scans (a detector displaced 12 mm: the axis 40 pixels from its edge), short scans, with Poisson noise.

#include "cbctAxisCorrection.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctTestHelpers.h"

#include <cmath>
#include <vector>

namespace cbct::test
{

constexpr double CalibrationSID = 100.;
constexpr double CalibrationSDD = 500.;
constexpr double CalibrationPixel = 0.5;
constexpr unsigned int CalibrationColumns = 128;
constexpr unsigned int CalibrationRows = 128;
constexpr double DegreesToRadians = 3.14159265358979323846 / 180.;

/** Shepp-Logan 12 mm tall (attenuation 0.2 per mm inside: line integrals up to about 2) and three
 * beads. */
inline GeometricPhantom::Pointer
CalibrationPhantom(double shiftX = 0.)
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(6.);
  phantom->ScaleDensities(0.2);
  for (const auto & bead : { std::array<double, 4>{ 2.5, 1.0, -1.5, 0.4 }, std::array<double, 4>{ -1.8, -2.0, 2.2, 0.3 },
                             std::array<double, 4>{ 0.7, 2.8, 1.2, 0.35 } })
  {
    GeometricPhantom::Ellipsoid e;
    e.density = 0.8;
    e.center = { bead[0], bead[1], bead[2] };
    e.semiAxes = { bead[3], bead[3], bead[3] };
    phantom->AddEllipsoid(e);
  }
  if (shiftX != 0.)
  {
    auto shifted = GeometricPhantom::New();
    for (auto e : phantom->GetEllipsoids())
    {
      e.center[0] += shiftX;
      shifted->AddEllipsoid(e);
    }
    return shifted;
  }
  return phantom;
}

enum class ScanKind
{
  Full,
  HalfFan,
  Short
};

/** The nominal geometry of `kind`: 180 views over 360 degrees (full, half fan) or 110 views over
 * 180 degrees plus the fan (short). */
inline ThreeDCircularProjectionGeometry::Pointer
NominalCalibrationGeometry(ScanKind kind, unsigned int views = 0)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  const double fan = 2. * std::atan(0.5 * CalibrationColumns * CalibrationPixel / CalibrationSDD) / DegreesToRadians;
  const double arc = kind == ScanKind::Short ? 180. + fan + 2. : 360.;
  const unsigned int count = views > 0 ? views : kind == ScanKind::Short ? 110 : 180;
  const double step = kind == ScanKind::Short ? arc / (count - 1) : arc / count;
  const double detectorOffset = kind == ScanKind::HalfFan ? -12. : 0.;
  for (unsigned int k = 0; k < count; ++k)
    geometry->AddProjection(CalibrationSID, CalibrationSDD, 10. + k * step, detectorOffset, 0.);
  return geometry;
}

/** Exact projections of `phantom` through `geometry` on the test detector; with `i0` > 0, Poisson
 * noise at that many counts through air (seeded). */
inline ImageType::Pointer
CalibrationProjections(const ThreeDCircularProjectionGeometry * geometry, const GeometricPhantom * phantom,
                       double i0 = 0., unsigned int columns = CalibrationColumns, unsigned int rows = CalibrationRows)
{
  auto source = PhantomProjectionSource<ImageType>::New();
  ImageType::SizeType size{ { columns, rows, geometry->GetNumberOfProjections() } };
  ImageType::SpacingType spacing;
  spacing[0] = spacing[1] = CalibrationPixel;
  spacing[2] = 1.;
  ImageType::PointType origin;
  origin[0] = -0.5 * (columns - 1.) * CalibrationPixel;
  origin[1] = -0.5 * (rows - 1.) * CalibrationPixel;
  origin[2] = 0.;
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  ImageType::Pointer projections = source->GetOutput();
  if (i0 <= 0.)
    return projections;
  auto toIntensity = LineIntegralToIntensityImageFilter<ImageType, ImageType>::New();
  toIntensity->SetInput(projections);
  toIntensity->SetI0(i0);
  toIntensity->SetPoissonNoise(true);
  toIntensity->SetSeed(35);
  auto toLineIntegral = IntensityToLineIntegralImageFilter<ImageType, ImageType>::New();
  toLineIntegral->SetInput(toIntensity->GetOutput());
  toLineIntegral->SetI0(i0);
  toLineIntegral->Update();
  ImageType::Pointer noisy = toLineIntegral->GetOutput();
  noisy->DisconnectPipeline();
  return noisy;
}

/** A scan with a known miscalibration: the nominal geometry, the true one (nominal + `truth`) and the
 * projections through the true one. */
struct CalibrationScan
{
  ThreeDCircularProjectionGeometry::Pointer nominal;
  ThreeDCircularProjectionGeometry::Pointer truth;
  AxisCorrection correction;
  ImageType::Pointer projections;
};

/** `offsetPixels` and `rollDegrees` of the stage model (unless `model` says otherwise). */
inline CalibrationScan
MakeCalibrationScan(ScanKind kind, double offsetPixels, double rollDegrees, double i0 = 0.,
                    AxisCorrection::OffsetModel model = AxisCorrection::OffsetModel::Stage, double shiftX = 0.)
{
  CalibrationScan scan;
  scan.nominal = NominalCalibrationGeometry(kind);
  scan.correction.offset = offsetPixels * CalibrationPixel;
  scan.correction.roll = rollDegrees * DegreesToRadians;
  scan.correction.model = model;
  scan.truth = scan.correction.Apply(scan.nominal);
  scan.projections = CalibrationProjections(scan.truth, CalibrationPhantom(shiftX), i0);
  return scan;
}

/** Candidate geometries of one scan for slice comparisons: stage offsets and rolls at the central
 * height, a detector offset, and another height. */
struct SliceCandidate
{
  double offset, roll, y;
  AxisCorrection::OffsetModel model;

  /** `nominal` with this candidate's offset (pixels) and roll (degrees). */
  ThreeDCircularProjectionGeometry::Pointer
  Apply(const ThreeDCircularProjectionGeometry * nominal) const
  {
    AxisCorrection correction;
    correction.offset = offset * CalibrationPixel;
    correction.roll = roll * DegreesToRadians;
    correction.model = model;
    return correction.Apply(nominal);
  }
};

inline std::vector<SliceCandidate>
SliceCandidates()
{
  const auto stage = AxisCorrection::OffsetModel::Stage, detector = AxisCorrection::OffsetModel::Detector;
  return { { 13., 0.5, 0., stage },    { 12., 0.5, 0., stage },    { 13.5, 0.3, 0., stage },
           { 13., 0.8, 0., stage },    { 13., 0.5, 0., detector }, { 13., 0.5, 2.5, stage } };
}

} // namespace cbct::test

#endif
