// cbct-fdk: Feldkamp-Davis-Kress reconstruction of a cone-beam projection stack, on the CPU or
// with CUDA, in the spirit of RTK's rtkfdk.
#include "cbctAppRanks.h"
#include "cbctAppSupport.h"
#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctDetectorAxisCheck.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKFilterOptions.h"
#include "cbctGridOptions.h"
#include "cbctHelicalFDK.h"
#include "cbctHelicalOrbit.h"
#include "cbctMemoryBudget.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctProjectionRows.h"
#include "cbctRampFilterResponse.h"
#include "cbctStreamedFDK.h"
#if CBCT_USE_MPI
#  include "cbctMPISlabReconstruction.h"
#  include "cbctMPISlabWriter.h"
#endif

#include <itkImage.h>
#include <itkImageRegionSplitterDirection.h>
#include <itkStreamingImageFilter.h>

#include <iomanip>

// The CUDA path is compiled where the build has CUDA and the CUDA FDK filter exists.
#if CBCT_USE_CUDA && __has_include("cbctCudaFDKConeBeamReconstructionFilter.h")
#  define CBCT_FDK_WITH_CUDA 1
#  include "cbctCudaDevice.h"
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
#else
#  define CBCT_FDK_WITH_CUDA 0
#endif

namespace
{
using namespace cbct::apps;

struct Options : FDKFilterOptions // the ramp and weighting options, shared with cbct-fourdfdk
{
  // As given on the command line.
  std::string geometry;
  std::string scan; // --scan: a vendor's scan in place of --geometry and --projections
  std::string projections;
  std::string path;
  std::string regexp;
  bool numericSort = false;
  int subMatch = 0;
  std::string newSpacing;
  std::string newOrigin;
  std::string replaceNonFinite;
  std::string output;
  GridOptions<3> grid;
  PreprocessingOptions preprocessing;
  long long divisions = 1;
  MemoryBudgetOptions memoryBudget; // --memory, --gpu-memory
  std::string hardware = "auto";
  std::string gpus;
  int threads = 0;
  bool verbose = false;

  // Checked and parsed by Validate().
  std::vector<int> devices; // --gpus; empty: the first device
  std::vector<double> projectionSpacing; // empty: keep the files'
  std::vector<double> projectionOrigin;  // empty: keep the files'
  std::vector<double> nonFiniteReplacement; // empty: non-finite values are an error
};

/** Checks every option before any file is read; fills the parsed fields. */
void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  ValidateProjectionOptions(o);
  ValidatePreprocessingOptions(o.preprocessing);
  CheckImageOutput("--output", o.output);
  ValidateGrid(o.grid);
  ValidateFDKFilterOptions(o);
  if (o.divisions < 1 || o.divisions > 100000)
    Bad("--divisions", o.divisions, "an integer >= 1");
  ValidateMemoryBudget(o.memoryBudget);
  if (o.hardware != "cpu" && o.hardware != "cuda" && o.hardware != "auto")
    Bad("--hardware", Quoted(o.hardware), "cpu, cuda or auto");
  if (!o.gpus.empty() && o.hardware == "cpu")
    Bad("--gpus", Quoted(o.gpus), "no --gpus with --hardware cpu");
  o.devices = ParseGpus(o.gpus);
}

/** The CUDA devices of the FDK filter (--gpus) and their memory budget (--gpu-memory; 0: 90% of
 * what each has free), when TFDK is the CUDA one. */
template <class TFDK>
void
SetDevices(TFDK * fdk, const std::vector<int> & devices, std::uint64_t deviceBytes = 0)
{
#if CBCT_FDK_WITH_CUDA
  if constexpr (std::is_same_v<TFDK, cbct::CudaFDKConeBeamReconstructionFilter<cbct::CudaImage<float, 3>>>)
  {
    fdk->SetDevices(devices);
    fdk->SetDeviceMemoryBudget(static_cast<std::size_t>(deviceBytes));
  }
#endif
  (void)fdk;
  (void)devices;
  (void)deviceBytes;
}

