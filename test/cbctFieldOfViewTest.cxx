// The scan's field of view (FieldOfViewMask, FDK's --fov): the mask against the geometry for full,
// short, displaced-detector (half fan) and tilted scans and bare matrices, voxel by voxel against
// the definition (a voxel every projection sees is never left out, one that some projection misses
// never kept), the full scan's cylinder and cones against their formulas; FDK with the field of view
// gives the same voxels inside, bit for bit, and 0 or NaN outside, in columns and in runs along z,
// whole and streamed in slabs.
#include "cbctDetectorCoordinates.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFieldOfViewMask.h"
#include "cbctTestHelpers.h"

#include <vnl/vnl_matrix_fixed.h>

#include <gtest/gtest.h>

#include <itkStreamingImageFilter.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** The world (mm) to stack pixel index matrices of every projection, in double, from the geometry
 * and the detector's own coordinates (not the mask's arithmetic). */
std::vector<vnl_matrix_fixed<double, 3, 4>>
WorldToPixel(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections)
{
  const DetectorCoordinates detector(projections);
  std::vector<vnl_matrix_fixed<double, 3, 4>> matrices;
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
    matrices.push_back(detector.PhysicalToIndex().GetVnlMatrix() * geometry->GetMatrix(k).GetVnlMatrix());
  return matrices;
}

/** Whether voxel (x, y, z) projects onto [uMin + margin, uMax - margin] x [vMin + margin, vMax -
 * margin] in front of the source in every projection. */
bool
SeenByEveryProjection(const std::vector<vnl_matrix_fixed<double, 3, 4>> & matrices, const ImageType * volume,
                      const FieldOfViewDetector & d, double margin, long long x, long long y, long long z)
{
  itk::Point<double, 3> world;
  volume->TransformIndexToPhysicalPoint(itk::Index<3>{ { x, y, z } }, world);
  for (const auto & m : matrices)
  {
    const double h[3] = { m(0, 0) * world[0] + m(0, 1) * world[1] + m(0, 2) * world[2] + m(0, 3),
                          m(1, 0) * world[0] + m(1, 1) * world[1] + m(1, 2) * world[2] + m(1, 3),
                          m(2, 0) * world[0] + m(2, 1) * world[1] + m(2, 2) * world[2] + m(2, 3) };
    if (!(h[2] < 0.))
      return false;
    const double u = h[0] / h[2], v = h[1] / h[2];
    if (!(u >= d.uMin + margin && u <= d.uMax - margin && v >= d.vMin + margin && v <= d.vMax - margin))
      return false;
  }
  return true;
}

/** The mask of `geometry` on a volume of `voxels`^3 of `spacing` mm and a detector of `pixels`^2 of
 * 2 mm (shifted by `shiftU` mm along u), checked voxel by voxel against SeenByEveryProjection(): a
 * voxel seen with a margin of 1e-6 pixel is inside, one missed by more than that is outside. */
void
ExpectMaskMatchesDefinition(const ThreeDCircularProjectionGeometry * geometry, unsigned int voxels, double spacing,
                            unsigned int pixels, double shiftU, const char * what, int expectedAxis)
{
  auto volume = CentredInformation(ImageType::SizeType{ { voxels, voxels, voxels } }, spacing, spacing, spacing);
  auto projections = CentredInformation(ImageType::SizeType{ { pixels, pixels, geometry->GetNumberOfProjections() } }, 2., 2., 1.);
  auto origin = projections->GetOrigin();
  origin[0] += shiftU;
  origin[2] = 0.;
  projections->SetOrigin(origin);
  const auto matrices = FieldOfViewMask::MatricesFor(volume, projections, geometry);
  const auto detector = FieldOfViewMask::DetectorOf(projections);
  FieldOfViewMask mask;
  mask.Compute(matrices, detector, FieldOfViewMask::AxisFor(matrices), volume->GetLargestPossibleRegion());
  EXPECT_EQ(mask.GetAxis(), expectedAxis) << what;
  const auto world = WorldToPixel(geometry, projections);
  std::size_t inside = 0, outside = 0, mismatches = 0;
  for (long long z = 0; z < voxels; ++z)
    for (long long y = 0; y < voxels; ++y)
      for (long long x = 0; x < voxels; ++x)
      {
        const bool in = mask.Inside(x, y, z);
        inside += in ? 1 : 0;
        outside += in ? 0 : 1;
        if (SeenByEveryProjection(world, volume, detector, 1e-6, x, y, z) && !in)
          ++mismatches; // seen by every projection, skipped
        if (!SeenByEveryProjection(world, volume, detector, -1e-6, x, y, z) && in)
          ++mismatches; // missed by some projection, kept
      }
  std::cout << what << ": " << inside << " voxels inside, " << outside << " outside" << std::endl;
  EXPECT_EQ(mismatches, 0u) << what;
  EXPECT_EQ(mask.GetNumberOfInsideVoxels(), inside) << what;
  // Both sides are populated: the test would notice an all-in or all-out mask.
  EXPECT_GT(inside, voxels * voxels * voxels / 200) << what;
  EXPECT_GT(outside, voxels * voxels * voxels / 20) << what;
}
} // namespace

