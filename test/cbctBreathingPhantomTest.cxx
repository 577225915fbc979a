// Breathing phantom: the waveform's values, which ellipsoids move, the scan's phases, exact
// projections of a breathing scan, and bad parameters refused.
#include "cbctBreathingPhantom.h"
#include "cbctBreathingPhantomProjectionSource.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionConstIteratorWithIndex.h>

#include <cmath>
#include <limits>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

BreathingPhantom::Pointer
BreathingSheppLogan()
{
  auto breathing = BreathingPhantom::New();
  breathing->SetPhantom(SheppLogan());
  return breathing;
}

GeometricPhantom::Pointer
Sphere(double radius, double density = 1.)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = density;
  e.semiAxes = { { radius, radius, radius } };
  phantom->AddEllipsoid(e);
  return phantom;
}

ImageType::Pointer
ProjectBreathing(const ThreeDCircularProjectionGeometry * geometry,
                 const BreathingPhantom * breathing,
                 const std::vector<double> & phases,
                 unsigned int pixels,
                 double pixelMm)
{
  auto source = BreathingPhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { pixels, pixels, geometry->GetNumberOfProjections() } }, pixelMm, pixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetBreathingPhantom(breathing);
  source->SetPhases(phases);
  source->Update();
  return source->GetOutput();
}
} // namespace

TEST(BreathingPhantom, DisplacementFollowsTheWaveform)
{
  auto breathing = BreathingSheppLogan();
  // Default: 10 mm along y at end-inhale (0.5), nothing at end-exhale (0), sin^2 in between.
  for (const double p : { 0., 0.1, 0.25, 0.5, 0.75, 0.9 })
  {
    const auto d = breathing->Displacement(p);
    const double expected = 10. * std::sin(M_PI * p) * std::sin(M_PI * p);
    EXPECT_NEAR(d[0], 0., 0.);
    EXPECT_NEAR(d[1], expected, 1e-12) << "phase " << p;
    EXPECT_NEAR(d[2], 0., 0.);
  }
  EXPECT_NEAR(breathing->Displacement(0.25)[1], 5., 1e-12);
  EXPECT_NEAR(breathing->Displacement(0.5)[1], 10., 1e-12);
  EXPECT_EQ(breathing->Displacement(0.)[1], 0.);

  breathing->SetAmplitude({ { 2., -4., 6. } });
  breathing->SetWaveformExponent(2.); // sin^4: a quarter of the amplitude at phase 0.25
  const auto d = breathing->Displacement(0.25);
  EXPECT_NEAR(d[0], 0.5, 1e-12);
  EXPECT_NEAR(d[1], -1., 1e-12);
  EXPECT_NEAR(d[2], 1.5, 1e-12);
  EXPECT_NEAR(breathing->Waveform(0.5), 1., 1e-12);
  // Symmetric about end-inhale.
  EXPECT_NEAR(breathing->Waveform(0.3), breathing->Waveform(0.7), 1e-12);
}

TEST(BreathingPhantom, AtPhaseMovesOnlyTheChosenEllipsoids)
{
  auto breathing = BreathingSheppLogan();
  breathing->SetMovingEllipsoids({ 5, 2 });
  breathing->SetAmplitude({ { 1., 2., 3. } });
  const auto & still = breathing->GetPhantom()->GetEllipsoids();
  for (const double phase : { 0., 0.25, 0.5 })
  {
    const auto moved = breathing->AtPhase(phase);
    const auto d = breathing->Displacement(phase);
    ASSERT_EQ(moved->GetEllipsoids().size(), still.size());
    for (std::size_t i = 0; i < still.size(); ++i)
    {
      const auto & a = still[i];
      const auto & b = moved->GetEllipsoids()[i];
      const bool moves = i == 2 || i == 5;
      for (int c = 0; c < 3; ++c)
      {
        EXPECT_NEAR(b.center[c], a.center[c] + (moves ? d[c] : 0.), 1e-12) << "ellipsoid " << i << " phase " << phase;
        EXPECT_EQ(b.semiAxes[c], a.semiAxes[c]);
      }
      EXPECT_EQ(b.density, a.density);
      EXPECT_EQ(b.angleY, a.angleY);
    }
  }
  EXPECT_NEAR(breathing->AtPhase(0.5)->GetEllipsoids()[5].center[2], still[5].center[2] + 3., 1e-12);

  // Default: every ellipsoid moves.
  auto all = BreathingSheppLogan();
  const auto moved = all->AtPhase(0.5);
  for (std::size_t i = 0; i < still.size(); ++i)
    EXPECT_NEAR(moved->GetEllipsoids()[i].center[1], still[i].center[1] + 10., 1e-12);

  // The static phantom was copied: changing the original later does not move the breathing one.
  auto original = Sphere(10.);
  auto copied = BreathingPhantom::New();
  copied->SetPhantom(original);
  original->SetToSheppLogan(60.);
  EXPECT_EQ(copied->AtPhase(0.)->GetEllipsoids().size(), 1u);
}

