// cbct-fourdfdk: respiratory-correlated (4D) FDK, one volume per breathing phase from the
// projections of that phase, on the CPU or with CUDA, in the spirit of RTK's rtkfourdfdk.
#include "cbctAppSupport.h"
#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctDetectorAxisCheck.h"
#include "cbctFourDAppSupport.h"
#include "cbctFDKFilterOptions.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctGridOptions.h"
#include "cbctMemoryBudget.h"
#include "cbctPhaseSignal.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctRampFilterResponse.h"

#include <itkExtractImageFilter.h>
#include <itkImage.h>
#include <itksys/SystemTools.hxx>

#include <iomanip>
#include <type_traits>
#include <utility>

#if CBCT_USE_CUDA
#  include "cbctCudaDevice.h"
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
#endif

namespace
{
using namespace cbct::apps;

struct Options
  : ProjectionInputOptions // cbct-fdk's, read by the same helpers
  , FDKFilterOptions       // the ramp and weighting options, cbct-fdk's
{
  // As given on the command line.
  std::string scan;
  std::string output;
  std::string framesPrefix;
  std::string signal;
  long long frames = 10;
  double gatingWindow = 0.;
  std::string gatingShape = "rectangular";
  GridOptions<3> grid;
  PreprocessingOptions preprocessing;
  std::string hardware = "auto";
  MemoryBudgetOptions memoryBudget; // --memory, --gpu-memory
  int threads = 0;
  bool verbose = false;

  // Checked and parsed by Validate().
  cbct::FourDGating::WindowShape shape = cbct::FourDGating::WindowShape::Rectangular;
};

/** The file of frame f with --frames-prefix: PREFIX + the frame number (at least two digits) + the
 * extension of --output (PREFIX/frame_ gives PREFIX/frame_00.mha, ...). */
std::string
FrameFile(const Options & o, unsigned int f)
{
  std::ostringstream name;
  name << o.framesPrefix << std::setw(o.frames > 100 ? 3 : 2) << std::setfill('0') << f
       << itksys::SystemTools::GetFilenameLastExtension(o.output);
  return name.str();
}

void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  ValidateProjectionOptions(o);
  ValidatePreprocessingOptions(o.preprocessing);
  ValidateMemoryBudget(o.memoryBudget);
  CheckImageOutput("--output", o.output);
  ValidateGrid(o.grid);
  ValidateFrames(o.frames);
  if (!std::isfinite(o.gatingWindow) || o.gatingWindow < 0. || o.gatingWindow > 1.)
    Bad("--gating-window", o.gatingWindow, "a fraction of the breathing cycle in [0, 1] (0: 1/frames rectangular, 2/frames triangular)");
  if (o.gatingShape != "rectangular" && o.gatingShape != "triangular")
    Bad("--gating-shape", Quoted(o.gatingShape), "rectangular or triangular");
  o.shape = cbct::FourDGating::ParseWindowShape(o.gatingShape);
  CheckReadableFile("--signal", o.signal, "phase file");
  if (!o.framesPrefix.empty())
  {
    for (unsigned int f : { 0u, static_cast<unsigned int>(o.frames - 1) })
      CheckImageOutput("--frames-prefix", FrameFile(o, f));
  }
  ValidateFDKFilterOptions(o);
  if (o.hardware != "cpu" && o.hardware != "cuda" && o.hardware != "auto")
    Bad("--hardware", Quoted(o.hardware), "cpu, cuda or auto");
}

/** Whether TFilter takes a device memory budget (the CUDA 4D FDK filter). */
template <class TFilter, class = void>
struct TakesDeviceMemoryBudget : std::false_type
{};
template <class TFilter>
struct TakesDeviceMemoryBudget<TFilter,
                               std::void_t<decltype(std::declval<TFilter &>().SetDeviceMemoryBudget(std::size_t{}))>>
  : std::true_type
{};

