#include "cbctBench.h"

#include "cbctCudaDevice.h"

#include <sys/resource.h>

#include <cstdio>
#include <stdexcept>
#include <thread>

namespace cbct::bench
{

Problem
Lookup(const std::string & name)
{
  // Detector pixels chosen so the whole volume projects onto the detector (SID 1000, SDD 1500).
  if (name == "S")
    return { "S", 512, 0.5, 360, 512, 512, 0.8 };
  if (name == "R")
    return { "R", 1024, 0.25, 496, 1248, 960, 0.4 };
  if (name == "L")
    return { "L", 2048, 0.125, 1200, 2048, 2048, 0.2 };
  if (name == "T") // tiny: to check that the bench itself runs (CPU, MPI) in seconds
    return { "T", 64, 4., 60, 64, 64, 6.4 };
  throw std::runtime_error("--problem is '" + name + "'; expected S, R, L or T");
}

double
Median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0. : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

/** Peak resident memory of this process so far (GiB). */
double
PeakResidentGiB()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024. * 1024.); // ru_maxrss is in KiB on Linux
}

/** `input`: "float" (line integrals), or "uint16" with where the readings became line integrals
 * ("uint16-host": IntensityToLineIntegralImageFilter, timed as conversion_s; "uint16-device": the
 * FDK's weighting kernel). */
void
PrintJson(const Problem & p, const std::string & hardware, const std::string & device, const std::string & input,
          const std::string & run, const Times & t, const std::string & extra)
{
  const double updates = static_cast<double>(p.volume) * p.volume * p.volume * p.projections;
  std::string timeline;
  if (t.deviceSpan > 0.)
  {
    // Where the time outside the backprojection goes (benchmarks/README.md).
    char text[256];
    std::snprintf(text, sizeof(text),
                  ",\"first_backprojection_s\":%.4f,\"device_span_s\":%.4f,\"host_setup_s\":%.4f,"
                  "\"host_pipeline_s\":%.4f,\"host_finish_s\":%.4f",
                  t.firstBackProjection, t.deviceSpan, t.hostSetup, t.hostRun, t.hostFinish);
    timeline = text;
  }
  std::printf("{\"problem\":\"%s\",\"hardware\":\"%s\",\"device\":\"%s\",\"input\":\"%s\",\"run\":\"%s\","
              "\"volume\":%u,\"projections\":%u,\"detector\":[%u,%u],\"total_s\":%.4f,\"conversion_s\":%.4f,"
              "\"upload_s\":%.4f,\"weighting_s\":%.4f,\"filtering_s\":%.4f,\"backprojection_s\":%.4f,"
              "\"download_s\":%.4f,\"gups\":%.1f%s%s}\n",
              p.name.c_str(), hardware.c_str(), device.c_str(), input.c_str(), run.c_str(), p.volume, p.projections,
              p.columns, p.rows, t.total, t.conversion, t.upload, t.weighting, t.filtering, t.backprojection, t.download,
              t.backprojection > 0. ? updates / t.backprojection / 1e9 : 0., timeline.c_str(), extra.c_str());
  std::fflush(stdout);
}

ThreeDCircularProjectionGeometry::Pointer
CircularGeometry(unsigned int count)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < count; ++k)
    geometry->AddProjection(1000., 1500., k * 360. / count);
  return geometry;
}

std::string
CpuDescription()
{
  return std::to_string(std::thread::hardware_concurrency()) + " threads";
}

std::string
CudaDescription()
{
  std::string device;
  if (!CudaDeviceAvailable(&device))
    throw std::runtime_error("--hardware cuda: " + device);
  return device;
}

} // namespace cbct::bench
