// Helical FDK on the CPU: the three-dimensional weights of a line's views add up to one whatever view
// they are computed from; three stacked heads reconstructed from helices at pitch 1 and 1.5 (flat and
// cylindrical detectors) within 1.5 times the error of FDK on one head from a circle that sees it
// whole; the iterative methods at or below helical FDK's error; bad helices refused.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctHelicalFDK.h"
#include "cbctHelicalOrbit.h"
#include "cbctHelicalTestProblem.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctSARTConeBeamReconstructionFilter.h"

#include <gtest/gtest.h>

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

/** FDK of `projections` on `grid` (zero), and its error against `truth` in `region`. */
Quality
FDKError(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, const ImageType * grid,
         const ImageType * truth, const ImageType::RegionType & region, const std::string & what)
{
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, Zeros(grid));
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  EXPECT_TRUE(AllFinite(fdk->GetOutput())) << what;
  const Quality q = Compare(fdk->GetOutput(), truth, region);
  std::cout << what << ": MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
  return q;
}

/** Circular FDK of the middle head alone, from a circle of `perTurn` views whose detector sees it. */
double
CircularReference(bool cylindrical, int perTurn)
{
  ThreeDCircularProjectionGeometry::Pointer circle = CircularGeometry(perTurn, 360., HelicalSid, HelicalSdd);
  if (cylindrical)
    circle = CentredCylinder(circle);
  auto projections = HelicalProjections(circle, StackedHeads(1), HelicalColumns, RowsCoveringOneHead());
  auto grid = CentredInformation(ImageType::SizeType{ { HelicalVoxels, HelicalVoxels, HelicalVoxels } }, HelicalVoxelMm,
                                 HelicalVoxelMm, HelicalVoxelMm);
  grid->Allocate(true);
  auto truth = TruthOn(StackedHeads(1), grid);
  return FDKError(circle, projections, grid, truth, truth->GetLargestPossibleRegion(),
                  std::string("circular FDK of one head") + (cylindrical ? ", cylinder" : "")).meanAbsoluteError;
}
} // namespace

TEST(HelicalFDK, WeightsOfALinesViewsAddUpToOneFromEveryView)
{
  // For a voxel and a view lambda, the conjugate views (lambda + 2 pi n, lambda_c + 2 pi n) measure the
  // same line; 2 w computed from each of them must be the same set of weights, adding up to 2.
  auto geometry = HelicalScanOfTheLongPhantom(1., 90);
  auto projections = HelicalProjections(geometry, StackedHeads(1), 4, HelicalRows);
  for (bool cylindrical : { false, true })
  {
    auto g = cylindrical ? CentredCylinder(geometry) : geometry;
    const HelicalFDKSetup setup = HelicalFDKSetup::Of(g, projections);
    const HelicalScan & s = setup.Scan();
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    int tested = 0;
    for (int trial = 0; trial < 1000; ++trial)
    {
      const float x = 18.f * uniform(random), z = 18.f * uniform(random), y = 20.f * uniform(random);
      const float lambda = 0.5f * (s.lambdaFirst + s.lambdaLast) + 6.f * uniform(random);
      HelicalColumnWeights own;
      own.Set(s, setup.ViewAt(lambda), x, z);
      if (own.At(s, lambda, y) == 0.f)
        continue;
      // Every member of both families within the scan: their weights, each computed from its own view.
      double total = 0.;
      for (float start : { lambda, own.lambdaC })
        for (int n = -12; n <= 12; ++n)
        {
          const float member = start + 2.f * static_cast<float>(Pi) * n;
          if (member < s.lambdaFirst || member > s.lambdaLast)
            continue;
          HelicalColumnWeights view;
          view.Set(s, setup.ViewAt(member), x, z);
          total += view.At(s, member, y);
        }
      EXPECT_NEAR(total, 2., 1e-4) << "voxel (" << x << ", " << y << ", " << z << "), lambda " << lambda;
      ++tested;
    }
    EXPECT_GT(tested, 100);
  }
}

TEST(HelicalFDK, LongObjectFromAHelixWithinOneAndAHalfTimesACircularScansError)
{
  // Pitch 1 and 1.5, flat and cylindrical detectors: the middle head of the long phantom against FDK of
  // the head alone from a circle (as many views a turn) whose detector sees it whole.
  auto grid = LongVolumeGrid();
  auto truth = TruthOn(StackedHeads(), grid);
  for (bool cylindrical : { false, true })
  {
    const double reference = CircularReference(cylindrical, 64);
    for (double pitch : { 1., 1.5 })
    {
      ThreeDCircularProjectionGeometry::Pointer helix = HelicalScanOfTheLongPhantom(pitch, 64);
      if (cylindrical)
        helix = CentredCylinder(helix);
      auto projections = HelicalProjections(helix, StackedHeads());
      std::ostringstream what;
      what << "helical FDK, pitch " << pitch << (cylindrical ? ", cylinder" : ", flat panel");
      const Quality q = FDKError(helix, projections, grid, truth, MiddleHeadRegion(), what.str());
      EXPECT_LE(q.meanAbsoluteError, 1.5 * reference) << what.str() << " against " << reference;
    }
  }
}

TEST(HelicalFDKBadInput, HelicesHelicalFDKCannotWeightAreRefused)
{
  auto projections = HelicalProjections(HelicalGeometry(24, 2., 20., -20.), StackedHeads(1), 16, 8);
  // Pitch 2.5: 8 rows of 1.6 mm are 6.4 mm at the isocentre; 16 mm per turn.
  auto steep = HelicalGeometry(24, 2., 16., -16.);
  const std::string pitch = MessageOf([&] { HelicalFDKSetup::Of(steep, projections); });
  EXPECT_NE(pitch.find("helical FDK pitch factor is 2.50 (16.0 mm per turn over a detector 6.4 mm high at the isocentre); "
                       "expected at most 2"),
            std::string::npos)
    << pitch;
  // A tilted helix.
  auto tilted = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 48; ++k)
    tilted->AddProjection(HelicalSid, HelicalSdd, 15. * k, 0., k * 0.5, 2., 0., 0., k * 0.5);
  const std::string tilt = MessageOf([&] { HelicalFDKSetup::Of(tilted, projections); });
  EXPECT_NE(tilt.find("helical FDK: projection 0 is a source offset across the axis or a tilt"), std::string::npos) << tilt;
  // And FDK says so, before any work.
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  auto zero = ZeroVolume(8, 4.);
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(steep);
  EXPECT_NE(MessageOf([&] { fdk->UpdateOutputInformation(); }).find("helical FDK pitch factor is 2.50"), std::string::npos);
}
