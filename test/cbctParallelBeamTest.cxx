// Parallel beam (RTK's convention: SourceToDetectorDistance 0): matrices by hand, derived quantities,
// the RTK XML round trip, exact phantom projections by hand, Joseph's projector and the ray caster
// against them with their adjoints, FDK's refusal, and bad input.
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctForwardProjectionImageFilter.h"
#include "cbctBackProjectionImageFilter.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctJosephOperator.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctSlabSplit.h"
#include "cbctTestFolder.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <gtest/gtest.h>
#include <itkImageAlgorithm.h>

#include <cmath>
#include <cstdio>
#include <string>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

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

/** `count` parallel projections over 360 degrees (SID 300 mm: the detector's distance beyond the axis). */
ThreeDCircularProjectionGeometry::Pointer
ParallelGeometry(unsigned int count, double offsetX = 0., double offsetY = 0.)
{
  return CircularGeometry(count, 360., 300., 0., offsetX, offsetY);
}

/** One sphere of radius 30 mm and density 1 at `centre`. */
GeometricPhantom::Pointer
Sphere(std::array<double, 3> centre)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 1.;
  e.center = centre;
  e.semiAxes = { { 30., 30., 30. } };
  phantom->AddEllipsoid(e);
  return phantom;
}
} // namespace

TEST(ParallelBeam, MatrixAtThirtyDegreesMatchesHandComputation)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(300., 0., 30., 4., -3., 0., 0., 7., 5.); // source offsets cancel in parallel beam
  ASSERT_TRUE(g->IsParallel(0));
  const double c = std::cos(Pi / 6.), s = std::sin(Pi / 6.);
  // u = rotated x - px, v = y - py, w = 1; the rotated x axis at gantry angle g is (cos g, 0, -sin g).
  const double expected[3][4] = { { c, 0., -s, -4. }, { 0., 1., 0., 3. }, { 0., 0., 0., 1. } };
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 4; ++k)
      EXPECT_NEAR(g->GetMatrix(0)(r, k), expected[r][k], 1e-14) << "(" << r << ", " << k << ")";
  // Rays travel from the source's side (s, 0, c) towards the detector.
  const auto d = g->GetRayDirection(0);
  EXPECT_NEAR(d[0], -s, 1e-14);
  EXPECT_NEAR(d[1], 0., 1e-14);
  EXPECT_NEAR(d[2], -c, 1e-14);
  EXPECT_NEAR(g->GetSourceAzimuth(0), Pi / 6., 1e-14);
  EXPECT_EQ(g->GetSourceToDetectorDistance(0), 0.);
  EXPECT_EQ(g->GetSourceToIsocenterDistance(0), 300.);
  // The detector plane lies 300 mm beyond the axis; detector point (u, v) projects back to (u, v).
  const auto p = g->GetDetectorPoint(0, 10., -20.);
  EXPECT_NEAR(p[0] * -s + p[2] * -c, 300., 1e-12); // distance along the rays from the axis
  const auto & m = g->GetMatrix(0);
  EXPECT_NEAR(m(0, 0) * p[0] + m(0, 1) * p[1] + m(0, 2) * p[2] + m(0, 3), 10., 1e-12);
  EXPECT_NEAR(m(1, 0) * p[0] + m(1, 1) * p[1] + m(1, 2) * p[2] + m(1, 3), -20., 1e-12);
}

TEST(ParallelBeam, DetectorPointOfConeBeamLiesOnTheRayAtSdd)
{
  // GetDetectorPoint() is also defined for cone beam: at SDD from the source, projecting to (u, v).
  auto g = CircularGeometry(1, 360., 1000., 1500., 3., -2., 40.);
  const auto p = g->GetDetectorPoint(0, 12., 7.);
  const auto & m = g->GetMatrix(0);
  const double w = m(2, 0) * p[0] + m(2, 1) * p[1] + m(2, 2) * p[2] + m(2, 3);
  EXPECT_NEAR(w, -1500., 1e-9);
  EXPECT_NEAR((m(0, 0) * p[0] + m(0, 1) * p[1] + m(0, 2) * p[2] + m(0, 3)) / w, 12., 1e-9);
  EXPECT_NEAR((m(1, 0) * p[0] + m(1, 1) * p[1] + m(1, 2) * p[2] + m(1, 3)) / w, 7., 1e-9);
  const auto d = g->GetRayDirection(0);
  EXPECT_NEAR(d[0], -std::sin(40. * Pi / 180.), 1e-12);
  EXPECT_NEAR(d[2], -std::cos(40. * Pi / 180.), 1e-12);
}

