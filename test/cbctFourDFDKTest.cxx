// 4D FDK on the CPU: frame selection and angular weights (FourDGating), the moving sphere placed at
// each frame's phase (within what averaging over the frame's window allows) while 3D FDK puts it at
// the mean, clustered projections weighted right, each frame equal to a 3D FDK of its own projections
// and one frame equal to 3D FDK, and bad input refused.
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctFourDFDKTestData.h"
#include "cbctPhaseSignal.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;
using FourDImageType = itk::Image<float, 4>;
using FourDFDK = FourDFDKConeBeamReconstructionFilter<ImageType, FourDImageType>;

const FourDScan &
Scan()
{
  static const FourDScan scan = MakeFourDScan();
  return scan;
}

FourDImageType::Pointer
ReconstructFourD(const FourDScan & scan, unsigned int frames, double window = 0.,
                 FourDGating::WindowShape shape = FourDGating::WindowShape::Rectangular)
{
  auto zero = ZeroVolume(48, 1.5);
  auto fdk = FourDFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetGeometry(scan.geometry);
  fdk->SetPhases(scan.phases);
  fdk->SetNumberOfFrames(frames);
  fdk->SetGatingWindow(window);
  fdk->SetWindowShape(shape);
  fdk->Update();
  return fdk->GetOutput();
}

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
  return "";
}

double
Sum(const std::vector<double> & v)
{
  return std::accumulate(v.begin(), v.end(), 0.);
}

/** Where frame `frame` (centred at phase `centre`) may put the moving sphere: its mean position over
 * the frame's gating window, in time. The projections are equally spaced in time, so that is the mean
 * of the sphere's displacement at each projection's phase, weighted by the gating weight of the
 * window's shape (1 in a rectangular window; 1 - 2d/w at a phase distance d in a triangular one of
 * width w). A frame whose angular weights favour some projections (e.g. the ends of each cluster, the
 * farthest from the frame's phase) moves its sphere away from this mean. */
double
WindowMean(const FourDScan & scan, const FourDGating::Frame & frame, double centre, double triangularWidth = 0.)
{
  double sum = 0., weight = 0.;
  for (unsigned int k : frame.projections)
  {
    const double d = PhaseSignal::CyclicDistance(scan.phases[k], centre);
    const double g = triangularWidth > 0. ? 1. - 2. * d / triangularWidth : 1.;
    sum += g * FourDDisplacement(scan.phases[k]);
    weight += g;
  }
  return sum / weight;
}

/** A quarter voxel (1.5 mm): how closely the centroid of the voxels above half the maximum finds a
 * sphere's centre on this grid. */
constexpr double CentroidTolerance = 0.25 * 1.5;
} // namespace

TEST(FourDGating, WholeRegularScanGetsTheGeometrysGaps)
{
  for (double arc : { 360., 200. })
  {
    auto geometry = CircularGeometry(90, arc);
    std::vector<unsigned int> all(90);
    std::iota(all.begin(), all.end(), 0u);
    const auto shares = FourDGating::AngularShares(geometry, all);
    const auto weights = FourDGating::ClusterWeights(geometry, all);
    const auto gaps = geometry->GetAngularGaps();
    for (unsigned int k = 0; k < 90; ++k)
    {
      EXPECT_NEAR(shares[k], gaps[k], 1e-12) << "arc " << arc << ", projection " << k;
      EXPECT_NEAR(weights[k], gaps[k], 1e-12) << "arc " << arc << ", projection " << k;
    }
  }
}

TEST(FourDGating, ClusteredProjectionsShareTheirFrameAngle)
{
  // 360 projections at 1 degree; a frame of 4 clusters of 5 projections each, 90 degrees apart.
  auto geometry = CircularGeometry(360);
  std::vector<unsigned int> subset;
  for (unsigned int c = 0; c < 4; ++c)
    for (unsigned int i = 0; i < 5; ++i)
      subset.push_back(90 * c + 10 + i);
  const auto shares = FourDGating::AngularShares(geometry, subset);
  EXPECT_NEAR(Sum(shares), 2. * Pi, 1e-9);
  const double degree = Pi / 180.;
  // Inside a cluster: 1 degree. At a cluster's end: half a degree + half the 86-degree gap.
  EXPECT_NEAR(shares[2], 1. * degree, 1e-9);
  EXPECT_NEAR(shares[4], (0.5 + 43.) * degree, 1e-9);
  EXPECT_NEAR(shares[5], (43. + 0.5) * degree, 1e-9);
  // The geometry's own gaps would cap the 86-degree gap at the median step: far too little.
  auto sub = FourDGating::SubGeometry(geometry, subset);
  EXPECT_LT(Sum(sub->GetAngularGaps()), 0.1 * 2. * Pi);
}

