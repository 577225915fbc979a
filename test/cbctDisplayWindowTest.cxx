// The display windows of cbct-view and cbct-slices: the soft-tissue window on synthetic histograms
// (air + tissue, a bone tail, Hounsfield units, tissue and bone without air, degenerate inputs) and
// on an FDK reconstruction of the Shepp-Logan head, where it must show the ventricles (1.00) and the
// small ellipses (1.03, 1.04) in brain of 1.02; and the quantile window it replaced.
#include "cbctDisplayWindow.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** `count` normal values of `mean` and `sigma`, appended to `values`. */
void
AddNormal(std::vector<float> & values, std::size_t count, double mean, double sigma, std::mt19937 & random)
{
  std::normal_distribution<double> normal(mean, sigma);
  for (std::size_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>(normal(random)));
}

void
AddUniform(std::vector<float> & values, std::size_t count, double from, double to, std::mt19937 & random)
{
  std::uniform_real_distribution<double> uniform(from, to);
  for (std::size_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>(uniform(random)));
}

DisplayWindow
Window(const std::vector<float> & values)
{
  const DisplayWindow w = SoftTissueWindow(values.data(), values.size());
  std::cout << "window " << w.lower << " .. " << w.upper << " (width " << w.Width() << ", level " << w.Level() << ")" << std::endl;
  EXPECT_TRUE(std::isfinite(w.lower) && std::isfinite(w.upper) && w.upper > w.lower) << w.lower << " .. " << w.upper;
  return w;
}
} // namespace

TEST(DisplayWindow, AirAndTissue)
{
  std::mt19937 random(1);
  std::vector<float> values;
  AddNormal(values, 70000, 0., 0.01, random);  // air
  AddNormal(values, 30000, 1., 0.02, random);  // tissue
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 1., 0.01);
  EXPECT_GE(w.Width(), 0.12); // 4 sigma either side: 0.16
  EXPECT_LE(w.Width(), 0.2);
}

TEST(DisplayWindow, AirTissueAndBoneTail)
{
  std::mt19937 random(2);
  std::vector<float> values;
  AddNormal(values, 60000, 0., 0.01, random);
  AddNormal(values, 34000, 1., 0.02, random);
  AddUniform(values, 6000, 1.3, 2.5, random); // bone: saturates, does not pull the window
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 1., 0.01);
  EXPECT_LE(w.upper, 1.15);
  EXPECT_GE(w.lower, 0.85);
}

TEST(DisplayWindow, TissueDominatesAir)
{
  // A tight field of view: more tissue than air, still centred on tissue.
  std::mt19937 random(3);
  std::vector<float> values;
  AddNormal(values, 20000, 0., 0.005, random);
  AddNormal(values, 75000, 0.02, 0.0008, random); // attenuation per mm, near water
  AddUniform(values, 5000, 0.03, 0.05, random);
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 0.02, 0.0005);
  EXPECT_LE(w.Width(), 0.01);
  EXPECT_GT(w.lower, 0.01);
}

TEST(DisplayWindow, HounsfieldUnits)
{
  std::mt19937 random(4);
  std::vector<float> values;
  AddNormal(values, 55000, -1000., 20., random);
  AddNormal(values, 40000, 40., 15., random);
  AddUniform(values, 5000, 300., 1500., random);
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 40., 5.);
  EXPECT_GE(w.Width(), 80.);
  EXPECT_LE(w.Width(), 300.);
}

TEST(DisplayWindow, TissueAndBoneWithoutAir)
{
  // Cropped inside the head: nothing is air, the window stays on the larger (tissue) peak.
  std::mt19937 random(5);
  std::vector<float> values;
  AddNormal(values, 85000, 1., 0.02, random);
  AddNormal(values, 15000, 2., 0.05, random);
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 1., 0.01);
  EXPECT_LE(w.upper, 1.3);
}

TEST(DisplayWindow, NoiseFreeTissueGetsAUsableWidth)
{
  // A voxelized phantom: tissue is one value; 5 % of the distance from air either side.
  std::vector<float> values(50000, 0.f);
  values.insert(values.end(), 40000, 1.02f);
  values.insert(values.end(), 10000, 2.f);
  const DisplayWindow w = Window(values);
  EXPECT_NEAR(w.Level(), 1.02, 0.005);
  EXPECT_NEAR(w.Width(), 0.1 * 1.02, 0.01);
}

TEST(DisplayWindow, DegenerateInputs)
{
  const DisplayWindow empty = SoftTissueWindow(nullptr, 0);
  EXPECT_EQ(empty.lower, 0.);
  EXPECT_EQ(empty.upper, 1.);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> nonFinite{ nan, inf, -inf, nan };
  const DisplayWindow none = Window(nonFinite);
  EXPECT_EQ(none.lower, 0.);
  EXPECT_EQ(none.upper, 1.);
  const std::vector<float> constant(1000, 3.f);
  const DisplayWindow flat = Window(constant);
  EXPECT_NEAR(flat.lower, 2.7, 1e-6);
  EXPECT_NEAR(flat.upper, 3.3, 1e-6);
  const std::vector<float> zeros(1000, 0.f);
  const DisplayWindow zero = Window(zeros);
  EXPECT_NEAR(zero.lower, -0.5, 1e-12);
  EXPECT_NEAR(zero.upper, 0.5, 1e-12);
  // Non-finite values among finite ones are left out.
  std::vector<float> mixed(5000, 0.f);
  mixed.insert(mixed.end(), 5000, 1.f);
  mixed.insert(mixed.end(), 100, nan);
  mixed.insert(mixed.end(), 100, inf);
  const DisplayWindow w = Window(mixed);
  EXPECT_NEAR(w.Level(), 1., 0.01);
}

TEST(DisplayWindow, QuantileWindow)
{
  std::vector<float> values(1001);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  values.push_back(std::numeric_limits<float>::quiet_NaN());
  const DisplayWindow w = QuantileWindow(values.data(), values.size(), 0.01, 0.999);
  EXPECT_NEAR(w.lower, 10., 1e-9);
  EXPECT_NEAR(w.upper, 999., 1e-9);
  const std::vector<float> constant(10, -2.f);
  const DisplayWindow flat = QuantileWindow(constant.data(), constant.size(), 0.01, 0.999);
  EXPECT_NEAR(flat.lower, -2.2, 1e-6);
  EXPECT_NEAR(flat.upper, -1.8, 1e-6);
}

TEST(DisplayWindow, SheppLoganFDK)
{
  // The demo's head (60 mm) from 90 views, 64^3 voxels of 2 mm: the window shows brain (1.02) with
  // the ventricles (1.00) and small ellipses (1.03, 1.04) inside it, skull (2.00) and air (0) outside.
  auto geometry = CircularGeometry(90);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 100, 2.4);
  auto zero = ZeroVolume(64, 2.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  const ImageType * volume = fdk->GetOutput();
  const std::size_t count = volume->GetBufferedRegion().GetNumberOfPixels();
  const DisplayWindow w = SoftTissueWindow(volume->GetBufferPointer(), count);
  std::cout << "Shepp-Logan FDK: window " << w.lower << " .. " << w.upper << std::endl;
  EXPECT_LE(w.Width(), 0.5);
  EXPECT_LE(w.lower, 0.98);
  EXPECT_GE(w.upper, 1.05);
  EXPECT_GE(w.lower, 0.7);
  EXPECT_LE(w.upper, 1.4);
  // The percentile window it replaces spans air to bone: more than 1.5 wide.
  const DisplayWindow old = QuantileWindow(volume->GetBufferPointer(), count, 0.01, 0.999);
  EXPECT_GT(old.Width(), 1.5);
}