TEST(FieldOfViewMask, MatchesTheDefinitionForFullShortHalfFanAndTiltedScans)
{
  // 32^3 voxels of 3.5 mm (112 mm) and 48^2 pixels of 2 mm (96 mm at the detector, 64 mm at the
  // axis): the corners and the top and bottom of the volume are outside.
  ExpectMaskMatchesDefinition(CircularGeometry(60), 32, 3.5, 48, 0., "full scan", 1);
  ExpectMaskMatchesDefinition(CircularGeometry(40, 200.), 32, 3.5, 48, 0., "short scan (200 degrees)", 1);
  // Displaced: the detector shifted by 20 mm along u (as given, before FDK widens it to the wide side:
  // FieldOfViewFDK.HalfFanCoversTheWideSide), so the narrow side bounds the field of view.
  ExpectMaskMatchesDefinition(CircularGeometry(60, 360., 1000., 1500., 20.), 32, 3.5, 48, 0., "displaced detector", 1);
  ExpectMaskMatchesDefinition(CircularGeometry(60), 32, 3.5, 48, 30., "detector origin shifted", 1);
  // Out-of-plane tilt: u and w change along y, the columns run along z.
  auto tilted = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 60; ++k)
    tilted->AddProjection(1000., 1500., 6. * k, 0., 0., 10., 5.);
  ExpectMaskMatchesDefinition(tilted, 32, 3.5, 48, 0., "tilted orbit", 2);
  // Bare matrices (no RTK parameters): an orbit with source and detector offsets varying per view.
  auto bare = ThreeDCircularProjectionGeometry::New();
  auto source = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 45; ++k)
    source->AddProjection(900. + 2. * k, 1400. + 3. * k, 8. * k, 0.2 * k, -0.1 * k, 0., 0., 1., -1.);
  for (unsigned int k = 0; k < 45; ++k)
    bare->AddProjection(source->GetMatrix(k));
  ExpectMaskMatchesDefinition(bare, 32, 3.5, 48, 0., "bare matrices", 1);
}

TEST(FieldOfViewMask, FullScanIsTheCylinderCutByTheCones)
{
  // 360 views, SID 1000, SDD 1500, 64^2 pixels of 2 mm: the detector's edge rays (64 mm off the
  // centre, 1500 mm away) pass R = 1000 sin(atan(64 / 1500)) = 42.64 mm from the axis; a voxel at
  // distance r from the axis, on the side of the source, projects 64 mm off the centre row at height
  // |y| = 64 (1000 - r) / 1500: the cones' surface.
  auto geometry = CircularGeometry(360);
  const double spacing = 1.;
  const unsigned int voxels = 100;
  auto volume = CentredInformation(ImageType::SizeType{ { voxels, voxels, voxels } }, spacing, spacing, spacing);
  auto projections = CentredInformation(ImageType::SizeType{ { 64, 64, 360 } }, 2., 2., 1.);
  auto origin = projections->GetOrigin();
  origin[2] = 0.;
  projections->SetOrigin(origin);
  const auto matrices = FieldOfViewMask::MatricesFor(volume, projections, geometry);
  FieldOfViewMask mask;
  mask.Compute(matrices, FieldOfViewMask::DetectorOf(projections), FieldOfViewMask::AxisFor(matrices),
               volume->GetLargestPossibleRegion());
  const double radius = 1000. * std::sin(std::atan(64. / 1500.));
  // 360 views: the field of view is the 360-gon circumscribing that circle, within R / cos(0.5 deg).
  const double outer = radius / std::cos(0.5 * Pi / 180.);
  std::size_t checked = 0;
  for (long long z = 0; z < voxels; ++z)
    for (long long x = 0; x < voxels; ++x)
    {
      itk::Point<double, 3> p;
      volume->TransformIndexToPhysicalPoint(itk::Index<3>{ { x, 0, z } }, p);
      const double r = std::hypot(p[0], p[2]);
      const FieldOfViewColumn & c = mask.ColumnAt(x, 0, z);
      if (r > outer + 1e-6)
      {
        EXPECT_LT(c.last, c.first) << "column at r = " << r << " mm is outside the cylinder";
        continue;
      }
      if (r > radius - 1e-6)
        continue; // between the circle and the polygon
      // Inside the cylinder: the column reaches the cones, |y| <= 64 (1000 - r) / 1500 for the source
      // on the voxel's side (the nearest the source comes).
      const double height = 64. * (1000. - r) / 1500.;
      itk::Point<double, 3> top, bottom;
      volume->TransformIndexToPhysicalPoint(itk::Index<3>{ { x, c.last, z } }, top);
      volume->TransformIndexToPhysicalPoint(itk::Index<3>{ { x, c.first, z } }, bottom);
      // The last voxel inside is below the cone, the next one above it (the 360 views make the cone a
      // pyramid a little higher than the circle's, by at most the 360-gon's 3.8e-5).
      EXPECT_LE(top[1], height * (1. + 1e-4)) << "r = " << r;
      EXPECT_GT(top[1] + spacing, height) << "r = " << r;
      EXPECT_GE(bottom[1], -height * (1. + 1e-4)) << "r = " << r;
      EXPECT_LT(bottom[1] - spacing, -height) << "r = " << r;
      ++checked;
    }
  EXPECT_GT(checked, 4000u);
}

