#ifndef cbctFDKGeometryCases_h
#define cbctFDKGeometryCases_h

// The FDK test problem (Shepp-Logan in a 60 mm sphere, 128^3 voxels of 1 mm, a detector of 200 x 200
// pixels of 1.2 mm at SID 1000 mm, SDD 1500 mm) and the geometries FDK must reconstruct it from:
// offsets of source and detector, per-projection variation, tilts, short and half-fan scans,
// irregular steps and bare matrices. Shared by the CPU and CUDA suites.

#include "cbctTestHelpers.h"

#include <cctype>
#include <cmath>
#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace cbct::test
{

constexpr unsigned int FDKVoxels = 128;
constexpr unsigned int FDKDetectorPixels = 200;
constexpr double FDKPixelMm = 1.2;

/** The 2x2x2-supersampled truth, made once. */
inline const ImageType *
FDKTruth()
{
  static ImageType::Pointer truth = VoxelizedPhantom(SheppLogan(), FDKVoxels, 1., 2);
  return truth;
}

/** The middle half of the slices along the rotation axis (y), where the cone angle is small enough
 * for FDK's approximation, and all of x and z. */
inline ImageType::RegionType
FDKCentralRegion()
{
  ImageType::RegionType region(ImageType::SizeType{ { FDKVoxels, FDKVoxels, FDKVoxels } });
  region.SetIndex(1, FDKVoxels / 4);
  region.SetSize(1, FDKVoxels / 2);
  return region;
}

/** A detector of `columns` x FDKDetectorPixels pixels of FDKPixelMm, centred on its origin. */
template <typename TImage>
typename TImage::Pointer
ProjectSheppLogan(const ThreeDCircularProjectionGeometry * geometry, unsigned int columns = FDKDetectorPixels)
{
  auto source = PhantomProjectionSource<TImage>::New();
  typename TImage::SizeType size{ { columns, FDKDetectorPixels, geometry->GetNumberOfProjections() } };
  typename TImage::SpacingType spacing;
  spacing[0] = spacing[1] = FDKPixelMm;
  spacing[2] = 1.;
  typename TImage::PointType origin;
  origin[0] = -0.5 * (columns - 1.) * FDKPixelMm;
  origin[1] = -0.5 * (FDKDetectorPixels - 1.) * FDKPixelMm;
  origin[2] = 0.;
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(SheppLogan());
  source->Update();
  typename TImage::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  return projections;
}

/** One geometry of the matrix (made for a number of views), what the displaced-detector decision
 * must be, and whether it is a short scan. A full scan whose detector sees the object from both
 * sides measures every line twice; a half fan (weighted) measures the lines beyond its near side
 * once, so it needs twice the views for the same angular sampling; a short scan measures most lines
 * once too. */
struct FDKGeometryCase
{
  std::string name;
  std::function<ThreeDCircularProjectionGeometry::Pointer(unsigned int views)> make;
  bool weighted = false;  ///< displaced-detector weighting expected
  bool shortScan = false; ///< Parker weights expected
};

/** How GoogleTest prints a case (--gtest_list_tests, failures): its name, not the struct's bytes. */
inline void
PrintTo(const FDKGeometryCase & c, std::ostream * os)
{
  *os << c.name;
}

/** A case's name as GoogleTest accepts it: letters, digits and underscores. */
inline std::string
CaseTestName(const std::string & name)
{
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

/** RTK's nine parameters of projection k (degrees and mm), as AddProjection() takes them. */
struct RtkParameters
{
  double sid = 1000., sdd = 1500., angle = 0., projectionOffsetX = 0., projectionOffsetY = 0., outOfPlane = 0.,
         inPlane = 0., sourceOffsetX = 0., sourceOffsetY = 0.;
};

inline ThreeDCircularProjectionGeometry::Pointer
Scan(unsigned int count, const std::function<RtkParameters(unsigned int)> & projection)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < count; ++k)
  {
    const RtkParameters p = projection(k);
    geometry->AddProjection(p.sid, p.sdd, p.angle, p.projectionOffsetX, p.projectionOffsetY, p.outOfPlane, p.inPlane,
                            p.sourceOffsetX, p.sourceOffsetY);
  }
  return geometry;
}

/** 180 views over 360 degrees, each changed by `change`. */
inline ThreeDCircularProjectionGeometry::Pointer
FullScan(const std::function<void(RtkParameters &, double degrees)> & change, unsigned int count = 180)
{
  return Scan(count, [&](unsigned int k) {
    RtkParameters p;
    p.angle = k * 360. / count;
    change(p, p.angle);
    return p;
  });
}

/** 180 views over 180 degrees plus the fan angle (4.6 degrees each side) plus 6 degrees of margin. */
inline ThreeDCircularProjectionGeometry::Pointer
ShortScan(const std::function<void(RtkParameters &, double degrees)> & change, unsigned int count = 180)
{
  const double arc = 180. + 2. * 4.6 + 6.;
  return Scan(count, [&](unsigned int k) {
    RtkParameters p;
    p.angle = 40. + k * arc / (count - 1.);
    change(p, p.angle);
    return p;
  });
}

inline double
Sin(double degrees)
{
  return std::sin(degrees * 3.14159265358979323846 / 180.);
}