TEST(BreathingPhantom, ScanPhases)
{
  const auto phases = BreathingPhantom::ScanPhases(10, 2.5, 0.3);
  ASSERT_EQ(phases.size(), 10u);
  for (unsigned int k = 0; k < 10; ++k)
  {
    const double x = 0.3 + 0.25 * k;
    EXPECT_NEAR(phases[k], x - std::floor(x), 1e-12) << k;
  }
  // Irregular cycles: no variation gives the regular phases; otherwise reproducible per seed, in
  // [0, 1), growing within a cycle, and as many cycles as asked (wraps counted).
  const auto regular = BreathingPhantom::ScanPhases(200, 6., 0.);
  const auto same = BreathingPhantom::IrregularScanPhases(200, 6., 0., 7, 0.);
  for (unsigned int k = 0; k < 200; ++k)
    EXPECT_NEAR(same[k], regular[k], 1e-12);
  const auto a = BreathingPhantom::IrregularScanPhases(200, 6., 0.3, 7, 0.);
  const auto b = BreathingPhantom::IrregularScanPhases(200, 6., 0.3, 7, 0.);
  const auto c = BreathingPhantom::IrregularScanPhases(200, 6., 0.3, 8, 0.);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  int wraps = 0;
  double largestDifference = 0.;
  for (unsigned int k = 0; k < 200; ++k)
  {
    EXPECT_GE(a[k], 0.);
    EXPECT_LT(a[k], 1.);
    largestDifference = std::max(largestDifference, std::abs(a[k] - regular[k]));
    if (k > 0 && a[k] < a[k - 1])
      ++wraps;
  }
  EXPECT_GE(wraps, 5);
  EXPECT_LE(wraps, 6);
  EXPECT_GT(largestDifference, 0.02); // the irregularity is there
}

TEST(BreathingPhantom, SphereProjectionByHand)
{
  // A sphere of radius 30 moving 10 mm along y: at end-inhale the central ray (the principal ray
  // through the isocentre, along z at gantry angle 0) passes 10 mm from its centre.
  auto breathing = BreathingPhantom::New();
  breathing->SetPhantom(Sphere(30.));
  auto geometry = CircularGeometry(2, 360.); // 0 and 180 degrees
  const auto projections = ProjectBreathing(geometry, breathing, { 0., 0.5 }, 33, 2.);
  EXPECT_NEAR(projections->GetPixel({ { 16, 16, 0 } }), 60., 1e-4);
  EXPECT_NEAR(projections->GetPixel({ { 16, 16, 1 } }), 2. * std::sqrt(800.), 1e-4);
}

TEST(BreathingPhantom, ScanEqualsProjectionsOfTheMovedPhantom)
{
  auto breathing = BreathingSheppLogan();
  breathing->SetMovingEllipsoids({ 4, 5 });
  breathing->SetAmplitude({ { 3., 12., -2. } });
  breathing->SetWaveformExponent(1.5);
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 12; ++k) // offsets and tilts, varying per projection
    geometry->AddProjection(1000. + k, 1500., 30. * k, 2. * k - 5., -3., k % 3 ? 5. : 0., 0., 0.5 * k, 0.);
  ThreeDCircularProjectionGeometry::MatrixType matrix = geometry->GetMatrix(3);
  geometry->AddProjection(matrix); // a bare matrix too
  const auto phases = BreathingPhantom::IrregularScanPhases(13, 2.3, 0.2, 3, 0.1);
  const auto scan = ProjectBreathing(geometry, breathing, phases, 24, 4.);

  double largestChange = 0.;
  for (unsigned int k = 0; k < 13; ++k)
  {
    auto single = ThreeDCircularProjectionGeometry::New();
    if (geometry->HasParameters(k))
      single->AddProjectionInRadians(geometry->GetParameters(k));
    else
      single->AddProjection(geometry->GetMatrix(k));
    const auto moved = ProjectPhantom(single, breathing->AtPhase(phases[k]), 24, 4.);
    const auto still = ProjectPhantom(single, breathing->GetPhantom(), 24, 4.);
    for (itk::IndexValueType j = 0; j < 24; ++j)
      for (itk::IndexValueType i = 0; i < 24; ++i)
      {
        const float value = scan->GetPixel({ { i, j, static_cast<itk::IndexValueType>(k) } });
        ASSERT_TRUE(std::isfinite(value));
        ASSERT_EQ(value, moved->GetPixel({ { i, j, 0 } })) << "projection " << k << " pixel " << i << ", " << j;
        largestChange = std::max(largestChange, std::abs(double(value) - still->GetPixel({ { i, j, 0 } })));
      }
  }
  EXPECT_GT(largestChange, 0.2); // the ellipsoids (density 0.02) did move in the projections

  // Streaming: a requested region of a few projections and rows gives the same values.
  auto source = BreathingPhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { 24, 24, 13 } }, 4., 4., 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetBreathingPhantom(breathing);
  source->SetPhases(phases);
  source->UpdateOutputInformation();
  ImageType::RegionType part({ { 3, 5, 4 } }, { { 10, 7, 3 } });
  source->GetOutput()->SetRequestedRegion(part);
  source->Update();
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(source->GetOutput(), part); !it.IsAtEnd(); ++it)
    ASSERT_EQ(it.Get(), scan->GetPixel(it.GetIndex())) << it.GetIndex();
}

