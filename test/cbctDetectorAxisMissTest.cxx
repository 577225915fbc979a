// cbct::DetectorAxisMiss: a detector lying wholly on one side of the rotation axis in some projection
// (e.g. from a header whose spacing alone was negated) is found, with its projection, its
// extent, where the axis projects and its reach, against geometry computed here by hand; a centred
// detector, a half fan that reaches the axis (or stops within a pixel of it) and parallel beams pass;
// the decision agrees with DisplacedDetectorCoverage's reach.
#include "cbctDetectorAxisMiss.h"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using cbct::DetectorAxisMiss;
using cbct::DisplacedDetectorCoverage;
using cbct::test::ImageType;

namespace
{
constexpr double SID = 1000., SDD = 1500.;

/** The layout (no pixels) of `count` projections of `pixels` x 16 pixels of `spacing` mm whose first
 * column is at u = `firstU` mm. */
ImageType::Pointer
Layout(unsigned int count, unsigned int pixels, double spacing, double firstU)
{
  auto stack = ImageType::New();
  stack->SetRegions(ImageType::RegionType(ImageType::SizeType{ { pixels, 16, count } }));
  ImageType::SpacingType s;
  s[0] = s[1] = spacing;
  s[2] = 1.;
  stack->SetSpacing(s);
  ImageType::PointType origin;
  origin[0] = firstU;
  origin[1] = -7.5 * spacing;
  origin[2] = 0.;
  stack->SetOrigin(origin);
  return stack;
}

/** Where the ray through detector u (mm, detector centred on the principal ray) passes the axis. */
double
Reach(double u)
{
  return SID * u / std::sqrt(u * u + SDD * SDD);
}

/** Whether DisplacedDetectorCoverage says a side is not reached by more than a pixel. */
bool
CoverageMisses(const cbct::ThreeDCircularProjectionGeometry * geometry, const ImageType * layout)
{
  const DisplacedDetectorCoverage c(geometry, layout, std::numeric_limits<double>::infinity());
  return c.Negative() < -c.Tolerance() || c.Positive() < -c.Tolerance();
}
} // namespace

TEST(DetectorAxisMiss, CentredDetectorReachesTheAxis)
{
  auto geometry = cbct::test::CircularGeometry(36, 360., SID, SDD);
  auto layout = Layout(36, 96, 2.5, -118.75);
  EXPECT_FALSE(DetectorAxisMiss::Find(geometry, layout).has_value());
  EXPECT_FALSE(CoverageMisses(geometry, layout));
}

// A MetaImage whose spacing's sign alone was edited, as ITK reads it: 96 pixels of 2.5 mm, first at -118.75 mm, spacing -2.5:
// pixels from -118.75 down to -356.25 mm, put on a canonical grid (first column at -356.25 mm).
TEST(DetectorAxisMiss, SignOnlyEditedDetectorIsBesideTheAxis)
{
  auto geometry = cbct::test::CircularGeometry(36, 360., SID, SDD);
  auto layout = Layout(36, 96, 2.5, -356.25);
  const auto miss = DetectorAxisMiss::Find(geometry, layout);
  ASSERT_TRUE(miss.has_value());
  EXPECT_TRUE(CoverageMisses(geometry, layout));
  EXPECT_EQ(miss->Projection(), 0u); // misses in every view: the first is named
  EXPECT_NEAR(miss->GantryAngleDegrees(), 0., 1e-9);
  EXPECT_NEAR(miss->LowU(), -357.5, 1e-9); // outer pixel edges
  EXPECT_NEAR(miss->HighU(), -117.5, 1e-9);
  EXPECT_NEAR(miss->AxisU(), 0., 1e-9);
  // Reach on the middle row (v = 0); the top and bottom rows' rays are steeper along y but pass the
  // axis at the same transaxial distance (s does not depend on v without tilts).
  EXPECT_NEAR(miss->Positive(), Reach(-117.5), 1e-6);
  EXPECT_NEAR(miss->Negative(), -Reach(-357.5), 1e-6);
  EXPECT_LT(miss->Positive(), -miss->Tolerance());
  EXPECT_NEAR(miss->Gap(), -Reach(-117.5), 1e-6);
  EXPECT_NEAR(miss->Tolerance(), (Reach(-117.5) - Reach(-357.5)) / 96., 1e-9);
  const std::string text = miss->Describe();
  EXPECT_NE(text.find("in projection 0 (gantry angle 0.0 deg) the detector's columns span u = -357.5 to -117.5 mm "
                      "(outer pixel edges) but the rotation axis projects at u = 0.0 mm: its rays pass the axis 78.1 "
                      "to 231.8 mm away, on one side only (reach 231.8 mm on the negative side, -78.1 mm on the "
                      "positive side; negative: not reached)"),
            std::string::npos)
    << text;
}