TEST(FourDGating, EachClusterSpreadsItsShareEvenly)
{
  const double degree = Pi / 180.;
  {
    // 360 projections at 1 degree; clusters of 5, 3 and 7 projections: each keeps the sum of its
    // projections' shares (the arc between the midpoints to the neighbouring clusters), evenly spread.
    auto geometry = CircularGeometry(360);
    std::vector<unsigned int> subset;
    for (unsigned int k = 10; k < 15; ++k)
      subset.push_back(k);
    for (unsigned int k = 100; k < 103; ++k)
      subset.push_back(k);
    for (unsigned int k = 200; k < 207; ++k)
      subset.push_back(k);
    const auto shares = FourDGating::AngularShares(geometry, subset);
    const auto weights = FourDGating::ClusterWeights(geometry, subset);
    ASSERT_EQ(weights.size(), subset.size());
    EXPECT_NEAR(Sum(weights), 2. * Pi, 1e-9);
    const std::vector<std::pair<std::size_t, std::size_t>> clusters{ { 0, 5 }, { 5, 8 }, { 8, 15 } };
    // Cluster [10, 14]: 4 degrees, half the 164-degree gap from 206 and half the 86-degree gap to 100.
    const std::vector<double> expected{ (4. + 82. + 43.) * degree, (2. + 43. + 49.) * degree, (6. + 49. + 82.) * degree };
    for (std::size_t c = 0; c < clusters.size(); ++c)
    {
      double share = 0.;
      for (std::size_t i = clusters[c].first; i < clusters[c].second; ++i)
        share += shares[i];
      EXPECT_NEAR(share, expected[c], 1e-9) << "cluster " << c;
      const double each = share / static_cast<double>(clusters[c].second - clusters[c].first);
      for (std::size_t i = clusters[c].first; i < clusters[c].second; ++i)
        EXPECT_NEAR(weights[i], each, 1e-12) << "cluster " << c << ", projection " << subset[i];
    }
  }
  {
    // A short scan (100 projections, 2-degree steps over [0, 198]): the clusters at its two ends are not
    // one across the open end; each edge reaches half a step past the arc.
    auto geometry = CircularGeometry(100, 200.);
    const std::vector<unsigned int> subset{ 98, 99, 0, 1, 50 };
    const auto weights = FourDGating::ClusterWeights(geometry, subset);
    EXPECT_NEAR(weights[0], 25.5 * degree, 1e-9); // {98, 99}: 48 + 2 + 1 degrees
    EXPECT_NEAR(weights[1], 25.5 * degree, 1e-9);
    EXPECT_NEAR(weights[2], 26. * degree, 1e-9); // {0, 1}: 1 + 2 + 49 degrees
    EXPECT_NEAR(weights[3], 26. * degree, 1e-9);
    EXPECT_NEAR(weights[4], 97. * degree, 1e-9); // {50}: 49 + 48 degrees
    EXPECT_NEAR(Sum(weights), 200. * degree, 1e-9);
  }
  {
    // Irregular steps: 1 degree, then 2 degrees from 9 to 15, then 1 again. The cluster of the
    // projections at 8, 9, 11, 13 and 15 degrees spreads its share by their own steps in the scan:
    // 1, 1.5, 2, 2 and 1.5 degrees.
    auto geometry = ThreeDCircularProjectionGeometry::New();
    std::vector<double> angles;
    for (int a = 0; a < 10; ++a)
      angles.push_back(a);
    for (int a = 11; a <= 15; a += 2)
      angles.push_back(a);
    for (int a = 16; a < 360; ++a)
      angles.push_back(a);
    for (double a : angles)
      geometry->AddProjection(1000., 1500., a);
    const std::vector<unsigned int> subset{ 8, 9, 10, 11, 12 };
    const auto shares = FourDGating::AngularShares(geometry, subset);
    const auto weights = FourDGating::ClusterWeights(geometry, subset);
    const std::vector<double> steps{ 1., 1.5, 2., 2., 1.5 };
    for (std::size_t i = 0; i < subset.size(); ++i)
      EXPECT_NEAR(weights[i], Sum(shares) * steps[i] / 8., 1e-12) << "projection " << subset[i];
  }
}

