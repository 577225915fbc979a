// A helical scan written as DICOM-CT-PD files, imported through ScanImporter (detection, the ImageIO
// through ITK's factory, the line integrals) and reconstructed by helical FDK like the simulation it
// was written from. A numerical suite (the sanitized build leaves it out: its FDK takes 20 times
// longer there); the reader's own checks are cbctDicomCTPDScanTest's.
#include "cbctDicomCTPDScan.h"
#include "cbctDicomCTPDTestFiles.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctHelicalTestProblem.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctScanImporter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;
} // namespace

// A helical scan (pitch 1, 8 turns of 64 views, a quarter-pixel detector offset as a clinical
// scanner's) of the three stacked heads on a cylindrical detector centred on the source, written as
// DICOM-CT-PD with 16-bit values (slope 2^-10, intercept -1), the files named in the reverse of their
// InstanceNumber: the import is the quantised line integrals to the last bit, the geometry the
// simulator's to float precision, and helical FDK of the import equals helical FDK of the simulation.
TEST(DicomCTPDScan, HelicalScanImportsToTheSimulationAndReconstructsAlike)
{
  const auto helix = HelicalScanOfTheLongPhantom(1.);
  const double quarter = 0.25 * HelicalPixelMm;
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->SetRadiusCylindricalDetector(HelicalSdd);
  for (unsigned int k = 0; k < helix->GetNumberOfProjections(); ++k)
  {
    auto p = helix->GetParameters(k);
    p.projectionOffsetX = quarter;
    geometry->AddProjectionInRadians(p);
  }
  const unsigned int n = geometry->GetNumberOfProjections();
  ImageType::Pointer simulated = HelicalProjections(geometry, StackedHeads());
  // The line integrals as 16-bit values: what the files hold and what the direct path reconstructs.
  const std::size_t pixels = std::size_t(HelicalColumns) * HelicalRows;
  float * line = simulated->GetBufferPointer();
  std::vector<std::uint16_t> stored(pixels * n);
  for (std::size_t i = 0; i < stored.size(); ++i)
  {
    const double p = std::round((double(line[i]) + 1.) * 1024.);
    ASSERT_TRUE(p >= 0. && p <= 65535.) << line[i];
    stored[i] = static_cast<std::uint16_t>(p);
    line[i] = static_cast<float>(p * 0.0009765625 + -1.);
  }
  const std::string folder = FreshSubfolder("helix").string();
  for (unsigned int k = 0; k < n; ++k)
  {
    const auto & g = geometry->GetParameters(k);
    CTPDProjection p;
    p.columns = HelicalColumns;
    p.rows = HelicalRows;
    p.columnSpacing = p.rowSpacing = static_cast<float>(HelicalPixelMm);
    p.rho0 = static_cast<float>(HelicalSid);
    p.d0 = static_cast<float>(HelicalSdd);
    p.phi0 = static_cast<float>(-2. * Pi * k / 64.); // unwrapped, turning as RTK's gantry angle grows
    p.z0 = static_cast<float>(g.sourceOffsetY);
    p.centralColumn = static_cast<float>(0.5 * (HelicalColumns + 1) - quarter / HelicalPixelMm);
    p.centralRow = 0.5f * (HelicalRows + 1);
    p.instance = static_cast<int>(k + 1);
    for (unsigned int c = 0; c < HelicalColumns; ++c)
      p.photons.push_back(static_cast<float>(1e5 + 10. * c + k));
    p.stored.resize(pixels);
    for (unsigned int j = 0; j < HelicalRows; ++j)
      for (unsigned int i = 0; i < HelicalColumns; ++i)
        p.stored[StoredIndex(p, i + 1, HelicalRows - j)] = stored[k * pixels + j * HelicalColumns + i];
    std::ostringstream name;
    name << folder << "/L067_" << std::setw(5) << std::setfill('0') << (n - k) << ".dcm";
    WriteCTPD(name.str(), p);
  }

  const ScannerScan::Pointer scan = ScanImporter::Open(folder);
  const auto * ctpd = dynamic_cast<const DicomCTPDScan *>(scan.GetPointer());
  ASSERT_NE(ctpd, nullptr) << scan->Format();
  ASSERT_EQ(scan->ProjectionFiles().size(), n);
  EXPECT_NE(scan->ProjectionFiles().front().find("L067_00512.dcm"), std::string::npos) << "ordered by InstanceNumber";
  EXPECT_EQ(ctpd->DetectorShape(), "CYLINDRICAL");
  EXPECT_DOUBLE_EQ(ctpd->WaterAttenuation(), double(0.0192f));
  const std::vector<float> photons = ctpd->PhotonStatistics(7);
  ASSERT_EQ(photons.size(), HelicalColumns);
  EXPECT_FLOAT_EQ(photons[3], 1e5f + 30.f + 7.f);

  const auto imported = scan->Geometry();
  ASSERT_EQ(imported->GetNumberOfProjections(), n);
  EXPECT_DOUBLE_EQ(imported->GetRadiusCylindricalDetector(), HelicalSdd);
  double worst[5] = { 0., 0., 0., 0., 0. };
  for (unsigned int k = 0; k < n; ++k)
  {
    const auto & a = imported->GetParameters(k);
    const auto & b = geometry->GetParameters(k);
    const double angle = std::abs(std::remainder(a.gantryAngle - b.gantryAngle, 2. * Pi));
    worst[0] = std::max(worst[0], angle);
    worst[1] = std::max({ worst[1], std::abs(a.sourceToIsocenterDistance - b.sourceToIsocenterDistance),
                          std::abs(a.sourceToDetectorDistance - b.sourceToDetectorDistance) });
    worst[2] = std::max({ worst[2], std::abs(a.sourceOffsetY - b.sourceOffsetY), std::abs(a.projectionOffsetY - b.projectionOffsetY) });
    worst[3] = std::max({ worst[3], std::abs(a.projectionOffsetX - b.projectionOffsetX), std::abs(a.sourceOffsetX) });
    worst[4] = std::max({ worst[4], std::abs(a.inPlaneAngle), std::abs(a.outOfPlaneAngle) });
  }
  // Float tags: the angle to 5e-6 rad (float32 of up to 50 rad), positions to 1e-5 of their size.
  EXPECT_LE(worst[0], 5e-6);
  EXPECT_LE(worst[1], 1e-9);
  EXPECT_LE(worst[2], 1e-4);
  EXPECT_LE(worst[3], 1e-5);
  EXPECT_EQ(worst[4], 0.);

  ImageType::Pointer stack = ScanImporter::ReadLineIntegrals(scan);
  ScanImporter::CheckDetectorReachesAxis(scan, stack);
  ASSERT_EQ(stack->GetLargestPossibleRegion().GetSize(), simulated->GetLargestPossibleRegion().GetSize());
  for (unsigned int d = 0; d < 2; ++d)
  {
    EXPECT_NEAR(stack->GetSpacing()[d], simulated->GetSpacing()[d], 1e-6);
    EXPECT_NEAR(stack->GetOrigin()[d], simulated->GetOrigin()[d], 1e-5);
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < pixels * n; ++i)
    differing += stack->GetBufferPointer()[i] == line[i] ? 0 : 1;
  EXPECT_EQ(differing, 0u) << "line integrals differ from the written values";

  const auto reconstruct = [&](const ImageType * projections, const ThreeDCircularProjectionGeometry * g) {
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, Zeros(LongVolumeGrid()));
    fdk->SetProjections(projections);
    fdk->SetGeometry(g);
    fdk->Update();
    ImageType::Pointer volume = fdk->GetOutput();
    volume->DisconnectPipeline();
    return volume;
  };
  simulated->SetSpacing(stack->GetSpacing());
  simulated->SetOrigin(stack->GetOrigin());
  const auto direct = reconstruct(simulated, geometry);
  const auto fromFiles = reconstruct(stack, imported);
  ASSERT_TRUE(AllFinite(fromFiles));
  const auto truth = TruthOn(StackedHeads(), direct);
  const Quality q = Compare(fromFiles, truth, MiddleHeadRegion());
  const double difference = RelativeDifference(fromFiles, direct);
  std::cout << "helical FDK of the import: MAE " << q.meanAbsoluteError << " against the heads; relative difference "
            << difference << " from FDK of the simulation" << std::endl;
  // The geometry's float tags move a view by up to 3e-6 rad (float32 of an unwrapped angle of up to 50
  // rad: 2.4 um at the detector, 1.5e-3 of a pixel) and 1e-4 mm; 6.5e-5 measured.
  EXPECT_LE(difference, 2e-4);
  EXPECT_LE(q.meanAbsoluteError, 0.1); // a reconstruction of the heads, not of something else
}

