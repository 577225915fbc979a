// Phantom: line integrals against values worked out by hand, voxelization, files, bad input.
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;
}

TEST(Phantom, LineIntegralThroughOneEllipsoidByHand)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 0.5;
  e.center = { { 10., -5., 3. } };
  e.semiAxes = { { 40., 20., 30. } };
  e.angleY = 0.;
  phantom->AddEllipsoid(e);
  // Along x through the centre: chord 2 * 40 = 80 mm, integral 40.
  EXPECT_NEAR(phantom->LineIntegral({ { -500., -5., 3. } }, { { 1., 0., 0. } }), 40., 1e-9);
  // Along z at x offset 20 from the centre: chord 2 * 30 * sqrt(1 - (20/40)^2) = 60 * sqrt(0.75).
  EXPECT_NEAR(phantom->LineIntegral({ { 30., -5., 900. } }, { { 0., 0., -2. } }), 0.5 * 60. * std::sqrt(0.75), 1e-9);
  // A miss and a ray pointing away.
  EXPECT_EQ(phantom->LineIntegral({ { -500., 30., 3. } }, { { 1., 0., 0. } }), 0.);
  EXPECT_EQ(phantom->LineIntegral({ { -500., -5., 3. } }, { { -1., 0., 0. } }), 0.);

  // Rotated by 90 degrees about y, the x semi-axis lies along z: chord along z through the centre = 80.
  phantom->SetToSheppLogan(1.); // replaced below
  auto rotated = GeometricPhantom::New();
  e.angleY = Pi / 2.;
  rotated->AddEllipsoid(e);
  EXPECT_NEAR(rotated->LineIntegral({ { 10., -5., 500. } }, { { 0., 0., -1. } }), 40., 1e-9);
  EXPECT_NEAR(rotated->Density({ { 10., -5., 3. + 39. } }), 0.5, 0.);
  EXPECT_EQ(rotated->Density({ { 10. + 39., -5., 3. } }), 0.);
}

TEST(Phantom, ProjectionSourceGivesTheExactCentralRay)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 1.;
  e.semiAxes = { { 30., 30., 30. } };
  phantom->AddEllipsoid(e);
  auto geometry = CircularGeometry(4);
  auto projections = ProjectPhantom(geometry, phantom, 33, 2.); // pixel 16 is the centre
  for (itk::IndexValueType k = 0; k < 4; ++k)
  {
    EXPECT_NEAR(projections->GetPixel({ { 16, 16, k } }), 60., 1e-4);
    // Pixel 10 is 12 mm off centre on the detector, 8 mm at the isocenter (magnification 1.5):
    // the ray's distance d to the centre satisfies d = 1000 * sin(atan(12/1500)).
    const double d = 1000. * std::sin(std::atan(12. / 1500.));
    EXPECT_NEAR(projections->GetPixel({ { 10, 16, k } }), 2. * std::sqrt(900. - d * d), 1e-3);
  }
}

TEST(Phantom, SheppLoganVoxelization)
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(64.);
  EXPECT_EQ(phantom->GetEllipsoids().size(), 10u);
  EXPECT_NEAR(phantom->Density({ { 0., 0., 0. } }), 2. - 0.98, 1e-12);
  EXPECT_NEAR(phantom->Density({ { 0., 0., 0.9 * 64. } }), 2., 1e-12); // in the skull
  auto volume = VoxelizedPhantom(phantom, 16, 8., 2);
  const float centre = volume->GetPixel({ { 8, 8, 8 } });
  EXPECT_GT(centre, 0.9f);
  EXPECT_LT(centre, 1.1f);
  EXPECT_EQ(volume->GetPixel({ { 0, 0, 0 } }), 0.f);
}

