// cbct-fourdrooster: 4D ROOSTER, a respiratory-correlated sequence of volumes reconstructed by
// conjugate gradients on all projections with the frames linked by the phase interpolation
// weights, regularised by total variation in space and time, on the CPU or with CUDA; RTK's
// rtkfourdrooster's option names and defaults.
#include "cbctAppSupport.h"
#include "cbctCheckedFiles.h"
#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctDetectorAxisCheck.h"
#include "cbctFourDAppSupport.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#include "cbctGridOptions.h"
#include "cbctMemoryBudget.h"
#include "cbctMemoryCheck.h"
#include "cbctPhaseSignal.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProgressBar.h"
#include "cbctProjectionFiles.h"

#include <itkImage.h>
#include <itkImageFileReader.h>

#if CBCT_USE_CUDA
#  include "cbctCudaDevice.h"
#  include "cbctCudaFourDROOSTERConeBeamReconstructionFilter.h"
#endif

namespace
{
using namespace cbct::apps;

using ProjectionImage = itk::Image<float, 3>;
using SeriesImage = itk::Image<float, 4>;

struct Options : ProjectionInputOptions // cbct-fdk's, read by the same helpers
{
  // As given on the command line.
  std::string scan;
  std::string output;
  std::string input;
  std::string signal;
  std::string motionMask;
  long long frames = 10;
  const CLI::Option * framesOption = nullptr;
  GridOptions<3> grid;
  PreprocessingOptions preprocessing;
  long long iterations = 5;
  long long cgIterations = 4;
  long long tvIterations = 10;
  double gammaSpace = 0.;
  double gammaTime = 0.;
  bool noPositivity = false;
  std::string fp = "joseph";
  double step = 0.;
  std::string hardware = "cpu";
  MemoryBudgetOptions memoryBudget; // --memory: the run's buffers are checked against it
  int threads = 0;
  bool verbose = false;
};

void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  ValidateProjectionOptions(o);
  ValidatePreprocessingOptions(o.preprocessing);
  ValidateMemoryBudget(o.memoryBudget);
  CheckImageOutput("--output", o.output);
  CheckReadableFile("--signal", o.signal, "phase file");
  if (!o.input.empty())
  {
    CheckReadableFile("--input", o.input, "4D image file");
    CheckOutputsAreNotInputs({ { "--output", o.output } }, { { "--input", o.input, false } }); // 4D: read by ReadInitial()
    if (o.grid.ExplicitGrid() || !o.grid.like.empty())
      throw Error("--input and --dimension/--size/--spacing/--origin/--direction/--like: the initial 4D volume defines the "
                  "grid; give one or the other");
  }
  else
    ValidateGrid(o.grid);
  if (!o.motionMask.empty())
    CheckReadableFile("--motionmask", o.motionMask, "image file");
  ValidateFrames(o.frames);
  if (o.iterations < 1 || o.iterations > 1000000)
    Bad("--niter", o.iterations, "an integer >= 1");
  if (o.cgIterations < 1 || o.cgIterations > 100000)
    Bad("--cgiter", o.cgIterations, "an integer >= 1");
  if (o.tvIterations < 1 || o.tvIterations > 100000)
    Bad("--tviter", o.tvIterations, "an integer >= 1");
  if (!std::isfinite(o.gammaSpace) || !(o.gammaSpace >= 0.))
    Bad("--gamma_space", o.gammaSpace, "a finite spatial TV weight >= 0 (0: none)");
  if (!std::isfinite(o.gammaTime) || !(o.gammaTime >= 0.))
    Bad("--gamma_time", o.gammaTime, "a finite temporal TV weight >= 0 (0: none)");
  const std::string key = [&] {
    std::string k = o.fp;
    for (char & c : k)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return k;
  }();
  if (key == "joseph")
    o.fp = "joseph";
  else if (key == "raycast" || key == "cudaraycast")
    o.fp = "raycast";
  else
    Bad("--fp", Quoted(o.fp), "joseph or raycast (RTK's Joseph and CudaRayCast too)");
  if (!std::isfinite(o.step) || !(o.step >= 0.))
    Bad("--step", o.step, "a finite ray-cast sample distance > 0 in mm, or 0 for the smallest voxel spacing");
  if (o.hardware == "cuda")
  {
#if CBCT_USE_CUDA
    std::string why;
    if (!cbct::CudaDeviceAvailable(&why))
      throw Error("--hardware cuda: " + why);
#else
    throw Error("--hardware cuda: this build has no CUDA (configure with nvcc available)");
#endif
  }
  else if (o.hardware != "cpu")
    Bad("--hardware", Quoted(o.hardware), "cpu or cuda");
}

