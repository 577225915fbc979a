// Cylindrical detectors (RTK's RadiusCylindricalDetector): the geometry's point of a pixel on the
// cylinder and the conversions between the cylinder's and the flat panel's coordinates of one ray, RTK's
// XML, exact phantom projections onto the cylinder, the projectors (Joseph, the ray caster, the voxel
// backprojector) on cylinders centred on the source or not, and bad input.
#include "cbctFDKGeometryCases.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctJosephOperator.h"
#include "cbctOrbitWobble.h"
#include "cbctRayCastOperator.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <gtest/gtest.h>
#include <itksys/SystemTools.hxx>

#include <cstdlib>
#include <fstream>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

template <typename F>
std::string
MessageOf(F && f)
{
  try
  {
    f();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return "(no exception)";
}

/** A folder for one test's files, removed when the test ends, passed or failed (kept with
 * CBCT_KEEP_TEST_FILES=1). */
class TestFolder
{
public:
  explicit TestFolder(const std::string & name)
    : m_Path(itksys::SystemTools::GetCurrentWorkingDirectory() + "/" + name)
  {
    itksys::SystemTools::MakeDirectory(m_Path);
  }
  ~TestFolder()
  {
    const char * keep = std::getenv("CBCT_KEEP_TEST_FILES");
    if (!keep || std::string(keep) != "1")
      itksys::SystemTools::RemoveADirectory(m_Path);
  }
  std::string
  operator/(const std::string & file) const
  {
    return m_Path + "/" + file;
  }

private:
  std::string m_Path;
};

/** A geometry of each kind the cylinder may meet: offsets of source and detector, tilts, varying SID. */
std::vector<ThreeDCircularProjectionGeometry::Pointer>
Geometries(double radius)
{
  std::vector<ThreeDCircularProjectionGeometry::Pointer> geometries;
  const std::function<void(RtkParameters &, double)> changes[] = {
    [](RtkParameters &, double) {},
    [](RtkParameters & p, double) { p.projectionOffsetX = 20.; p.projectionOffsetY = -12.; },
    [](RtkParameters & p, double) { p.sourceOffsetX = 30.; p.sourceOffsetY = 15.; },
    [](RtkParameters & p, double a) { p.outOfPlane = 3.; p.inPlane = -2.; p.sid = 1000. + 10. * Sin(a); },
  };
  for (const auto & change : changes)
  {
    auto g = FullScan(change, 12);
    g->SetRadiusCylindricalDetector(radius);
    geometries.push_back(g);
  }
  return geometries;
}

/** The distance of `point` from the line through `a` along `direction`. */
double
DistanceFromLine(const itk::Point<double, 3> & point, const itk::Point<double, 3> & a, const itk::Vector<double, 3> & direction)
{
  const auto d = direction / direction.GetNorm();
  const auto ap = point - a;
  return (ap - d * (ap * d)).GetNorm();
}
} // namespace

TEST(CylindricalDetector, PixelsLieOnTheCylinderAndTheirRaysThroughTheFlatPanelsPoint)
{
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(-300., 300.);
  for (double radius : { 1500., 1200., 2500. })
  {
    for (const auto & g : Geometries(radius))
    {
      for (unsigned int k = 0; k < g->GetNumberOfProjections(); ++k)
      {
        const auto & p = g->GetParameters(k);
        const auto source = g->GetSourcePosition(k);
        for (int n = 0; n < 20; ++n)
        {
          const double u = uniform(random), v = uniform(random);
          double fu = 0., fv = 0.;
          ASSERT_TRUE(g->FlatFromCylindrical(k, u, v, fu, fv));
          // Back again.
          double cu = 0., cv = 0.;
          g->CylindricalFromFlat(k, fu, fv, cu, cv);
          EXPECT_NEAR(cu, u, 1e-9 * radius);
          EXPECT_NEAR(cv, v, 1e-9 * radius);
          // The cylinder's point, on the ray from the source through the flat panel's point, and on the
          // cylinder: at R from its axis, which is parallel to the detector's v axis.
          auto onCylinder = g->GetDetectorPoint(k, u, v);
          auto flat = ThreeDCircularProjectionGeometry::New();
          flat->AddProjectionInRadians(p);
          const auto onFlat = flat->GetDetectorPoint(0, fu, fv);
          EXPECT_LT(DistanceFromLine(onCylinder, source, onFlat - source), 1e-9 * radius);
          const auto axisPoint = flat->GetDetectorPoint(0, -p.projectionOffsetX, 0.) - flat->GetRayDirection(0) * 0.;
          const auto vAxis = flat->GetDetectorPoint(0, -p.projectionOffsetX, 1.) - flat->GetDetectorPoint(0, -p.projectionOffsetX, 0.);
          // The axis: the flat panel's line u = -ProjectionOffsetX moved R towards the source along the normal.
          auto normal = itk::CrossProduct(flat->GetDetectorPoint(0, 1., 0.) - flat->GetDetectorPoint(0, 0., 0.), vAxis);
          normal.Normalize();
          if (normal * (source - axisPoint) < 0.)
            normal = -normal;
          EXPECT_NEAR(DistanceFromLine(onCylinder, axisPoint + normal * radius, vAxis), radius, 1e-9 * radius);
        }
        // The cylinder touches the flat panel along u = -ProjectionOffsetX, and u is the arc length.
        double fu = 0., fv = 0.;
        g->FlatFromCylindrical(k, -p.projectionOffsetX, 7., fu, fv);
        EXPECT_NEAR(fu, -p.projectionOffsetX, 1e-9 * radius);
        EXPECT_NEAR(fv, 7., 1e-9 * radius);
        const double du = 1e-3;
        const double chord = (g->GetDetectorPoint(k, 100. + du, 5.) - g->GetDetectorPoint(k, 100., 5.)).GetNorm();
        EXPECT_NEAR(chord, du, 1e-9);
      }
    }
  }
}