TEST(ParallelBeam, XmlRoundTripKeepsItParallel)
{
  auto g = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 5; ++k)
    g->AddProjection(250. + k, 0., 72. * k + 3., 0.5 * k, -1., 2. * k, 0., 0., 0.);
  const std::string path = cbct::test::TestFile("parallel.xml");
  auto writer = ThreeDCircularProjectionGeometryXMLFileWriter::New();
  writer->SetFilename(path);
  writer->SetObject(g);
  writer->WriteFile();
  auto reader = ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(path);
  reader->GenerateOutputInformation();
  auto r = reader->GetGeometry();
  ASSERT_EQ(r->GetNumberOfProjections(), 5u);
  for (unsigned int k = 0; k < 5; ++k)
  {
    EXPECT_TRUE(r->IsParallel(k));
    EXPECT_EQ(r->GetParameters(k).sourceToDetectorDistance, 0.);
    EXPECT_NEAR(r->GetParameters(k).sourceToIsocenterDistance, 250. + k, 1e-10);
    for (int row = 0; row < 3; ++row)
      for (int c = 0; c < 4; ++c)
        EXPECT_NEAR(g->GetMatrix(k)(row, c), r->GetMatrix(k)(row, c), 1e-12);
  }
  std::remove(path.c_str());
}

TEST(ParallelBeam, AngularGapsRunOverTheRaysDirection)
{
  auto g = ParallelGeometry(8);
  const auto gaps = g->GetAngularGaps();
  ASSERT_EQ(gaps.size(), 8u);
  for (double gap : gaps)
    EXPECT_NEAR(gap, Pi / 4., 1e-12);
  EXPECT_NEAR(g->GetAngularRange(), 2. * Pi - Pi / 4., 1e-12);
}

TEST(ParallelBeam, PhantomProjectionIsTheChordByHand)
{
  // A sphere of radius 30 off the axis: the parallel projection at pixel distance r from its shadow's
  // centre is the chord 2 sqrt(30^2 - r^2), whatever the detector distance (no magnification).
  auto geometry = ParallelGeometry(4, 2., -1.);
  auto projections = ProjectPhantom(geometry, Sphere({ { 10., 5., -8. } }), 33, 2.);
  for (unsigned int k = 0; k < 4; ++k)
  {
    const auto & m = geometry->GetMatrix(k);
    const double cu = m(0, 0) * 10. + m(0, 1) * 5. + m(0, 2) * -8. + m(0, 3);
    const double cv = m(1, 0) * 10. + m(1, 1) * 5. + m(1, 2) * -8. + m(1, 3);
    for (int j = 0; j < 33; j += 4)
      for (int i = 0; i < 33; i += 3)
      {
        const double u = -32. + 2. * i, v = -32. + 2. * j;
        const double r2 = (u - cu) * (u - cu) + (v - cv) * (v - cv);
        const double chord = r2 < 900. ? 2. * std::sqrt(900. - r2) : 0.;
        EXPECT_NEAR(projections->GetPixel({ { i, j, static_cast<long>(k) } }), chord, 2e-4) << i << ", " << j << ", " << k;
      }
  }
}

TEST(ParallelBeam, JosephAndRayCasterMatchExactLineIntegralsAndAreAdjoint)
{
  auto geometry = ParallelGeometry(36, 1.5, -0.5);
  geometry->AddProjection(300., 0., 17., 0., 0., 20., 5.); // tilted out of plane and in plane
  auto exact = ProjectPhantom(geometry, Ellipsoids(), 96, 1.5);
  auto volume = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto x = Copy<ImageType>(volume, false, 3);
  auto y = Copy<ImageType>(exact, false, 4);
  for (ForwardProjectorKind kind : { ForwardProjectorKind::Joseph, ForwardProjectorKind::RayCast })
  {
    auto forward = ForwardProjectionImageFilter<ImageType>::New();
    forward->SetForwardProjector(kind);
    forward->SetInput(0, Zeros(exact));
    forward->SetVolume(volume);
    forward->SetGeometry(geometry);
    forward->Update();
    const Quality q = Compare(forward->GetOutput(), exact, exact->GetLargestPossibleRegion(), 255.);
    std::cout << ToString(kind) << " parallel beam vs exact line integrals: PSNR " << q.psnr << " dB, MAE "
              << q.meanAbsoluteError << std::endl;
    EXPECT_GE(q.psnr, 44.);

    forward->SetVolume(x);
    forward->Update();
    auto back = BackProjectionImageFilter<ImageType>::New();
    back->SetForwardProjector(kind);
    back->SetInput(0, Zeros(x));
    back->SetProjections(y);
    back->SetGeometry(geometry);
    back->Update();
    const double ratio = Dot(forward->GetOutput(), y) / Dot(x, back->GetOutput());
    std::cout << ToString(kind) << " parallel beam: <Ax, y> / <x, A^T y> = " << ratio << std::endl;
    EXPECT_NEAR(ratio, 1., 1e-5);
  }
}