/** --gpu-memory for the CUDA 4D FDK filter (0: 90% of the device's free memory); nothing on the CPU. */
template <class TFilter>
void
SetDeviceMemoryBudget(TFilter * filter, std::uint64_t bytes)
{
  if constexpr (TakesDeviceMemoryBudget<TFilter>::value)
    filter->SetDeviceMemoryBudget(static_cast<std::size_t>(bytes));
  (void)filter;
  (void)bytes;
}

/** CUDA where asked for (or, with auto, where present); `why` says which for --verbose. */
bool
UseCuda(const Options & o, std::string & why)
{
  if (o.hardware == "cpu")
  {
    why = "CPU (--hardware cpu)";
    return false;
  }
#if CBCT_USE_CUDA
  std::string device;
  const bool available = cbct::CudaDeviceAvailable(&device);
  if (o.hardware == "cuda" && !available)
    throw Error("--hardware cuda: no CUDA device is available" + (device.empty() ? std::string() : " (" + device + ")"));
  why = available ? "CUDA (" + device + ")" : "CPU (no CUDA device; --hardware auto)";
  return available;
#else
  if (o.hardware == "cuda")
    throw Error("--hardware cuda: this build has no CUDA (configure with nvcc available)");
  why = "CPU (this build has no CUDA; --hardware auto)";
  return false;
#endif
}

template <class TImage, class TFilter>
int
Reconstruct(Options & o)
{
  Stopwatch total;
  auto geometry = ReadGeometry(o);
  const unsigned int count = geometry->GetNumberOfProjections();
  const std::vector<double> phases = ReadPhases(o.signal, count);
  const ProjectionInputs inputs = InspectProjections(o);
  {
    std::uint64_t voxels = 1;
    for (unsigned int d = 0; d < 3; ++d)
      voxels *= o.grid.sizes[d];
    MemoryNeed need;
    need.Add("projections", inputs.ReadingBytes());
    need.Add("filtered projections", inputs.ReadingBytes());
    need.Add("4D volume", FloatBytes(voxels * static_cast<std::uint64_t>(o.frames)));
    need.Add("frame buffers", FloatBytes(voxels * 2));
    need.remedy = "give a smaller volume (--dimension, or a coarser --spacing) or fewer --frames";
    CheckMemoryBudget(o.memoryBudget, "the 4D reconstruction", need);
  }
  Stopwatch clock;
  typename TImage::Pointer projections = LoadProjections<TImage>(o, inputs, "cbct-fourdfdk", o.verbose ? &std::cout : nullptr);
  if (o.verbose)
    std::cout << "cbct-fourdfdk: read " << count << " projections and their phases (" << FormatSeconds(clock.Seconds()) << ")"
              << std::endl;

  auto grid = cbct::ConstantImageSource<TImage>::New();
  ApplyGrid(grid.GetPointer(), o.grid);
  grid->SetConstant(0.f);
  auto fdk = TFilter::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetPhases(phases);
  fdk->SetNumberOfFrames(static_cast<unsigned int>(o.frames));
  fdk->SetGatingWindow(o.gatingWindow);
  fdk->SetWindowShape(o.shape);
  ApplyFDKFilterOptions(fdk.GetPointer(), o);
  SetDeviceMemoryBudget(fdk.GetPointer(), o.memoryBudget.deviceBytes);
  try
  {
    fdk->UpdateOutputInformation(); // geometry, projections, phases and frames checked before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + " and --signal " + o.signal + ": " +
                WithoutItkPrefix(e.GetDescription()));
  }
  CheckDetectorReachesAxis(o, inputs.files, geometry, projections, AxisMissIs::Error);
  if (o.verbose)
  {
    const auto & frames = fdk->GetFrames();
    std::cout << "cbct-fourdfdk: " << frames.size() << " frames, " << cbct::FourDGating::WindowShapeName(o.shape)
              << " gating window "
              << (o.gatingWindow > 0. ? o.gatingWindow : (o.shape == cbct::FourDGating::WindowShape::Triangular ? 2. : 1.) / o.frames)
              << " of the cycle; projections per frame:";
    for (const auto & frame : frames)
      std::cout << " " << frame.projections.size();
    std::cout << std::endl;
  }
  auto bar = ProgressBar::Attach(fdk, "cbct-fourdfdk");
  clock.Restart();
  fdk->Update();
  if (o.verbose)
    std::cout << "cbct-fourdfdk: upload " << FormatSeconds(fdk->GetUploadTime()) << ", weighting "
              << FormatSeconds(fdk->GetWeightingTime()) << ", ramp filtering " << FormatSeconds(fdk->GetFilteringTime())
              << ", backprojection " << FormatSeconds(fdk->GetBackProjectionTime()) << ", download "
              << FormatSeconds(fdk->GetDownloadTime()) << " (reconstruction " << FormatSeconds(clock.Seconds()) << ")" << std::endl;

  clock.Restart();
  auto * fourD = fdk->GetOutput();
  WriteImage("--output", fourD, o.output);
  if (!o.framesPrefix.empty())
  {
    using FourDImage = std::remove_pointer_t<decltype(fourD)>;
    using FrameImage = itk::Image<float, 3>;
    for (unsigned int f = 0; f < o.frames; ++f)
    {
      auto extract = itk::ExtractImageFilter<FourDImage, FrameImage>::New();
      extract->SetInput(fourD);
      auto region = fourD->GetLargestPossibleRegion();
      region.SetIndex(3, f);
      region.SetSize(3, 0); // collapsed: a 3D frame
      extract->SetExtractionRegion(region);
      extract->SetDirectionCollapseToSubmatrix();
      extract->Update();
      WriteImage("--frames-prefix", extract->GetOutput(), FrameFile(o, f));
    }
  }
  if (o.verbose)
    std::cout << "cbct-fourdfdk: wrote " << o.output
              << (o.framesPrefix.empty() ? std::string() : " and " + std::to_string(o.frames) + " frame files " + FrameFile(o, 0) + "...")
              << " (" << FormatSeconds(clock.Seconds()) << "), total " << FormatSeconds(total.Seconds()) << std::endl;
  return 0;
}

