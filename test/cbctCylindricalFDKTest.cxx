// FDK on a cylindrical detector centred on the source (R = SDD), on the CPU: each geometry of
// cbctFDKGeometryCases.h that such a cylinder allows (no source offset across the axis, one SDD),
// reconstructed from the exact projections onto the cylinder, within 5 % of the flat panel's error on
// the same geometry; the equiangular ramp kernel and the weights' pieces; other cylinders refused.
#include "cbctCylindricalFDK.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"
#include "cbctRampFilterResponse.h"

#include <gtest/gtest.h>

#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

// Half the test problem's resolution (the same object and detector in mm: 64^3 voxels of 2 mm, 100^2
// pixels of 2.4 mm, 90 views), so that the eight cases run in seconds; the full-size comparison (128^3,
// 180 views) is in benchmarks/README.md.
constexpr unsigned int Voxels = 64;
constexpr double VoxelMm = 2.;
constexpr unsigned int Pixels = 100;
constexpr double PixelMm = 2.4;

ImageType::Pointer
Project(const ThreeDCircularProjectionGeometry * geometry)
{
  auto source = PhantomProjectionSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { Pixels, Pixels, geometry->GetNumberOfProjections() } }, PixelMm, PixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(SheppLogan());
  source->Update();
  return source->GetOutput();
}

Quality
ReconstructAndMeasure(const ThreeDCircularProjectionGeometry * geometry)
{
  static const ImageType::Pointer truth = VoxelizedPhantom(SheppLogan(), Voxels, VoxelMm, 2);
  auto zero = ZeroVolume(Voxels, VoxelMm);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(Project(geometry));
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::RegionType central(ImageType::SizeType{ { Voxels, Voxels / 2, Voxels } });
  central.SetIndex(1, Voxels / 4);
  return Compare(fdk->GetOutput(), truth, central);
}

/** The geometry with its detector bent into a cylinder centred on the source, or null where no such
 * cylinder fits every projection (a source offset across the axis, SDD varying, bare matrices). */
ThreeDCircularProjectionGeometry::Pointer
OnACylinder(const ThreeDCircularProjectionGeometry * flat)
{
  for (unsigned int k = 0; k < flat->GetNumberOfProjections(); ++k)
    if (!flat->HasParameters(k) || flat->GetParameters(k).sourceOffsetX != 0. ||
        flat->GetParameters(k).sourceToDetectorDistance != flat->GetParameters(0).sourceToDetectorDistance)
      return nullptr;
  std::vector<unsigned int> all(flat->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  auto curved = flat->Subset(all);
  curved->SetRadiusCylindricalDetector(flat->GetParameters(0).sourceToDetectorDistance);
  return curved;
}

std::vector<FDKGeometryCase>
CylinderCases()
{
  std::vector<FDKGeometryCase> cases;
  for (const auto & c : FDKGeometryCases())
    if (OnACylinder(c.make(4)))
      cases.push_back(c);
  return cases;
}

class CylindricalFDKGeometry : public ::testing::TestWithParam<FDKGeometryCase>
{};
} // namespace

TEST(CylindricalFDK, EightOfTheGeometryCasesFitACylinderCentredOnTheSource)
{
  std::string names;
  for (const auto & c : CylinderCases())
    names += c.name + "; ";
  EXPECT_EQ(CylinderCases().size(), 8u) << names;
}

TEST_P(CylindricalFDKGeometry, ErrorWithinFivePercentOfTheFlatPanels)
{
  const FDKGeometryCase & c = GetParam();
  auto flat = c.make(c.weighted ? 180 : 90);
  auto curved = OnACylinder(flat);
  ASSERT_TRUE(curved);
  const Quality qFlat = ReconstructAndMeasure(flat);
  const Quality qCurved = ReconstructAndMeasure(curved);
  std::cout << c.name << ": flat MAE " << qFlat.meanAbsoluteError << " (" << qFlat.psnr << " dB), cylinder MAE "
            << qCurved.meanAbsoluteError << " (" << qCurved.psnr << " dB), ratio "
            << qCurved.meanAbsoluteError / qFlat.meanAbsoluteError << std::endl;
  EXPECT_LE(qCurved.meanAbsoluteError, 1.05 * qFlat.meanAbsoluteError);
  EXPECT_GE(qCurved.psnr, qFlat.psnr - 0.5);
}

INSTANTIATE_TEST_SUITE_P(Cases, CylindricalFDKGeometry, ::testing::ValuesIn(CylinderCases()),
                         [](const auto & info) { return CaseTestName(info.param.name); });

