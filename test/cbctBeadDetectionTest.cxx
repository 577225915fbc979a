// Bead phantom, bead detection and bead identification: the helix design, sub-pixel centres of
// synthetic spots with known centres (with and without noise), merged beads and beads at the border
// left out, matching spots to beads under a shift, and the bad inputs of each.
#include "cbctBeadDetector.h"
#include "cbctBeadMatcher.h"
#include "cbctBeadPhantom.h"
#include "cbctTestFolder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

using namespace cbct;

namespace
{
/** A synthetic projection: exact point samples of spheres' line integrals, density * 2 sqrt(a^2 -
 * d^2) (pixels), on a sloped background, with Gaussian noise of `sigma`. */
struct SyntheticSpot
{
  double i, j, radius, density;
};

std::vector<float>
Render(std::size_t width, std::size_t height, const std::vector<SyntheticSpot> & spots, double sigma, unsigned int seed)
{
  std::vector<float> pixels(width * height);
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0., sigma);
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t x = 0; x < width; ++x)
    {
      double value = 1.2 + 0.004 * x - 0.002 * y + 1e-5 * x * y; // a plastic body's smooth background
      for (const auto & s : spots)
      {
        const double d2 = (x - s.i) * (x - s.i) + (y - s.j) * (y - s.j);
        if (d2 < s.radius * s.radius)
          value += s.density * 2. * std::sqrt(s.radius * s.radius - d2);
      }
      pixels[y * width + x] = static_cast<float>(value + (sigma > 0. ? noise(random) : 0.));
    }
  return pixels;
}

/** The detected spot nearest (i, j), or nullptr. */
const BeadDetector::Spot *
Nearest(const BeadDetector::Result & result, double i, double j)
{
  const BeadDetector::Spot * best = nullptr;
  double distance = 3.;
  for (const auto & spot : result.spots)
  {
    const double d = std::hypot(spot.i - i, spot.j - j);
    if (d < distance)
    {
      distance = d;
      best = &spot;
    }
  }
  return best;
}

std::vector<SyntheticSpot>
RandomSpots(unsigned int count, double radiusSmall, double radiusLarge, unsigned int seed)
{
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> fraction(0., 1.);
  std::vector<SyntheticSpot> spots;
  // On a 6 x 5 lattice 24 pixels apart, each moved by a random sub-pixel amount.
  for (unsigned int k = 0; k < count; ++k)
    spots.push_back({ 20. + 24. * (k % 6) + fraction(random), 20. + 24. * (k / 6) + fraction(random),
                      k % 3 == 0 ? radiusLarge : radiusSmall, 0.1 });
  return spots;
}
} // namespace

TEST(BeadPhantom, HelixDesignHasTheDocumentedBeadsAndCode)
{
  auto phantom = BeadPhantom::New(); // the helix by default
  const auto & beads = phantom->GetBeads();
  ASSERT_EQ(beads.size(), 24u);
  EXPECT_TRUE(phantom->HasSizeCode());
  EXPECT_EQ(phantom->GetIdentifyingRun(), 5u);
  std::string code;
  for (std::size_t k = 0; k < beads.size(); ++k)
  {
    code += beads[k].large ? '1' : '0';
    EXPECT_NEAR(beads[k].center[1], -46. + 4. * k, 1e-12);
    EXPECT_NEAR(std::hypot(beads[k].center[0], beads[k].center[2]), 40., 1e-12);
    EXPECT_NEAR(beads[k].radius, beads[k].large ? 1. : 0.5, 0.);
    EXPECT_NEAR(beads[k].density, 0.45, 1e-15);
  }
  EXPECT_EQ(code, "110001101110101000010010");
  // 30 degrees between neighbours.
  const double angle = std::atan2(beads[1].center[2], beads[1].center[0]) - std::atan2(beads[0].center[2], beads[0].center[0]);
  EXPECT_NEAR(angle, 3.14159265358979323846 / 6., 1e-12);
  // The body: one PMMA cylinder; beads inside it.
  const auto * whole = phantom->GetPhantom();
  EXPECT_EQ(whole->GetEllipsoids().size(), 25u);
  EXPECT_EQ(whole->GetEllipsoids()[0].shape, GeometricPhantom::Shape::Cylinder);
  EXPECT_NEAR(whole->Density(beads[3].center), 0.47, 1e-15); // steel = PMMA + the bead's 0.45
  EXPECT_NEAR(whole->Density({ { 0., 0., 0. } }), 0.02, 0.);
  EXPECT_NEAR(phantom->GetSmallestSpacing(), std::sqrt(4. * 4. + std::pow(2. * 40. * std::sin(3.14159265358979323846 / 12.), 2.)), 1e-9);
}

