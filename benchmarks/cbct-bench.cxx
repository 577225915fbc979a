// cbct-bench: FDK on the standard problems of DESIGN.md, warm, median of several runs; with --method
// iterative or tv, the projectors and the iterative methods on the GPU.
//   S: 512^3 volume from 360 projections of 512x512 (the 2008 CUDA paper's problem)
//   R: 1024^3 volume from 496 projections of 1248x960 (RabbitCT's size)
//   L: 2048^3 volume from 1200 projections of 2048x2048 (several GPUs, MPI)
// --method emission: the emission (SPECT) problem E, a 128^3 activity from 120 parallel views of 128^2
// with attenuation and collimator blur: forward and back projection, one OSEM iteration of 8 subsets.
// --method fourd: 4D FDK (issue 28), 10 frames of 512^3 from 1440 projections of 512^2 over 10 breathing
// cycles, each projection backprojected once (4x S), timed host to host.
// --method fourdrooster: one 4D ROOSTER iteration on that problem (RTK's defaults: 4 conjugate
// gradient steps, 10 TV steps in space and in time, positivity), the data on the device.
// --method rings: ring removal (both stripe filters) of S's projections (cbctBenchRings.h).
// --method helical: helical FDK of problem H, 512 x 1024 x 512 voxels from 4000 projections of 736 x 64
// on a CT scanner's cylindrical detector, at --pitch (cbctBenchHelical.h). --detector-radius R: the
// FDK problems on a cylindrical detector of radius R (1500: centred on the source, as a CT scanner's).
// One JSON line per timed run with every stage's time and backprojection GUPS
// (voxels x projections / backprojection seconds / 1e9), then one line of medians.
// "total" is projections in host memory to volume in host memory. --gpus shares the volume among
// several GPUs of this process; under mpirun each rank reconstructs its slab on one GPU (or the CPU)
// from the detector rows it needs, and rank 0 prints the slowest rank's times and every rank's peak
// memory.
#include "cbctConfiguration.h"
#include "cbctBenchHelical.h"
#include "cbctBenchRings.h"
#include "cbctConstantImageSource.h"
#include "cbctSlabSplit.h"
#include "cbctCudaDevice.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctEmissionOperator.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctPhantomVolumeSource.h"
#if CBCT_USE_CUDA
#  include "cbctCudaEmissionOperator.h"
#  include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaFourDROOSTERConeBeamReconstructionFilter.h"
#  include "cbctCudaSARTConeBeamReconstructionFilter.h"
#  include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#  include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"
#  include "cbctCudaJosephOperator.h"
#  include "cbctCudaRayCastOperator.h"
#  include "cbctCudaVoxelBackProjectionOperator.h"
#endif

#if CBCT_USE_MPI
#  include "cbctMPIContext.h"
#endif

#include <CLI/CLI.hpp>
#include <itkCommand.h>
#include <itkMultiThreaderBase.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

namespace
{
struct Problem
{
  std::string name;
  unsigned int volume;
  double voxelMm;
  unsigned int projections, columns, rows;
  double pixelMm;
};

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

struct Times
{
  double total = 0., upload = 0., weighting = 0., filtering = 0., backprojection = 0., download = 0., conversion = 0.;
  // CUDA FDK only (0 otherwise): the device's first batch before any backprojection and its whole
  // span (CUDA events), the host's time preparing the problem, inside the pipelines, and after them.
  double firstBackProjection = 0., deviceSpan = 0., hostSetup = 0., hostRun = 0., hostFinish = 0.;
};

/** The 16-bit detector readings that --input uint16 starts from: I0 60000 through air, Idark 0. */
constexpr double BenchI0 = 60000.;

/** Whether an FDK filter takes 16-bit readings itself (the CUDA FDK composite, once it uploads them as
 * they are and converts them in its weighting kernel):
 *   SetCountProjections(const CountImage * readings, const std::vector<double> & logFlatPerProjection,
 *                       const cbct::LineIntegralConversion & conversion)
 * with CountImage the FDK image type rebound to unsigned short. Otherwise the readings are converted
 * on the host (IntensityToLineIntegralImageFilter) and the floats uploaded. */
template <typename TFDK, typename TCounts, typename = void>
struct TakesCountProjections : std::false_type
{};
template <typename TFDK, typename TCounts>
struct TakesCountProjections<TFDK, TCounts,
                             std::void_t<decltype(std::declval<TFDK &>().SetCountProjections(
                               std::declval<const TCounts *>(), std::declval<const std::vector<double> &>(),
                               std::declval<const cbct::LineIntegralConversion &>()))>> : std::true_type
{};

double
Median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0. : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

/** How the FDK runs: the GPUs of this process (--gpus), the minimum pieces per GPU (--pieces), and
 * this process's place in an MPI job (one rank: the whole volume). */
struct Setup
{
  std::vector<int> devices;
  unsigned int pieces = 0;
  bool keepDeviceMemory = false; ///< --keep-device-memory: the CUDA FDK keeps its device buffers between runs
  double detectorRadius = 0.;    ///< --detector-radius: a cylindrical detector of this radius (0: flat)
  int rank = 0, ranks = 1, localRank = 0;
};

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
          const std::string & run, const Times & t, const std::string & extra = "")
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

/** Rows [first, first + count) of problem p's projections, as an image whose largest possible region
 * is the whole stack. S and R: the exact line integrals of the Shepp-Logan head. L: of a phantom
 * symmetric about the rotation axis (ellipsoids centred on it, equal x and z semi-axes), whose
 * projections are all alike: one is computed and copied, since the line integrals of 1200 x 2048^2
 * rays take minutes. */
