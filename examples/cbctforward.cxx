// cbct-forward: projects a volume for a geometry with Joseph's forward projector, the ray caster or
// the emission projector (attenuation map and collimator blur), on the CPU or with CUDA, in the spirit
// of RTK's rtkforwardprojections.
#include "cbctForwardProjectionImageFilter.h"
#include "cbctGridOptions.h"
#include "cbctIterativeApp.h"
#if CBCT_USE_CUDA
#  include "cbctCudaForwardProjectionImageFilter.h"
#endif

namespace
{
using namespace cbct::apps;

struct Options
{
  std::string geometry;
  std::string input;
  std::string output;
  GridOptions<2> grid;
  std::string fp = "joseph";
  double step = 0.;
  std::string hardware = "cpu";
  int threads = 0;
  bool verbose = false;
  bool fpGiven = false;
  EmissionOptions emission;
};

int
Forward(Options & o)
{
  using ImageType = itk::Image<float, 3>;
  ApplyThreads(o.threads);
  CheckReadableFile("--geometry", o.geometry, "geometry file");
  CheckReadableFile("--input", o.input, "image file");
  CheckImageOutput("--output", o.output);
  CheckOutputsAreNotInputs({ { "--output", o.output } }, { { "--geometry", o.geometry, false }, { "--input", o.input, true } });
  ValidateGrid(o.grid);
  o.fp = ProjectorName(o.fp);
  CheckProjectorAndHardware(o.fp, o.step, o.hardware, true);
  ParseEmission(o.emission, o.fp, o.fpGiven);

  Stopwatch total;
  Stopwatch clock;
  auto geometry = ReadGeometry(o.geometry);
  const unsigned int count = geometry->GetNumberOfProjections();
  if (o.grid.sizes.size() > 2 && o.grid.sizes[2] != count)
  {
    if (o.grid.like.empty())
      Bad("--dimension", Quoted(o.grid.size),
          "U,V, or U,V,N with N the number of projections of --geometry (" + std::to_string(count) + ")");
    Bad("--like", Quoted(o.grid.like),
        "a projection stack of as many projections as --geometry (" + std::to_string(count) + "; it has " +
          std::to_string(o.grid.sizes[2]) + ")");
  }
  {
    MemoryNeed need;
    need.Add("volume", FloatBytes(InspectImage("--input", o.input).Pixels()));
    need.Add("projections", FloatBytes(std::uint64_t(o.grid.sizes[0]) * o.grid.sizes[1] * count));
    need.remedy = "give fewer or smaller projections (--dimension) or a smaller volume";
    CheckMemory("the projection", need);
  }
  auto volume = ReadImage<ImageType>("--input", o.input);
  CheckFiniteValues("--input", o.input, volume.GetPointer(), "finite values everywhere in the volume");
  ReadAttenuation(o.emission);
  if (o.verbose)
  {
    const auto v = volume->GetLargestPossibleRegion().GetSize();
    std::cout << "cbct-forward: read geometry " << o.geometry << " (" << count << " projections) and volume " << o.input
              << " (" << v[0] << " x " << v[1] << " x " << v[2] << " voxels) (" << FormatSeconds(clock.Seconds()) << ")"
              << std::endl;
  }

  auto detector = cbct::ConstantImageSource<ImageType>::New();
  ApplyGrid(detector.GetPointer(), o.grid, count);
  detector->SetConstant(0.f);

  cbct::ForwardProjectionImageFilter<ImageType>::Pointer forward;
#if CBCT_USE_CUDA
  if (o.hardware == "cuda")
    forward = cbct::CudaForwardProjectionImageFilter<ImageType>::New().GetPointer();
  else
#endif
    forward = cbct::ForwardProjectionImageFilter<ImageType>::New();
  forward->SetForwardProjector(ForwardProjector(o.fp));
  forward->SetRayCastStep(o.step);
  forward->SetAttenuationMap(o.emission.mu);
  forward->SetCollimatorBlur(o.emission.blur);
  forward->SetInput(0, detector->GetOutput());
  forward->SetVolume(volume);
  forward->SetGeometry(geometry);
  auto bar = ProgressBar::Attach(forward, "cbct-forward");
  clock.Restart();
  forward->Update();
  if (o.verbose)
    std::cout << "cbct-forward: projected onto " << o.grid.sizes[0] << " x " << o.grid.sizes[1] << " pixels of "
              << o.grid.spacings[0] << " x " << o.grid.spacings[1] << " mm x " << count << " projections, "
              << (o.hardware == "cuda" ? "CUDA" : "CPU") << ", projector: "
              << DescribeProjector(o.fp, o.step,
                                   std::min({ volume->GetSpacing()[0], volume->GetSpacing()[1], volume->GetSpacing()[2] }),
                                   &o.emission)
              << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
  clock.Restart();
  WriteImage("--output", forward->GetOutput(), o.output);
  if (o.verbose)
  {
    std::cout << "cbct-forward: wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    std::cout << "cbct-forward: total " << FormatSeconds(total.Seconds()) << std::endl;
  }
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Projects a volume for a cone-beam or parallel geometry with Joseph's forward projector or the ray "
                "caster (--fp; line integrals of the interpolated volume), or an activity volume with the emission "
                "projector (--fp emission, --attenuation, --psf: attenuated, collimator-blurred projections), on the CPU "
                "or with CUDA (--hardware). The detector is --dimension U,V pixels of --spacing mm, one "
                "projection per geometry entry, centred on the detector's origin unless --origin is given.",
                "cbct-forward" };
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK ThreeDCircularGeometry XML)")->required();
  app.add_option("-i,--input", o.input, "Volume to project (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_option("-o,--output", o.output, "Output projections (.mha, .nrrd, .nii, .tif, ...)")->required();
  AddGridOptions(app, o.grid, "Detector");
  auto * fp = AddProjectorOptions(app, o.fp, o.step, o.hardware, true);
  AddEmissionOptions(app, o.emission);
  app.callback([&o, fp] { o.fpGiven = fp->count() > 0; });
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each stage's time");
  AddCommonOptions(app, o.threads);
  std::map<std::string, SlicerParameter> slicer{
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--input", SlicerIo("image", "input", "Input") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerWhenGiven(SlicerIn("Detector", "integer-vector")) },
    { "--spacing", SlicerWhenGiven(SlicerIn("Detector", "double-vector")) },
    { "--origin", SlicerIn("Detector", "double-vector") },
    { "--direction", SlicerIn("Detector", "double-vector") },
    { "--like", SlicerIo("image", "input", "Detector") },
    { "--verbose", SlicerIn("Advanced") },
  };
  AddProjectorSlicer(slicer, true);
  AddEmissionSlicer(slicer);
  DescribeForSlicer("CBCT Forward Projection", slicer);
  return Run(app, argc, argv, [&] { return Forward(o); });
}