TEST(BeadPhantom, ReadsItsOwnDescriptionBack)
{
  auto phantom = BeadPhantom::New();
  const std::string path = cbct::test::TestFile("bead_phantom.txt");
  phantom->GetPhantom()->WriteToFile(path, phantom->Summary());
  auto read = BeadPhantom::New();
  read->ReadFromFile(path);
  ASSERT_EQ(read->GetBeads().size(), phantom->GetBeads().size());
  for (std::size_t k = 0; k < read->GetBeads().size(); ++k)
  {
    EXPECT_EQ(read->GetBeads()[k].center, phantom->GetBeads()[k].center);
    EXPECT_EQ(read->GetBeads()[k].large, phantom->GetBeads()[k].large);
  }
  std::remove(path.c_str());
}

TEST(BeadPhantomBadInput, TooFewOverlappingOrFaintBeads)
{
  auto phantom = BeadPhantom::New();
  auto few = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid bead;
  bead.shape = GeometricPhantom::Shape::Bead;
  bead.density = 0.45;
  bead.semiAxes = { { 1., 1., 1. } };
  for (int k = 0; k < 5; ++k)
  {
    bead.center = { { 10. * k, 5. * k, 0. } };
    few->AddEllipsoid(bead);
  }
  try
  {
    phantom->SetPhantom(few);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("number of beads in the phantom is 5"), std::string::npos)
      << e.GetDescription();
  }
  bead.center = { { 0.5, 0., 0. } }; // overlaps bead 0
  few->AddEllipsoid(bead);
  try
  {
    phantom->SetPhantom(few);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("overlapping"), std::string::npos) << e.GetDescription();
  }
  BeadPhantom::HelixDesign design;
  design.steelDensity = design.plasticDensity; // beads no denser than the body
  EXPECT_THROW(phantom->SetToHelix(design), itk::ExceptionObject);
  design = BeadPhantom::HelixDesign();
  design.helixRadius = 60.; // outside the cylinder
  EXPECT_THROW(phantom->SetToHelix(design), itk::ExceptionObject);
  design = BeadPhantom::HelixDesign();
  design.sizeCode = "01x";
  EXPECT_THROW(phantom->SetToHelix(design), itk::ExceptionObject);
  // A failed change leaves the phantom as it was.
  EXPECT_EQ(phantom->GetBeads().size(), 24u);
}

TEST(BeadDetector, CentresToAHundredthOfAPixelOnExactSamples)
{
  // Beads 3 and 6 pixels across, the sizes of the 1 and 2 mm beads on a 0.5 mm detector at 1.5x.
  const auto spots = RandomSpots(30, 1.5, 3., 1);
  const auto pixels = Render(160, 140, spots, 0., 0);
  BeadDetector::Settings settings;
  settings.beadDiameter = 6.;
  settings.beadRadii = { 1.5, 3. };
  const auto result = BeadDetector::Detect(pixels.data(), 160, 140, settings);
  EXPECT_EQ(result.spots.size(), spots.size());
  EXPECT_EQ(result.merged, 0u);
  EXPECT_EQ(result.atEdge, 0u);
  double worst = 0.;
  for (const auto & s : spots)
  {
    const auto * found = Nearest(result, s.i, s.j);
    ASSERT_NE(found, nullptr) << s.i << ", " << s.j;
    worst = std::max(worst, std::hypot(found->i - s.i, found->j - s.j));
    EXPECT_LT(std::hypot(found->i - s.i, found->j - s.j), 0.01) << "spot at " << s.i << ", " << s.j << " found at " << found->i << ", " << found->j;
    EXPECT_TRUE(found->fitted);
    EXPECT_NEAR(found->radius, s.radius, 0.1 * s.radius);
    // The mass grows as the bead's volume: density * 4 pi a^3 / 3 (the sum of the samples of a small
    // bead is within a quarter of it).
    EXPECT_NEAR(found->mass, s.density * 4. * 3.14159265358979323846 * std::pow(s.radius, 3.) / 3., 0.25 * found->mass);
  }
  EXPECT_LT(worst, 0.01);
}

