// cbct-bench --method calibrate: the geometry calibration of problem S's scan (360 projections of
// 512^2 pixels of 0.8 mm, SID 1000 mm, SDD 1500 mm; or --views projections) of the Shepp-Logan head
// (120 mm) whose rotation axis stands 13 pixels off the detector's centre (the stage: source and detector
// offsets) with the detector rolled 0.2 degree, from the nominal geometry: GeometryCalibration, auto
// (opposite views, then the sharpness of FDK slices), offset and roll, the slices' FDK on the CPU or the
// GPU. One JSON line per hardware: the median seconds of the timed runs (after an untimed one), what was
// fitted against the truth, and the median run's stages (seconds and counts: the opposite views'
// preparation and registration, the slices' filtering, backprojection, transfers and scores).

#include "cbctBench.h"

#include "cbctCudaDevice.h"
#include "cbctGeometricPhantom.h"
#include "cbctGeometryCalibration.h"
#include "cbctPhantomProjectionSource.h"

#include <itkImage.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace cbct::bench
{

void
RunCalibrate(const std::string & hardware, const std::string & device, unsigned int projections, unsigned int runs)
{
  using Image = itk::Image<float, 3>;
  constexpr unsigned int Pixels = 512;
  constexpr double Pixel = 0.8, Sid = 1000., Sdd = 1500., Offset = 13., Roll = 0.2;
  auto nominal = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < projections; ++k)
    nominal->AddProjection(Sid, Sdd, 360. * k / projections);
  AxisCorrection truth;
  truth.offset = Offset * Pixel;
  truth.roll = Roll * 3.14159265358979323846 / 180.;
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(120.);
  phantom->ScaleDensities(0.02);
  auto source = PhantomProjectionSource<Image>::New();
  source->SetSize(Image::SizeType{ { Pixels, Pixels, projections } });
  Image::SpacingType spacing;
  spacing[0] = spacing[1] = Pixel;
  spacing[2] = 1.;
  Image::PointType origin;
  origin[0] = origin[1] = -0.5 * (Pixels - 1.) * Pixel;
  origin[2] = 0.;
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(truth.Apply(nominal));
  source->SetPhantom(phantom);
  source->Update();

  std::vector<double> seconds;
  std::vector<GeometryCalibrationResult> results;
  GeometryCalibrationResult result;
  for (unsigned int r = 0; r <= runs; ++r)
  {
    auto calibration = GeometryCalibration::New();
    calibration->SetProjections(source->GetOutput());
    calibration->SetGeometry(nominal);
    calibration->SetComputeCurves(false);
    calibration->SetHardware(hardware == "cuda" ? CalibrationSliceReconstructor::Hardware::Cuda
                                                : CalibrationSliceReconstructor::Hardware::Cpu);
    const auto start = std::chrono::steady_clock::now();
    result = calibration->Compute();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0)
    {
      seconds.push_back(s);
      results.push_back(result);
    }
  }
  // The stages of the median run.
  std::vector<std::size_t> order(seconds.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seconds[a] < seconds[b]; });
  const GeometryCalibrationResult & median = results[order[order.size() / 2]];
  std::string stages;
  for (const CalibrationStageTime & t : median.timings)
  {
    char entry[512];
    std::snprintf(entry, sizeof(entry), "%s{\"stage\":\"%s\",\"s\":%.3f,\"count\":%u}", stages.empty() ? "" : ",",
                  t.stage.c_str(), t.seconds, t.count);
    stages += entry;
  }
  std::sort(seconds.begin(), seconds.end());
  const auto * offset = result.Find("offset");
  const auto * roll = result.Find("roll");
  std::printf("{\"problem\":\"S\",\"method\":\"calibrate\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"median\","
              "\"projections\":%u,\"runs\":%u,\"total_s\":%.3f,\"offset_px\":%.4f,\"offset_truth_px\":%.1f,"
              "\"roll_deg\":%.4f,\"roll_truth_deg\":%.2f,\"fit\":\"%s\",\"stages\":[%s]}\n",
              hardware.c_str(), device.c_str(), projections, runs, seconds[seconds.size() / 2],
              offset ? offset->value : 0., Offset, roll ? roll->value : 0., Roll, result.method.c_str(), stages.c_str());
  std::fflush(stdout);
}

} // namespace cbct::bench