TEST(BreathingPhantom, BadParametersAreRefused)
{
  auto breathing = BreathingSheppLogan();
  EXPECT_THROW(breathing->SetAmplitude({ { 0., NaN, 0. } }), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetAmplitude({ { std::numeric_limits<double>::infinity(), 0., 0. } }), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetWaveformExponent(0.), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetWaveformExponent(-1.), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetWaveformExponent(NaN), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetMovingEllipsoids({ 1, 3, 1 }), itk::ExceptionObject);
  EXPECT_THROW(breathing->SetPhantom(nullptr), itk::ExceptionObject);
  for (const double phase : { -0.1, 1., 1.5, NaN })
  {
    EXPECT_THROW(breathing->Displacement(phase), itk::ExceptionObject) << phase;
    EXPECT_THROW(breathing->AtPhase(phase), itk::ExceptionObject) << phase;
  }
  // The refused settings changed nothing.
  EXPECT_NEAR(breathing->Displacement(0.5)[1], 10., 1e-12);
  EXPECT_EQ(breathing->GetWaveformExponent(), 1.);

  // An index past the phantom's ellipsoids, named in the message.
  breathing->SetMovingEllipsoids({ 2, 10 });
  try
  {
    breathing->AtPhase(0.2);
    FAIL() << "index 10 of 10 ellipsoids accepted";
  }
  catch (const itk::ExceptionObject & error)
  {
    const std::string message = error.GetDescription();
    EXPECT_NE(message.find("moving ellipsoid index is 10"), std::string::npos) << message;
    EXPECT_NE(message.find("10 ellipsoids"), std::string::npos) << message;
  }
  EXPECT_THROW(BreathingPhantom::New()->AtPhase(0.), itk::ExceptionObject); // no phantom

  EXPECT_THROW(BreathingPhantom::ScanPhases(0, 3.), itk::ExceptionObject);
  EXPECT_THROW(BreathingPhantom::ScanPhases(10, 0.), itk::ExceptionObject);
  EXPECT_THROW(BreathingPhantom::ScanPhases(10, NaN), itk::ExceptionObject);
  EXPECT_THROW(BreathingPhantom::ScanPhases(10, 2., 1.), itk::ExceptionObject);
  EXPECT_THROW(BreathingPhantom::IrregularScanPhases(10, 2., 1., 1), itk::ExceptionObject);
  EXPECT_THROW(BreathingPhantom::IrregularScanPhases(10, 2., -0.1, 1), itk::ExceptionObject);

  // The projection source: phases of the wrong count or out of range.
  auto good = BreathingSheppLogan();
  auto geometry = CircularGeometry(4);
  EXPECT_THROW(ProjectBreathing(geometry, good, { 0., 0.1, 0.2 }, 8, 4.), itk::ExceptionObject);
  EXPECT_THROW(ProjectBreathing(geometry, good, { 0., 0.1, 0.2, 1. }, 8, 4.), itk::ExceptionObject);
  EXPECT_THROW(ProjectBreathing(geometry, good, { 0., 0.1, NaN, 0.3 }, 8, 4.), itk::ExceptionObject);
  EXPECT_NO_THROW(ProjectBreathing(geometry, good, { 0., 0.1, 0.2, 0.3 }, 8, 4.));
}