enum class Hardware
{
  Cpu,
  Cuda
};

/** The hardware to use for --hardware, and in `why` a sentence for --verbose. */
Hardware
ChooseHardware(const Options & o, std::string & why)
{
  if (o.hardware == "cpu")
  {
    why = "CPU (--hardware cpu)";
    return Hardware::Cpu;
  }
#if CBCT_FDK_WITH_CUDA
  std::string device;
  const bool available = cbct::CudaDeviceAvailable(&device);
  if (o.hardware == "cuda")
  {
    if (!available)
      throw Error("--hardware cuda: no CUDA device is available" + (device.empty() ? std::string() : " (" + device + ")"));
    why = "CUDA (" + device + ")";
    return Hardware::Cuda;
  }
  if (available)
  {
    why = "CUDA (" + device + "; --hardware auto)";
    return Hardware::Cuda;
  }
  why = "CPU (no CUDA device" + (device.empty() ? std::string() : ": " + device) + "; --hardware auto)";
  return Hardware::Cpu;
#else
  if (o.hardware == "cuda")
  {
#  if CBCT_USE_CUDA
    throw Error("--hardware cuda: this build has no CUDA FDK filter yet");
#  else
    throw Error("--hardware cuda: this build has no CUDA (configure with nvcc available)");
#  endif
  }
  why = "CPU (this build has no CUDA; --hardware auto)";
  return Hardware::Cpu;
#endif
}

/** The whole pipeline for one image type and FDK filter (CPU: itk::Image and
 * cbct::FDKConeBeamReconstructionFilter; CUDA: cbct::CudaImage and its CUDA FDK filter). */
