// Geometry: matrices by hand, RTK XML round trip, matrix projections, and every kind of bad input.
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctTestFolder.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace
{
using cbct::ThreeDCircularProjectionGeometry;
constexpr double Pi = 3.14159265358979323846;

/** A file in the running test's folder (cbctTestFolder.h: removed when the test ends). */
std::string
TempPath(const std::string & name)
{
  return cbct::test::TestFile(name);
}

void
WriteText(const std::string & path, const std::string & text)
{
  std::ofstream(path) << text;
}

ThreeDCircularProjectionGeometry::Pointer
Read(const std::string & path)
{
  auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(path);
  reader->GenerateOutputInformation();
  return reader->GetGeometry();
}

/** Runs `f`, expects an itk::ExceptionObject whose message contains every one of `words`. */
template <typename F>
void
ExpectErrorMentioning(F f, std::initializer_list<std::string> words)
{
  try
  {
    f();
    FAIL() << "no exception thrown";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    for (const auto & w : words)
      EXPECT_NE(message.find(w), std::string::npos) << "message '" << message << "' lacks '" << w << "'";
  }
}
} // namespace

TEST(Geometry, MatrixAtNinetyDegreesMatchesHandComputation)
{
  // Gantry 90 degrees, SID 1000, SDD 1500, detector offset (10, -5), source offset (2, 3):
  // rotated coordinates x' = -z, y' = y, z' = x; u = SDD (x' - 2) / (SID - z') + 2 - 10.
  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(1000., 1500., 90., 10., -5., 0., 0., 2., 3.);
  const auto & m = g->GetMatrix(0);
  // u_h = -1500 (x' - 2) - 8 (z' - 1000) = 1500 z - 8 x + 11000; v_h = -1500 (y - 3) + 8 (x - 1000).
  const double expected[3][4] = { { -8., 0., 1500., 11000. }, { 8., -1500., 0., -3500. }, { 1., 0., 0., -1000. } };
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(m(r, c), expected[r][c], 1e-9) << "element " << r << "," << c;

  // A world point maps where the formula says: (x, y, z) = (100, 20, -50) -> x' = 50, y' = 20, z' = 100.
  const double x[4] = { 100., 20., -50., 1. };
  double h[3] = { 0., 0., 0. };
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      h[r] += m(r, c) * x[c];
  EXPECT_NEAR(h[0] / h[2], 1500. * (50. - 2.) / (1000. - 100.) + 2. - 10., 1e-9);
  EXPECT_NEAR(h[1] / h[2], 1500. * (20. - 3.) / (1000. - 100.) + 3. + 5., 1e-9);
  EXPECT_NEAR(h[2], 100. - 1000., 1e-9);

  // Derived quantities.
  const auto s = g->GetSourcePosition(0);
  EXPECT_NEAR(s[0], 1000., 1e-9); // source at +x for 90 degrees
  EXPECT_NEAR(s[1], 3., 1e-9);
  EXPECT_NEAR(s[2], -2., 1e-9); // x' = -z = source offset 2
  EXPECT_NEAR(g->GetPrincipalPointU(0), 2. - 10., 1e-12);
  EXPECT_NEAR(g->GetPrincipalPointV(0), 3. + 5., 1e-12);
}

TEST(Geometry, BareMatrixGivesTheSameDerivedQuantities)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(950., 1400., 33., 12., -7., 4., 2., 5., -3.);
  auto scaled = g->GetMatrix(0);
  scaled *= -3.7; // any scale and sign
  auto h = ThreeDCircularProjectionGeometry::New();
  h->AddProjection(scaled);
  EXPECT_FALSE(h->HasParameters(0));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_NEAR(h->GetMatrix(0)(r, c), g->GetMatrix(0)(r, c), 1e-9);
  for (int d = 0; d < 3; ++d)
    EXPECT_NEAR(h->GetSourcePosition(0)[d], g->GetSourcePosition(0)[d], 1e-8);
  EXPECT_NEAR(h->GetSourceToIsocenterDistance(0), 950., 1e-8);
  EXPECT_NEAR(h->GetSourceToDetectorDistance(0), 1400., 1e-8);
  EXPECT_NEAR(h->GetPrincipalPointU(0), 5. - 12., 1e-8);
  EXPECT_NEAR(h->GetPrincipalPointV(0), -3. + 7., 1e-8);
}

