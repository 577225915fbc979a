// The geometry calibration's FDK slices and sharpness scores on the GPU against the CPU's
// (CalibrationSliceReconstructor), and a whole calibration with the CUDA slices: skipped without a device.
#include "cbctCalibrationSliceReconstructor.h"
#include "cbctCalibrationTestProblem.h"
#include "cbctGeometryCalibration.h"
#include "cbctSharpnessScore.h"

#include <gtest/gtest.h>

namespace
{
using namespace cbct;
using namespace cbct::test;

TEST(CudaCalibration, SlicesAndScoresMatchTheCpu)
{
  std::string why;
  if (!CalibrationSliceReconstructor::CudaAvailable(&why))
    GTEST_SKIP() << why;
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5, 1e4);
  auto cpu = CalibrationSliceReconstructor::New();
  cpu->SetProjections(scan.projections);
  cpu->SetDisplacedDetectorWeighting(false);
  auto cuda = CalibrationSliceReconstructor::New();
  cuda->SetHardware(CalibrationSliceReconstructor::Hardware::Cuda);
  cuda->SetProjections(scan.projections);
  cuda->SetDisplacedDetectorWeighting(false);
  // A few candidate geometries and heights, as the sharpness method asks for them.
  for (double offset : { 10., 13., 13.5 })
    for (double y : { -3., 0., 2.5 })
    {
      AxisCorrection c = scan.correction;
      c.offset = offset * CalibrationPixel;
      const auto geometry = c.Apply(scan.nominal);
      const auto a = cpu->Reconstruct(geometry, y, 96, 0.12, 1);
      const auto b = cuda->Reconstruct(geometry, y, 96, 0.12, 1);
      // CUDA against the CPU FDK of a slice of 96^2 voxels of 0.12 mm (finer than the detector's pixel,
      // where the texture's 1/256 interpolation steps show most): 1.2 to 1.3e-4 on the H200.
      EXPECT_LT(RelativeDifference(b, a), 3e-4) << "offset " << offset << ", height " << y;
      for (auto measure : { SharpnessScore::Measure::GradientEnergyPerVariation, SharpnessScore::Measure::GradientEnergy,
                            SharpnessScore::Measure::Variance })
      {
        const double sa = SharpnessScore::Compute(measure, a, 5.5), sb = SharpnessScore::Compute(measure, b, 5.5);
        EXPECT_LT(std::abs(sb - sa), 1e-3 * std::abs(sa)) << SharpnessScore::Name(measure);
      }
    }
}

TEST(CudaCalibration, SharedFilteringOnTheDeviceMatchesTheCpu)
{
  // The device keeps the filtered rows and shares them between candidates of the same FDK weights (stage
  // offsets, rolls); a detector offset and another height filter anew. Each slab against the CPU's.
  std::string why;
  if (!CalibrationSliceReconstructor::CudaAvailable(&why))
    GTEST_SKIP() << why;
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Full, 13., 0.5);
  auto cpu = CalibrationSliceReconstructor::New();
  cpu->SetProjections(scan.projections);
  cpu->SetDisplacedDetectorWeighting(false);
  auto cuda = CalibrationSliceReconstructor::New();
  cuda->SetHardware(CalibrationSliceReconstructor::Hardware::Cuda);
  cuda->SetProjections(scan.projections);
  cuda->SetDisplacedDetectorWeighting(false);
  for (const SliceCandidate & c : SliceCandidates())
  {
    const auto geometry = c.Apply(scan.nominal);
    const auto a = cpu->Reconstruct(geometry, c.y, 96, 0.12, 1);
    const auto b = cuda->Reconstruct(geometry, c.y, 96, 0.12, 1);
    EXPECT_LT(RelativeDifference(b, a), 3e-4) << "offset " << c.offset << ", roll " << c.roll << ", height " << c.y
                                              << ", " << AxisCorrection::ModelName(c.model);
  }
  EXPECT_EQ(cuda->GetTimings().filterings, cpu->GetTimings().filterings);
  EXPECT_EQ(cuda->GetTimings().filterings, 3u);
}

TEST(CudaCalibration, CalibrationOnTheGpuMatchesTheCpu)
{
  std::string why;
  if (!CalibrationSliceReconstructor::CudaAvailable(&why))
    GTEST_SKIP() << why;
  const CalibrationScan scan = MakeCalibrationScan(ScanKind::Short, 13., 0.5, 1e4);
  std::vector<GeometryCalibrationResult> results;
  for (auto hardware : { CalibrationSliceReconstructor::Hardware::Cpu, CalibrationSliceReconstructor::Hardware::Cuda })
  {
    auto calibration = GeometryCalibration::New();
    calibration->SetProjections(scan.projections);
    calibration->SetGeometry(scan.nominal);
    calibration->SetHardware(hardware);
    calibration->SetComputeCurves(false);
    results.push_back(calibration->Compute());
  }
  EXPECT_LT(std::abs(results[1].Find("offset")->value - 13.), 0.1);
  EXPECT_LT(std::abs(results[1].Find("offset")->value - results[0].Find("offset")->value), 0.01);
  EXPECT_EQ(results[1].Find("roll")->value, results[0].Find("roll")->value); // the opposite views' (CPU) roll
}
} // namespace
