// Helical orbits on the CPU: recognised from the geometry alone (and circular scans, C-arm wobble and
// per-projection offsets not mistaken for one), refused by 4D FDK (written for one circle), and
// reconstructed by the iterative methods as well as a circular scan of the same head. Helical FDK:
// cbctHelicalFDKTest.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctHelicalOrbit.h"
#include "cbctHelicalTestProblem.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctOrbitWobble.h"
#include "cbctSARTConeBeamReconstructionFilter.h"

#include <gtest/gtest.h>

using namespace cbct;
using namespace cbct::test;

namespace
{
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
} // namespace

TEST(HelicalOrbit, RecognisesAHelixAndMeasuresItsFeedAndTurns)
{
  const auto helix = HelicalOrbit::Of(HelicalGeometry(90, 3., 20., -30.));
  EXPECT_TRUE(helix.IsHelical()) << helix.Describe();
  EXPECT_NEAR(helix.FeedPerTurn(), 20., 1e-9);
  EXPECT_NEAR(helix.Turns(), 3. - 1. / 90., 1e-9);
  EXPECT_NEAR(helix.AxialTravel(), 20. * (3. - 1. / 90.), 1e-9);
  EXPECT_NEAR(helix.Linearity(), 1., 1e-12);
  EXPECT_EQ(helix.RotationSense(), 1);
  EXPECT_NE(helix.Describe().find("20.0 mm along the rotation axis (y) per turn over 2.99 turns"), std::string::npos)
    << helix.Describe();

  // The gantry turning the other way, the table going down, and the same helix as bare matrices.
  const auto reversed = HelicalOrbit::Of(HelicalGeometry(-90, 2., -15., 10., 33.));
  EXPECT_TRUE(reversed.IsHelical());
  EXPECT_NEAR(reversed.FeedPerTurn(), -15., 1e-9);
  EXPECT_EQ(reversed.RotationSense(), -1);
  const auto matrices = HelicalOrbit::Of(AsMatrices(HelicalGeometry(90, 3., 20., -30.)));
  EXPECT_TRUE(matrices.IsHelical());
  EXPECT_NEAR(matrices.FeedPerTurn(), 20., 1e-6);

  // A low pitch still moves the source 5.6 mm over a 1.4-turn scan at SID 400 (> 1 %: 4 mm).
  EXPECT_TRUE(HelicalOrbit::Of(HelicalGeometry(100, 1.4, 4., 0.)).IsHelical());
}

TEST(HelicalOrbit, CircularScansWobbleAndOffsetsAreNotHelical)
{
  EXPECT_FALSE(HelicalOrbit::Of(CircularGeometry(180)).IsHelical());
  EXPECT_FALSE(HelicalOrbit::Of(CircularGeometry(360, 720.)).IsHelical()) << "two turns of one circle";
  for (const auto & c : FDKGeometryCases())
  {
    const auto orbit = HelicalOrbit::Of(c.make(180));
    EXPECT_FALSE(orbit.IsHelical()) << c.name << ": " << orbit.Describe();
  }
  // A C-arm whose source sags 3 mm and comes back, monotonically over a short scan: it moves little.
  auto sag = Scan(200, [](unsigned int k) {
    RtkParameters p;
    p.angle = -100. + k;
    p.sourceOffsetY = p.projectionOffsetY = 3. * Sin(p.angle);
    return p;
  });
  const auto sagging = HelicalOrbit::Of(sag);
  EXPECT_FALSE(sagging.IsHelical()) << sagging.Describe();
  EXPECT_GT(sagging.Linearity(), 0.9) << "the travel alone decides here";
  // A C-arm wobbling at random by up to 5 mm and 2 degrees (cbct-simulate --wobble).
  const auto wobble = HelicalOrbit::Of(OrbitWobble::Apply(CircularGeometry(180), 5., 2., 3));
  EXPECT_FALSE(wobble.IsHelical()) << wobble.Describe();
  // Fewer than 3 projections, or none turning: no helix to speak of.
  EXPECT_FALSE(HelicalOrbit::Of(HelicalGeometry(90, 2. / 90., 20., 0.)).IsHelical());
  auto translation = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < 10; ++k)
    translation->AddProjection(1000., 1500., 0., 0., 10. * k, 0., 0., 0., 10. * k);
  EXPECT_FALSE(HelicalOrbit::Of(translation).IsHelical());
}

