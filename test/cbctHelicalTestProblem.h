#ifndef cbctHelicalTestProblem_h
#define cbctHelicalTestProblem_h

// A small helical scan of a long object, shared by the CPU and CUDA suites: three Shepp-Logan heads
// of 20 mm stacked along the rotation axis (y from -56 to 56 mm), a 24 x 72 x 24 volume of 1.6 mm, a
// detector of 48 columns x 24 rows of 1.6 mm at magnification 2 (19.2 mm of the axis at the
// isocentre, a sixth of the object), and its circular twin: the middle head alone, scanned on one circle by a
// detector tall enough to see all of it.

#include "cbctTestHelpers.h"

#include <cmath>
#include <string>

namespace cbct::test
{

constexpr double HelicalSid = 400.;
constexpr double HelicalSdd = 800.;
constexpr double HelicalPixelMm = 1.6;
constexpr unsigned int HelicalColumns = 48;
constexpr unsigned int HelicalRows = 24;
constexpr double HelicalHeadScale = 20.;
constexpr double HelicalHeadSpacing = 38.; // y between the heads' centres (the heads are 36 mm long)
constexpr unsigned int HelicalVoxels = 24; // across x and z; 3 times as many along y
constexpr double HelicalVoxelMm = 1.6;

/** The detector's height at the isocentre (mm): a pitch factor of 1 feeds this much per turn. */
inline double
HelicalCollimation()
{
  return HelicalRows * HelicalPixelMm * HelicalSid / HelicalSdd;
}

/** `perTurn` projections a turn over `turns` turns from gantry angle `firstDegrees` (negative
 * `perTurn`: the gantry turns the other way), the source and the detector moving `feed` mm along y per
 * turn from `startY`, written as RTK writes a helix (SourceOffsetY = ProjectionOffsetY = table). */
inline ThreeDCircularProjectionGeometry::Pointer
HelicalGeometry(int perTurn, double turns, double feed, double startY, double firstDegrees = 0.,
                double sid = HelicalSid, double sdd = HelicalSdd)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  const unsigned int count = static_cast<unsigned int>(std::lround(std::abs(perTurn) * turns));
  for (unsigned int k = 0; k < count; ++k)
  {
    const double turn = static_cast<double>(k) / std::abs(perTurn);
    const double y = startY + feed * turn;
    geometry->AddProjection(sid, sdd, firstDegrees + (perTurn < 0 ? -360. : 360.) * turn, 0., y, 0., 0., 0., y);
  }
  return geometry;
}

/** A helix at `pitch` (feed per turn over the detector's height at the isocentre) whose first and last
 * turns reach past the long phantom's ends by half the detector's height at the isocentre. */
inline ThreeDCircularProjectionGeometry::Pointer
HelicalScanOfTheLongPhantom(double pitch, int perTurn = 64)
{
  const double feed = pitch * HelicalCollimation();
  const double halfLength = 0.5 * 3. * HelicalVoxels * HelicalVoxelMm + HelicalCollimation();
  return HelicalGeometry(perTurn, 2. * halfLength / feed, feed, -halfLength);
}

/** Three Shepp-Logan heads of HelicalHeadScale mm, centred at y = -HelicalHeadSpacing, 0 and
 * +HelicalHeadSpacing (`heads` 1: the middle one alone). */
inline GeometricPhantom::Pointer
StackedHeads(unsigned int heads = 3)
{
  auto head = GeometricPhantom::New();
  head->SetToSheppLogan(HelicalHeadScale);
  auto stack = GeometricPhantom::New();
  for (int h = 0; h < static_cast<int>(heads); ++h)
  {
    const double y = heads == 1 ? 0. : (h - 1) * HelicalHeadSpacing;
    for (auto e : head->GetEllipsoids())
    {
      e.center[1] += y;
      stack->AddEllipsoid(e);
    }
  }
  return stack;
}

/** The long volume's grid: HelicalVoxels x 3 HelicalVoxels x HelicalVoxels voxels, centred. */
inline ImageType::Pointer
LongVolumeGrid()
{
  auto grid = CentredInformation(ImageType::SizeType{ { HelicalVoxels, 3 * HelicalVoxels, HelicalVoxels } },
                                 HelicalVoxelMm, HelicalVoxelMm, HelicalVoxelMm);
  grid->Allocate(true);
  return grid;
}

/** The middle head's region of the long volume (HelicalVoxels slices about y = 0), and the same size
 * of a cube. */
inline ImageType::RegionType
MiddleHeadRegion()
{
  ImageType::RegionType region(ImageType::SizeType{ { HelicalVoxels, HelicalVoxels, HelicalVoxels } });
  region.SetIndex(1, HelicalVoxels);
  return region;
}

/** The truth of `phantom` on `grid`'s voxels, 2x2x2 supersampled. */
inline ImageType::Pointer
TruthOn(const GeometricPhantom * phantom, const ImageType * grid)
{
  auto source = PhantomVolumeSource<ImageType>::New();
  source->SetSize(grid->GetLargestPossibleRegion().GetSize());
  source->SetSpacing(grid->GetSpacing());
  source->SetOrigin(grid->GetOrigin());
  source->SetPhantom(phantom);
  source->SetSupersampling(2);
  source->Update();
  return source->GetOutput();
}

/** Exact projections of `phantom` on a centred detector of `columns` x `rows` pixels of HelicalPixelMm. */
inline ImageType::Pointer
HelicalProjections(const ThreeDCircularProjectionGeometry * geometry, const GeometricPhantom * phantom,
                   unsigned int columns = HelicalColumns, unsigned int rows = HelicalRows)
{
  auto source = PhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { columns, rows, geometry->GetNumberOfProjections() } }, HelicalPixelMm,
              HelicalPixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  return source->GetOutput();
}

/** Rows a centred detector needs to see a head of HelicalHeadScale whole from a circle (with a margin). */
inline unsigned int
RowsCoveringOneHead()
{
  const double halfHeight = 0.90 * HelicalHeadScale + 2.; // the skull's semi-axis along y, and a margin
  const double atDetector = halfHeight * HelicalSdd / (HelicalSid - 0.92 * HelicalHeadScale);
  return 2 * static_cast<unsigned int>(std::ceil(atDetector / HelicalPixelMm));
}

} // namespace cbct::test

#endif