// A half fan: the detector's inner edge past the axis (reaches it), at the axis, or within a pixel
// short of it, is accepted; two pixels short, refused. Detector 96 x 2.5 mm = 240 mm, offset px mm:
// its inner edge at u = px - 120.
TEST(DetectorAxisMiss, HalfFanPassesUpToAPixelFromTheAxis)
{
  auto layout = Layout(36, 96, 2.5, -118.75);
  const double pixelAtAxis = 2.5 * SID / SDD;
  for (const double px : { 80., 120., 120. + 0.9 * 2.5 })
  {
    SCOPED_TRACE(px);
    auto geometry = cbct::test::CircularGeometry(36, 360., SID, SDD, px);
    EXPECT_FALSE(DetectorAxisMiss::Find(geometry, layout).has_value());
    EXPECT_FALSE(CoverageMisses(geometry, layout));
  }
  for (const double px : { 120. + 2. * 2.5, -(120. + 2. * 2.5) })
  {
    SCOPED_TRACE(px);
    auto geometry = cbct::test::CircularGeometry(36, 360., SID, SDD, px);
    const auto miss = DetectorAxisMiss::Find(geometry, layout);
    ASSERT_TRUE(miss.has_value());
    EXPECT_TRUE(CoverageMisses(geometry, layout));
    EXPECT_NEAR(miss->Gap(), Reach(5.), 1e-6);
    EXPECT_GT(miss->Gap(), pixelAtAxis);
    // RTK's detector offset moves the detector, so the axis projects at u = -px in its coordinates.
    EXPECT_NEAR(miss->AxisU(), -px, 1e-6);
    EXPECT_NEAR(px > 0. ? miss->Negative() : miss->Positive(), -Reach(5.), 1e-6);
  }
}

// A short scan whose detector is beside the axis in one view only: that view is named, with its angle.
TEST(DetectorAxisMiss, NamesTheProjectionThatMisses)
{
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 20; ++k)
    geometry->AddProjection(SID, SDD, 10. * k, k == 7 ? -400. : 0.);
  auto layout = Layout(20, 96, 2.5, -118.75);
  const auto miss = DetectorAxisMiss::Find(geometry, layout);
  ASSERT_TRUE(miss.has_value());
  EXPECT_EQ(miss->Projection(), 7u);
  EXPECT_NEAR(miss->GantryAngleDegrees(), 70., 1e-9);
  EXPECT_NEAR(miss->Positive(), Reach(120. - 400.), 1e-6); // its edge at u = 120 mm, 400 mm off
  EXPECT_NEAR(miss->AxisU(), 400., 1e-6);
  EXPECT_TRUE(CoverageMisses(geometry, layout));
}

TEST(DetectorAxisMiss, ParallelBeamAndEmptyGeometriesAreNotChecked)
{
  auto layout = Layout(10, 96, 2.5, -356.25);
  auto parallel = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 10; ++k)
    parallel->AddProjection(SID, 0., 36. * k);
  ASSERT_TRUE(parallel->IsParallel(0));
  EXPECT_FALSE(DetectorAxisMiss::Find(parallel, layout).has_value());
  auto empty = cbct::ThreeDCircularProjectionGeometry::New();
  EXPECT_FALSE(DetectorAxisMiss::Find(empty, layout).has_value());
}