/** The same geometry given as bare 3x4 matrices. */
inline ThreeDCircularProjectionGeometry::Pointer
AsMatrices(const ThreeDCircularProjectionGeometry * geometry)
{
  auto matrices = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
    matrices->AddProjection(geometry->GetMatrix(k));
  return matrices;
}

/** Half fan: the 200-pixel detector shifted 80 mm, so it reaches 27 mm past the axis on one side
 * and 133 mm on the other; the phantom (41 mm x 54 mm across) spills past the near edge. */
inline void
HalfFan(RtkParameters & p, double)
{
  p.projectionOffsetX = 80.;
}

/** Half fan's twin: a centred detector as wide as the half fan reaches (334 columns). */
constexpr unsigned int HalfFanTwinColumns = 334;

inline std::vector<FDKGeometryCase>
FDKGeometryCases()
{
  using Change = std::function<void(RtkParameters &, double degrees)>;
  std::vector<FDKGeometryCase> cases;
  auto full = [&](std::string name, Change change, bool weighted = false) {
    cases.push_back({ std::move(name), [change](unsigned int views) { return FullScan(change, views); }, weighted });
  };
  auto shortScan = [&](std::string name, Change change) {
    cases.push_back({ std::move(name), [change](unsigned int views) { return ShortScan(change, views); }, false, true });
  };
  full("detector offset u 20 mm", [](RtkParameters & p, double) { p.projectionOffsetX = 20.; });
  full("detector offset v 20 mm", [](RtkParameters & p, double) { p.projectionOffsetY = 20.; });
  full("source offset x 20 mm", [](RtkParameters & p, double) { p.sourceOffsetX = 20.; });
  full("source offset y 15 mm", [](RtkParameters & p, double) { p.sourceOffsetY = 15.; });
  full("source offsets x 20 and y 15 mm", [](RtkParameters & p, double) {
    p.sourceOffsetX = 20.;
    p.sourceOffsetY = 15.;
  });
  full("source and detector offsets together", [](RtkParameters & p, double) {
    p.sourceOffsetX = -12.;
    p.sourceOffsetY = 8.;
    p.projectionOffsetX = 25.;
    p.projectionOffsetY = -10.;
  });
  full("half fan: detector offset 80 mm", HalfFan, true);
  full("half fan with a source offset", [](RtkParameters & p, double a) {
    HalfFan(p, a);
    p.sourceOffsetX = 30.;
  }, true);
  full("half fan with SID, SDD and offset varying", [](RtkParameters & p, double a) {
    p.sid = 1000. + 10. * Sin(2. * a);
    p.sdd = 1500. + 20. * Sin(5. * a + 30.);
    p.projectionOffsetX = 80. + 3. * Sin(3. * a);
  }, true);
  shortScan("short scan with a detector offset", [](RtkParameters & p, double) { p.projectionOffsetX = 15.; });
  full("SID, SDD and detector offset varying per projection", [](RtkParameters & p, double a) {
    p.sid = 1000. + 10. * Sin(2. * a);
    p.sdd = 1500. + 20. * Sin(5. * a + 30.);
    p.projectionOffsetX = 2. * Sin(3. * a);
  });
  full("source offset varying per projection", [](RtkParameters & p, double a) {
    p.sourceOffsetX = 15. + 10. * Sin(a);
    p.sourceOffsetY = 5. * Sin(2. * a);
  });
  full("out-of-plane tilt 2 deg", [](RtkParameters & p, double) { p.outOfPlane = 2.; });
  full("in-plane tilt 2 deg", [](RtkParameters & p, double) { p.inPlane = 2.; });
  cases.push_back({ "irregular angular steps", [](unsigned int views) {
                     // Steps of the mean +- 40 % (each view moved by up to a fifth of a step), fixed
                     // seed, and a detector offset.
                     std::mt19937 random(13);
                     std::uniform_real_distribution<double> jitter(-0.2, 0.2);
                     return Scan(views, [&](unsigned int k) {
                       RtkParameters p;
                       p.angle = (k + jitter(random)) * 360. / views;
                       p.projectionOffsetX = 10.;
                       return p;
                     });
                   },
                    false });
  cases.push_back({ "irregular short scan with source offsets and SID varying", [](unsigned int views) {
                     std::mt19937 random(17);
                     std::uniform_real_distribution<double> jitter(-0.3, 0.3);
                     const double arc = 180. + 2. * 4.6 + 8.;
                     return Scan(views, [&](unsigned int k) {
                       RtkParameters p;
                       p.angle = 40. + (k + (k > 0 && k + 1 < views ? jitter(random) : 0.)) * arc / (views - 1.);
                       p.sid = 1000. + 10. * Sin(3. * p.angle);
                       p.sourceOffsetX = 20. + 5. * Sin(p.angle);
                       p.sourceOffsetY = 10.;
                       return p;
                     });
                   },
                    false, true });
  cases.push_back({ "bare matrices: source and detector offsets, SID varying", [](unsigned int views) {
                     return AsMatrices(FullScan([](RtkParameters & p, double a) {
                       p.sid = 1000. + 10. * Sin(2. * a);
                       p.sourceOffsetX = 20.;
                       p.projectionOffsetX = -15. + 2. * Sin(3. * a);
                       p.projectionOffsetY = 5.;
                     }, views));
                   },
                    false });
  cases.push_back({ "bare matrices: half fan", [](unsigned int views) { return AsMatrices(FullScan(HalfFan, views)); }, true });
  return cases;
}

} // namespace cbct::test

#endif
