// cbct-bench --method fdk: FDK of the standard problems on the CPU or on the GPUs of this process, from
// line integrals or 16-bit readings, one slab per MPI rank.
#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctFieldOfViewMask.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctSlabSplit.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#endif
#if CBCT_USE_MPI
#  include <mpi.h>
#endif

#include <chrono>
#include <map>
#include <type_traits>

namespace cbct::bench
{
namespace
{
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

template <typename TImage, typename TFDK>
void
RunTemplate(const Problem & p, const std::string & hardware, const std::string & device, unsigned int runs, const Setup & setup,
    bool counts)
{
  using CountImage = typename TImage::template Rebind<unsigned short>::Type;
  auto geometry = CircularGeometry(p.projections);
  geometry->SetRadiusCylindricalDetector(setup.detectorRadius);

  auto zero = ZeroVolume<TImage>(p);

  // This process's slab (the whole volume outside MPI) and the detector rows it asks for.
  auto fdk = TFDK::New();
  auto information = TImage::New();
  {
    typename TImage::RegionType stack(typename TImage::SizeType{ { p.columns, p.rows, p.projections } });
    information->SetRegions(stack);
    information->SetSpacing(DetectorSpacing<TImage>(p));
    information->SetOrigin(DetectorOrigin<TImage>(p));
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
  // --fov: the voxels of the slab in the scan's field of view (untimed), over which gups_updated counts.
  const FieldOfViewMode fieldOfView = FieldOfViewMask::ParseMode(setup.fieldOfView);
  fdk->SetFieldOfView(fieldOfView);
  double updatedVoxels = static_cast<double>(slab.GetNumberOfPixels());
  if (fieldOfView != FieldOfViewMode::Off)
  {
    fdk->UpdateOutputInformation();
    const auto matrices = FieldOfViewMask::MatricesFor(fdk->GetOutput(), information, geometry);
    FieldOfViewMask mask;
    mask.Compute(matrices, FieldOfViewMask::DetectorOf(information), FieldOfViewMask::AxisFor(matrices), slab);
    updatedVoxels = static_cast<double>(mask.GetNumberOfInsideVoxels());
  }
  const auto fieldOfViewJson = [&](double backprojection) {
    if (fieldOfView == FieldOfViewMode::Off)
      return std::string();
    return ",\"fov\":\"" + setup.fieldOfView + "\",\"fov_voxels\":" + std::to_string(static_cast<long long>(updatedVoxels)) +
           ",\"gups_updated\":" + std::to_string(backprojection > 0. ? updatedVoxels * p.projections / backprojection / 1e9 : 0.);
  };
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
    extra += fieldOfViewJson(t.backprojection);
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
  PrintJson(p, hardware, device, input, "median", m, fieldOfViewJson(m.backprojection));
}
} // namespace

void
RunFDK(const Problem & p, const std::string & hardware, const std::string & device, unsigned int runs, const Setup & setup,
       bool counts)
{
  using CpuImage = itk::Image<float, 3>;
  if (hardware == "cpu")
    RunTemplate<CpuImage, FDKConeBeamReconstructionFilter<CpuImage>>(p, "cpu", device, runs, setup, counts);
#if CBCT_USE_CUDA
  else
  {
    const std::size_t count = setup.devices.empty() ? 1 : setup.devices.size();
    using GpuImage = CudaImage<float, 3>;
    RunTemplate<GpuImage, CudaFDKConeBeamReconstructionFilter<GpuImage>>(
      p, "cuda", count > 1 ? std::to_string(count) + " x " + device : device, runs, setup, counts);
  }
#endif
}

} // namespace cbct::bench