TEST(CylindricalDetector, CentredOnTheSourceItsColumnsAreEquiangular)
{
  // R = SDD without a source offset: u - u0 = R atan((flat u - u0) / SDD), v - v0 = (flat v - v0) cos(gamma).
  auto g = FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 20.; p.projectionOffsetY = 8.; p.sourceOffsetY = 3.; }, 8);
  g->SetRadiusCylindricalDetector(1500.);
  auto offset = FullScan([](RtkParameters & p, double) { p.sourceOffsetX = 5.; }, 8);
  offset->SetRadiusCylindricalDetector(1500.);
  for (unsigned int k = 0; k < 8; ++k)
  {
    EXPECT_TRUE(g->IsCylinderCentredOnSource(k));
    EXPECT_FALSE(offset->IsCylinderCentredOnSource(k));
    const double u0 = g->GetPrincipalPointU(k), v0 = g->GetPrincipalPointV(k);
    for (double fu : { -400., -30., 0., 250. })
    {
      double u = 0., v = 0.;
      g->CylindricalFromFlat(k, fu, 40., u, v);
      const double gamma = std::atan((fu - u0) / 1500.);
      EXPECT_NEAR(u - u0, 1500. * gamma, 1e-9);
      EXPECT_NEAR(v - v0, (40. - v0) * std::cos(gamma), 1e-9);
    }
  }
  auto flat = FullScan([](RtkParameters &, double) {}, 8);
  EXPECT_FALSE(flat->IsCylinderCentredOnSource(0));
  double u = 1., v = 2.;
  EXPECT_TRUE(flat->FlatFromCylindrical(0, 3., 4., u, v));
  EXPECT_EQ(u, 3.);
  EXPECT_EQ(v, 4.);
}

TEST(CylindricalDetector, XmlRoundTripAndRtksExample)
{
  const TestFolder dir("cbctCylindricalDetector_XmlRoundTrip");
  auto g = FullScan([](RtkParameters & p, double a) { p.projectionOffsetX = 3. * Sin(a); }, 10);
  g->SetRadiusCylindricalDetector(1500.);
  auto writer = ThreeDCircularProjectionGeometryXMLFileWriter::New();
  writer->SetFilename(dir / "cylinder.xml");
  writer->SetObject(g);
  writer->WriteFile();
  std::ifstream in(dir / "cylinder.xml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("  <RadiusCylindricalDetector>1500</RadiusCylindricalDetector>\n  <Projection>"), std::string::npos) << text;
  auto reader = ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(dir / "cylinder.xml");
  reader->GenerateOutputInformation();
  const auto * again = reader->GetOutputObject();
  EXPECT_EQ(again->GetRadiusCylindricalDetector(), 1500.);
  ASSERT_EQ(again->GetNumberOfProjections(), 10u);
  for (unsigned int k = 0; k < 10; ++k)
    EXPECT_EQ((again->GetDetectorPoint(k, 50., 5.) - g->GetDetectorPoint(k, 50., 5.)).GetNorm(), 0.);

  // RTK's documented example (RTK 2.x's geometry page): the radius before the projections.
  std::ofstream(dir / "rtk.xml") << R"(<?xml version="1.0"?>
<!DOCTYPE RTKGEOMETRY>
<RTKThreeDCircularGeometry version="3">
  <SourceToIsocenterDistance>1000</SourceToIsocenterDistance>
  <SourceToDetectorDistance>1536</SourceToDetectorDistance>
  <RadiusCylindricalDetector>1536</RadiusCylindricalDetector>
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
)";
  reader->SetFilename(dir / "rtk.xml");
  reader->GenerateOutputInformation();
  EXPECT_EQ(reader->GetOutputObject()->GetRadiusCylindricalDetector(), 1536.);
  EXPECT_TRUE(reader->GetOutputObject()->IsCylinderCentredOnSource(0));
}