TEST(HelicalOrbitBadInput, FourDFDKRefusesAHelixNamingItsFeed)
{
  // 4D FDK weights each frame's projections as parts of one circle (helical FDK is 3D only).
  auto geometry = HelicalGeometry(24, 2., 20., -20.);
  auto projections = HelicalProjections(geometry, StackedHeads(1), 16, 8);
  auto fourD = FourDFDKConeBeamReconstructionFilter<ImageType, itk::Image<float, 4>>::New();
  fourD->SetInput(0, ZeroVolume(8, 4.)->GetOutput());
  fourD->SetProjections(projections);
  fourD->SetGeometry(geometry);
  fourD->SetPhases(std::vector<double>(geometry->GetNumberOfProjections(), 0.25));
  fourD->SetNumberOfFrames(2);
  const std::string fourDMessage = MessageOf([&] { fourD->Update(); });
  EXPECT_NE(fourDMessage.find("4D FDK geometry is a helical orbit"), std::string::npos) << fourDMessage;
}

/** CGLS or SART (8 iterations) of `projections`, and its mean absolute error against `truth` in `region`. */
template <typename TFilter>
double
IterativeError(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, const ImageType * truth,
               const ImageType::RegionType & region, const char * name)
{
  auto filter = TFilter::New();
  filter->SetInput(0, Zeros(truth));
  filter->SetProjections(projections);
  filter->SetGeometry(geometry);
  filter->SetNumberOfIterations(8);
  if constexpr (std::is_same_v<TFilter, SARTConeBeamReconstructionFilter<ImageType>>)
  {
    filter->SetNumberOfProjectionsPerSubset(geometry->GetNumberOfProjections() / 4); // 4 subsets for both scans
    filter->SetLambda(0.8);
  }
  filter->Update();
  EXPECT_TRUE(AllFinite(filter->GetOutput())) << name;
  const Quality q = Compare(filter->GetOutput(), truth, region);
  std::cout << name << ": MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
  return q.meanAbsoluteError;
}

TEST(HelicalIterative, CGLSAndSARTReconstructALongObjectFromAHelixAsWellAsOneHeadFromACircle)
{
  // The helix at pitch 1: 19.2 mm of the axis on the detector, a 112 mm object.
  auto helix = HelicalScanOfTheLongPhantom(1., 32);
  ASSERT_TRUE(HelicalOrbit::Of(helix).IsHelical());
  auto helicalProjections = HelicalProjections(helix, StackedHeads());
  auto longTruth = TruthOn(StackedHeads(), LongVolumeGrid());

  // The middle head alone on one circle of as many projections per turn, on a detector that sees it whole.
  auto circle = CircularGeometry(32, 360., HelicalSid, HelicalSdd);
  auto circularProjections = HelicalProjections(circle, StackedHeads(1), HelicalColumns, RowsCoveringOneHead());
  auto headGrid = CentredInformation(ImageType::SizeType{ { HelicalVoxels, HelicalVoxels, HelicalVoxels } },
                                     HelicalVoxelMm, HelicalVoxelMm, HelicalVoxelMm);
  auto headTruth = TruthOn(StackedHeads(1), headGrid);
  const ImageType::RegionType wholeHead = headTruth->GetLargestPossibleRegion();

  using CGLS = CGLSConeBeamReconstructionFilter<ImageType>;
  using SART = SARTConeBeamReconstructionFilter<ImageType>;
  const double cglsHelical = IterativeError<CGLS>(helix, helicalProjections, longTruth, MiddleHeadRegion(), "CGLS, helix");
  const double cglsCircle = IterativeError<CGLS>(circle, circularProjections, headTruth, wholeHead, "CGLS, circle");
  const double sartHelical = IterativeError<SART>(helix, helicalProjections, longTruth, MiddleHeadRegion(), "SART, helix");
  const double sartCircle = IterativeError<SART>(circle, circularProjections, headTruth, wholeHead, "SART, circle");
  EXPECT_LT(cglsHelical, 1.2 * cglsCircle);
  EXPECT_LT(sartHelical, 1.2 * sartCircle);
  // Not merely both bad: within reach of what these iterations give on a head (the zero volume's error
  // is about 0.3).
  EXPECT_LT(cglsHelical, 0.1);
  EXPECT_LT(sartHelical, 0.1);
}