TEST(BeadDetector, CentresUnderNoise)
{
  // Noise sigma 0.01 against peaks of 0.3 and 0.6 (SNR 30 to 60 at the peak).
  const auto spots = RandomSpots(30, 1.5, 3., 2);
  BeadDetector::Settings settings;
  settings.beadDiameter = 6.;
  settings.beadRadii = { 1.5, 3. };
  double sumSmall = 0., sumLarge = 0.;
  unsigned int small = 0, large = 0;
  for (unsigned int seed = 1; seed <= 3; ++seed)
  {
    const auto pixels = Render(160, 140, spots, 0.01, seed);
    const auto result = BeadDetector::Detect(pixels.data(), 160, 140, settings);
    EXPECT_NEAR(result.noise, 0.01, 0.002);
    for (const auto & s : spots)
    {
      const auto * found = Nearest(result, s.i, s.j);
      ASSERT_NE(found, nullptr) << s.i << ", " << s.j;
      const double error = std::hypot(found->i - s.i, found->j - s.j);
      EXPECT_LT(error, 0.15);
      (s.radius > 2. ? sumLarge : sumSmall) += error;
      ++(s.radius > 2. ? large : small);
    }
  }
  EXPECT_LT(sumSmall / small, 0.05);
  EXPECT_LT(sumLarge / large, 0.02);
}

TEST(BeadDetector, LeavesOutMergedBeadsAndBeadsAtTheBorder)
{
  std::vector<SyntheticSpot> spots = { { 40.3, 40.6, 3., 0.1 },
                                       { 45.2, 41.0, 3., 0.1 },  // overlaps the first: one elongated spot
                                       { 90.2, 60.7, 3., 0.1 },  // alone
                                       { 1.5, 60.2, 3., 0.1 },   // leaves the detector on the left
                                       { 90.4, 118.4, 3., 0.1 } }; // too near the bottom border for its ring
  const auto pixels = Render(120, 120, spots, 0., 0);
  BeadDetector::Settings settings;
  settings.beadDiameter = 6.;
  const auto result = BeadDetector::Detect(pixels.data(), 120, 120, settings);
  ASSERT_EQ(result.spots.size(), 1u);
  EXPECT_NEAR(result.spots[0].i, 90.2, 0.01);
  EXPECT_NEAR(result.spots[0].j, 60.7, 0.01);
  EXPECT_EQ(result.merged, 1u);
  EXPECT_EQ(result.atEdge, 2u);
  // A projection of plastic only: nothing found, nothing invented.
  const auto plain = Render(120, 120, {}, 0.01, 3);
  EXPECT_TRUE(BeadDetector::Detect(plain.data(), 120, 120, settings).spots.empty());
}

TEST(BeadDetectorBadInput, NonFiniteValuesAndSettings)
{
  auto pixels = Render(40, 40, { { 20., 20., 3., 0.1 } }, 0., 0);
  BeadDetector::Settings settings;
  pixels[5 * 40 + 7] = std::numeric_limits<float>::quiet_NaN();
  try
  {
    BeadDetector::Detect(pixels.data(), 40, 40, settings);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("pixel (7, 5)"), std::string::npos) << e.GetDescription();
  }
  pixels[5 * 40 + 7] = 1.f;
  settings.beadDiameter = 0.;
  EXPECT_THROW(BeadDetector::Detect(pixels.data(), 40, 40, settings), itk::ExceptionObject);
  settings = BeadDetector::Settings();
  settings.threshold = -1.;
  EXPECT_THROW(BeadDetector::Detect(pixels.data(), 40, 40, settings), itk::ExceptionObject);
  EXPECT_THROW(BeadDetector::Detect(pixels.data(), 2, 800, BeadDetector::Settings()), itk::ExceptionObject);
}