TEST(CylindricalFDK, AtanRnFollowsTheLibrarysAtan)
{
  std::mt19937 random(3);
  std::uniform_real_distribution<double> uniform(-1., 1.);
  double largest = 0.;
  for (int n = 0; n < 100000; ++n)
  {
    const double t = std::tan(0.5 * Pi * uniform(random)) * (n % 3 == 0 ? 1e-3 : 1.);
    const float value = AtanRn(static_cast<float>(t));
    const double exact = std::atan(static_cast<double>(static_cast<float>(t)));
    largest = std::max(largest, std::abs(value - exact) / std::max(std::abs(exact), 1e-30));
  }
  std::cout << "AtanRn: largest relative error " << largest << std::endl;
  EXPECT_LT(largest, 3e-7);
  EXPECT_EQ(AtanRn(0.f), 0.f);
}

TEST(CylindricalFDK, EquiangularRampKernelAndWeights)
{
  // The response on a cylinder is the DFT of the flat kernel's taps times (gamma / sin gamma)^2: at a
  // huge radius it is the flat response; at R = 10 pixels its DC is the sum of the changed taps.
  const auto flat = RampFilterResponse(64, 1., RampWindow::RamLak, 1.);
  const auto far = RampFilterResponse(64, 1., RampWindow::RamLak, 1., 1e9);
  for (std::size_t k = 0; k < flat.size(); ++k)
    EXPECT_NEAR(far[k], flat[k], 1e-12);
  const auto near = RampFilterResponse(64, 1., RampWindow::RamLak, 1., 12.);
  double dc = 0.25;
  for (int n = 1; n <= 32; n += 2)
  {
    const double gamma = n / 12.;
    dc += 2. * -(gamma / std::sin(gamma)) * (gamma / std::sin(gamma)) / (Pi * Pi * n * n);
  }
  EXPECT_NEAR(near[0] * 64., dc, 1e-12) << "the response holds the inverse FFT's 1/64";
  EXPECT_THROW(RampFilterResponse(64, 1., RampWindow::RamLak, 1., 10.), itk::ExceptionObject) << "32 pixels past pi radians";

  // The weights' pieces on a cylinder: gamma from the arc, the ray's distance from the axis.
  auto g = FullScan([](RtkParameters & p, double) { p.projectionOffsetX = 20.; }, 8);
  g->SetRadiusCylindricalDetector(1500.);
  auto stack = CentredInformation(ImageType::SizeType{ { 16, 200, 8 } }, 1.2, 1.2, 1.);
  const DetectorCoordinates detector(stack.GetPointer());
  const auto parameters = CylindricalWeightingParameters(g, detector, 0, 8);
  for (unsigned int k = 0; k < 8; ++k)
  {
    const RayAxisDistance s(g, k, detector);
    for (double i : { 0., 7.5, 15. })
      for (double j : { 0., 100., 199. })
      {
        const double u = detector.U(i, j), v = detector.V(i, j);
        const double gamma = (u - g->GetPrincipalPointU(k)) / 1500.;
        const auto & p = parameters[k];
        EXPECT_NEAR(p.gammaFromIndex[0] * i + p.gammaFromIndex[1] * j + p.gammaFromIndex[2], gamma, 1e-6);
        // Centred, untilted: the ray passes the axis at SID sin(gamma), whatever its height.
        EXPECT_NEAR(s(i, j), 1000. * std::sin(gamma), 1e-6);
        EXPECT_NEAR(CylindricalAxisDistance(p.axis, std::sin(gamma), v - g->GetPrincipalPointV(k), std::cos(gamma)),
                    1000. * std::sin(gamma), 1e-3);
        EXPECT_NEAR(s.Column(s(i, j), j), i, 1e-6);
      }
  }
}

TEST(CylindricalFDKBadInput, CylindersNotCentredOnTheSourceAreRefused)
{
  auto g = FullScan([](RtkParameters & p, double) { p.sourceOffsetX = 20.; }, 8);
  g->SetRadiusCylindricalDetector(1500.);
  auto projections = Project(g);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, ZeroVolume(8, 16.)->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(g);
  try
  {
    fdk->Update();
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("FDK detector is a cylinder whose axis misses the source in projection 0 (RadiusCylindricalDetector "
                           "1500 mm, SourceToDetectorDistance 1500 mm, SourceOffsetX 20 mm)"),
              std::string::npos)
      << message;
    EXPECT_NE(message.find("reconstruct other cylinders iteratively"), std::string::npos) << message;
  }
}