TEST(FourDGating, ShortScanEdgesReachHalfAStepPastTheArc)
{
  auto geometry = CircularGeometry(100, 200.); // 2-degree steps over [0, 198]
  const std::vector<unsigned int> subset{ 0, 50, 99 };
  const auto shares = FourDGating::AngularShares(geometry, subset);
  const double degree = Pi / 180.;
  EXPECT_NEAR(shares[0], (1. + 50.) * degree, 1e-9);
  EXPECT_NEAR(shares[1], (50. + 49.) * degree, 1e-9);
  EXPECT_NEAR(shares[2], (49. + 1.) * degree, 1e-9);
}

TEST(FourDGating, NearestFrameUsesEachProjectionOnce)
{
  const auto & scan = Scan();
  const auto frames = FourDGating::SelectFrames(scan.geometry, scan.phases, 4);
  ASSERT_EQ(frames.size(), 4u);
  std::vector<int> uses(scan.phases.size(), 0);
  for (unsigned int f = 0; f < 4; ++f)
  {
    EXPECT_EQ(frames[f].projections.size(), 60u) << "frame " << f;
    EXPECT_NEAR(Sum(frames[f].weights), 2. * Pi, 1e-9) << "frame " << f;
    for (unsigned int k : frames[f].projections)
    {
      ++uses[k];
      EXPECT_EQ(PhaseSignal::NearestFrame(scan.phases[k], 4), f);
    }
  }
  for (int u : uses)
    EXPECT_EQ(u, 1);
}

TEST(FourDGating, WiderAndTriangularWindows)
{
  const auto & scan = Scan();
  // Rectangular, half the cycle: every projection in two frames, but those at a frame's centre (phases
  // k/40, 24 of them at multiples of 1/4), which lie on both neighbours' window edges, in three.
  const auto wide = FourDGating::SelectFrames(scan.geometry, scan.phases, 4, 0.5);
  std::size_t total = 0;
  for (const auto & frame : wide)
  {
    total += frame.projections.size();
    EXPECT_NEAR(Sum(frame.weights), 2. * Pi, 1e-9);
  }
  EXPECT_EQ(total, 2 * scan.phases.size() + 24);
  // Triangular, default width 2/N: weights fall with the distance to the frame's phase.
  const auto tri = FourDGating::SelectFrames(scan.geometry, scan.phases, 4, 0., FourDGating::WindowShape::Triangular);
  const auto & frame = tri[0];
  const auto shares = FourDGating::ClusterWeights(scan.geometry, frame.projections);
  EXPECT_NEAR(Sum(frame.weights), 2. * Pi, 1e-9);
  double nearRatio = 0., farRatio = 0.;
  for (std::size_t i = 0; i < frame.projections.size(); ++i)
  {
    const double d = PhaseSignal::CyclicDistance(scan.phases[frame.projections[i]], 0.);
    ASSERT_LT(d, 0.25);
    const double ratio = frame.weights[i] / shares[i];
    if (d < 0.01)
      nearRatio = ratio;
    if (d > 0.2)
      farRatio = ratio;
  }
  ASSERT_GT(nearRatio, 0.);
  ASSERT_GT(farRatio, 0.);
  EXPECT_GT(nearRatio, 3. * farRatio);
  EXPECT_EQ(FourDGating::ParseWindowShape("triangular"), FourDGating::WindowShape::Triangular);
  EXPECT_NE(MessageOf([] { FourDGating::ParseWindowShape("gaussian"); }).find("rectangular or triangular"), std::string::npos);
}