/** The initial 4D volume of --input: read, its 4 dimensions and finite values checked. */
SeriesImage::Pointer
ReadInitial(const Options & o)
{
  auto reader = itk::ImageFileReader<SeriesImage>::New();
  reader->SetFileName(o.input);
  try
  {
    reader->UpdateOutputInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    Bad("--input", Quoted(o.input), "a 4D image ITK can read (" + FirstLine(WithoutItkPrefix(e.GetDescription())) + ")");
  }
  if (reader->GetImageIO()->GetNumberOfDimensions() != 4)
    Bad("--input", Quoted(o.input) + " with " + std::to_string(reader->GetImageIO()->GetNumberOfDimensions()) + " dimensions",
        "a 4D image (x, y, z, frame), e.g. a previous cbct-fourdrooster or cbct-fourdfdk output");
  try
  {
    reader->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    Bad("--input", Quoted(o.input), "a 4D image ITK can read (" + FirstLine(WithoutItkPrefix(e.GetDescription())) + ")");
  }
  SeriesImage::Pointer image = reader->GetOutput();
  const float * p = image->GetBufferPointer();
  for (std::size_t i = 0; i < image->GetBufferedRegion().GetNumberOfPixels(); ++i)
    if (!std::isfinite(p[i]))
      Bad("--input", Quoted(o.input), "finite values (pixel " + std::to_string(i) + " is " + std::to_string(p[i]) + ")");
  for (unsigned int d = 0; d < 3; ++d)
    if (!(image->GetSpacing()[d] > 0.))
      Bad("--input", Quoted(o.input), "a positive spacing along each of x, y, z");
  return image;
}

/** A 4D image of zeros: the frames on the grid of --dimension/--spacing/--origin/--direction/--like. */
SeriesImage::Pointer
ZeroSeries(const Options & o)
{
  auto source = cbct::ConstantImageSource<ProjectionImage>::New();
  ApplyGrid(source.GetPointer(), o.grid);
  source->UpdateOutputInformation();
  const ProjectionImage * grid = source->GetOutput();
  auto series = SeriesImage::New();
  SeriesImage::SizeType size;
  SeriesImage::SpacingType spacing;
  SeriesImage::PointType origin;
  SeriesImage::DirectionType direction;
  direction.SetIdentity();
  for (unsigned int i = 0; i < 3; ++i)
  {
    size[i] = grid->GetLargestPossibleRegion().GetSize(i);
    spacing[i] = grid->GetSpacing()[i];
    origin[i] = grid->GetOrigin()[i];
    for (unsigned int j = 0; j < 3; ++j)
      direction(i, j) = grid->GetDirection()(i, j);
  }
  size[3] = static_cast<SeriesImage::SizeValueType>(o.frames);
  spacing[3] = 1.;
  origin[3] = 0.;
  series->SetRegions(size);
  series->SetSpacing(spacing);
  series->SetOrigin(origin);
  series->SetDirection(direction);
  series->Allocate(true);
  return series;
}

