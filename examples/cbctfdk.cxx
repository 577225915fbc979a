// cbct-fdk: Feldkamp-Davis-Kress reconstruction of a cone-beam projection stack, on the CPU or
// with CUDA, in the spirit of RTK's rtkfdk.
#include "cbctAppSupport.h"
#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctGridOptions.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctRampFilterResponse.h"

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

struct Options
{
  // As given on the command line.
  std::string geometry;
  std::string projections;
  std::string path;
  std::string regexp;
  bool numericSort = false;
  int subMatch = 0;
  std::string newSpacing;
  std::string newOrigin;
  std::string output;
  GridOptions<3> grid;
  PreprocessingOptions preprocessing;
  std::string window = "ramlak";
  double cutOff = 1.;
  double hann = 0.;
  double pad = 0.;
  double hannY = 0.;
  const CLI::Option * windowOption = nullptr;
  const CLI::Option * cutOffOption = nullptr;
  bool noDisplaced = false;
  long long divisions = 1;
  std::string hardware = "auto";
  int threads = 0;
  bool verbose = false;

  // Checked and parsed by Validate().
  std::vector<double> projectionSpacing; // empty: keep the files'
  std::vector<double> projectionOrigin;  // empty: keep the files'
  cbct::RampWindow rampWindow = cbct::RampWindow::RamLak;
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
  try
  {
    o.rampWindow = cbct::ParseRampWindow(o.window);
  }
  catch (const itk::ExceptionObject &)
  {
    Bad("--window", Quoted(o.window), "one of ramlak, shepplogan, cosine, hamming, hann");
  }
  if (!std::isfinite(o.cutOff) || !(o.cutOff > 0.) || o.cutOff > 1.)
    Bad("--cutoff", o.cutOff, "a fraction of the Nyquist frequency in (0, 1]");
  // RTK's --hann C is the Hann window with cut-off C (0: none).
  if (!(o.hann >= 0. && o.hann <= 1.))
    Bad("--hann", o.hann, "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none");
  if (o.hann > 0.)
  {
    if (o.windowOption->count() + o.cutOffOption->count() > 0)
      throw Error("--hann and --window/--cutoff: --hann C is --window hann --cutoff C; give one or the other");
    o.rampWindow = cbct::RampWindow::Hann;
    o.cutOff = o.hann;
  }
  if (!std::isfinite(o.pad) || o.pad < 0.)
    Bad("--pad", o.pad, "a fraction of the detector width >= 0 (0: no truncation correction)");
  if (!(o.hannY >= 0. && o.hannY <= 1.))
    Bad("--hannY", o.hannY, "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none");
  if (o.divisions < 1 || o.divisions > 100000)
    Bad("--divisions", o.divisions, "an integer >= 1");
  if (o.hardware != "cpu" && o.hardware != "cuda" && o.hardware != "auto")
    Bad("--hardware", Quoted(o.hardware), "cpu, cuda or auto");
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
  // Until the CUDA FDK applies the ramp filter's truncation correction and v smoothing, they run on the CPU.
  const bool cudaLacksRampOptions = !cbct::CudaFDKAppliesRampExtensions && (o.pad > 0. || o.hannY > 0.);
  if (cudaLacksRampOptions)
  {
    if (o.hardware == "cuda")
      throw Error("--hardware cuda: the CUDA FDK does not do --pad and --hannY yet (use --hardware cpu or auto)");
    why = "CPU (--pad/--hannY are CPU-only for now; --hardware auto)";
    return Hardware::Cpu;
  }
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
  auto geometry = ReadGeometry(o.geometry);
  const double geometrySeconds = clock.Seconds();
  if (o.verbose)
    std::cout << "cbct-fdk: read geometry " << o.geometry << ": " << geometry->GetNumberOfProjections()
              << " projections (" << FormatSeconds(geometrySeconds) << ")" << std::endl;