TEST(CylindricalDetector, PhantomProjectionsAreTheLineIntegralsToTheCylindersPixels)
{
  auto g = FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 15.; p.sourceOffsetX = 10.; p.outOfPlane = 2.; }, 6);
  g->SetRadiusCylindricalDetector(1400.);
  auto projections = ProjectPhantom(g, SheppLogan(), 24, 6.);
  const DetectorCoordinates detector(projections.GetPointer());
  double largest = 0.;
  for (unsigned int k = 0; k < 6; ++k)
  {
    const auto s = g->GetSourcePosition(k);
    for (unsigned int i = 0; i < 24; i += 3)
      for (unsigned int j = 0; j < 24; j += 3)
      {
        const auto point = g->GetDetectorPoint(k, detector.U(i, j), detector.V(i, j));
        const double expected = SheppLogan()->LineIntegral({ { s[0], s[1], s[2] } },
                                                           { { point[0] - s[0], point[1] - s[1], point[2] - s[2] } });
        const double value = projections->GetPixel({ { i, j, k } });
        EXPECT_NEAR(value, expected, 1e-4 * (1. + std::abs(expected)));
        largest = std::max(largest, expected);
      }
  }
  EXPECT_GT(largest, 50.) << "rays through the phantom";
}

TEST(CylindricalDetectorBadInput, RadiusSourceOutsideParallelAndBareMatrices)
{
  auto g = FullScan([](RtkParameters &, double) {}, 4);
  EXPECT_NE(MessageOf([&] { g->SetRadiusCylindricalDetector(-1.); }).find("RadiusCylindricalDetector is -1; expected a radius > 0"),
            std::string::npos);
  EXPECT_NE(MessageOf([&] { g->SetRadiusCylindricalDetector(std::nan("")); }).find("RadiusCylindricalDetector is nan"),
            std::string::npos);
  // SDD 1500: a cylinder of radius 700 has its axis 800 mm from the source, outside it.
  const std::string outside = MessageOf([&] { g->SetRadiusCylindricalDetector(700.); });
  EXPECT_NE(outside.find("RadiusCylindricalDetector 700 mm with projection 0 is a cylinder the source is not inside (its axis "
                         "800 mm from the source, SDD 1500 mm, SourceOffsetX 0 mm)"),
            std::string::npos)
    << outside;
  EXPECT_FALSE(g->IsCylindrical()) << "a refused radius is not kept";
  g->SetRadiusCylindricalDetector(1500.);
  // A projection added later is checked too, and refused without being added.
  EXPECT_NE(MessageOf([&] { g->AddProjection(1000., 3500., 0.); }).find("with projection 4 is a cylinder the source is not inside"),
            std::string::npos);
  EXPECT_EQ(g->GetNumberOfProjections(), 4u);
  EXPECT_NE(MessageOf([&] { g->AddProjection(g->GetMatrix(0)); }).find("Matrix of projection 4 is a bare matrix; expected RTK parameters"),
            std::string::npos);
  auto parallel = FullScan([](RtkParameters & p, double) { p.sdd = 0.; }, 4);
  EXPECT_NE(MessageOf([&] { parallel->SetRadiusCylindricalDetector(1000.); }).find("is parallel beam"), std::string::npos);
  auto matrices = AsMatrices(g);
  EXPECT_NE(MessageOf([&] { matrices->SetRadiusCylindricalDetector(1500.); }).find("is a bare matrix"), std::string::npos);
  // Subsets keep the detector.
  EXPECT_EQ(g->Subset({ 2, 0 })->GetRadiusCylindricalDetector(), 1500.);
  EXPECT_EQ(g->Subset({ 2, 0 })->GetParameters(0).gantryAngle, g->GetParameters(2).gantryAngle);
  // So does a wobbled orbit (cbct-simulate --wobble).
  EXPECT_EQ(OrbitWobble::Apply(g, 5., 2., 3)->GetRadiusCylindricalDetector(), 1500.);

  // In a file: the radius inside a projection, and a radius the source is outside of.
  const TestFolder dir("cbctCylindricalDetector_BadInput");
  std::ofstream(dir / "inside.xml") << "<?xml version=\"1.0\"?>\n<RTKThreeDCircularGeometry version=\"3\">\n"
                                        "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>\n"
                                        "<SourceToDetectorDistance>1500</SourceToDetectorDistance>\n"
                                        "<Projection><RadiusCylindricalDetector>1500</RadiusCylindricalDetector>"
                                        "<GantryAngle>0</GantryAngle></Projection>\n</RTKThreeDCircularGeometry>\n";
  std::ofstream(dir / "small.xml") << "<?xml version=\"1.0\"?>\n<RTKThreeDCircularGeometry version=\"3\">\n"
                                       "<SourceToIsocenterDistance>1000</SourceToIsocenterDistance>\n"
                                       "<SourceToDetectorDistance>1500</SourceToDetectorDistance>\n"
                                       "<RadiusCylindricalDetector>100</RadiusCylindricalDetector>\n"
                                       "<Projection><GantryAngle>0</GantryAngle></Projection>\n</RTKThreeDCircularGeometry>\n";
  auto reader = ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(dir / "inside.xml");
  const std::string inside = MessageOf([&] { reader->GenerateOutputInformation(); });
  EXPECT_NE(inside.find("<RadiusCylindricalDetector> of projection 0 in"), std::string::npos) << inside;
  EXPECT_NE(inside.find("expected one radius for the whole geometry"), std::string::npos) << inside;
  reader->SetFilename(dir / "small.xml");
  const std::string small = MessageOf([&] { reader->GenerateOutputInformation(); });
  EXPECT_NE(small.find("small.xml"), std::string::npos) << small;
  EXPECT_NE(small.find("RadiusCylindricalDetector 100 mm with projection 0 is a cylinder the source is not inside"),
            std::string::npos)
    << small;
  (void)Pi;
}