TEST(ParallelBeam, JosephOnSlabsAddsUpToTheWholeVolume)
{
  // Joseph's parallel rays sample a slab (a volume starting at a non-zero index) exactly as the whole
  // volume: the slabs' forward projections add up to the whole's, and their backprojections are the
  // whole's, cut (what reconstructions shared among GPUs or MPI ranks rely on).
  auto geometry = ParallelGeometry(12, 1.5, -0.5);
  geometry->AddProjection(300., 0., 17., 0., 0., 20., 5.);
  auto exact = ProjectPhantom(geometry, Ellipsoids(), 64, 2.);
  auto whole = VoxelizedPhantom(Ellipsoids(), 48, 2.5, 2);
  const std::size_t pixels = exact->GetBufferedRegion().GetNumberOfPixels();
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  std::vector<float> wholeForward(pixels), slabsForward(pixels, 0.f);
  JosephOperator<ImageType>(whole, exact, geometry).Forward(whole->GetBufferPointer(), wholeForward.data(), all, false);
  auto wholeBack = Zeros(whole);
  JosephOperator<ImageType>(whole, exact, geometry).Back(exact->GetBufferPointer(), wholeBack->GetBufferPointer(), all, false);
  double backDifference = 0., backNorm = 0.;
  for (const auto & region : SlabSplit::Equal(whole->GetLargestPossibleRegion(), 3))
  {
    ASSERT_GT(region.GetIndex(1), -1);
    auto slab = ImageType::New();
    slab->CopyInformation(whole);
    slab->SetRegions(region);
    slab->Allocate();
    itk::ImageAlgorithm::Copy(whole.GetPointer(), slab.GetPointer(), region, region);
    JosephOperator<ImageType> A(slab, exact, geometry);
    A.Forward(slab->GetBufferPointer(), slabsForward.data(), all, true);
    std::vector<float> back(region.GetNumberOfPixels());
    A.Back(exact->GetBufferPointer(), back.data(), all, false);
    std::size_t n = 0;
    for (itk::ImageRegionConstIterator<ImageType> it(wholeBack, region); !it.IsAtEnd(); ++it, ++n)
    {
      backDifference += (back[n] - it.Get()) * static_cast<double>(back[n] - it.Get());
      backNorm += it.Get() * static_cast<double>(it.Get());
    }
  }
  double difference = 0., norm = 0.;
  for (std::size_t n = 0; n < pixels; ++n)
  {
    difference += (slabsForward[n] - wholeForward[n]) * static_cast<double>(slabsForward[n] - wholeForward[n]);
    norm += wholeForward[n] * static_cast<double>(wholeForward[n]);
  }
  const double forward = std::sqrt(difference / norm), backward = std::sqrt(backDifference / backNorm);
  std::cout << "parallel beam, Joseph on 3 slabs vs the whole volume: forward " << forward << ", back " << backward << std::endl;
  EXPECT_GT(norm, 1.);
  EXPECT_LT(forward, 1e-6);
  EXPECT_LT(backward, 1e-6);
}

TEST(ParallelBeam, OsemReconstructsFromParallelProjections)
{
  auto geometry = ParallelGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 64, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 48, 2.5, 2);
  auto osem = OSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(truth));
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  osem->SetNumberOfIterations(3);
  osem->SetNumberOfProjectionsPerSubset(15);
  osem->Update();
  const Quality q = Compare(osem->GetOutput(), truth, truth->GetLargestPossibleRegion());
  std::cout << "OSEM from parallel projections: MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
  EXPECT_LT(q.meanAbsoluteError, 0.04);
  EXPECT_GT(q.psnr, 26.);
}

TEST(ParallelBeamBadInput, FdkMixedGeometriesAndBareMatrices)
{
  auto geometry = ParallelGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, ZeroVolume(8, 16.)->GetOutput());
  fdk->SetInput(1, projections);
  fdk->SetGeometry(geometry);
  ExpectError(fdk.GetPointer(), "FDK geometry is parallel beam (SourceToDetectorDistance 0); expected a cone-beam geometry");

  auto g = ThreeDCircularProjectionGeometry::New();
  g->AddProjection(300., 0., 0.);
  ExpectErrorMentioning([&] { g->AddProjection(1000., 1500., 10.); },
                        { "SourceToDetectorDistance of projection 1 is 1500", "0, as projection 0 (parallel beam)" });
  ExpectErrorMentioning([&] { g->AddProjection(CircularGeometry(1)->GetMatrix(0)); },
                        { "Matrix of projection 1", "all parallel or all cone beam" });
  auto cone = CircularGeometry(1);
  ExpectErrorMentioning([&] { cone->AddProjection(300., 0., 10.); }, { "SourceToDetectorDistance of projection 1 is 0" });
  ExpectErrorMentioning([&] { cone->AddProjection(300., -1., 10.); }, { "is -1", "or 0 (parallel beam)" });
  // A bare parallel (affine) matrix is refused with the way to give it.
  ExpectErrorMentioning([&] { ThreeDCircularProjectionGeometry::New()->AddProjection(g->GetMatrix(0)); },
                        { "non-singular", "SourceToDetectorDistance 0" });
  EXPECT_EQ(g->GetNumberOfProjections(), 1u);
}