int
FourDFdk(Options & o)
{
  Validate(o);
  std::string why;
  const bool cuda = UseCuda(o, why);
  if (o.verbose)
    std::cout << "cbct-fourdfdk: hardware: " << why << std::endl;
#if CBCT_USE_CUDA
  if (cuda)
  {
    using CudaImageType = cbct::CudaImage<float, 3>;
    return Reconstruct<CudaImageType, cbct::CudaFourDFDKConeBeamReconstructionFilter<CudaImageType>>(o);
  }
#endif
  (void)cuda;
  using ImageType = itk::Image<float, 3>;
  return Reconstruct<ImageType, cbct::FourDFDKConeBeamReconstructionFilter<ImageType, itk::Image<float, 4>>>(o);
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Respiratory-correlated (4D) FDK: one volume per breathing phase, each reconstructed with FDK from the "
                "projections of that phase (RTK's rtkfourdfdk). The phase of each projection comes from --signal "
                "(one value in [0, 1) per line, RTK's signal file); frame f of N is centred at phase f/N. By default "
                "each projection goes to its nearest frame (a rectangular window of 1/N of the cycle), so each is "
                "backprojected once; --gating-window widens the window, --gating-shape triangular weights projections "
                "by their distance to the frame's phase. A frame's projections come in clusters, one per breathing "
                "cycle: each cluster stands for its share of the angle, spread evenly over its projections, so that "
                "the frame is the average of the object over the phases of its window. The output is a "
                "4D image (the 4th axis is the frame); --frames-prefix also writes one 3D file per frame.",
                "cbct-fourdfdk" };
  std::map<std::string, SlicerParameter> slicer;
  AddFourDProjectionOptions(app, o, slicer);
  AddPreprocessingOptions(app, o.preprocessing, slicer);
  AddPhaseSignalOption(app, o.signal, slicer);
  app.add_option("-f,--frames,--fourdframes", o.frames, "Number of frames (breathing phases) N; frame f is centred at phase f/N")
    ->capture_default_str();
  app.add_option("--gating-window", o.gatingWindow, "Width of each frame's gating window as a fraction of the cycle, in [0, 1] "
                                                    "(0: 1/N rectangular, each projection in its nearest frame; 2/N triangular)")
    ->capture_default_str();
  app.add_option("--gating-shape", o.gatingShape, "Gating window: rectangular (weight 1 inside) or triangular (1 at the frame's "
                                                  "phase, falling to 0 at the window's edge)")
    ->capture_default_str();
  app.add_option("-o,--output", o.output, "Output 4D image (.mha, .nrrd, ...; 4th axis: frame)")->required();
  app.add_option("--frames-prefix", o.framesPrefix, "Also write each frame as a 3D file: PREFIX + frame number (2 digits) + "
                                                    "--output's extension, e.g. out/frame_ gives out/frame_00.mha");
  AddGridOptions(app, o.grid, "Frame");
  o.windowOption = app.add_option("--window", o.window, "Ramp filter window: ramlak, shepplogan, cosine, hamming or hann")
                     ->capture_default_str();
  o.cutOffOption = app.add_option("--cutoff", o.cutOff, "Ramp filter cut-off as a fraction of Nyquist, in (0, 1]")->capture_default_str();
  app.add_option("--hann", o.hann, "RTK's Hann window: --hann C is --window hann --cutoff C (0: none)")->capture_default_str();
  app.add_option("--pad", o.pad, "Truncation correction: rows extended by this fraction of the detector width on each side (0: none)")
    ->capture_default_str();
  app.add_option("--hannY", o.hannY, "Hann low-pass along v with this cut-off as a fraction of Nyquist (0: none)")->capture_default_str();
  app.add_flag("--no-displaced,--nodisplaced", o.noDisplaced, "Switch off displaced-detector weighting");
  AddFieldOfViewOption(app, o, slicer);
  app.add_option("--hardware", o.hardware, "cpu, cuda or auto (CUDA when this build has it and a device is present)")
    ->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each stage's time");
  AddMemoryBudgetOptions(app, o.memoryBudget, slicer, WholeRunMemoryHelp(), true);
  AddCommonOptions(app, o.threads);
  slicer["--like"] = SlicerIo("image", "input", "Output");
  slicer["--direction"] = SlicerIn("Output", "double-vector");
  slicer["--hann"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--pad"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer["--hannY"] = SlicerRange("Filter", "0", "1", "0.05");
  slicer.insert({
    { "--frames", SlicerRange("Gating", "1", "1000", "1") },
    { "--gating-window", SlicerRange("Gating", "0", "1", "0.01") },
    { "--gating-shape", SlicerIn("Gating", "string-enumeration", { "rectangular", "triangular" }) },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--frames-prefix", SlicerIn("Output") },
    { "--dimension", SlicerWhenGiven(SlicerIn("Output", "integer-vector")) },
    { "--spacing", SlicerWhenGiven(SlicerIn("Output", "double-vector")) },
    { "--origin", SlicerIn("Output", "double-vector") },
    { "--window", SlicerIn("Filter", "string-enumeration", { "ramlak", "shepplogan", "cosine", "hamming", "hann" }) },
    { "--cutoff", SlicerRange("Filter", "0", "1", "0.05") },
    { "--no-displaced", SlicerIn("Filter") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "auto", "cpu", "cuda" }) },
    { "--verbose", SlicerIn("Advanced") },
  });
  DescribeForSlicer("CBCT 4D FDK Reconstruction", slicer);
  return Run(app, argc, argv, [&] { return FourDFdk(o); });
}
