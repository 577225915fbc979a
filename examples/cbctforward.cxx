// cbct-forward: projects a volume for a geometry with Joseph's forward projector, the ray caster or
// the emission projector (attenuation map and collimator blur), on the CPU or with CUDA, in the spirit
// of RTK's rtkforwardprojections.
#include "cbctForwardProjectionImageFilter.h"
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
  std::string dimension = "256";
  std::string spacing = "1";
  std::string origin;
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
  const auto sizes = ParseSizes("--dimension", o.dimension, 2);
  const auto spacings = ParsePositives("--spacing", o.spacing, 2);
  std::vector<double> origins;
  if (o.origin.empty())
    for (unsigned int d = 0; d < 2; ++d)
      origins.push_back(-0.5 * (sizes[d] - 1.) * spacings[d]);
  else
    origins = ParsePoint("--origin", o.origin, 2);
  CheckProjectorAndHardware(o.fp, o.step, o.hardware, true);
  ParseEmission(o.emission, o.fp, o.fpGiven);

  Stopwatch total;
  Stopwatch clock;
  auto geometry = ReadGeometry(o.geometry);
  const unsigned int count = geometry->GetNumberOfProjections();
  auto volume = ReadImage<ImageType>("--input", o.input);
  ReadAttenuation(o.emission);
  if (o.verbose)
  {
    const auto v = volume->GetLargestPossibleRegion().GetSize();
    std::cout << "cbct-forward: read geometry " << o.geometry << " (" << count << " projections) and volume " << o.input
              << " (" << v[0] << " x " << v[1] << " x " << v[2] << " voxels) (" << FormatSeconds(clock.Seconds()) << ")"
              << std::endl;
  }

  auto detector = cbct::ConstantImageSource<ImageType>::New();
  ImageType::SizeType size{ { sizes[0], sizes[1], count } };
  ImageType::SpacingType spacing;
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 2; ++d)
  {
    spacing[d] = spacings[d];
    origin[d] = origins[d];
  }
  spacing[2] = 1.;
  origin[2] = 0.;
  detector->SetSize(size);
  detector->SetSpacing(spacing);
  detector->SetOrigin(origin);
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
    std::cout << "cbct-forward: projected onto " << sizes[0] << " x " << sizes[1] << " pixels of " << spacings[0] << " x "
              << spacings[1] << " mm x " << count << " projections, "
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
  app.add_option("--dimension", o.dimension, "Detector pixels: N or U,V")->capture_default_str();
  app.add_option("--spacing", o.spacing, "Detector pixel size (mm): s or U,V")->capture_default_str();
  app.add_option("--origin", o.origin, "Centre of the first detector pixel (mm): U,V (default: the detector is "
                                       "centred, -(N-1)/2 * spacing)");
  auto * fp = AddProjectorOptions(app, o.fp, o.step, o.hardware, true);
  AddEmissionOptions(app, o.emission);
  app.callback([&o, fp] { o.fpGiven = fp->count() > 0; });
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and each stage's time");
  AddCommonOptions(app, o.threads);
  std::map<std::string, SlicerParameter> slicer{
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--input", SlicerIo("image", "input", "Input") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--dimension", SlicerIn("Detector", "integer-vector") },
    { "--spacing", SlicerIn("Detector", "double-vector") },
    { "--origin", SlicerIn("Detector", "double-vector") },
    { "--verbose", SlicerIn("Advanced") },
  };
  AddProjectorSlicer(slicer, true);
  AddEmissionSlicer(slicer);
  DescribeForSlicer("CBCT Forward Projection", slicer);
  return Run(app, argc, argv, [&] { return Forward(o); });
}