TEST(Geometry, SourceAzimuthAndRadiusFollowTheSourceOffset)
{
  // RTK parameters at gantry 90 degrees with source offset x 2 mm: the source is at (1000, 3, -2),
  // a little past 90 degrees, 1000.002 mm from the axis.
  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(1000., 1500., 90., 0., 0., 0., 0., 2., 3.);
  EXPECT_NEAR(g->GetGantryAngle(0), Pi / 2., 1e-12);
  EXPECT_NEAR(g->GetSourceAzimuth(0), Pi / 2. + std::atan(2. / 1000.), 1e-12);
  EXPECT_NEAR(g->GetSourceRadius(0), std::sqrt(1000. * 1000. + 4.), 1e-9);
  // A bare matrix has no gantry angle of its own: both are the source's azimuth.
  auto h = ThreeDCircularProjectionGeometry::New();
  h->AddProjection(g->GetMatrix(0));
  EXPECT_NEAR(h->GetSourceAzimuth(0), g->GetSourceAzimuth(0), 1e-12);
  EXPECT_NEAR(h->GetGantryAngle(0), g->GetSourceAzimuth(0), 1e-12);

  // Gaps and range run over the azimuth: a source offset that varies per projection changes them.
  auto varying = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 90; ++k)
    varying->AddProjection(1000., 1500., k * 4., 0., 0., 0., 0., k % 2 ? 10. : -10.);
  const double shift = 2. * std::atan(10. / 1000.);
  const auto gaps = varying->GetAngularGaps();
  for (int k = 0; k < 90; ++k)
    EXPECT_NEAR(gaps[k], 4. * Pi / 180., 1e-12); // each projection's two gaps still sum to two steps
  EXPECT_NEAR(varying->GetAngularRange(), 2. * Pi - (4. * Pi / 180. + shift), 1e-12); // the largest gap is open
}

TEST(Geometry, AngularGapsOfFullAndShortScans)
{
  auto full = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 90; ++k)
    full->AddProjection(1000., 1500., k * 4.);
  for (double gap : full->GetAngularGaps())
    EXPECT_NEAR(gap, 4. * Pi / 180., 1e-12);

  auto shortScan = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 50; ++k)
    shortScan->AddProjection(1000., 1500., 300. + k * 4.); // wraps through 360
  const auto gaps = shortScan->GetAngularGaps();
  for (double gap : gaps)
    EXPECT_NEAR(gap, 4. * Pi / 180., 1e-12);
  EXPECT_NEAR(shortScan->GetAngularRange(), 49. * 4. * Pi / 180., 1e-12);
  EXPECT_NEAR(shortScan->GetAngularRangeStart(), 300. * Pi / 180., 1e-12);
}

TEST(Geometry, XmlRoundTripKeepsEveryParameter)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 7; ++k)
    g->AddProjection(1000. + k * 0.1234567890123, 1536. - k, k * 51.4285714285714 + 1e-7, 0.3 * k - 1., -0.7 * k,
                     0.01 * k, -2.5 + k, 1.5, 0.);
  const std::string path = TempPath("roundtrip.xml");
  auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
  writer->SetFilename(path);
  writer->SetObject(g);
  writer->WriteFile();
  auto r = Read(path);
  ASSERT_EQ(r->GetNumberOfProjections(), g->GetNumberOfProjections());
  for (unsigned int k = 0; k < g->GetNumberOfProjections(); ++k)
  {
    const auto & a = g->GetParameters(k);
    const auto & b = r->GetParameters(k);
    EXPECT_NEAR(a.sourceToIsocenterDistance, b.sourceToIsocenterDistance, 1e-10);
    EXPECT_NEAR(a.sourceToDetectorDistance, b.sourceToDetectorDistance, 1e-10);
    EXPECT_NEAR(a.gantryAngle, b.gantryAngle, 1e-10);
    EXPECT_NEAR(a.projectionOffsetX, b.projectionOffsetX, 1e-10);
    EXPECT_NEAR(a.projectionOffsetY, b.projectionOffsetY, 1e-10);
    EXPECT_NEAR(a.outOfPlaneAngle, b.outOfPlaneAngle, 1e-10);
    EXPECT_NEAR(a.inPlaneAngle, b.inPlaneAngle, 1e-10);
    EXPECT_NEAR(a.sourceOffsetX, b.sourceOffsetX, 1e-10);
    EXPECT_NEAR(a.sourceOffsetY, b.sourceOffsetY, 1e-10);
    for (int row = 0; row < 3; ++row)
      for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(g->GetMatrix(k)(row, c), r->GetMatrix(k)(row, c), 1e-8);
  }
  std::remove(path.c_str());
}