TEST(BeadMatcher, FindsTheShiftAndEveryBeadDespiteMissingAndExtraSpots)
{
  // 20 beads of two sizes scattered; found shifted by (37.3, -12.8) pixels, slightly rotated and
  // scaled (an affine map absorbs it), two beads missing, three false spots.
  std::mt19937 random(5);
  std::uniform_real_distribution<double> position(0., 200.);
  std::vector<BeadMatcher::Point> predicted;
  while (predicted.size() < 20)
  {
    BeadMatcher::Point p{ position(random), position(random), static_cast<int>(predicted.size() % 3 == 0) };
    bool apart = true;
    for (const auto & q : predicted)
      apart = apart && std::hypot(p.i - q.i, p.j - q.j) > 15.;
    if (apart)
      predicted.push_back(p);
  }
  const double c = std::cos(0.01), s = std::sin(0.01), m = 1.01;
  std::vector<BeadMatcher::Point> spots;
  for (std::size_t k = 0; k < predicted.size(); ++k)
  {
    if (k == 4 || k == 11)
      continue;
    const auto & p = predicted[k];
    spots.push_back({ m * (c * p.i - s * p.j) + 37.3, m * (s * p.i + c * p.j) - 12.8, p.sizeClass });
  }
  spots.push_back({ 5., 5., 0 });
  spots.push_back({ 150., 30., 1 });
  spots.push_back({ 60., 190., 0 });
  std::shuffle(spots.begin(), spots.end(), random); // order must not matter
  const auto result = BeadMatcher::Match(predicted, spots, 6.);
  EXPECT_FALSE(result.ambiguous);
  ASSERT_EQ(result.pairs.size(), 18u);
  std::set<unsigned int> beads;
  for (const auto & pair : result.pairs)
  {
    const auto & p = predicted[pair.bead];
    const auto & f = spots[pair.spot];
    EXPECT_NEAR(f.i, m * (c * p.i - s * p.j) + 37.3, 1e-9) << "bead " << pair.bead;
    EXPECT_NEAR(f.j, m * (s * p.i + c * p.j) - 12.8, 1e-9) << "bead " << pair.bead;
    beads.insert(pair.bead);
  }
  EXPECT_EQ(beads.size(), 18u);
  EXPECT_EQ(beads.count(4), 0u);
  EXPECT_EQ(beads.count(11), 0u);
  // The map found is the one applied (rotation 0.01 rad, scale 1.01, shift).
  EXPECT_NEAR(result.map[0], m * c, 1e-9);
  EXPECT_NEAR(result.map[3], m * s, 1e-9);
  EXPECT_NEAR(result.map[2], 37.3, 1e-7);
  EXPECT_NEAR(result.map[5], -12.8, 1e-7);
}

TEST(BeadMatcher, SizesTellWhichPartOfARowIsSeenAndWithoutThemItIsAmbiguous)
{
  // A row of 8 beads 10 pixels apart whose sizes spell a code; only beads 2 to 5 are seen, all
  // moved by 3.3 pixels. Any 4 consecutive beads fit 4 spots: only the sizes tell which they are.
  std::vector<BeadMatcher::Point> predicted, spots;
  const int code[] = { 1, 0, 0, 1, 1, 0, 1, 0 };
  for (int k = 0; k < 8; ++k)
    predicted.push_back({ 10. * k, 0., code[k] });
  for (int k = 2; k < 6; ++k)
    spots.push_back({ 10. * k + 3.3, 0.1, code[k] });
  auto result = BeadMatcher::Match(predicted, spots, 4.);
  ASSERT_FALSE(result.ambiguous);
  ASSERT_EQ(result.pairs.size(), 4u);
  for (const auto & pair : result.pairs)
    EXPECT_EQ(pair.bead, pair.spot + 2);
  // Without sizes the row fits as well shifted by any number of beads: refused.
  for (auto & p : predicted)
    p.sizeClass = -1;
  for (auto & p : spots)
    p.sizeClass = -1;
  result = BeadMatcher::Match(predicted, spots, 4.);
  EXPECT_TRUE(result.ambiguous);
  EXPECT_TRUE(result.pairs.empty());
  EXPECT_THROW(BeadMatcher::Match(predicted, spots, 0.), itk::ExceptionObject);
}