TEST(Phantom, ReadsEllipsoidsFromAFile)
{
  const std::string path = cbct::test::TestFile("phantom.txt");
  std::ofstream(path) << "# two ellipsoids\nellipsoid 1.0  0 0 0  40 50 30  15\n\nellipsoid -0.5 5 5 5 10 10 10 # inner\n";
  auto phantom = GeometricPhantom::New();
  phantom->ReadFromFile(path);
  ASSERT_EQ(phantom->GetEllipsoids().size(), 2u);
  EXPECT_NEAR(phantom->GetEllipsoids()[0].angleY, 15. * Pi / 180., 1e-12);
  EXPECT_NEAR(phantom->Density({ { 5., 5., 5. } }), 0.5, 1e-12);
  std::remove(path.c_str());
}

TEST(PhantomBadInput, FilesAndValues)
{
  auto phantom = GeometricPhantom::New();
  const std::string path = cbct::test::TestFile("bad_phantom.txt");
  std::ofstream(path) << "ellipsoid 1 0 0 0 10 10\n";
  try
  {
    phantom->ReadFromFile(path);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("line 1"), std::string::npos) << e.GetDescription();
  }
  std::ofstream(path) << "ellipsoid 1 0 0 0 10 -10 10\n";
  EXPECT_THROW(phantom->ReadFromFile(path), itk::ExceptionObject);
  std::ofstream(path) << "# nothing\n";
  EXPECT_THROW(phantom->ReadFromFile(path), itk::ExceptionObject);
  EXPECT_THROW(phantom->ReadFromFile(path + ".missing"), itk::ExceptionObject);
  EXPECT_THROW(phantom->SetToSheppLogan(-1.), itk::ExceptionObject);
  std::remove(path.c_str());
}

TEST(GeometricPhantom, ScaleDensitiesScalesLineIntegralsAndDensities)
{
  auto phantom = SheppLogan();
  const std::array<double, 3> source{ { 0., -10., 1000. } }, direction{ { 0.01, 0., -1. } };
  const std::array<double, 3> point{ { 0., -15., 0. } };
  const double before = phantom->LineIntegral(source, direction), density = phantom->Density(point);
  phantom->ScaleDensities(0.02);
  EXPECT_NEAR(phantom->LineIntegral(source, direction), 0.02 * before, 1e-12 * before);
  EXPECT_NEAR(phantom->Density(point), 0.02 * density, 1e-15);
  EXPECT_GT(before, 10.);
  EXPECT_THROW(phantom->ScaleDensities(std::numeric_limits<double>::infinity()), itk::ExceptionObject);
}

TEST(Phantom, CylinderLineIntegralsByHand)
{
  // An elliptic cylinder along y: cross-section semi-axes 30 (x) and 20 (z), half height 50.
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid c;
  c.shape = GeometricPhantom::Shape::Cylinder;
  c.density = 0.5;
  c.center = { { 5., 10., -3. } };
  c.semiAxes = { { 30., 50., 20. } };
  phantom->AddEllipsoid(c);
  // Along x through the axis: 60 mm of it; along z at x 15 from the axis: 2 * 20 * sqrt(1 - 0.25).
  EXPECT_NEAR(phantom->LineIntegral({ { -500., 10., -3. } }, { { 1., 0., 0. } }), 30., 1e-9);
  EXPECT_NEAR(phantom->LineIntegral({ { 20., 40., 900. } }, { { 0., 0., -1. } }), 0.5 * 40. * std::sqrt(0.75), 1e-9);
  // Along its axis: the full height, 100 mm, wherever inside the cross-section (a sphere would differ).
  EXPECT_NEAR(phantom->LineIntegral({ { 20., -500., 5. } }, { { 0., 1., 0. } }), 50., 1e-9);
  // Slanted through both caps: from (5, -40, -3) to (5, 60, -3) + 10 in x over 100 in y: length sqrt(100^2 + 10^2)...
  // the ray enters the bottom cap at y = -40 and leaves the top cap at y = 60 within the cross-section.
  const std::array<double, 3> from{ { 0., -45., -3. } }, along{ { 0.1, 1., 0. } };
  EXPECT_NEAR(phantom->LineIntegral(from, along), 0.5 * 100. * std::sqrt(1.01), 1e-9);
  // Missing above the top cap, and outside the cross-section.
  EXPECT_EQ(phantom->LineIntegral({ { -500., 61., -3. } }, { { 1., 0., 0. } }), 0.);
  EXPECT_EQ(phantom->LineIntegral({ { 36., -500., -3. } }, { { 0., 1., 0. } }), 0.);
  EXPECT_EQ(phantom->Density({ { 5., 59., -3. } }), 0.5);
  EXPECT_EQ(phantom->Density({ { 5., 61., -3. } }), 0.);
  EXPECT_EQ(phantom->Density({ { 5. + 29., -39., -3. } }), 0.5);
  EXPECT_EQ(phantom->Density({ { 5. + 25., 0., -3. + 15. } }), 0.); // (25/30)^2 + (15/20)^2 > 1
}