template <class TFilter>
int
Reconstruct(Options & o)
{
  Stopwatch total;
  auto geometry = ReadGeometry(o);
  const unsigned int count = geometry->GetNumberOfProjections();
  const std::vector<double> phases = ReadPhases(o.signal, count);
  SeriesImage::Pointer initial;
  if (!o.input.empty())
  {
    initial = ReadInitial(o);
    const auto frames = static_cast<long long>(initial->GetLargestPossibleRegion().GetSize(3));
    if (o.framesOption->count() > 0 && frames != o.frames)
      Bad("--frames", o.frames, "the number of frames of --input " + o.input + " (" + std::to_string(frames) + "), or no --frames");
    o.frames = frames;
  }
  const ProjectionInputs inputs = InspectProjections(o);
  {
    std::uint64_t voxels = 1;
    if (initial)
      for (unsigned int d = 0; d < 3; ++d)
        voxels *= initial->GetLargestPossibleRegion().GetSize(d);
    else
      for (unsigned int d = 0; d < 3; ++d)
        voxels *= o.grid.sizes[d];
    const auto frames = static_cast<std::uint64_t>(o.frames);
    MemoryNeed need;
    need.Add("projections", inputs.ReadingBytes());
    need.Add("4D volumes (initial, output, 3 working, temporal TV dual)", FloatBytes(voxels * frames, 6));
    need.Add("projection stacks (4 working)", FloatBytes(inputs.ReadingBytes() / sizeof(float), 4));
    need.Add("spatial TV volumes", FloatBytes(voxels, 5));
    need.remedy = "give a smaller volume (--dimension, or a coarser --spacing) or fewer --frames";
    CheckMemoryBudget(o.memoryBudget, "the 4D reconstruction", need);
  }
  if (!initial)
    initial = ZeroSeries(o);
  ProjectionImage::Pointer mask;
  if (!o.motionMask.empty())
  {
    mask = ReadImage<ProjectionImage>("--motionmask", o.motionMask, ImageRole::Volume);
    CheckFiniteValues("--motionmask", o.motionMask, mask.GetPointer(), "finite values (0 where nothing moves, 1 elsewhere)");
  }
  Stopwatch clock;
  ProjectionImage::Pointer projections =
    LoadProjections<ProjectionImage>(o, inputs, "cbct-fourdrooster", o.verbose ? &std::cout : nullptr);
  if (o.verbose)
    std::cout << "cbct-fourdrooster: read " << count << " projections and their phases (" << FormatSeconds(clock.Seconds()) << ")"
              << std::endl;

  auto rooster = TFilter::New();
  rooster->SetInput(initial);
  rooster->SetProjections(projections);
  rooster->SetGeometry(geometry);
  rooster->SetPhases(phases);
  if (mask)
    rooster->SetMotionMask(mask);
  rooster->SetNumberOfIterations(static_cast<unsigned int>(o.iterations));
  rooster->SetNumberOfCGIterations(static_cast<unsigned int>(o.cgIterations));
  rooster->SetNumberOfTVIterations(static_cast<unsigned int>(o.tvIterations));
  rooster->SetGammaSpace(o.gammaSpace);
  rooster->SetGammaTime(o.gammaTime);
  rooster->SetPositivity(!o.noPositivity);
  rooster->SetForwardProjector(o.fp == "raycast" ? cbct::ForwardProjectorKind::RayCast : cbct::ForwardProjectorKind::Joseph);
  rooster->SetRayCastStep(o.step);
  try
  {
    rooster->UpdateOutputInformation(); // geometry, projections, phases, mask and parameters checked before the work
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string projectionsOption = o.projections.empty() ? "--path/--regexp" : "--projections " + o.projections;
    throw Error(projectionsOption + " with --geometry " + o.geometry + ", --signal " + o.signal +
                (o.motionMask.empty() ? std::string() : " and --motionmask " + o.motionMask) + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  if (o.verbose)
  {
    const auto weights = TFilter::FrameWeights(phases, static_cast<unsigned int>(o.frames));
    std::cout << "cbct-fourdrooster: " << o.frames << " frames; projections seeing each frame:";
    for (const auto & w : weights)
      std::cout << " " << std::count_if(w.begin(), w.end(), [](float x) { return x != 0.f; });
    std::cout << "; " << o.iterations << " iterations of " << o.cgIterations << " conjugate gradient steps, gamma_space "
              << o.gammaSpace << ", gamma_time " << o.gammaTime << ", " << o.tvIterations << " TV steps, positivity "
              << (o.noPositivity ? "off" : "on") << (mask ? ", motion mask" : "") << std::endl;
  }
  auto bar = ProgressBar::Attach(rooster, "cbct-fourdrooster");
  clock.Restart();
  rooster->Update();
  if (o.verbose)
  {
    std::cout << "cbct-fourdrooster: reconstruction " << FormatSeconds(clock.Seconds()) << "; |p - M x| after each iteration:";
    for (double r : rooster->GetResidualNorms())
      std::cout << " " << r;
    std::cout << std::endl;
  }
  clock.Restart();
  WriteImage("--output", rooster->GetOutput(), o.output);
  if (o.verbose)
    std::cout << "cbct-fourdrooster: wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << "), total "
              << FormatSeconds(total.Seconds()) << std::endl;
  return 0;
}

int
FourDRooster(Options & o)
{
  Validate(o);
#if CBCT_USE_CUDA
  if (o.hardware == "cuda")
    return Reconstruct<cbct::CudaFourDROOSTERConeBeamReconstructionFilter<SeriesImage>>(o);
#endif
  return Reconstruct<cbct::FourDROOSTERConeBeamReconstructionFilter<SeriesImage>>(o);
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "4D ROOSTER (RTK's rtkfourdrooster): a respiratory-correlated sequence of volumes from one projection stack "
                "and the phase of each projection (--signal: one value in [0, 1) per line, RTK's signal file; frame f of "
                "N is centred at phase f/N). Projection k is modelled as the frames around its phase, mixed by RTK's "
                "linear interpolation weights, so every projection serves two frames. Each of --niter iterations runs "
                "--cgiter conjugate gradient steps on that 4D model, then positivity (unless --nopositivity), the "
                "motion mask (--motionmask: where it is 0 the frames are averaged), total variation in space "
                "(--gamma_space) and along the breathing cycle (--gamma_time, cyclic), each with --tviter steps; the "
                "larger a gamma, the smoother. Projections are line integrals; the output is a 4D image (the 4th axis "
                "is the frame).",
                "cbct-fourdrooster" };
  std::map<std::string, SlicerParameter> slicer;
  AddFourDProjectionOptions(app, o, slicer);
  AddPreprocessingOptions(app, o.preprocessing, slicer);
  AddPhaseSignalOption(app, o.signal, slicer);
  o.framesOption = app.add_option("--frames,--fourdframes", o.frames, "Number of frames (breathing phases) N; frame f is centred at phase f/N")
                     ->capture_default_str();
  app.add_option("-i,--input", o.input, "Initial 4D volume (its grid and frames are the output's; default: zeros on the grid options')");
  app.add_option("-o,--output", o.output, "Output 4D image (.mha, .nrrd, ...; 4th axis: frame)")->required();
  AddGridOptions(app, o.grid, "Frame");
  app.add_option("-n,--niter", o.iterations, "Number of main loop iterations")->capture_default_str();
  app.add_option("--cgiter", o.cgIterations, "Number of conjugate gradient steps in each main iteration")->capture_default_str();
  app.add_option("--tviter", o.tvIterations, "Number of total-variation steps (spatial and temporal) in each main iteration")
    ->capture_default_str();
  app.add_option("--gamma_space,--gamma-space", o.gammaSpace, "Spatial total-variation weight (0: none); the larger, the smoother")
    ->capture_default_str();
  app.add_option("--gamma_time,--gamma-time", o.gammaTime, "Temporal total-variation weight (0: none); the larger, the smoother")
    ->capture_default_str();
  app.add_flag("--nopositivity,--no-positivity", o.noPositivity, "Do not clamp negative values to 0 after the conjugate gradients");
  app.add_option("--motionmask", o.motionMask, "Motion mask: a 3D image on the frames' grid, 0 where nothing moves (there the frames "
                                               "are averaged), non-zero elsewhere");
  app.add_option("--fp", o.fp, "Forward projector: joseph or raycast (with its exact adjoint); RTK's Joseph and CudaRayCast too")
    ->capture_default_str();
  app.add_option("--step", o.step, "Ray caster's distance between samples along a ray (mm; 0: the smallest voxel spacing)")
    ->capture_default_str();
  app.add_option("--hardware", o.hardware, "cpu or cuda (a CUDA build and device)")->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print what is done, each frame's projections and the residual of each iteration");
  AddMemoryBudgetOptions(app, o.memoryBudget, slicer, WholeRunMemoryHelp(), false);
  AddCommonOptions(app, o.threads);
  slicer["--like"] = SlicerIo("image", "input", "Output");
  slicer["--direction"] = SlicerIn("Output", "double-vector");
  slicer.insert({
    { "--input", SlicerIo("image", "input", "Input") },
    { "--motionmask", SlicerIo("image", "input", "Regularization") },
    { "--frames", SlicerRange("Gating", "1", "1000", "1") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerWhenGiven(SlicerIn("Output", "integer-vector")) },
    { "--spacing", SlicerWhenGiven(SlicerIn("Output", "double-vector")) },
    { "--origin", SlicerIn("Output", "double-vector") },
    { "--niter", SlicerRange("Iterations", "1", "1000", "1") },
    { "--cgiter", SlicerRange("Iterations", "1", "100", "1") },
    { "--tviter", SlicerRange("Regularization", "1", "1000", "1") },
    { "--gamma_space", SlicerRange("Regularization", "0", "10", "0.0001") },
    { "--gamma_time", SlicerRange("Regularization", "0", "10", "0.0001") },
    { "--nopositivity", SlicerIn("Regularization") },
    { "--fp", SlicerIn("Advanced", "string-enumeration", { "joseph", "raycast" }) },
    { "--step", SlicerRange("Advanced", "0", "100", "0.1") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "cpu", "cuda" }) },
    { "--verbose", SlicerIn("Advanced") },
  });
  DescribeForSlicer("CBCT 4D ROOSTER Reconstruction", slicer);
  return Run(app, argc, argv, [&] { return FourDRooster(o); });
}