/** A cylinder centred on the source and one that is not (R != SDD, a source offset, tilts), `views`
 * views over a full turn. */
std::vector<ThreeDCircularProjectionGeometry::Pointer>
ProjectorCylinders(unsigned int views = 60)
{
  auto centred = FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 6.; }, views);
  centred->SetRadiusCylindricalDetector(1500.);
  auto other = FullScan([](RtkParameters & p, double a) {
    p.sourceOffsetX = 15.;
    p.projectionOffsetY = 4.;
    p.outOfPlane = 2.;
    p.sid = 1000. + 5. * Sin(a);
  }, views);
  other->SetRadiusCylindricalDetector(1200.);
  return { centred, other };
}

TEST(CylindricalProjectors, JosephAndRayCasterProjectTheVoxelizedPhantomOntoTheCylinder)
{
  // As on a flat panel (cbctIterativeTest): the projections of the voxelized phantom against its exact
  // line integrals to the detector's pixels, PSNR with RTK's peak of 255. At half cbctIterativeTest's
  // resolution (64^3 voxels of 2 mm, 64^2 pixels of 2.4 mm) and 15 of its 60 views, to stay fast, the
  // voxelization costs about 2 dB: each cylinder is held to the flat panel's PSNR on the same problem
  // (a pixel walked along the wrong ray costs far more).
  auto volume = VoxelizedPhantom(SheppLogan(), 64, 2., 2);
  std::vector<unsigned int> all(15);
  for (unsigned int k = 0; k < 15; ++k)
    all[k] = k;
  auto measure = [&](const ThreeDCircularProjectionGeometry * g, double & joseph, double & rays) {
    auto exact = ProjectPhantom(g, SheppLogan(), 64, 2.4);
    auto j = Zeros(exact);
    JosephOperator<ImageType>(volume, exact, g).Forward(volume->GetBufferPointer(), j->GetBufferPointer(), all, false);
    auto r = Zeros(exact);
    RayCastOperator<ImageType>(volume, exact, g, 0.5).Forward(volume->GetBufferPointer(), r->GetBufferPointer(), all, false);
    joseph = Compare(j, exact, exact->GetLargestPossibleRegion(), 255.).psnr;
    rays = Compare(r, exact, exact->GetLargestPossibleRegion(), 255.).psnr;
    std::cout << "R " << g->GetRadiusCylindricalDetector() << " (0: flat): Joseph PSNR " << joseph << " dB, ray caster " << rays
              << " dB" << std::endl;
  };
  double flatJoseph = 0., flatRays = 0.;
  measure(FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 6.; }, 15), flatJoseph, flatRays);
  EXPECT_GE(flatJoseph, 40.);
  EXPECT_GE(flatRays, 40.);
  for (const auto & g : ProjectorCylinders(15))
  {
    double joseph = 0., rays = 0.;
    measure(g, joseph, rays);
    EXPECT_GE(joseph, flatJoseph - 0.5) << "R " << g->GetRadiusCylindricalDetector();
    EXPECT_GE(rays, flatRays - 0.5) << "R " << g->GetRadiusCylindricalDetector();
  }
}