namespace
{
struct FDKRun
{
  ImageType::Pointer volume;
  std::size_t inside = 0;
  FieldOfViewMask mask;
};

FDKRun
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, FieldOfViewMode fov,
            unsigned int slabs = 1, bool columns = true)
{
  auto zero = ZeroVolume(48, 2.5);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetFieldOfView(fov);
  fdk->GetBackProjectionFilter()->SetColumnsAlongY(columns);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  streamer->Update();
  FDKRun run;
  run.volume = streamer->GetOutput();
  run.mask = fdk->GetBackProjectionFilter()->GetFieldOfViewMask();
  run.inside = run.mask.GetNumberOfInsideVoxels();
  return run;
}

/** Every voxel of `masked` either equals `plain`'s bit for bit (inside) or is `outside` (0 or NaN:
 * compared as bits); the number inside and outside, and the mask's own verdict, are returned. */
void
ExpectInsideUnchangedOutsideBlank(const ImageType * plain, const ImageType * masked, FieldOfViewMode fov,
                                  const FieldOfViewMask & mask, const char * what)
{
  const std::size_t n = plain->GetLargestPossibleRegion().GetNumberOfPixels();
  const auto size = plain->GetLargestPossibleRegion().GetSize();
  std::size_t inside = 0, wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
  {
    const long long x = static_cast<long long>(i % size[0]), y = static_cast<long long>(i / size[0] % size[1]),
                    z = static_cast<long long>(i / size[0] / size[1]);
    const float a = plain->GetBufferPointer()[i], b = masked->GetBufferPointer()[i];
    if (mask.Inside(x, y, z))
    {
      ++inside;
      wrong += std::memcmp(&a, &b, sizeof(float)) != 0 ? 1 : 0;
    }
    else if (fov == FieldOfViewMode::NaN)
      wrong += std::isnan(b) ? 0 : 1;
    else
      wrong += b == 0.f && !std::signbit(b) ? 0 : 1;
  }
  EXPECT_EQ(wrong, 0u) << what;
  EXPECT_GT(inside, n / 8) << what;
  EXPECT_LT(inside, n - n / 10) << what;
}

FieldOfViewMask
MaskOf(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, const ImageType * volume)
{
  const auto matrices = FieldOfViewMask::MatricesFor(volume, projections, geometry);
  FieldOfViewMask mask;
  mask.Compute(matrices, FieldOfViewMask::DetectorOf(projections), FieldOfViewMask::AxisFor(matrices),
               volume->GetLargestPossibleRegion());
  return mask;
}
} // namespace