TEST(Phantom, WritesAndReadsCylindersBeadsAndEllipsoidsExactly)
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(64.);
  GeometricPhantom::Ellipsoid c;
  c.shape = GeometricPhantom::Shape::Cylinder;
  c.density = 0.02;
  c.semiAxes = { { 45., 60., 45. } };
  c.angleY = 0.1;
  phantom->AddEllipsoid(c);
  GeometricPhantom::Ellipsoid bead;
  bead.shape = GeometricPhantom::Shape::Bead;
  bead.density = 0.45;
  bead.center = { { 40. / 3., -46., 0.1 } };
  bead.semiAxes = { { 0.5, 0.5, 0.5 } };
  phantom->AddEllipsoid(bead);
  const std::string path = cbct::test::TestFile("written_phantom.txt");
  phantom->WriteToFile(path, "a test phantom\nsecond line");
  auto read = GeometricPhantom::New();
  read->ReadFromFile(path);
  ASSERT_EQ(read->GetEllipsoids().size(), phantom->GetEllipsoids().size());
  for (std::size_t k = 0; k < read->GetEllipsoids().size(); ++k)
  {
    const auto & a = phantom->GetEllipsoids()[k];
    const auto & b = read->GetEllipsoids()[k];
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.density, b.density);
    EXPECT_EQ(a.center, b.center);
    EXPECT_EQ(a.semiAxes, b.semiAxes);
    EXPECT_NEAR(a.angleY, b.angleY, 1e-15);
  }
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "# a test phantom");
  // A bead is a sphere for its line integrals: 2 r through its centre, 2 sqrt(r^2 - d^2) at d.
  auto single = GeometricPhantom::New();
  single->AddEllipsoid(read->GetEllipsoids().back());
  EXPECT_NEAR(single->LineIntegral({ { 40. / 3., -46., 500. } }, { { 0., 0., -1. } }), 0.45 * 1., 1e-12);
  EXPECT_NEAR(single->LineIntegral({ { 40. / 3. + 0.3, -46., 500. } }, { { 0., 0., -1. } }), 0.45 * 2. * 0.4, 1e-10);
  std::remove(path.c_str());
}

TEST(PhantomBadInput, CylinderAndBeadLines)
{
  auto phantom = GeometricPhantom::New();
  const std::string path = cbct::test::TestFile("bad_bead_phantom.txt");
  const char * bad[] = { "bead 0.45 0 0 0\n", "bead 0.45 0 0 0 1 2\n", "bead 0.45 0 0 0 -1\n", "cylinder 1 0 0 0 10 0 10\n",
                         "sphere 1 0 0 0 1\n" };
  for (const char * text : bad)
  {
    std::ofstream(path) << "cylinder 0.02 0 0 0 45 60 45\n" << text;
    try
    {
      phantom->ReadFromFile(path);
      FAIL() << "no exception for " << text;
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("line 2"), std::string::npos) << e.GetDescription();
    }
  }
  GeometricPhantom::Ellipsoid egg;
  egg.shape = GeometricPhantom::Shape::Bead;
  egg.semiAxes = { { 1., 1., 2. } };
  EXPECT_THROW(phantom->AddEllipsoid(egg), itk::ExceptionObject);
  std::remove(path.c_str());
}