template <typename TImage>
typename TImage::Pointer
MakeProjections(const Problem & p, const cbct::ThreeDCircularProjectionGeometry * geometry, itk::IndexValueType first,
                itk::SizeValueType count)
{
  const bool symmetric = p.name == "L";
  auto phantom = cbct::GeometricPhantom::New();
  const double scale = 0.45 * p.volume * p.voxelMm;
  if (symmetric)
  {
    auto add = [&](double density, double cy, double radius, double height) {
      cbct::GeometricPhantom::Ellipsoid e;
      e.density = density;
      e.center = { { 0., cy * scale, 0. } };
      e.semiAxes = { { radius * scale, height * scale, radius * scale } };
      phantom->AddEllipsoid(e);
    };
    add(1., 0., 0.9, 0.95);
    add(-0.6, 0., 0.8, 0.85);
    add(0.3, 0.4, 0.2, 0.2);
    add(-0.1, -0.3, 0.1, 0.3);
  }
  else
    phantom->SetToSheppLogan(scale);
  auto one = cbct::ThreeDCircularProjectionGeometry::New();
  one->AddProjection(geometry->GetMatrix(0));
  auto source = cbct::PhantomProjectionSource<TImage>::New();
  typename TImage::SizeType size{ { p.columns, p.rows, symmetric ? 1u : p.projections } };
  typename TImage::SpacingType spacing;
  spacing[0] = spacing[1] = p.pixelMm;
  spacing[2] = 1.;
  typename TImage::PointType origin;
  origin[0] = -0.5 * (p.columns - 1.) * p.pixelMm;
  origin[1] = -0.5 * (p.rows - 1.) * p.pixelMm;
  origin[2] = 0.;
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(symmetric ? one.GetPointer() : geometry);
  source->SetPhantom(phantom);
  source->UpdateOutputInformation();
  auto band = source->GetOutput()->GetLargestPossibleRegion();
  band.SetIndex(1, first);
  band.SetSize(1, count);
  source->GetOutput()->SetRequestedRegion(band);
  source->Update();
  typename TImage::Pointer computed = source->GetOutput();
  computed->DisconnectPipeline();
  if (!symmetric)
    return computed;
  // Every projection of L is the first one.
  typename TImage::Pointer stack = TImage::New();
  typename TImage::RegionType whole(size);
  whole.SetSize(2, p.projections);
  auto rows = whole;
  rows.SetIndex(1, first);
  rows.SetSize(1, count);
  stack->SetLargestPossibleRegion(whole);
  stack->SetBufferedRegion(rows);
  stack->SetRequestedRegion(rows);
  stack->SetSpacing(spacing);
  stack->SetOrigin(origin);
  stack->Allocate();
  const std::size_t slice = static_cast<std::size_t>(p.columns) * count;
  itk::MultiThreaderBase::New()->ParallelizeArray(
    0, p.projections,
    [&](itk::SizeValueType k) {
      std::copy_n(computed->GetBufferPointer(), slice, stack->GetBufferPointer() + k * slice);
    },
    nullptr);
  return stack;
}