template <class TImage, class TFDK>
int
Reconstruct(Options & o)
{
  Stopwatch total;
  Stopwatch clock;
  auto geometry = ReadGeometry(o);
  SetProvenance("ConeBeamCT_Geometry", DescribeGeometryForProvenance(geometry, o.scan.empty() ? o.geometry : o.scan));
  const double geometrySeconds = clock.Seconds();
  if (o.verbose)
    std::cout << "cbct-fdk: read geometry " << (o.scan.empty() ? o.geometry : "of --scan " + o.scan) << ": " << geometry->GetNumberOfProjections()
              << " projections (" << FormatSeconds(geometrySeconds) << ")" << std::endl;

  clock.Restart();
  const ProjectionInputs inputs = InspectProjections(o);
  const std::size_t files = inputs.files.size();
  {
    // Within a memory budget: --memory, or when the whole stack and volume would not fit in what the
    // machine has free, the projections are streamed and the volume written slab by slab.
    std::uint64_t voxels = 1;
    for (unsigned int d = 0; d < 3; ++d)
      voxels *= o.grid.sizes[d];
    std::string budgetWhy;
    const std::uint64_t budget = HostBudget(o.memoryBudget, budgetWhy);
    const bool preprocessed = !o.preprocessing.settings.DoesNothing() ||
                              (ScanPath(o).empty() && ProjectionFilesHoldIntegers(inputs.files, inputs.option) &&
                               !o.preprocessing.noLineIntegral);
    const std::uint64_t inMemory = InMemoryFDKBytes(inputs, voxels, o.divisions, preprocessed);
    if (o.memoryBudget.hostBytes > 0 || (ScanPath(o).empty() && inMemory > budget))
    {
      if (o.verbose && o.memoryBudget.hostBytes == 0)
        std::cout << "cbct-fdk: the projections and the volume in memory would take about "
                  << cbct::HostMemory::Format(inMemory) << ", more than the budget: streamed" << std::endl;
      ReconstructWithinBudget<TImage, TFDK>(o, budget, budgetWhy, "cbct-fdk", [&](TFDK * fdk) {
        SetDevices(fdk, o.devices, o.memoryBudget.deviceBytes);
      });
      if (o.verbose)
        std::cout << "cbct-fdk: total " << FormatSeconds(total.Seconds()) << std::endl;
      return 0;
    }
  }
  {
    // What the run holds at once (a lower bound: the FDK filters' projection buffers, which depend
    // on the rows each slab needs, and the preprocessed stack beside the files' one, come on top),
    // before anything is allocated.
    std::uint64_t voxels = 1;
    for (unsigned int d = 0; d < 3; ++d)
      voxels *= o.grid.sizes[d];
    const auto slabs = static_cast<std::uint64_t>(o.divisions);
    MemoryNeed need;
    need.Add("projections", inputs.ReadingBytes());
    need.Add("volume", FloatBytes(voxels));
    need.Add("slab buffers", FloatBytes((voxels * 2 + slabs - 1) / slabs));
    need.remedy = "give a smaller volume (--dimension, or a coarser --spacing) or more --divisions (the slab buffers "
                  "shrink with them)";
    CheckMemory("the reconstruction", need);
  }
  typename TImage::Pointer projections = LoadProjections<TImage>(o, inputs, "cbct-fdk", o.verbose ? &std::cout : nullptr);
  const double readSeconds = clock.Seconds();
  const auto psize = projections->GetLargestPossibleRegion().GetSize();
  if (o.verbose)
    std::cout << "cbct-fdk: read projections: " << psize[0] << " x " << psize[1] << " pixels of "
              << projections->GetSpacing()[0] << " x " << projections->GetSpacing()[1] << " mm x " << psize[2]
              << " projections from " << files << " file" << (files == 1 ? "" : "s") << " ("
              << FormatSeconds(readSeconds) << ")" << std::endl;

  auto grid = cbct::ConstantImageSource<TImage>::New();
  ApplyGrid(grid.GetPointer(), o.grid);
  grid->SetConstant(0.f);

  auto fdk = TFDK::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  ApplyFDKFilterOptions(fdk.GetPointer(), o);
  SetDevices(fdk.GetPointer(), o.devices, o.memoryBudget.deviceBytes);
  try
  {
    fdk->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  // A detector beside the rotation axis (e.g. a header whose spacing alone was negated) is refused.
  CheckDetectorReachesAxis(o, inputs.files, geometry, projections, AxisMissIs::Error);

  // Slabs along y, the rotation axis: each slab then needs only the projection rows it projects
  // onto, so the projections are weighted and filtered about once in all.
  auto streamer = itk::StreamingImageFilter<TImage, TImage>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(static_cast<unsigned int>(o.divisions));
  auto splitter = itk::ImageRegionSplitterDirection::New();
  splitter->SetDirection(2); // never split along z: the slowest remaining axis is y
  streamer->SetRegionSplitter(splitter);
  const unsigned int slabs =
    splitter->GetNumberOfSplits(fdk->GetOutput()->GetLargestPossibleRegion(), static_cast<unsigned int>(o.divisions));

  if (o.verbose)
  {
    auto * weight = fdk->GetWeightFilter();
    // A helix's range is its turns (the azimuths unwrapped), not the circle's arc they wrap onto.
    const double range = cbct::IsHelicalGeometry(geometry) ? 360. * cbct::HelicalOrbit::Of(geometry).Turns()
                                                           : geometry->GetAngularRange() * 180. / 3.14159265358979323846;
    std::ostringstream degrees;
    degrees << std::fixed << std::setprecision(1) << range;
    std::cout << "cbct-fdk: "
              << (cbct::IsHelicalGeometry(geometry) ? "helical scan"
                                                    : weight->IsShortScan() ? "short scan (Parker weights)" : "full scan")
              << " over "
              << degrees.str() << " deg; " << cbct::RampWindowName(o.rampWindow) << " window, cut-off " << o.cutOff;
    if (o.pad > 0.)
      std::cout << ", truncation correction " << o.pad << " (rows extended by "
                << fdk->GetRampFilter()->GetTruncationCorrectionExtent() << " pixels a side)";
    if (o.hannY > 0.)
      std::cout << ", Hann along v with cut-off " << o.hannY;
    std::cout << std::endl;
    // A helix is weighted in the backprojection (helical FDK), not by Parker's or the displaced
    // detector's weights.
    if (cbct::IsHelicalGeometry(geometry))
      std::cout << "cbct-fdk: " << cbct::HelicalFDKSetup::Of(geometry, projections).Describe() << std::endl;
    else if (!weight->IsShortScan())
      std::cout << "cbct-fdk: " << weight->ComputeCoverage(projections).Describe(!o.noDisplaced)
                << (o.noDisplaced ? " (--no-displaced)" : "") << std::endl;
    grid->UpdateOutputInformation();
    std::cout << "cbct-fdk: volume " << DescribeGrid(grid->GetOutput(), "voxels") << ", in " << slabs << " slab"
              << (slabs == 1 ? "" : "s") << std::endl;
  }

  auto bar = ProgressBar::Attach(fdk, "cbct-fdk", slabs);
  if (bar)
  {
    // Weights as the FDK filter's own progress accumulator gives them.
    bar->AddStage(fdk->GetWeightFilter(), "weighting", 0.05);
    bar->AddStage(fdk->GetRampFilter(), "ramp filtering", 0.15);
    bar->AddStage(fdk->GetBackProjectionFilter(), "backprojection", 0.8);
  }
  clock.Restart();
  streamer->Update();
  const double reconstructionSeconds = clock.Seconds();
  if (o.verbose)
    std::cout << "cbct-fdk: weighting " << FormatSeconds(fdk->GetWeightingTime()) << ", ramp filtering "
              << FormatSeconds(fdk->GetFilteringTime()) << ", backprojection " << FormatSeconds(fdk->GetBackProjectionTime())
              << " (reconstruction " << FormatSeconds(reconstructionSeconds) << ")" << std::endl;

  clock.Restart();
  WriteImage("--output", streamer->GetOutput(), o.output);
  if (o.verbose)
  {
    std::cout << "cbct-fdk: wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    std::cout << "cbct-fdk: total " << FormatSeconds(total.Seconds()) << std::endl;
  }
  return 0;
}

#if CBCT_USE_MPI
/** One rank of an MPI job: the rank's slab of the volume along y, from the detector rows it projects
 * onto (read alone, streamed where the format allows), then the slabs written into one file by the
 * ranks together (MPISlabWriter). The slab equals the one-process volume there, bit for bit. */
template <class TImage, class TFDK>
int
ReconstructSlab(Options & o, const AppRanks & ranks)
{
  const std::string name = ranks.Prefix("cbct-fdk");
  typename TImage::Pointer volume;
  itk::Image<float, 3>::Pointer budgeted; // the slab reconstructed within --memory
  Stopwatch total;
  const int status = ranks.Collectively([&] {
    if (o.memoryBudget.hostBytes > 0)
    {
      // Within --memory (each rank's): the rank's slab in slabs of its own and batches of projections.
      std::vector<int> devices = o.devices.empty() && o.hardware != "cpu" ? ParseGpusIfAny() : o.devices;
      if (!devices.empty())
        devices = { devices[static_cast<std::size_t>(ranks.LocalRank()) % devices.size()] };
      std::string why;
      const std::uint64_t budget = HostBudget(o.memoryBudget, why);
      budgeted = ReconstructWithinBudget<TImage, TFDK>(
        o, budget, why + " on each rank", name,
        [&](TFDK * fdk) { SetDevices(fdk, devices, o.memoryBudget.deviceBytes); },
        [](const itk::ImageRegion<3> & whole) { return cbct::MPISlabReconstruction::SlabOf(whole, MPI_COMM_WORLD); });
      return;
    }
    auto geometry = ReadGeometry(o);
    SetProvenance("ConeBeamCT_Geometry", DescribeGeometryForProvenance(geometry, o.scan.empty() ? o.geometry : o.scan));
    std::vector<std::string> files;
    PreprocessingImage::Pointer raw; // the files' stack; `information`, once preprocessed
    auto information = PreprocessedStackInformation<TImage>(o, files, raw);
    auto grid = cbct::ConstantImageSource<TImage>::New();
    ApplyGrid(grid.GetPointer(), o.grid);
    grid->SetConstant(0.f);
    auto fdk = TFDK::New();
    fdk->SetInput(0, grid->GetOutput());
    fdk->SetProjections(information);
    fdk->SetGeometry(geometry);
    ApplyFDKFilterOptions(fdk.GetPointer(), o); // whole projections: every rank reads every row
    // One GPU per rank on each machine: --gpus's devices (or all), by the rank's place there.
    std::vector<int> devices = o.devices.empty() && o.hardware != "cpu" ? ParseGpusIfAny() : o.devices;
    if (!devices.empty())
      devices = { devices[static_cast<std::size_t>(ranks.LocalRank()) % devices.size()] };
    SetDevices(fdk.GetPointer(), devices, o.memoryBudget.deviceBytes);
    try
    {
      fdk->UpdateOutputInformation();
    }
    catch (const itk::ExceptionObject & e)
    {
      const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
      throw Error(projectionsOption + " with --geometry " + o.geometry + ": " + WithoutItkPrefix(e.GetDescription()));
    }
    // From the headers' layout, before any pixel is read; every rank decides alike.
    CheckDetectorReachesAxis(o, files, geometry, information, AxisMissIs::Error);
    // The rows this rank's slab asks for: read those alone (and the files' rows their preprocessing needs).
    const auto slab = cbct::MPISlabReconstruction::SlabOf(fdk->GetOutput()->GetLargestPossibleRegion(), MPI_COMM_WORLD);
    fdk->GetOutput()->SetRequestedRegion(slab);
    fdk->GetOutput()->PropagateRequestedRegion();
    const auto rows = information->GetRequestedRegion();
    Stopwatch clock;
    auto projections = LoadProjectionRows<TImage>(o, files, raw.GetPointer(), rows.GetIndex(1), rows.GetSize(1), name,
                                                  o.verbose ? &std::cout : nullptr);
    const double readSeconds = clock.Seconds();
    fdk->SetProjections(projections);
    if (o.verbose)
      std::cout << name << ": slab y [" << slab.GetIndex(1) << ", " << slab.GetIndex(1) + static_cast<long>(slab.GetSize(1))
                << ") of " << grid->GetOutput()->GetLargestPossibleRegion().GetSize(1) << ", detector rows [" << rows.GetIndex(1) << ", "
                << rows.GetIndex(1) + static_cast<long>(rows.GetSize(1)) << ") of "
                << information->GetLargestPossibleRegion().GetSize(1) << " read in " << FormatSeconds(readSeconds)
                << (devices.empty() ? std::string() : ", CUDA device " + std::to_string(devices[0])) << std::endl;
    ProgressBar::Pointer bar;
    if (ranks.Rank() == 0)
      bar = ProgressBar::Attach(fdk, "cbct-fdk");
    clock.Restart();
    fdk->GetOutput()->SetRequestedRegion(slab);
    fdk->GetOutput()->Update();
    volume = fdk->GetOutput();
    volume->DisconnectPipeline();
    if (o.verbose)
      std::cout << name << ": weighting " << FormatSeconds(fdk->GetWeightingTime()) << ", ramp filtering "
                << FormatSeconds(fdk->GetFilteringTime()) << ", backprojection "
                << FormatSeconds(fdk->GetBackProjectionTime()) << " (reconstruction " << FormatSeconds(clock.Seconds())
                << ")" << std::endl;
  });
  if (status != 0)
    return status;
  Stopwatch clock;
  try
  {
    if (budgeted)
      cbct::MPISlabWriter::Write(budgeted, o.output, MPI_COMM_WORLD); // its metadata has the provenance
    else
    {
      volume->SetMetaDataDictionary(WithProvenance(volume->GetMetaDataDictionary())); // as WriteImage() in one process
      cbct::MPISlabWriter::Write(volume, o.output, MPI_COMM_WORLD);
    }
  }
  catch (const itk::ExceptionObject & e)
  {
    if (ranks.Rank() != 0)
      return 1;
    throw Error("--output " + o.output + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  if (o.verbose && ranks.Rank() == 0)
    std::cout << name << ": wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << "), total "
              << FormatSeconds(total.Seconds()) << std::endl;
  return 0;
}
#endif

int
Fdk(Options & o, const AppRanks & ranks)
{
  const std::string name = ranks.Prefix("cbct-fdk");
  Hardware hardware = Hardware::Cpu;
  std::string why;
  const int status = ranks.Collectively([&] {
    Validate(o);
    hardware = ChooseHardware(o, why);
  });
  if (status != 0)
    return status;
  if (o.verbose)
    std::cout << name << ": hardware: " << why << ", " << itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads()
              << " CPU threads" << std::endl;
#if CBCT_USE_MPI
  if (ranks.Distributed())
  {
#  if CBCT_FDK_WITH_CUDA
    if (hardware == Hardware::Cuda)
    {
      using CudaImageType = cbct::CudaImage<float, 3>;
      return ReconstructSlab<CudaImageType, cbct::CudaFDKConeBeamReconstructionFilter<CudaImageType>>(o, ranks);
    }
#  endif
    using ImageType = itk::Image<float, 3>;
    return ReconstructSlab<ImageType, cbct::FDKConeBeamReconstructionFilter<ImageType>>(o, ranks);
  }
#endif
#if CBCT_FDK_WITH_CUDA
  if (hardware == Hardware::Cuda)
  {
    using CudaImageType = cbct::CudaImage<float, 3>;
    return Reconstruct<CudaImageType, cbct::CudaFDKConeBeamReconstructionFilter<CudaImageType>>(o);
  }
#endif
  (void)hardware;
  using ImageType = itk::Image<float, 3>;
  return Reconstruct<ImageType, cbct::FDKConeBeamReconstructionFilter<ImageType>>(o);
}
} // namespace

int
main(int argc, char ** argv)
{
  AppRanks ranks(&argc, &argv); // under mpirun: one rank, one slab of the volume
  Options o;
  CLI::App app{ "Reconstructs a volume from cone-beam projections with Feldkamp-Davis-Kress (FDK): cosine and "
                "redundancy weighting, ramp filtering, voxel-driven backprojection.\n"
                "Short scans (less than a full turn) are detected from the geometry and get Parker weights; in a "
                "full scan, a detector that does not see the volume from both sides of the rotation axis (an "
                "offset detector or source) gets displaced-detector weights (--verbose says why; --no-displaced "
                "switches them off). Projections are line integrals, or intensities (files of integers, or --i0 "
                "given) converted on the way in with RTK's preprocessing options; the volume is attenuation per mm.",
                "cbct-fdk" };
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK ThreeDCircularGeometry XML; required without --scan)");
  AddScanOption(app, o.scan);
  app.add_option("--projections", o.projections, "Projection stack, one file (.mha, .nrrd, .nii, .tif, ...)");
  app.add_option("-p,--path", o.path, "Directory of the projection files (with --regexp)");
  app.add_option("-r,--regexp", o.regexp, "Regular expression selecting the projection files in --path; 2D files "
                                          "are one projection each, 3D files stack all their slices");
  app.add_flag("--nsort", o.numericSort, "Sort the files numerically on --submatch instead of alphabetically");
  app.add_option("--submatch", o.subMatch, "Sub-match of --regexp used for sorting (0: the whole name)")
    ->capture_default_str();
  AddListOption(app, "--new-spacing,--newspacing", o.newSpacing,
                "Replace the projections' pixel spacing (mm): s or U,V (for formats without it, e.g. TIFF)");
  AddListOption(app, "--new-origin,--neworigin", o.newOrigin,
                "Replace the projections' origin (mm): U,V, the centre of the first pixel (default: the files' "
                "origin; for formats without one, e.g. TIFF or PNG, the detector centred: -(N-1)/2 * spacing)");
  AddNonFiniteOption(app, o.replaceNonFinite);
  std::map<std::string, SlicerParameter> slicer;
  AddPreprocessingOptions(app, o.preprocessing, slicer);
  app.add_option("-o,--output", o.output, "Output volume (.mha, .nrrd, .nii, .tif, ...)")->required();
  AddGridOptions(app, o.grid, "Volume");
  o.windowOption = app.add_option("--window", o.window, "Ramp filter window: ramlak, shepplogan, cosine, hamming or hann")
                     ->capture_default_str();
  o.cutOffOption =
    app.add_option("--cutoff", o.cutOff, "Ramp filter cut-off as a fraction of Nyquist, in (0, 1]")->capture_default_str();
  app.add_option("--hann", o.hann, "RTK's Hann window: --hann C is --window hann --cutoff C (0: none)")->capture_default_str();
  app.add_option("--pad", o.pad, "Truncation correction: rows are extended by this fraction of the detector width on "
                                 "each side (their faded reflection about the edge) before ramp filtering, for objects "
                                 "wider than the detector (0: none; at most about 0.5 is used)")
    ->capture_default_str();
  app.add_option("--hannY", o.hannY, "Hann low-pass along v (across rows) with this cut-off as a fraction of Nyquist (0: "
                                     "none); filters whole projections")
    ->capture_default_str();
  app.add_flag("--no-displaced,--nodisplaced", o.noDisplaced,
               "Switch off displaced-detector weighting (given when the detector does not see the volume from both "
               "sides; off suits an object smaller than the volume)");
  AddFieldOfViewOption(app, o, slicer);
  app.add_option("-d,--divisions", o.divisions, "Reconstruct in this many slabs along y (bounds the memory)")
    ->capture_default_str();
  AddMemoryBudgetOptions(app, o.memoryBudget, slicer, StreamedFDKMemoryHelp(), true);
  app.add_option("--hardware", o.hardware, "cpu, cuda or auto (CUDA when this build has it and a device is present)")
    ->capture_default_str();
  app.add_option("--gpus", o.gpus, "CUDA devices: all, or indices such as 0,1 (default: the first); the volume is "
                                   "shared among them along y. Under mpirun: each rank takes one of them, by its "
                                   "rank on the machine");
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each stage's time (under mpirun: each rank's)");
  AddCommonOptions(app, o.threads);
  slicer["--like"] = SlicerIo("image", "input", "Output");
  slicer["--direction"] = SlicerIn("Output", "double-vector");
  slicer["--hann"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--pad"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--hannY"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer.insert({
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--projections", SlicerIo("image", "input", "Input") },
    { "--path", SlicerIo("directory", "input", "Input") },
    { "--regexp", SlicerIn("Input") },
    { "--nsort", SlicerIn("Input") },
    { "--submatch", SlicerRange("Input", "0", "99", "1") },
    { "--new-spacing", SlicerIn("Input", "double-vector") },
    { "--new-origin", SlicerIn("Input", "double-vector") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerWhenGiven(SlicerIn("Output", "integer-vector")) },
    { "--spacing", SlicerWhenGiven(SlicerIn("Output", "double-vector")) },
    { "--origin", SlicerIn("Output", "double-vector") },
    { "--window", SlicerIn("Filter", "string-enumeration", { "ramlak", "shepplogan", "cosine", "hamming", "hann" }) },
    { "--cutoff", SlicerRange("Filter", "0", "1", "0.05") },
    { "--no-displaced", SlicerIn("Filter") },
    { "--divisions", SlicerRange("Advanced", "1", "4096", "1") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "auto", "cpu", "cuda" }) },
    { "--gpus", SlicerIn("Advanced") },
    { "--verbose", SlicerIn("Advanced") },
  });
  DescribeForSlicer("CBCT FDK Reconstruction", slicer);
  return Run(app, argc, argv, [&] {
    SetProvenance("ConeBeamCT_App", "cbct-fdk (ConeBeamCT " CBCT_VERSION ")");
    SetProvenance("ConeBeamCT_Method", "FDK");
    SetProvenance("ConeBeamCT_Options", DescribeOptions(app));
    return Fdk(o, ranks);
  });
}