TEST(CylindricalProjectors, PairsAreAdjoint)
{
  for (const auto & g : ProjectorCylinders(20))
  {
    auto x = Copy<ImageType>(VoxelizedPhantom(SheppLogan(), 48, 2.5, 1), false, 1);
    auto y = Copy<ImageType>(ProjectPhantom(g, SheppLogan(), 48, 4.), false, 2);
    std::vector<unsigned int> all(20);
    for (unsigned int k = 0; k < 20; ++k)
      all[k] = k;
    auto check = [&](const ProjectorOperator & A, const char * name) {
      auto ax = Zeros(y), aty = Zeros(x);
      A.Forward(x->GetBufferPointer(), ax->GetBufferPointer(), all, false);
      A.Back(y->GetBufferPointer(), aty->GetBufferPointer(), all, false);
      const double ratio = Dot(ax, y) / Dot(x, aty);
      std::cout << name << " on a cylinder of " << g->GetRadiusCylindricalDetector() << " mm: <Ax, y> / <x, A^T y> = " << ratio
                << std::endl;
      EXPECT_NEAR(ratio, 1., 1e-6) << name;
      EXPECT_GT(Dot(ax, y), 0.) << name;
    };
    check(JosephOperator<ImageType>(x, y, g), "Joseph");
    check(RayCastOperator<ImageType>(x, y, g, 1.3), "ray caster");
  }
}

TEST(CylindricalProjectors, SARTWithTheVoxelBackProjectorReconstructsFromACylinder)
{
  // The voxel-based backprojector (not an adjoint: SART normalises by its backprojection of ones)
  // samples each voxel's pixel on the cylinder; OS-SART converges as on a flat panel, to the flat
  // panel's error (cbctVoxelBackProjectionTest's problem at half its resolution, to stay fast).
  double flatError = 0.;
  for (bool cylindrical : { false, true })
  {
    auto g = CircularGeometry(60);
    if (cylindrical)
      g->SetRadiusCylindricalDetector(1500.);
    auto projections = ProjectPhantom(g, Ellipsoids(), 48, 4.);
    auto truth = VoxelizedPhantom(Ellipsoids(), 32, 4., 2);
    auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
    sart->SetInput(0, Zeros(truth));
    sart->SetProjections(projections);
    sart->SetGeometry(g);
    sart->SetBackProjector(BackProjectorKind::VoxelBased);
    sart->SetNumberOfIterations(4);
    sart->SetNumberOfProjectionsPerSubset(5);
    sart->SetLambda(0.8);
    sart->EnforcePositivityOn();
    sart->Update();
    EXPECT_TRUE(AllFinite(sart->GetOutput()));
    ImageType::RegionType central(ImageType::SizeType{ { 32, 16, 32 } });
    central.SetIndex(1, 8);
    const Quality q = Compare(sart->GetOutput(), truth, central);
    std::cout << (cylindrical ? "cylinder" : "flat panel") << ": OS-SART (voxel backprojector, 4 iterations) MAE "
              << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
    EXPECT_LE(q.meanAbsoluteError, 0.032);
    EXPECT_GE(q.psnr, 28.);
    if (cylindrical)
      EXPECT_LE(q.meanAbsoluteError, 1.05 * flatError);
    else
      flatError = q.meanAbsoluteError;
  }
}