template <typename TImage, typename TFDK>
void
Run(const Problem & p, const std::string & hardware, const std::string & device, unsigned int runs, const Setup & setup,
    bool counts)
{
  using CountImage = typename TImage::template Rebind<unsigned short>::Type;
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  geometry->SetRadiusCylindricalDetector(setup.detectorRadius);
  for (unsigned int k = 0; k < p.projections; ++k)
    geometry->AddProjection(1000., 1500., k * 360. / p.projections);

  auto zero = cbct::ConstantImageSource<TImage>::New();
  typename TImage::SizeType volumeSize{ { p.volume, p.volume, p.volume } };
  typename TImage::SpacingType voxel;
  voxel.Fill(p.voxelMm);
  typename TImage::PointType volumeOrigin;
  volumeOrigin.Fill(-0.5 * (p.volume - 1.) * p.voxelMm);
  zero->SetSize(volumeSize);
  zero->SetSpacing(voxel);
  zero->SetOrigin(volumeOrigin);

  // This process's slab (the whole volume outside MPI) and the detector rows it asks for.
  auto fdk = TFDK::New();
  auto information = TImage::New();
  {
    typename TImage::RegionType stack(typename TImage::SizeType{ { p.columns, p.rows, p.projections } });
    information->SetRegions(stack);
    typename TImage::SpacingType spacing;
    spacing[0] = spacing[1] = p.pixelMm;
    spacing[2] = 1.;
    typename TImage::PointType origin;
    origin[0] = -0.5 * (p.columns - 1.) * p.pixelMm;
    origin[1] = -0.5 * (p.rows - 1.) * p.pixelMm;
    origin[2] = 0.;
    information->SetSpacing(spacing);
    information->SetOrigin(origin);
  }
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(information);
  fdk->SetGeometry(geometry);
  fdk->UpdateOutputInformation();
  const auto slab = cbct::SlabSplit::Equal(fdk->GetOutput()->GetLargestPossibleRegion(), static_cast<std::size_t>(setup.ranks))
                      [static_cast<std::size_t>(setup.rank)];
  fdk->GetOutput()->SetRequestedRegion(slab);
  fdk->GetOutput()->PropagateRequestedRegion();
  const auto rows = information->GetRequestedRegion();
  typename TImage::Pointer projections = MakeProjections<TImage>(p, geometry, rows.GetIndex(1), rows.GetSize(1));

  // --input uint16: the readings a detector would write, made once (untimed): the line integrals
  // scaled to a head's (0 to about 2.3), then I0 exp(-p) rounded.
  typename CountImage::Pointer readings;
  std::vector<double> logFlat(p.projections);
  cbct::LineIntegralConversion conversion;
  auto toLines = cbct::IntensityToLineIntegralImageFilter<CountImage, TImage>::New();
  if (counts)
  {
    const double toHead = 0.02 / (0.45 * p.volume * p.voxelMm / 60.);
    float * values = projections->GetBufferPointer();
    for (std::size_t i = 0, n = projections->GetBufferedRegion().GetNumberOfPixels(); i < n; ++i)
      values[i] = static_cast<float>(values[i] * toHead);
    auto toCounts = cbct::LineIntegralToIntensityImageFilter<TImage, CountImage>::New();
    toCounts->SetInput(projections);
    toCounts->SetI0(BenchI0);
    toCounts->Update();
    readings = toCounts->GetOutput();
    readings->DisconnectPipeline();
    toLines->SetInput(readings);
    toLines->SetI0(BenchI0);
    conversion = toLines->GetConversion();
    std::fill(logFlat.begin(), logFlat.end(), cbct::LogFlatField(BenchI0, conversion));
  }
  constexpr bool onDevice = TakesCountProjections<TFDK, CountImage>::value;
  const std::string input = counts ? (onDevice ? "uint16-device" : "uint16-host") : "float";
  if constexpr (onDevice)
  {
    if (counts)
      fdk->SetCountProjections(readings, logFlat, conversion);
    else
      fdk->SetProjections(projections);
  }
  else
    fdk->SetProjections(counts ? toLines->GetOutput() : projections.GetPointer());
  if constexpr (!std::is_same_v<TImage, itk::Image<float, 3>>)
  {
    if (!setup.devices.empty())
      fdk->SetDevices(setup.devices);
    if (setup.pieces > 0)
      fdk->SetMinimumPieces(setup.pieces);
    fdk->SetKeepDeviceMemory(setup.keepDeviceMemory);
  }
  const double slabGiB = static_cast<double>(slab.GetNumberOfPixels()) * sizeof(float) / (1 << 30);
  const double rowsGiB = static_cast<double>(rows.GetNumberOfPixels()) * sizeof(float) / (1 << 30);

  std::map<std::string, std::vector<double>> samples;
  for (unsigned int r = 0; r <= runs; ++r) // run 0 is the untimed warm-up
  {
    projections->GetBufferPointer(); // host access: for a CudaImage the device copy is now stale
    projections->Modified();         // projections in host memory: a fresh upload each run
    if (counts)
    {
      readings->GetBufferPointer();
      readings->Modified();
    }
    fdk->Modified();
    fdk->ResetStageTimes();
#if CBCT_USE_MPI
    if (setup.ranks > 1)
      MPI_Barrier(MPI_COMM_WORLD);
#endif
    const auto start = std::chrono::steady_clock::now();
    double conversionSeconds = 0.;
    if (counts && !onDevice)
    {
      toLines->Update(); // the readings to floats on the host, then uploaded as before
      conversionSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    fdk->GetOutput()->SetRequestedRegion(slab);
    fdk->GetOutput()->Update();
    const auto computed = std::chrono::steady_clock::now();
    volatile float touch = fdk->GetOutput()->GetBufferPointer()[0]; // the volume in host memory
    (void)touch;
    const auto end = std::chrono::steady_clock::now();
    Times t;
    t.total = std::chrono::duration<double>(end - start).count();
    t.conversion = conversionSeconds;
    t.upload = fdk->GetUploadTime();
    t.weighting = fdk->GetWeightingTime();
    t.filtering = fdk->GetFilteringTime();
    t.backprojection = fdk->GetBackProjectionTime();
    t.download = fdk->GetDownloadTime() + std::chrono::duration<double>(end - computed).count();
    if constexpr (!std::is_same_v<TImage, itk::Image<float, 3>>)
    {
      const auto & device = fdk->GetDeviceTimes();
      t.firstBackProjection = device.firstBackProjection;
      t.deviceSpan = device.deviceSpan;
      t.hostRun = device.hostRun;
      t.hostSetup = fdk->GetHostSetupTime();
      t.hostFinish = fdk->GetHostFinishTime();
    }
    double rss = PeakResidentGiB();
    std::string extra;
#if CBCT_USE_MPI
    if (setup.ranks > 1)
    {
      // The slowest rank's times (the job's), and every rank's memory against its slab and rows.
      Times slowest;
      MPI_Reduce(&t, &slowest, sizeof(Times) / sizeof(double), MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      t = slowest;
      std::vector<double> mine{ rss, slabGiB, rowsGiB }, all(3 * static_cast<std::size_t>(setup.ranks));
      MPI_Gather(mine.data(), 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      std::string list;
      for (int q = 0; q < setup.ranks; ++q)
        list += std::string(q ? "," : "") + "{\"peak_rss_gib\":" + std::to_string(all[3 * q]) + ",\"slab_gib\":" +
                std::to_string(all[3 * q + 1]) + ",\"rows_gib\":" + std::to_string(all[3 * q + 2]) + "}";
      extra = ",\"ranks\":" + std::to_string(setup.ranks) + ",\"per_rank\":[" + list + "]";
    }
#endif
    if (extra.empty())
      extra = ",\"peak_rss_gib\":" + std::to_string(rss) + ",\"slab_gib\":" + std::to_string(slabGiB) +
              ",\"rows_gib\":" + std::to_string(rowsGiB);
    if (setup.detectorRadius > 0.)
      extra += ",\"detector_radius\":" + std::to_string(setup.detectorRadius);
    if (r == 0 || setup.rank != 0)
      continue;
    PrintJson(p, hardware, device, input, std::to_string(r), t, extra);
    samples["total"].push_back(t.total);
    samples["conversion"].push_back(t.conversion);
    samples["upload"].push_back(t.upload);
    samples["weighting"].push_back(t.weighting);
    samples["filtering"].push_back(t.filtering);
    samples["backprojection"].push_back(t.backprojection);
    samples["download"].push_back(t.download);
    samples["first_backprojection"].push_back(t.firstBackProjection);
    samples["device_span"].push_back(t.deviceSpan);
    samples["host_setup"].push_back(t.hostSetup);
    samples["host_pipeline"].push_back(t.hostRun);
    samples["host_finish"].push_back(t.hostFinish);
  }
  if (setup.rank != 0)
    return;
  Times m;
  m.total = Median(samples["total"]);
  m.conversion = Median(samples["conversion"]);
  m.upload = Median(samples["upload"]);
  m.weighting = Median(samples["weighting"]);
  m.filtering = Median(samples["filtering"]);
  m.backprojection = Median(samples["backprojection"]);
  m.download = Median(samples["download"]);
  m.firstBackProjection = Median(samples["first_backprojection"]);
  m.deviceSpan = Median(samples["device_span"]);
  m.hostSetup = Median(samples["host_setup"]);
  m.hostRun = Median(samples["host_pipeline"]);
  m.hostFinish = Median(samples["host_finish"]);
  PrintJson(p, hardware, device, input, "median", m);
}
#if CBCT_USE_CUDA
/** Issue 4's measurements on problem p, on the GPU: forward and back projection of all projections
 * with each projector pair and variant (GUPS = voxels x projections / s; Joseph: through slice-stack
 * textures (the default) or reading voxels; its exact adjoint gathered (the default) or scattered
 * with atomics in 32-slice slabs or in one pass; the ray caster with a step of one voxel), the voxel-based
 * backprojection, and one OS-SART iteration (subsets of 20 projections) with each forward projector
 * and each backprojector: the median of `runs` iterations after the first (which also uploads and
 * computes the sensitivities). */
void
RunIterative(const Problem & p, const std::string & device, unsigned int runs)
{
  using GpuImage = cbct::CudaImage<float, 3>;
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < p.projections; ++k)
    geometry->AddProjection(1000., 1500., k * 360. / p.projections);
  auto phantom = cbct::GeometricPhantom::New();
  phantom->SetToSheppLogan(0.45 * p.volume * p.voxelMm);
  auto source = cbct::PhantomProjectionSource<GpuImage>::New();
  typename GpuImage::SpacingType spacing;
  spacing[0] = spacing[1] = p.pixelMm;
  spacing[2] = 1.;
  typename GpuImage::PointType origin;
  origin[0] = -0.5 * (p.columns - 1.) * p.pixelMm;
  origin[1] = -0.5 * (p.rows - 1.) * p.pixelMm;
  origin[2] = 0.;
  source->SetSize(typename GpuImage::SizeType{ { p.columns, p.rows, p.projections } });
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  GpuImage::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  auto zero = cbct::ConstantImageSource<GpuImage>::New();
  typename GpuImage::SpacingType voxel;
  voxel.Fill(p.voxelMm);
  typename GpuImage::PointType volumeOrigin;
  volumeOrigin.Fill(-0.5 * (p.volume - 1.) * p.voxelMm);
  zero->SetSize(typename GpuImage::SizeType{ { p.volume, p.volume, p.volume } });
  zero->SetSpacing(voxel);
  zero->SetOrigin(volumeOrigin);
  zero->Update();

  const double updates = static_cast<double>(p.volume) * p.volume * p.volume * p.projections;
  std::vector<unsigned int> all(p.projections);
  for (unsigned int k = 0; k < p.projections; ++k)
    all[k] = k;
  cbct::CudaDeviceBuffer<float> volume(static_cast<std::size_t>(p.volume) * p.volume * p.volume),
    stack(static_cast<std::size_t>(p.columns) * p.rows * p.projections);
  cbct::CudaCheck(cbct::LaunchFill(volume.Data(), static_cast<std::size_t>(p.volume) * p.volume * p.volume, 1.f, nullptr), "LaunchFill");
  cbct::CudaCheck(cbct::LaunchFill(stack.Data(), static_cast<std::size_t>(p.columns) * p.rows * p.projections, 1.f, nullptr), "LaunchFill");
  // Median seconds of `runs` warm calls of f.
  auto timeIt = [&](const std::function<void()> & f) {
    std::vector<double> t;
    for (unsigned int r = 0; r <= runs; ++r)
    {
      cudaDeviceSynchronize();
      const auto start = std::chrono::steady_clock::now();
      f();
      cbct::CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize (projector)");
      if (r > 0)
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return Median(t);
  };
  auto report = [&](const char * method, const char * variant, double seconds) {
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"%s\","
                "\"variant\":\"%s\",\"seconds\":%.4f,\"gups\":%.1f}\n",
                p.name.c_str(), device.c_str(), p.projections, method, variant, seconds, updates / seconds / 1e9);
    std::fflush(stdout);
  };
  {
    cbct::CudaJosephOperator A(zero->GetOutput(), projections, geometry);
    auto * subset = A.Subset(all);
    const int n = static_cast<int>(p.projections);
    A.SetVolumeTexture(false);
    report("joseph-forward", "global", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    A.SetVolumeTexture(true);
    report("joseph-forward", "slices", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    report("joseph-back", "gather", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    // The other gather kernels, for comparison: a box per cell (records) and the first one (tiles).
    A.SetGatherKernel(cbct::CudaJosephGatherRecords);
    report("joseph-back", "gather-records", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    A.SetGatherKernel(cbct::CudaJosephGatherTiles);
    report("joseph-back", "gather-tiles", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    A.SetGatherKernel(cbct::CudaJosephGatherRuns);
    A.SetAdjoint(cbct::JosephAdjoint::Scatter);
    for (int slab : { 0, 32 })
    {
      A.SetBackProjectionSlab(slab);
      report("joseph-back", ("scatter-slab" + std::to_string(slab)).c_str(),
             timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
    }
  }
  {
    cbct::CudaVoxelBackProjectionOperator B(
      std::unique_ptr<cbct::CudaProjectorOperator>(new cbct::CudaJosephOperator(zero->GetOutput(), projections, geometry)),
      zero->GetOutput(), projections, geometry);
    auto * subset = B.Subset(all);
    report("voxel-back", "texture", timeIt([&] { B.Back(stack.Data(), volume.Data(), subset, static_cast<int>(p.projections), false); }));
  }
  {
    cbct::CudaRayCastOperator A(zero->GetOutput(), projections, geometry, p.voxelMm);
    auto * subset = A.Subset(all);
    const int n = static_cast<int>(p.projections);
    report("raycast-forward", "step1", timeIt([&] { A.Forward(volume.Data(), stack.Data(), subset, n); }));
    report("raycast-back", "step1", timeIt([&] { A.Back(stack.Data(), volume.Data(), subset, n, false); }));
  }

  // Seconds of each iteration after the first (which also uploads and computes the sensitivities):
  // the CUDA filter synchronises before each IterationEvent, so the events time the iterations.
  auto timeSart = [&](unsigned int iterations, cbct::ForwardProjectorKind kind, cbct::BackProjectorKind back) {
    auto sart = cbct::CudaSARTConeBeamReconstructionFilter<GpuImage>::New();
    sart->SetInput(0, zero->GetOutput());
    sart->SetProjections(projections);
    sart->SetGeometry(geometry);
    sart->SetForwardProjector(kind);
    sart->SetBackProjector(back);
    sart->SetNumberOfIterations(iterations);
    sart->SetNumberOfProjectionsPerSubset(20);
    sart->SetLambda(0.8);
    std::vector<std::chrono::steady_clock::time_point> ends;
    sart->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
    sart->Update();
    std::vector<double> seconds;
    for (std::size_t i = 1; i < ends.size(); ++i)
      seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
    return seconds;
  };
  using Fp = cbct::ForwardProjectorKind;
  using Bp = cbct::BackProjectorKind;
  for (auto [kind, back] : { std::make_pair(Fp::Joseph, Bp::VoxelBased), std::make_pair(Fp::RayCast, Bp::VoxelBased),
                             std::make_pair(Fp::Joseph, Bp::Adjoint), std::make_pair(Fp::RayCast, Bp::Adjoint) })
  {
    const std::vector<double> seconds = timeSart(runs + 1, kind, back);
    std::string list;
    for (double t : seconds)
      list += (list.empty() ? "" : ",") + std::to_string(t);
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"os-sart\","
                "\"fp\":\"%s\",\"bp\":\"%s\",\"projections_per_subset\":20,\"iteration_s\":%.4f,\"warm_iterations_s\":[%s]}\n",
                p.name.c_str(), device.c_str(), p.projections, cbct::ToString(kind).c_str(), cbct::ToString(back).c_str(), Median(seconds),
                list.c_str());
    std::fflush(stdout);
  }
}

/** One iteration of each total-variation method on problem p (p.projections views) on the GPU:
 * ASD-POCS with subsets of 20 projections (TIGRE's OS-ASD-POCS) and 20 TV steps, ADMM-TV with 5
 * conjugate gradient steps (RTK's default), each with the exact adjoint (the gather); the median of
 * `runs` iterations after the first (which also uploads and, for ASD-POCS, computes the subsets'
 * sensitivities), timed by the filters' iteration events. */
void
RunTotalVariation(const Problem & p, const std::string & device, unsigned int runs)
{
  using Image = itk::Image<float, 3>;
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < p.projections; ++k)
    geometry->AddProjection(1000., 1500., k * 360. / p.projections);
  auto phantom = cbct::GeometricPhantom::New();
  phantom->SetToSheppLogan(0.45 * p.volume * p.voxelMm);
  auto source = cbct::PhantomProjectionSource<Image>::New();
  Image::SpacingType spacing;
  spacing[0] = spacing[1] = p.pixelMm;
  spacing[2] = 1.;
  Image::PointType origin;
  origin[0] = -0.5 * (p.columns - 1.) * p.pixelMm;
  origin[1] = -0.5 * (p.rows - 1.) * p.pixelMm;
  origin[2] = 0.;
  source->SetSize(Image::SizeType{ { p.columns, p.rows, p.projections } });
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  Image::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  auto zero = cbct::ConstantImageSource<Image>::New();
  Image::SpacingType voxel;
  voxel.Fill(p.voxelMm);
  Image::PointType volumeOrigin;
  volumeOrigin.Fill(-0.5 * (p.volume - 1.) * p.voxelMm);
  zero->SetSize(Image::SizeType{ { p.volume, p.volume, p.volume } });
  zero->SetSpacing(voxel);
  zero->SetOrigin(volumeOrigin);
  zero->Update();

  auto time = [&](cbct::IterativeReconstructionFilter<Image> * filter, const char * method, const std::string & parameters) {
    filter->SetInput(0, zero->GetOutput());
    filter->SetProjections(projections);
    filter->SetGeometry(geometry);
    filter->SetNumberOfIterations(runs + 1);
    std::vector<std::chrono::steady_clock::time_point> ends;
    const auto start = std::chrono::steady_clock::now();
    filter->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
    filter->Update();
    std::vector<double> seconds;
    std::string list;
    for (std::size_t i = 1; i < ends.size(); ++i)
    {
      seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
      list += (list.empty() ? "" : ",") + std::to_string(seconds.back());
    }
    std::printf("{\"problem\":\"%s\",\"hardware\":\"cuda\",\"device\":\"%s\",\"run\":\"median\",\"projections\":%u,\"method\":\"%s\","
                "%s,\"first_iteration_s\":%.4f,\"iteration_s\":%.4f,\"warm_iterations_s\":[%s]}\n",
                p.name.c_str(), device.c_str(), p.projections, method, parameters.c_str(),
                ends.empty() ? 0. : std::chrono::duration<double>(ends[0] - start).count(), Median(seconds), list.c_str());
    std::fflush(stdout);
  };
  {
    auto asd = cbct::CudaASDPOCSConeBeamReconstructionFilter<Image>::New();
    asd->SetNumberOfProjectionsPerSubset(20);
    asd->SetNumberOfTVIterations(20);
    time(asd, "asd-pocs", "\"projections_per_subset\":20,\"tv_iterations\":20");
  }
  {
    auto admm = cbct::CudaADMMTotalVariationConeBeamReconstructionFilter<Image>::New();
    admm->SetNumberOfCGIterations(5);
    time(admm, "admm-tv", "\"cg_iterations\":5");
  }
}
#endif
/** The emission problem E: a 128^3 activity of 4 mm voxels (a body-sized elliptic cylinder of water,
 * activity 1, with a hot sphere of 6 and a cold one of 0.2), its attenuation map (mu 0.015/mm), 120
 * parallel views over 360 degrees of 128^2 pixels of 4 mm with the detector 250 mm from the axis, and
 * a collimator blur sigma(d) = 1.5 + 0.03 d mm (a low-energy high-resolution collimator's). */
struct EmissionProblem
{
  using Image = itk::Image<float, 3>;
  Image::Pointer activity, mu, projections;
  cbct::ThreeDCircularProjectionGeometry::Pointer geometry;
  cbct::CollimatorBlur blur;

  EmissionProblem()
  {
    geometry = cbct::ThreeDCircularProjectionGeometry::New();
    for (unsigned int k = 0; k < 120; ++k)
      geometry->AddProjection(250., 0., k * 3.);
    blur.sigma0 = 1.5;
    blur.slope = 0.03;
    auto voxelize = [](std::initializer_list<std::pair<double, std::array<double, 6>>> ellipsoids) {
      auto phantom = cbct::GeometricPhantom::New();
      for (const auto & e : ellipsoids)
      {
        cbct::GeometricPhantom::Ellipsoid ellipsoid;
        ellipsoid.density = e.first;
        ellipsoid.center = { { e.second[0], e.second[1], e.second[2] } };
        ellipsoid.semiAxes = { { e.second[3], e.second[4], e.second[5] } };
        phantom->AddEllipsoid(ellipsoid);
      }
      auto source = cbct::PhantomVolumeSource<Image>::New();
      source->SetSize(Image::SizeType{ { 128, 128, 128 } });
      Image::SpacingType spacing;
      spacing.Fill(4.);
      Image::PointType origin;
      origin.Fill(-254.);
      source->SetSpacing(spacing);
      source->SetOrigin(origin);
      source->SetPhantom(phantom);
      source->Update();
      Image::Pointer image = source->GetOutput();
      image->DisconnectPipeline();
      return image;
    };
    activity = voxelize({ { 1., { 0., 0., 0., 160., 220., 110. } },
                          { 5., { 40., 20., 10., 25., 25., 25. } },
                          { -0.8, { -50., -30., -20., 30., 30., 30. } } });
    mu = voxelize({ { 0.015, { 0., 0., 0., 160., 220., 110. } } });
    projections = Image::New();
    projections->SetRegions(Image::SizeType{ { 128, 128, 120 } });
    Image::SpacingType pixel;
    pixel.Fill(4.);
    pixel[2] = 1.;
    projections->SetSpacing(pixel);
    Image::PointType first;
    first[0] = first[1] = -254.;
    first[2] = 0.;
    projections->SetOrigin(first);
    projections->Allocate();
  }
};

/** Problem E on `hardware` (cpu or cuda): the forward and back projection of all 120 views (median of
 * `runs` after a warm-up) and one OSEM iteration of 8 subsets (the median of `runs` iterations after
 * the first, which also computes the sensitivities), one JSON line each. */
void
RunEmission(const std::string & hardware, const std::string & device, unsigned int runs)
{
  using Image = EmissionProblem::Image;
  const EmissionProblem e;
  const std::size_t voxels = e.activity->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t pixels = e.projections->GetBufferedRegion().GetNumberOfPixels();
  std::vector<unsigned int> all(120);
  for (unsigned int k = 0; k < 120; ++k)
    all[k] = k;
  auto report = [&](const char * what, const std::vector<double> & seconds) {
    std::string list;
    for (double t : seconds)
      list += (list.empty() ? "" : ",") + std::to_string(t);
    std::printf("{\"problem\":\"E\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"median\",\"method\":\"%s\","
                "\"volume\":128,\"projections\":120,\"detector\":[128,128],\"seconds\":%.4f,\"runs_s\":[%s]}\n",
                hardware.c_str(), device.c_str(), what, Median(seconds), list.c_str());
    std::fflush(stdout);
  };
  auto timeIt = [&](const std::function<void()> & f, const std::function<void()> & sync) {
    std::vector<double> t;
    for (unsigned int r = 0; r <= runs; ++r)
    {
      sync();
      const auto start = std::chrono::steady_clock::now();
      f();
      sync();
      if (r > 0)
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return t;
  };
  // Projected: the activity plus 0.05 everywhere, positive like every OSEM iterate (a zero voxel is
  // not splatted, so the phantom alone, zero outside the body, would time less than an iteration does).
  std::vector<float> x(e.activity->GetBufferPointer(), e.activity->GetBufferPointer() + voxels), p(pixels), back(voxels);
  for (float & a : x)
    a += 0.05f;
  if (hardware == "cpu")
  {
    const cbct::EmissionOperator<Image> A(e.activity, e.projections, e.geometry, e.mu, e.blur);
    report("emission-forward", timeIt([&] { A.Forward(x.data(), p.data(), all, false); }, [] {}));
    report("emission-back", timeIt([&] { A.Back(p.data(), back.data(), all, false); }, [] {}));
  }
#if CBCT_USE_CUDA
  else
  {
    cbct::CudaEmissionOperator A(e.activity, e.projections, e.geometry, e.mu, e.blur);
    auto * subset = A.Subset(all);
    cbct::CudaDeviceBuffer<float> dx(voxels), dp(pixels), dback(voxels);
    cbct::CudaCheck(cudaMemcpy(dx.Data(), x.data(), voxels * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy (activity)");
    auto sync = [] { cbct::CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize (emission)"); };
    report("emission-forward", timeIt([&] { A.Forward(dx.Data(), dp.Data(), subset, 120); }, sync));
    report("emission-back", timeIt([&] { A.Back(dp.Data(), dback.Data(), subset, 120, false); }, sync));
    cbct::CudaCheck(cudaMemcpy(p.data(), dp.Data(), pixels * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy (projections)");
  }
#endif
  // OSEM of the noise-free projections (those of the timed forward projections): 8 subsets of 15 views.
  auto measured = Image::New();
  measured->CopyInformation(e.projections);
  measured->SetRegions(e.projections->GetLargestPossibleRegion());
  measured->Allocate();
  std::copy(p.begin(), p.end(), measured->GetBufferPointer());
  auto zero = Image::New();
  zero->CopyInformation(e.activity);
  zero->SetRegions(e.activity->GetLargestPossibleRegion());
  zero->Allocate(true);
  cbct::OSEMConeBeamReconstructionFilter<Image>::Pointer osem;
#if CBCT_USE_CUDA
  if (hardware == "cuda")
    osem = cbct::CudaOSEMConeBeamReconstructionFilter<Image>::New().GetPointer();
  else
#endif
    osem = cbct::OSEMConeBeamReconstructionFilter<Image>::New();
  osem->SetInput(0, zero);
  osem->SetProjections(measured);
  osem->SetGeometry(e.geometry);
  osem->SetForwardProjector(cbct::ForwardProjectorKind::Emission);
  osem->SetAttenuationMap(e.mu);
  osem->SetCollimatorBlur(e.blur);
  osem->SetNumberOfProjectionsPerSubset(15);
  osem->SetNumberOfIterations(runs + 1);
  std::vector<std::chrono::steady_clock::time_point> ends;
  osem->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
  osem->Update();
  std::vector<double> seconds;
  for (std::size_t i = 1; i < ends.size(); ++i)
    seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
  report("emission-osem-iteration-8-subsets", seconds);
}

/** Issue 28's 4D FDK problem: 10 frames of 512^3 (0.5 mm) from 1440 projections of 512^2 (0.8 mm)
 * over one turn during 10 regular breathing cycles (phase of projection k: frac(10 k / 1440)), each
 * projection in its nearest frame, so each is backprojected once: 4x the backprojection of S, and
 * 5.4 GB of frames downloaded. The projections are S's line integrals, each used for 4 neighbouring
 * views (the time does not depend on the values; 1440 exact projections of 512^2 take minutes to
 * make). "total" is projections in host memory to the 4D volume in host memory, after an untimed
 * warm-up (which page-locks the 4D output once); GUPS counts each projection once. */
template <typename TImage, typename TFilter>
void
RunFourD(const std::string & hardware, const std::string & device, unsigned int runs, unsigned int pieces,
         unsigned int concurrent)
{
  const Problem s = Lookup("S");
  const unsigned int count = 1440, frames = 10;
  const double cycles = 10.;
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < count; ++k)
    geometry->AddProjection(1000., 1500., k * 360. / count);
  std::vector<double> phases(count);
  for (unsigned int k = 0; k < count; ++k)
  {
    const double x = cycles * k / count;
    phases[k] = x - std::floor(x);
  }
  auto sGeometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < s.projections; ++k)
    sGeometry->AddProjection(1000., 1500., k * 360. / s.projections);
  auto sProjections = MakeProjections<itk::Image<float, 3>>(s, sGeometry, 0, s.rows);
  auto projections = TImage::New();
  {
    typename TImage::RegionType region(typename TImage::SizeType{ { s.columns, s.rows, count } });
    projections->SetRegions(region);
    projections->SetSpacing(sProjections->GetSpacing());
    projections->SetOrigin(sProjections->GetOrigin());
    projections->Allocate();
    const std::size_t slice = static_cast<std::size_t>(s.columns) * s.rows;
    for (unsigned int k = 0; k < count; ++k)
      std::copy_n(sProjections->GetBufferPointer() + (k * s.projections / count) * slice, slice,
                  projections->GetBufferPointer() + k * slice);
  }
  auto zero = cbct::ConstantImageSource<TImage>::New();
  zero->SetSize(typename TImage::SizeType{ { s.volume, s.volume, s.volume } });
  typename TImage::SpacingType voxel;
  voxel.Fill(s.voxelMm);
  zero->SetSpacing(voxel);
  typename TImage::PointType origin;
  origin.Fill(-0.5 * (s.volume - 1.) * s.voxelMm);
  zero->SetOrigin(origin);
  auto fdk = TFilter::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetPhases(phases);
  fdk->SetNumberOfFrames(frames);
  if constexpr (!std::is_same_v<TImage, itk::Image<float, 3>>)
  {
    if (pieces > 0)
      fdk->SetMinimumPieces(pieces);
    if (concurrent > 0)
      fdk->SetConcurrentFrames(concurrent);
    concurrent = fdk->GetConcurrentFrames();
  }
  std::map<std::string, std::vector<double>> samples;
  const auto print = [&](const std::string & run, double total, double upload, double weighting, double filtering,
                         double backprojection, double download) {
    const double updates = static_cast<double>(s.volume) * s.volume * s.volume * count;
    std::printf("{\"problem\":\"4D\",\"method\":\"fourdfdk\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"%s\","
                "\"frames\":%u,\"volume\":%u,\"projections\":%u,\"detector\":[%u,%u],\"cycles\":%.0f,\"total_s\":%.4f,"
                "\"upload_s\":%.4f,\"weighting_s\":%.4f,\"filtering_s\":%.4f,\"backprojection_s\":%.4f,\"download_s\":%.4f,"
                "\"gups\":%.1f,\"output_gib\":%.2f,\"peak_rss_gib\":%.2f,\"concurrent_frames\":%u}\n",
                hardware.c_str(), device.c_str(), run.c_str(), frames, s.volume, count, s.columns, s.rows, cycles, total, upload,
                weighting, filtering, backprojection, download, backprojection > 0. ? updates / backprojection / 1e9 : 0.,
                static_cast<double>(s.volume) * s.volume * s.volume * frames * sizeof(float) / (1 << 30), PeakResidentGiB(),
                concurrent);
    std::fflush(stdout);
  };
  for (unsigned int r = 0; r <= runs; ++r) // run 0 is the untimed warm-up
  {
    projections->GetBufferPointer(); // host access: for a CudaImage the device copy is now stale
    projections->Modified();         // projections in host memory: a fresh upload each run
    fdk->Modified();
    fdk->ResetStageTimes();
    const auto start = std::chrono::steady_clock::now();
    fdk->Update();
    const auto computed = std::chrono::steady_clock::now();
    volatile float touch = fdk->GetOutput()->GetBufferPointer()[0]; // the frames in host memory
    (void)touch;
    const auto end = std::chrono::steady_clock::now();
    const double total = std::chrono::duration<double>(end - start).count();
    const double download = fdk->GetDownloadTime() + std::chrono::duration<double>(end - computed).count();
    if (r == 0)
      continue;
    print(std::to_string(r), total, fdk->GetUploadTime(), fdk->GetWeightingTime(), fdk->GetFilteringTime(),
          fdk->GetBackProjectionTime(), download);
    samples["total"].push_back(total);
    samples["upload"].push_back(fdk->GetUploadTime());
    samples["weighting"].push_back(fdk->GetWeightingTime());
    samples["filtering"].push_back(fdk->GetFilteringTime());
    samples["backprojection"].push_back(fdk->GetBackProjectionTime());
    samples["download"].push_back(download);
  }
  print("median", Median(samples["total"]), Median(samples["upload"]), Median(samples["weighting"]),
        Median(samples["filtering"]), Median(samples["backprojection"]), Median(samples["download"]));
}
/** One 4D ROOSTER iteration (issue 28) on RunFourD()'s problem: 10 frames of 512^3 from 1440
 * projections of 512^2 over 10 breathing cycles (each projection seen by the two frames around its
 * phase), RTK's defaults (4 conjugate gradient steps, 10 Chambolle steps of spatial and of temporal
 * TV, positivity), gammas 1e-4. The filter runs runs + 1 iterations; each iteration's time is taken
 * between its itk::IterationEvents (the first, which includes the upload of the projections and
 * frames, untimed). Per iteration: 5 forward and 5 back projections of the 4D model, each two 3D
 * projections of the whole stack (2 x 1440 views of 512^3). Memory on the GPU some 30 GB. */
template <typename TFilter>
void
RunFourDROOSTER(const std::string & hardware, const std::string & device, unsigned int runs)
{
  const Problem s = Lookup("S");
  const unsigned int count = 1440, frames = 10;
  const double cycles = 10.;
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  std::vector<double> phases(count);
  for (unsigned int k = 0; k < count; ++k)
  {
    geometry->AddProjection(1000., 1500., k * 360. / count);
    const double x = cycles * k / count;
    phases[k] = x - std::floor(x);
  }
  auto sGeometry = cbct::ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < s.projections; ++k)
    sGeometry->AddProjection(1000., 1500., k * 360. / s.projections);
  using Image = itk::Image<float, 3>;
  using Series = itk::Image<float, 4>;
  auto sProjections = MakeProjections<Image>(s, sGeometry, 0, s.rows);
  auto projections = Image::New();
  projections->SetRegions(Image::RegionType(Image::SizeType{ { s.columns, s.rows, count } }));
  projections->SetSpacing(sProjections->GetSpacing());
  projections->SetOrigin(sProjections->GetOrigin());
  projections->Allocate();
  const std::size_t slice = static_cast<std::size_t>(s.columns) * s.rows;
  for (unsigned int k = 0; k < count; ++k) // S's line integrals, each for 4 neighbouring views (RunFourD)
    std::copy_n(sProjections->GetBufferPointer() + (k * s.projections / count) * slice, slice,
                projections->GetBufferPointer() + k * slice);
  auto initial = Series::New();
  initial->SetRegions(Series::SizeType{ { s.volume, s.volume, s.volume, frames } });
  Series::SpacingType spacing;
  spacing.Fill(s.voxelMm);
  spacing[3] = 1.;
  initial->SetSpacing(spacing);
  Series::PointType origin;
  origin.Fill(-0.5 * (s.volume - 1.) * s.voxelMm);
  origin[3] = 0.;
  initial->SetOrigin(origin);
  initial->Allocate(true);
  auto rooster = TFilter::New();
  rooster->SetInput(initial);
  rooster->SetProjections(projections);
  rooster->SetGeometry(geometry);
  rooster->SetPhases(phases);
  rooster->SetNumberOfIterations(runs + 1);
  rooster->SetGammaSpace(1e-4);
  rooster->SetGammaTime(1e-4);
  std::vector<std::chrono::steady_clock::time_point> ends;
  rooster->AddObserver(itk::IterationEvent(), [&ends](const itk::EventObject &) { ends.push_back(std::chrono::steady_clock::now()); });
  const auto start = std::chrono::steady_clock::now();
  rooster->Update();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> seconds;
  const auto print = [&](const std::string & run, double iteration) {
    std::printf("{\"problem\":\"4D\",\"method\":\"fourdrooster\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"%s\","
                "\"frames\":%u,\"volume\":%u,\"projections\":%u,\"detector\":[%u,%u],\"cycles\":%.0f,\"cgiter\":%u,"
                "\"tviter\":%u,\"iteration_s\":%.4f,\"peak_rss_gib\":%.2f}\n",
                hardware.c_str(), device.c_str(), run.c_str(), frames, s.volume, count, s.columns, s.rows, cycles,
                rooster->GetNumberOfCGIterations(), rooster->GetNumberOfTVIterations(), iteration, PeakResidentGiB());
    std::fflush(stdout);
  };
  for (std::size_t i = 1; i < ends.size(); ++i)
  {
    seconds.push_back(std::chrono::duration<double>(ends[i] - ends[i - 1]).count());
    print(std::to_string(i), seconds.back());
  }
  print("median", Median(seconds));
  std::printf("{\"problem\":\"4D\",\"method\":\"fourdrooster\",\"run\":\"whole\",\"iterations\":%u,\"total_s\":%.4f}\n",
              runs + 1, total);
}
} // namespace

int
main(int argc, char * argv[])
{
#if CBCT_USE_MPI
  cbct::MPIContext mpi(&argc, &argv);
#endif
  CLI::App app{ "cbct-bench: FDK timings on the standard problems S, R and L (one JSON line per run)" };
  std::vector<std::string> problems{ "S" };
  std::vector<std::string> hardware{ "cuda" };
  unsigned int runs = 5;
  std::string gpus;
  Setup setup;
  app.add_option("--problem", problems, "S (512^3 from 360 x 512^2), R (1024^3 from 496 x 1248x960) and/or L (2048^3 "
                                        "from 1200 x 2048^2)")
    ->delimiter(',');
  app.add_option("--hardware", hardware, "cuda and/or cpu")->delimiter(',');
  app.add_option("--runs", runs, "timed runs after one untimed warm-up (median reported)")->check(CLI::Range(1u, 1000u));
  unsigned int views = 0;
  app.add_option("--views", views, "projections over 360 degrees instead of the problem's (e.g. 60 for a few-view S)")
    ->check(CLI::Range(1u, 100000u));
  app.add_option("--gpus", gpus, "CUDA devices of this process: all, or indices such as 0,1 (default: the first; under "
                                 "mpirun each rank takes one by its rank on the machine)");
  app.add_option("--pieces", setup.pieces, "minimum pieces along y per GPU (0: the filter's default)");
  app.add_flag("--keep-device-memory", setup.keepDeviceMemory,
               "CUDA FDK: keep the device buffers, cuFFT plans and streams from one run to the next (KeepDeviceMemory)");
  std::string method = "fdk";
  unsigned int concurrentFrames = 0;
  app.add_option("--concurrent-frames", concurrentFrames,
                 "--method fourd, CUDA: frames reconstructed at once, each by its own pipeline (0: the filter's default, 2)");
  std::string input = "float";
  app.add_option("--input", input, "float: line integrals in host memory (the default); uint16: 16-bit detector "
                                   "readings in host memory, turned into line integrals on the way (FDK only)")
    ->check(CLI::IsMember({ "float", "uint16" }));
  app.add_option("--method", method,
                 "fdk; iterative: forward and back projections of both projector pairs and one OS-SART iteration (CUDA); "
                 "emission: problem E (SPECT, 128^3 from 120 views of 128^2, attenuation and collimator blur), forward and "
                 "back projection and one OSEM iteration of 8 subsets; tv: one iteration of ASD-POCS and of ADMM-TV (CUDA; "
                 "with --views 60 for a few-view S); fourd: issue 28's 4D FDK, 10 frames of 512^3 from 1440 x 512^2 over 10 "
                 "breathing cycles; fourdrooster: one 4D ROOSTER iteration on that problem (CUDA; the CPU takes hours); "
                 "rings: ring removal of S's projections (360 x 512^2, or --views), the sorting and the wavelet-Fourier "
                 "filters; helical: helical FDK of problem H (512 x 1024 x 512 from 4000 x 736x64 on a CT scanner's "
                 "cylindrical detector, --pitch)")
    ->check(CLI::IsMember({ "fdk", "iterative", "emission", "tv", "fourd", "fourdrooster", "rings", "helical" }));
  app.add_option("--detector-radius", setup.detectorRadius,
                 "--method fdk: a cylindrical detector of this radius (mm; 1500: centred on the source, SDD 1500); 0: flat")
    ->check(CLI::Range(0., 1e6));
  double pitch = 1.;
  app.add_option("--pitch", pitch, "--method helical: the helix's pitch factor (feed per turn over the detector's height at "
                                   "the isocentre)")
    ->check(CLI::Range(0.1, 2.));
  CLI11_PARSE(app, argc, argv);
  try
  {
    if (input != "float" && method != "fdk")
      throw std::runtime_error("--input is '" + input + "'; expected float with --method " + method +
                               " (16-bit readings are FDK's only)");
    if (method == "fourd")
    {
      // Issue 28's 4D FDK problem (RunFourD); --problem does not apply.
      for (const auto & h : hardware)
      {
        using CpuImage = itk::Image<float, 3>;
        if (h == "cpu")
          RunFourD<CpuImage, cbct::FourDFDKConeBeamReconstructionFilter<CpuImage, itk::Image<float, 4>>>(
            "cpu", std::to_string(std::thread::hardware_concurrency()) + " threads", runs, 0, 0);
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
#if CBCT_USE_CUDA
          using CudaImage = cbct::CudaImage<float, 3>;
          RunFourD<CudaImage, cbct::CudaFourDFDKConeBeamReconstructionFilter<CudaImage>>("cuda", device, runs, setup.pieces,
                                                                                         concurrentFrames);
#endif
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
      return 0;
    }
    if (method == "fourdrooster")
    {
      // Issue 28's 4D ROOSTER on the 4D FDK problem (RunFourDROOSTER); --problem does not apply.
      using Series = itk::Image<float, 4>;
      for (const auto & h : hardware)
      {
        if (h == "cpu")
          RunFourDROOSTER<cbct::FourDROOSTERConeBeamReconstructionFilter<Series>>(
            "cpu", std::to_string(std::thread::hardware_concurrency()) + " threads", runs);
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
#if CBCT_USE_CUDA
          RunFourDROOSTER<cbct::CudaFourDROOSTERConeBeamReconstructionFilter<Series>>("cuda", device, runs);
#endif
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
      return 0;
    }
    if (method == "helical")
    {
      for (const auto & h : hardware)
      {
        using CpuImage = itk::Image<float, 3>;
        if (h == "cpu")
          cbct::bench::RunHelical<CpuImage, cbct::FDKConeBeamReconstructionFilter<CpuImage>>(
            "cpu", std::to_string(std::thread::hardware_concurrency()) + " threads", runs, pitch);
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
#if CBCT_USE_CUDA
          using GpuImage = cbct::CudaImage<float, 3>;
          cbct::bench::RunHelical<GpuImage, cbct::CudaFDKConeBeamReconstructionFilter<GpuImage>>("cuda", device, runs, pitch);
#endif
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
      return 0;
    }
    if (method == "rings")
    {
      for (const auto & h : hardware)
      {
        if (h == "cpu")
          cbct::bench::RunRings("cpu", std::to_string(std::thread::hardware_concurrency()) + " threads",
                                views ? views : 360, runs);
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
          cbct::bench::RunRings("cuda", device, views ? views : 360, runs);
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
      return 0;
    }
    if (method == "emission")
    {
      for (const auto & h : hardware)
      {
        if (h == "cpu")
          RunEmission("cpu", std::to_string(std::thread::hardware_concurrency()) + " threads", runs);
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
          RunEmission("cuda", device, runs);
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
      return 0;
    }
#if CBCT_USE_MPI
    setup.rank = mpi.Rank();
    setup.ranks = mpi.Size();
    setup.localRank = mpi.LocalRank();
#endif
    int deviceCount = 0;
#if CBCT_USE_CUDA
    if (cudaGetDeviceCount(&deviceCount) != cudaSuccess)
    {
      cudaGetLastError();
      deviceCount = 0;
    }
#endif
    if (gpus == "all")
      for (int d = 0; d < deviceCount; ++d)
        setup.devices.push_back(d);
    else if (!gpus.empty())
    {
      std::stringstream in(gpus);
      std::string item;
      while (std::getline(in, item, ','))
      {
        const int d = std::stoi(item);
        if (d < 0 || d >= deviceCount)
          throw std::runtime_error("--gpus is '" + gpus + "'; expected device indices below " + std::to_string(deviceCount));
        setup.devices.push_back(d);
      }
    }
    if (setup.ranks > 1 && deviceCount > 0)
    {
      // One GPU per rank: of --gpus's devices (or all), by the rank's place on its machine.
      std::vector<int> candidates = setup.devices;
      if (candidates.empty())
        for (int d = 0; d < deviceCount; ++d)
          candidates.push_back(d);
      setup.devices = { candidates[static_cast<std::size_t>(setup.localRank) % candidates.size()] };
    }
    for (const auto & name : problems)
    {
      Problem p = Lookup(name);
      if (views > 0)
        p.projections = views;
      for (const auto & h : hardware)
      {
        using CpuImage = itk::Image<float, 3>;
        if (h == "cpu")
          Run<CpuImage, cbct::FDKConeBeamReconstructionFilter<CpuImage>>(
            p, "cpu", std::to_string(std::thread::hardware_concurrency()) + " threads", runs, setup, input == "uint16");
        else if (h == "cuda")
        {
          std::string device;
          if (!cbct::CudaDeviceAvailable(&device))
            throw std::runtime_error("--hardware cuda: " + device);
#if CBCT_USE_CUDA
          if (method == "iterative")
          {
            RunIterative(p, device, runs);
            continue;
          }
          if (method == "tv")
          {
            RunTotalVariation(p, device, runs);
            continue;
          }
          const std::size_t count = setup.devices.empty() ? 1 : setup.devices.size();
          if (count > 1)
            device = std::to_string(count) + " x " + device;
          using GpuImage = cbct::CudaImage<float, 3>;
          Run<GpuImage, cbct::CudaFDKConeBeamReconstructionFilter<GpuImage>>(p, "cuda", device, runs, setup, input == "uint16");
#endif
        }
        else
          throw std::runtime_error("--hardware is '" + h + "'; expected cuda or cpu");
      }
    }
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "cbct-bench: error: " << e.GetDescription() << std::endl;
    return 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << "cbct-bench: error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