TEST(Geometry, XmlRoundTripOfBareMatricesMixedWithParameters)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(1000., 1500., 10.);
  auto m = g->GetMatrix(0);
  m(0, 3) += 25.; // a calibrated C-arm's nudge: no longer a parametric projection
  g->AddProjection(m);
  g->AddProjection(1000., 1500., 20.);
  const std::string path = TempPath("mixed.xml");
  auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
  writer->SetFilename(path);
  writer->SetObject(g);
  writer->WriteFile();
  auto r = Read(path);
  ASSERT_EQ(r->GetNumberOfProjections(), 3u);
  EXPECT_TRUE(r->HasParameters(0));
  EXPECT_FALSE(r->HasParameters(1));
  EXPECT_TRUE(r->HasParameters(2));
  for (unsigned int k = 0; k < 3; ++k)
    for (int row = 0; row < 3; ++row)
      for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(g->GetMatrix(k)(row, c), r->GetMatrix(k)(row, c), 1e-9);
  std::remove(path.c_str());
}

TEST(Geometry, ReadsAnRtkFileWithGlobalParameters)
{
  // As RTK writes it: shared values once at the top, the matrix for information.
  const std::string path = TempPath("rtk.xml");
  WriteText(path, R"(<?xml version="1.0"?>
<!DOCTYPE RTKGEOMETRY>
<RTKThreeDCircularGeometry version="3">
  <SourceToIsocenterDistance>1000</SourceToIsocenterDistance>
  <SourceToDetectorDistance>1536</SourceToDetectorDistance>
  <Projection>
    <GantryAngle>271.847274780273</GantryAngle>
    <ProjectionOffsetX>-117.056503295898</ProjectionOffsetX>
    <ProjectionOffsetY>-1.01195001602173</ProjectionOffsetY>
    <Matrix>
          -166.5093078829                   0   -1531.42837748039   -117056.503295898
        -1.01142410874151               -1536  0.0326206557691505   -1011.95001602173
       -0.999480303105996                   0  0.0322354417240802               -1000
    </Matrix>
  </Projection>
</RTKThreeDCircularGeometry>
)");
  auto r = Read(path);
  ASSERT_EQ(r->GetNumberOfProjections(), 1u);
  EXPECT_NEAR(r->GetParameters(0).gantryAngle * 180. / Pi, 271.847274780273, 1e-10);
  EXPECT_NEAR(r->GetMatrix(0)(0, 3), -117056.503295898, 1e-6);
  std::remove(path.c_str());
}

TEST(GeometryBadInput, DistancesAndNonFiniteValues)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  ExpectErrorMentioning([&] { g->AddProjection(0., 1500., 0.); }, { "SourceToIsocenterDistance", "0", "> 0" });
  ExpectErrorMentioning([&] { g->AddProjection(1000., -5., 0.); }, { "SourceToDetectorDistance", "-5", "> 0" });
  ExpectErrorMentioning([&] { g->AddProjection(1000., 1500., std::nan("")); }, { "GantryAngle", "nan", "finite" });
  ExpectErrorMentioning([&] { g->AddProjection(1000., 1500., 0., std::numeric_limits<double>::infinity()); },
                        { "ProjectionOffsetX", "inf" });
  ThreeDCircularProjectionGeometry::MatrixType singular;
  singular.Fill(0.);
  ExpectErrorMentioning([&] { g->AddProjection(singular); }, { "Matrix", "non-singular" });
  // The source on the detector's plane through the origin (source (1.5, -1, 0), principal axis
  // along (-2, -3, 0)): the derived SID is 0 up to rounding, whichever sign rounding gives it (the
  // geometry fuzzer's find: accepted once, refused after a write and read).
  ThreeDCircularProjectionGeometry::MatrixType onThePlane;
  const double rows[3][4] = { { 0., 0., -1500., 0. }, { 0., 1., 0., 1. }, { -1000., -1500., 0., 0. } };
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 4; ++c)
      onThePlane(r, c) = rows[r][c];
  ExpectErrorMentioning([&] { g->AddProjection(onThePlane); }, { "SourceToIsocenterDistance (derived from the matrix)", "beyond rounding" });
  // (Valid bare matrices still pass: Geometry.BareMatrixGivesTheSameDerivedQuantities and the FDK
  // geometry cases' bare matrices.)
  EXPECT_EQ(g->GetNumberOfProjections(), 0u);
  ExpectErrorMentioning([&] { g->GetMatrix(3); }, { "projection index", "3" });
}