TEST(FieldOfViewFDK, InsideUnchangedOutsideZeroOrNaN)
{
  // 48^3 voxels of 2.5 mm (120 mm) from 40^2 pixels of 3 mm: about 60 % of the volume is seen.
  auto geometry = CircularGeometry(90);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 40, 3.);
  const auto plain = Reconstruct(geometry, projections, FieldOfViewMode::Off);
  const auto zero = Reconstruct(geometry, projections, FieldOfViewMode::Zero);
  const auto nan = Reconstruct(geometry, projections, FieldOfViewMode::NaN);
  const auto mask = MaskOf(geometry, projections, plain.volume);
  EXPECT_EQ(zero.inside, mask.GetNumberOfInsideVoxels());
  ExpectInsideUnchangedOutsideBlank(plain.volume, zero.volume, FieldOfViewMode::Zero, mask, "zero, columns along y");
  ExpectInsideUnchangedOutsideBlank(plain.volume, nan.volume, FieldOfViewMode::NaN, mask, "nan, columns along y");
  // The runs along z (the path of any matrix), and slabs of a streamed volume: the same voxels.
  const auto runs = Reconstruct(geometry, projections, FieldOfViewMode::Off, 1, false);
  const auto runsMasked = Reconstruct(geometry, projections, FieldOfViewMode::Zero, 1, false);
  ExpectInsideUnchangedOutsideBlank(runs.volume, runsMasked.volume, FieldOfViewMode::Zero, mask, "zero, runs along z");
  const auto slabs = Reconstruct(geometry, projections, FieldOfViewMode::NaN, 5);
  const std::size_t bytes = plain.volume->GetLargestPossibleRegion().GetNumberOfPixels() * sizeof(float);
  EXPECT_EQ(std::memcmp(slabs.volume->GetBufferPointer(), nan.volume->GetBufferPointer(), bytes), 0) << "5 slabs against one";
}

TEST(FieldOfViewFDK, TiltedOrbitSkipsRunsAlongZ)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 72; ++k)
    geometry->AddProjection(1000., 1500., 5. * k, 0., 0., 8., 4.);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 40, 3.);
  const auto plain = Reconstruct(geometry, projections, FieldOfViewMode::Off);
  const auto zero = Reconstruct(geometry, projections, FieldOfViewMode::Zero);
  const auto mask = MaskOf(geometry, projections, plain.volume);
  EXPECT_EQ(mask.GetAxis(), 2);
  ExpectInsideUnchangedOutsideBlank(plain.volume, zero.volume, FieldOfViewMode::Zero, mask, "tilted orbit");
  const auto slabs = Reconstruct(geometry, projections, FieldOfViewMode::Zero, 3);
  const std::size_t bytes = plain.volume->GetLargestPossibleRegion().GetNumberOfPixels() * sizeof(float);
  EXPECT_EQ(std::memcmp(slabs.volume->GetBufferPointer(), zero.volume->GetBufferPointer(), bytes), 0) << "3 slabs against one";
}

TEST(FieldOfViewFDK, HalfFanCoversTheWideSide)
{
  // A detector displaced by 40 mm (RTK's half fan): FDK weights it as displaced and widens the
  // weighted projections to the wide side, 60 + 40 = 100 mm at the detector, so the field of view is
  // the cylinder of radius 1000 sin(atan(100 / 1500)) = 66.5 mm; centred, the same detector covers
  // 1000 sin(atan(60 / 1500)) = 40.0 mm.
  auto displaced = CircularGeometry(90, 360., 1000., 1500., 40.);
  auto centred = CircularGeometry(90);
  const auto wide = Reconstruct(displaced, ProjectPhantom(displaced, SheppLogan(), 40, 3.), FieldOfViewMode::Zero);
  const auto narrow = Reconstruct(centred, ProjectPhantom(centred, SheppLogan(), 40, 3.), FieldOfViewMode::Zero);
  std::cout << "inside: half fan " << wide.inside << ", centred " << narrow.inside << std::endl;
  // In the central slice (y = 0 mm is between voxels 23 and 24; voxel 23 at -1.25 mm): x = +-58.75 mm
  // at z = 1.25 mm is inside the wide cylinder, outside the narrow one; the corner (58.75, 58.75) at
  // 83 mm is outside both.
  EXPECT_TRUE(wide.mask.Inside(47, 23, 24));
  EXPECT_TRUE(wide.mask.Inside(0, 23, 24));
  EXPECT_FALSE(wide.mask.Inside(47, 23, 47));
  EXPECT_FALSE(narrow.mask.Inside(47, 23, 24));
  EXPECT_FALSE(narrow.mask.Inside(0, 23, 24));
  EXPECT_TRUE(narrow.mask.Inside(30, 23, 24)); // 12.5 mm
}