TEST(FourDGating, BadSignalsAndEmptyFramesAreRefused)
{
  const auto & scan = Scan();
  auto phases = scan.phases;
  phases.pop_back();
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, phases, 4); }).find("240"), std::string::npos);
  phases = scan.phases;
  phases[7] = std::nan("");
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, phases, 4); }), "");
  phases[7] = 1.;
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, phases, 4); }), "");
  phases[7] = -0.1;
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, phases, 4); }), "");
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, scan.phases, 0); }).find("number of frames"), std::string::npos);
  EXPECT_NE(MessageOf([&] { FourDGating::SelectFrames(scan.geometry, scan.phases, 4, 1.5); }).find("gating window"), std::string::npos);
  // All phases near 0: frame 2 (phase 0.5) gets nothing.
  std::vector<double> still(scan.phases.size(), 0.01);
  const std::string empty = MessageOf([&] { FourDGating::SelectFrames(scan.geometry, still, 4); });
  EXPECT_NE(empty.find("frame 1 of 4"), std::string::npos) << empty;
  EXPECT_NE(empty.find("without projections"), std::string::npos) << empty;
}

TEST(FourDFDK, FramesPlaceTheMovingSphereAtTheirPhase)
{
  const auto & scan = Scan();
  const auto fourD = ReconstructFourD(scan, 4);
  const auto & region = fourD->GetLargestPossibleRegion();
  ASSERT_EQ(region.GetSize(3), 4u);
  EXPECT_EQ(region.GetSize(0), 48u);
  EXPECT_DOUBLE_EQ(fourD->GetSpacing()[3], 1.);
  EXPECT_DOUBLE_EQ(fourD->GetSpacing()[0], 1.5);
  // Frames 0 and 2 are the extreme phases: there the window's average is farthest from the truth.
  const auto frames = FourDGating::SelectFrames(scan.geometry, scan.phases, 4);
  std::vector<double> ys;
  for (unsigned int f = 0; f < 4; ++f)
  {
    const auto c = MovingCentroid(fourD.GetPointer(), f);
    const double truth = FourDDisplacement(f / 4.);
    const double mean = WindowMean(scan, frames[f], f / 4.);
    std::cout << "frame " << f << ": centroid y " << c[1] << " mm, truth " << truth << ", window's mean " << mean << std::endl;
    EXPECT_NEAR(c[1], mean, CentroidTolerance) << "frame " << f;
    EXPECT_LE(std::abs(c[1] - truth), std::abs(mean - truth) + CentroidTolerance) << "frame " << f;
    EXPECT_NEAR(c[0], 0., 1.) << "frame " << f;
    EXPECT_NEAR(c[2], 0., 1.) << "frame " << f;
    ys.push_back(c[1]);
  }
  EXPECT_GT(ys[2] - ys[0], 7.);

  // 3D FDK of all projections: the sphere at its mean position (5 mm), smeared.
  auto zero = ZeroVolume(48, 1.5);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetGeometry(scan.geometry);
  fdk->Update();
  auto threeD = FourDImageType::New();
  FourDImageType::RegionType r3 = region;
  r3.SetSize(3, 1);
  threeD->SetRegions(r3);
  threeD->SetSpacing(fourD->GetSpacing());
  threeD->SetOrigin(fourD->GetOrigin());
  threeD->Allocate();
  std::memcpy(threeD->GetBufferPointer(), fdk->GetOutput()->GetBufferPointer(), r3.GetNumberOfPixels() * sizeof(float));
  const auto mean = MovingCentroid(threeD.GetPointer(), 0);
  std::cout << "3D FDK: centroid y " << mean[1] << " mm" << std::endl;
  EXPECT_NEAR(mean[1], 5., 1.5);
}