  clock.Restart();
  std::size_t files = 0;
  typename TImage::Pointer projections = LoadProjections<TImage>(o, files, "cbct-fdk", o.verbose ? &std::cout : nullptr);
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
  fdk->GetRampFilter()->SetWindow(o.rampWindow);
  fdk->GetRampFilter()->SetCutOff(o.cutOff);
  fdk->GetRampFilter()->SetTruncationCorrection(o.pad);
  fdk->GetRampFilter()->SetHannCutFrequencyY(o.hannY);
  fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(!o.noDisplaced);
  try
  {
    fdk->UpdateOutputInformation(); // checks the geometry against the projections before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + ": " + WithoutItkPrefix(e.GetDescription()));
  }

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
    const double range = geometry->GetAngularRange() * 180. / 3.14159265358979323846;
    std::ostringstream degrees;
    degrees << std::fixed << std::setprecision(1) << range;
    std::cout << "cbct-fdk: " << (weight->IsShortScan() ? "short scan (Parker weights)" : "full scan") << " over "
              << degrees.str() << " deg; " << cbct::RampWindowName(o.rampWindow) << " window, cut-off " << o.cutOff;
    if (o.pad > 0.)
      std::cout << ", truncation correction " << o.pad << " (rows extended by "
                << fdk->GetRampFilter()->GetTruncationCorrectionExtent() << " pixels a side)";
    if (o.hannY > 0.)
      std::cout << ", Hann along v with cut-off " << o.hannY;
    std::cout << std::endl;
    if (!weight->IsShortScan())
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

int
Fdk(Options & o)
{
  Validate(o);
  std::string why;
  const Hardware hardware = ChooseHardware(o, why);
  if (o.verbose)
    std::cout << "cbct-fdk: hardware: " << why << ", " << itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads()
              << " CPU threads" << std::endl;
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
  Options o;
  CLI::App app{ "Reconstructs a volume from cone-beam projections with Feldkamp-Davis-Kress (FDK): cosine and "
                "redundancy weighting, ramp filtering, voxel-driven backprojection.\n"
                "Short scans (less than a full turn) are detected from the geometry and get Parker weights; in a "
                "full scan, a detector that does not see the volume from both sides of the rotation axis (an "
                "offset detector or source) gets displaced-detector weights (--verbose says why; --no-displaced "
                "switches them off). Projections are line integrals, or intensities (files of integers, or --i0 "
                "given) converted on the way in with RTK's preprocessing options; the volume is attenuation per mm.",
                "cbct-fdk" };
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK ThreeDCircularGeometry XML)")->required();
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
                "Replace the projections' origin (mm): U,V, the centre of the first pixel (for formats without it, e.g. TIFF)");
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
  app.add_option("-d,--divisions", o.divisions, "Reconstruct in this many slabs along y (bounds the memory)")
    ->capture_default_str();
  app.add_option("--hardware", o.hardware, "cpu, cuda or auto (CUDA when this build has it and a device is present)")
    ->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each stage's time");
  AddCommonOptions(app, o.threads);
  slicer["--like"] = SlicerIo("image", "input", "Output");
  slicer["--direction"] = SlicerIn("Output", "double-vector");
  slicer["--hann"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--pad"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--hannY"] = SlicerRange("Filter", "0", "1", "0.05");
  DescribeForSlicer("CBCT FDK Reconstruction", slicer);
  DescribeForSlicer("CBCT FDK Reconstruction", {
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--projections", SlicerIo("image", "input", "Input") },
    { "--path", SlicerIo("directory", "input", "Input") },
    { "--regexp", SlicerIn("Input") },
    { "--nsort", SlicerIn("Input") },
    { "--submatch", SlicerRange("Input", "0", "99", "1") },
    { "--new-spacing", SlicerIn("Input", "double-vector") },
    { "--new-origin", SlicerIn("Input", "double-vector") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerIn("Output", "integer-vector") },
    { "--spacing", SlicerIn("Output", "double-vector") },
    { "--origin", SlicerIn("Output", "double-vector") },
    { "--window", SlicerIn("Filter", "string-enumeration", { "ramlak", "shepplogan", "cosine", "hamming", "hann" }) },
    { "--cutoff", SlicerRange("Filter", "0", "1", "0.05") },
    { "--no-displaced", SlicerIn("Filter") },
    { "--divisions", SlicerRange("Advanced", "1", "4096", "1") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "auto", "cpu", "cuda" }) },
    { "--verbose", SlicerIn("Advanced") },
  });
  return Run(app, argc, argv, [&] { return Fdk(o); });
}