TEST(GeometryBadInput, FilesThatAreNotGeometries)
{
  ExpectErrorMentioning([] { Read(TempPath("does_not_exist.xml")); }, { "does_not_exist.xml", "existing" });

  const std::string empty = TempPath("empty.xml");
  WriteText(empty, "");
  ExpectErrorMentioning([&] { Read(empty); }, { "empty.xml" });

  const std::string malformed = TempPath("malformed.xml");
  WriteText(malformed, "<RTKThreeDCircularGeometry version=\"3\"><Projection><GantryAngle>1</Projection>");
  ExpectErrorMentioning([&] { Read(malformed); }, { "malformed.xml" });

  const std::string wrongRoot = TempPath("wrongroot.xml");
  WriteText(wrongRoot, "<?xml version=\"1.0\"?><Geometry version=\"3\"></Geometry>");
  ExpectErrorMentioning([&] { Read(wrongRoot); }, { "root element", "Geometry", "RTKThreeDCircularGeometry" });

  const std::string wrongVersion = TempPath("wrongversion.xml");
  WriteText(wrongVersion, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"7\"></RTKThreeDCircularGeometry>");
  ExpectErrorMentioning([&] { Read(wrongVersion); }, { "version", "7", "3" });

  const std::string notANumber = TempPath("nan.xml");
  WriteText(notANumber, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"3\">"
                        "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>"
                        "<SourceToDetectorDistance>1500</SourceToDetectorDistance>"
                        "<Projection><GantryAngle>twelve</GantryAngle></Projection></RTKThreeDCircularGeometry>");
  ExpectErrorMentioning([&] { Read(notANumber); }, { "GantryAngle", "twelve", "number" });

  const std::string negative = TempPath("negative.xml");
  WriteText(negative, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"3\">"
                      "<SourceToIsocenterDistance>-1000</SourceToIsocenterDistance>"
                      "<SourceToDetectorDistance>1500</SourceToDetectorDistance>"
                      "<Projection><GantryAngle>0</GantryAngle></Projection></RTKThreeDCircularGeometry>");
  ExpectErrorMentioning([&] { Read(negative); }, { "SourceToIsocenterDistance", "-1000" });

  const std::string inconsistent = TempPath("inconsistent.xml");
  WriteText(inconsistent, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"3\">"
                          "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>"
                          "<SourceToDetectorDistance>1500</SourceToDetectorDistance>"
                          "<Projection><GantryAngle>0</GantryAngle><Matrix>-1500 0 0 0 0 -1500 0 0 0 0 1 -900</Matrix>"
                          "</Projection></RTKThreeDCircularGeometry>");
  ExpectErrorMentioning([&] { Read(inconsistent); }, { "Matrix", "parameters" });

  const std::string truncated = TempPath("truncated.xml");
  WriteText(truncated, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"3\">"
                       "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>"
                       "<SourceToDetectorDistance>1500</SourceToDetectorDistance>"
                       "<Projection><GantryAngle>0</GantryAngle></Projection><Projec");
  ExpectErrorMentioning([&] { Read(truncated); }, { "truncated.xml" });
  std::remove(truncated.c_str());

  const std::string none = TempPath("noprojection.xml");
  WriteText(none, "<?xml version=\"1.0\"?><RTKThreeDCircularGeometry version=\"3\"></RTKThreeDCircularGeometry>");
  ExpectErrorMentioning([&] { Read(none); }, { "Projection", "at least one" });
  for (const auto & p : { empty, malformed, wrongRoot, wrongVersion, notANumber, negative, inconsistent, none })
    std::remove(p.c_str());
}