TEST(FourDFDK, ClusteredFramesKeepTheDensity)
{
  // The static sphere (density 0.5, at x = -18 mm) is the same in every frame: with the frame's own
  // angular shares each frame gets its density; the geometry's capped gaps would give about a tenth.
  // 15 cycles: clusters of 4 projections 24 degrees apart (with 6 cycles, 60 degrees apart, the
  // moving sphere's streaks cross the static one).
  static const FourDScan scan = MakeFourDScan(240, 15.);
  const auto fourD = ReconstructFourD(scan, 4);
  const auto & region = fourD->GetLargestPossibleRegion();
  const std::size_t n = region.GetSize(0), voxels = n * n * n;
  for (unsigned int f = 0; f < 4; ++f)
  {
    // Mean over the sphere's central 3x3x3 voxels: x = -18 mm is voxel 23.5 - 12 = 11.5.
    double sum = 0.;
    for (int z = 22; z <= 24; ++z)
      for (int y = 22; y <= 24; ++y)
        for (int x = 10; x <= 12; ++x)
          sum += fourD->GetBufferPointer()[f * voxels + (z * n + y) * n + x];
    std::cout << "frame " << f << ": static sphere " << sum / 27. << std::endl;
    EXPECT_NEAR(sum / 27., 0.5, 0.05) << "frame " << f;
  }
}

TEST(FourDFDK, OneFrameEqualsThreeDFDK)
{
  const auto & scan = Scan();
  const auto fourD = ReconstructFourD(scan, 1);
  auto zero = ZeroVolume(48, 1.5);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetGeometry(scan.geometry);
  fdk->Update();
  const float * a = fourD->GetBufferPointer();
  const float * b = fdk->GetOutput()->GetBufferPointer();
  const std::size_t voxels = fdk->GetOutput()->GetLargestPossibleRegion().GetNumberOfPixels();
  double d2 = 0., n2 = 0.;
  for (std::size_t i = 0; i < voxels; ++i)
  {
    d2 += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    n2 += static_cast<double>(b[i]) * b[i];
  }
  ASSERT_GT(n2, 0.);
  EXPECT_LT(std::sqrt(d2 / n2), 1e-5);
}

TEST(FourDFDK, EachFrameEqualsThreeDFDKOfItsProjections)
{
  // Frame f is the 3D FDK of frame f's projections, each weighted by its own angular step (1.5 degrees)
  // and the frame's total scaled to 360 degrees (x 240 / 60): the 3D FDK of the whole geometry with the
  // other frames' projections set to 0 and frame f's multiplied by 4. (The 3D FDK of frame f's
  // projections with their own geometry would not do: that geometry looks like a short scan, 316.5
  // degrees, and gets Parker's weights.)
  const auto & scan = Scan();
  const auto fourD = ReconstructFourD(scan, 4);
  const auto frames = FourDGating::SelectFrames(scan.geometry, scan.phases, 4);
  const auto & region = scan.projections->GetLargestPossibleRegion();
  const std::size_t slice = region.GetSize(0) * region.GetSize(1);
  for (unsigned int f = 0; f < 4; ++f)
  {
    ASSERT_EQ(frames[f].projections.size(), 60u);
    auto stack = ImageType::New();
    stack->CopyInformation(scan.projections);
    stack->SetRegions(region);
    stack->Allocate();
    stack->FillBuffer(0.f);
    for (unsigned int k : frames[f].projections)
      for (std::size_t p = 0; p < slice; ++p)
        stack->GetBufferPointer()[k * slice + p] = 4.f * scan.projections->GetBufferPointer()[k * slice + p];
    auto zero = ZeroVolume(48, 1.5);
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(stack);
    fdk->SetGeometry(scan.geometry);
    fdk->Update();
    const float * a = fourD->GetBufferPointer() + f * fdk->GetOutput()->GetLargestPossibleRegion().GetNumberOfPixels();
    const float * b = fdk->GetOutput()->GetBufferPointer();
    double d2 = 0., n2 = 0.;
    for (std::size_t i = 0; i < fdk->GetOutput()->GetLargestPossibleRegion().GetNumberOfPixels(); ++i)
    {
      d2 += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
      n2 += static_cast<double>(b[i]) * b[i];
    }
    ASSERT_GT(n2, 0.);
    EXPECT_LT(std::sqrt(d2 / n2), 1e-5) << "frame " << f; // NaN fails
  }
}

TEST(FourDFDK, WindowsChangeTheFrames)
{
  // A triangular window shares projections between frames: still placed within the tolerance, but
  // not the nearest-frame result.
  const auto & scan = Scan();
  const auto nearest = ReconstructFourD(scan, 4);
  const auto tri = ReconstructFourD(scan, 4, 0., FourDGating::WindowShape::Triangular);
  const auto frames = FourDGating::SelectFrames(scan.geometry, scan.phases, 4, 0., FourDGating::WindowShape::Triangular);
  for (unsigned int f = 0; f < 4; ++f)
  {
    const auto c = MovingCentroid(tri.GetPointer(), f);
    const double mean = WindowMean(scan, frames[f], f / 4., 0.5);
    std::cout << "triangular frame " << f << ": centroid y " << c[1] << " mm, window's mean " << mean << std::endl;
    EXPECT_NEAR(c[1], mean, CentroidTolerance) << "frame " << f;
  }
  double differ = 0.;
  for (std::size_t i = 0; i < nearest->GetLargestPossibleRegion().GetNumberOfPixels(); ++i)
    differ = std::max(differ, static_cast<double>(std::abs(nearest->GetBufferPointer()[i] - tri->GetBufferPointer()[i])));
  EXPECT_GT(differ, 0.05);
}

TEST(FourDFDK, BadInputIsRefused)
{
  const auto & scan = Scan();
  auto zero = ZeroVolume(48, 1.5);
  auto fdk = FourDFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetNumberOfFrames(4);
  EXPECT_NE(MessageOf([&] { fdk->Update(); }).find("geometry"), std::string::npos);
  fdk->SetGeometry(scan.geometry);
  EXPECT_NE(MessageOf([&] { fdk->Update(); }), ""); // no phases
  auto phases = scan.phases;
  phases[3] = std::nan("");
  fdk->SetPhases(phases);
  EXPECT_NE(MessageOf([&] { fdk->Update(); }), "");
  fdk->SetPhases(scan.phases);
  fdk->SetGeometry(CircularGeometry(100));
  EXPECT_NE(MessageOf([&] { fdk->Update(); }).find("number of projection images"), std::string::npos);
}

TEST(FourDFDK, FieldOfViewIsTheWholeScansInEveryFrame)
{
  // With a field of view every frame keeps the voxels the whole scan sees (not its own projections'
  // ones): inside, the frames of the plain 4D FDK bit for bit; outside, NaN. 48^3 voxels of 1.5 mm
  // (72 mm) from 64^2 pixels of 2 mm (85 mm at the axis): the corners are outside.
  const auto & scan = Scan();
  const auto plain = ReconstructFourD(scan, 4);
  auto zero = ZeroVolume(48, 1.5);
  auto fdk = FourDFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(scan.projections);
  fdk->SetGeometry(scan.geometry);
  fdk->SetPhases(scan.phases);
  fdk->SetNumberOfFrames(4);
  fdk->SetFieldOfView(FieldOfViewMode::NaN);
  fdk->Update();
  const auto * masked = fdk->GetOutput();
  // The whole scan's mask, as FieldOfViewMask computes it on the weighted projections' detector (no
  // displaced detector here: the stack's own).
  auto grid = ImageType::New();
  grid->CopyInformation(zero->GetOutput());
  grid->SetRegions(zero->GetOutput()->GetLargestPossibleRegion());
  const auto matrices = FieldOfViewMask::MatricesFor(grid, scan.projections, scan.geometry);
  FieldOfViewMask mask;
  mask.Compute(matrices, FieldOfViewMask::DetectorOf(scan.projections), FieldOfViewMask::AxisFor(matrices),
               grid->GetLargestPossibleRegion());
  const std::size_t voxels = 48 * 48 * 48;
  for (unsigned int f = 0; f < 4; ++f)
  {
    std::size_t wrong = 0, outside = 0;
    for (std::size_t i = 0; i < voxels; ++i)
    {
      const float a = plain->GetBufferPointer()[f * voxels + i], b = masked->GetBufferPointer()[f * voxels + i];
      if (mask.Inside(static_cast<long long>(i % 48), static_cast<long long>(i / 48 % 48), static_cast<long long>(i / 2304)))
        wrong += std::memcmp(&a, &b, sizeof(float)) != 0 ? 1 : 0;
      else
      {
        ++outside;
        wrong += std::isnan(b) ? 0 : 1;
      }
    }
    EXPECT_EQ(wrong, 0u) << "frame " << f;
    EXPECT_GT(outside, voxels / 20) << "frame " << f;
    EXPECT_LT(outside, voxels / 2) << "frame " << f;
  }
}
