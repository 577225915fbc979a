// cbct-simulate: a circular cone-beam scan geometry and the exact projections of a phantom.
#include "cbctAppSupport.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"

#include <itkImage.h>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::apps;

struct Options
{
  std::string geometry;
  std::string output;
  long long projections = 180;
  double firstAngle = 0.;
  double arc = 360.;
  double sid = 1000.;
  double sdd = 1500.;
  double offsetX = 0.;
  double offsetY = 0.;
  double sourceOffsetX = 0.;
  double sourceOffsetY = 0.;
  std::string detectorSize = "256";
  std::string detectorSpacing = "1";
  std::string phantom = "shepplogan";
  double phantomScale = 60.;
  double phantomDensity = 1.;
  double i0 = 0.;
  double dark = 0.;
  bool poisson = false;
  unsigned long long seed = 0;
  int threads = 0;
  bool verbose = false;
};

int
Simulate(const Options & o)
{
  Stopwatch total;
  // Check everything before any work.
  ApplyThreads(o.threads);
  if (o.projections < 1 || o.projections > 1000000)
    Bad("--nproj", o.projections, "an integer >= 1 (and <= 1000000)");
  CheckFinite("--first-angle", o.firstAngle, "an angle in degrees");
  if (!std::isfinite(o.arc) || !(o.arc > 0.) || o.arc > 360.)
    Bad("--arc", o.arc, "an angle in degrees in (0, 360]");
  CheckPositive("--sid", o.sid, "a source-to-isocenter distance > 0 in mm");
  CheckPositive("--sdd", o.sdd, "a source-to-detector distance > 0 in mm");
  CheckFinite("--proj-offset-x", o.offsetX, "a detector offset in mm");
  CheckFinite("--proj-offset-y", o.offsetY, "a detector offset in mm");
  CheckFinite("--source-offset-x", o.sourceOffsetX, "a source offset in mm");
  CheckFinite("--source-offset-y", o.sourceOffsetY, "a source offset in mm");
  const auto size = ParseSizes("--detector-size", o.detectorSize, 2);
  const auto spacing = ParsePositives("--detector-spacing", o.detectorSpacing, 2);
  CheckOutputDirectory("--geometry", o.geometry);
  CheckImageOutput("--output", o.output);
  auto phantom = MakePhantom("--phantom", o.phantom, o.phantomScale);
  CheckFinite("--phantom-density", o.phantomDensity, "a finite factor");
  phantom->ScaleDensities(o.phantomDensity);
  if (!std::isfinite(o.i0) || o.i0 < 0. || o.i0 > 65535.)
    Bad("--i0", o.i0, "an intensity through air from 1 to 65535 (16-bit readings), or 0 for line integrals");
  if (!std::isfinite(o.dark) || o.dark < 0. || (o.i0 > 0. && !(o.dark < o.i0)))
    Bad("--idark", o.dark, "an intensity >= 0 below --i0");
  if (o.i0 == 0. && (o.dark != 0. || o.poisson))
    throw Error(std::string(o.poisson ? "--poisson" : "--idark") + ": simulates detector readings; give --i0 too");

  // Projection k at first + k * arc / nproj, as RTK's rtksimulatedgeometry.
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  const auto count = static_cast<unsigned int>(o.projections);
  for (unsigned int k = 0; k < count; ++k)
    geometry->AddProjection(o.sid, o.sdd, o.firstAngle + k * o.arc / count, o.offsetX, o.offsetY, 0., 0.,
                            o.sourceOffsetX, o.sourceOffsetY);
  auto geometryWriter = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
  geometryWriter->SetFilename(o.geometry);
  geometryWriter->SetObject(geometry);
  geometryWriter->WriteFile();
  if (o.verbose)
    std::cout << "cbct-simulate: geometry: " << count << " projections from " << o.firstAngle << " deg over " << o.arc
              << " deg, SID " << o.sid << " mm, SDD " << o.sdd << " mm, detector offset (" << o.offsetX << ", "
              << o.offsetY << ") mm, source offset (" << o.sourceOffsetX << ", " << o.sourceOffsetY << ") mm -> "
              << o.geometry << std::endl;

  // The detector grid: u, v centred on the detector's origin (offsets are in the geometry), one
  // slice per projection.
  auto source = cbct::PhantomProjectionSource<ImageType>::New();
  ImageType::SizeType imageSize{ { size[0], size[1], count } };
  ImageType::SpacingType imageSpacing;
  imageSpacing[0] = spacing[0];
  imageSpacing[1] = spacing[1];
  imageSpacing[2] = 1.;
  ImageType::PointType origin;
  origin[0] = -0.5 * (size[0] - 1.) * spacing[0];
  origin[1] = -0.5 * (size[1] - 1.) * spacing[1];
  origin[2] = 0.;
  source->SetSize(imageSize);
  source->SetSpacing(imageSpacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  auto bar = ProgressBar::Attach(source, "projecting");
  Stopwatch clock;
  source->Update();
  const double projectSeconds = clock.Seconds();
  if (o.verbose)
  {
    std::ostringstream what;
    if (o.phantom == "shepplogan")
      what << "Shepp-Logan, scale " << o.phantomScale << " mm";
    else
      what << o.phantom;
    std::cout << "cbct-simulate: projected " << phantom->GetEllipsoids().size() << " ellipsoids (" << what.str()
              << ") onto " << size[0] << " x " << size[1] << " pixels of " << spacing[0] << " x " << spacing[1]
              << " mm x " << count << " projections (" << FormatSeconds(projectSeconds) << ")" << std::endl;
  }
  clock.Restart();
  if (o.i0 > 0.)
  {
    // Detector readings in 16 bits: (I0 - Idark) exp(-p) + Idark, Poisson draws with --poisson.
    using CountImage = itk::Image<unsigned short, 3>;
    auto readings = cbct::LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
    readings->SetInput(source->GetOutput());
    readings->SetI0(o.i0);
    readings->SetIDark(o.dark);
    readings->SetPoissonNoise(o.poisson);
    readings->SetSeed(o.seed);
    readings->Update();
    if (o.verbose)
      std::cout << "cbct-simulate: detector readings in 16 bits, I0 " << o.i0 << ", Idark " << o.dark
                << (o.poisson ? ", Poisson noise (seed " + std::to_string(o.seed) + ")" : ", no noise") << std::endl;
    WriteImage("--output", readings->GetOutput(), o.output);
  }
  else
    WriteImage("--output", source->GetOutput(), o.output);
  if (o.verbose)
  {
    std::cout << "cbct-simulate: wrote " << o.output << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    std::cout << "cbct-simulate: total " << FormatSeconds(total.Seconds()) << std::endl;
  }
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Makes a circular cone-beam scan geometry (RTK XML) and the exact line integrals of a phantom "
                "(ray-ellipsoid intersection) for every projection.\n"
                "Projection k is taken at gantry angle first-angle + k * arc / nproj. The projection stack has "
                "U x V x nproj pixels of spacing (s, s, 1) with u and v centred on the detector's origin.",
                "cbct-simulate" };
  app.add_option("-g,--geometry", o.geometry, "Output geometry file (RTK ThreeDCircularGeometry XML)")->required();
  app.add_option("-o,--output", o.output, "Output projections (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_option("--nproj", o.projections, "Number of projections")->capture_default_str();
  app.add_option("--first-angle", o.firstAngle, "Gantry angle of the first projection (degrees)")->capture_default_str();
  app.add_option("--arc", o.arc, "Angular arc covered by the projections (degrees, (0, 360])")->capture_default_str();
  app.add_option("--sid", o.sid, "Source-to-isocenter distance (mm)")->capture_default_str();
  app.add_option("--sdd", o.sdd, "Source-to-detector distance (mm)")->capture_default_str();
  app.add_option("--proj-offset-x", o.offsetX, "Detector offset along u (mm)")->capture_default_str();
  app.add_option("--proj-offset-y", o.offsetY, "Detector offset along v (mm)")->capture_default_str();
  app.add_option("--source-offset-x", o.sourceOffsetX, "Source offset along u (mm, RTK's SourceOffsetX)")
    ->capture_default_str();
  app.add_option("--source-offset-y", o.sourceOffsetY, "Source offset along v (mm, RTK's SourceOffsetY)")
    ->capture_default_str();
  app.add_option("--detector-size", o.detectorSize, "Detector pixels: N or U,V")->capture_default_str();
  app.add_option("--detector-spacing", o.detectorSpacing, "Detector pixel size (mm): s or U,V")->capture_default_str();
  app.add_option("--phantom", o.phantom, "'shepplogan' or an ellipsoid text file (see cbctGeometricPhantom.h)")
    ->capture_default_str();
  app.add_option("--phantom-scale", o.phantomScale, "Scale of the Shepp-Logan phantom (mm)")->capture_default_str();
  app.add_option("--phantom-density", o.phantomDensity, "Factor on every density of the phantom (e.g. 0.02: the "
                                                       "Shepp-Logan head in attenuation per mm, near water)")
    ->capture_default_str();
  app.add_option("--i0", o.i0, "Write detector readings instead of line integrals: 16-bit intensities, I0 through air "
                               "(0: line integrals)")
    ->capture_default_str();
  app.add_option("--idark", o.dark, "Intensity with the beam off, added to the readings (with --i0)")->capture_default_str();
  app.add_flag("--poisson", o.poisson, "Poisson noise on the readings (with --i0)");
  app.add_option("--seed", o.seed, "Seed of the noise (the same seed gives the same readings)")->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and how long it takes");
  AddCommonOptions(app, o.threads);
  DescribeForSlicer("CBCT Simulate Projections", {
    { "--geometry", SlicerIo("file", "output", "Output", ".xml") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--nproj", SlicerRange("Scan", "1", "10000", "1") },
    { "--first-angle", SlicerRange("Scan", "-360", "360", "1") },
    { "--arc", SlicerRange("Scan", "0", "360", "1") },
    { "--sid", SlicerRange("Scan", "0", "100000", "10") },
    { "--sdd", SlicerRange("Scan", "0", "100000", "10") },
    { "--proj-offset-x", SlicerIn("Detector") },
    { "--proj-offset-y", SlicerIn("Detector") },
    { "--source-offset-x", SlicerIn("Scan") },
    { "--source-offset-y", SlicerIn("Scan") },
    { "--detector-size", SlicerIn("Detector", "integer-vector") },
    { "--detector-spacing", SlicerIn("Detector", "double-vector") },
    { "--phantom", SlicerIn("Phantom") },
    { "--phantom-scale", SlicerRange("Phantom", "0", "10000", "1") },
    { "--phantom-density", SlicerRange("Phantom", "-1000", "1000", "0.01") },
    { "--i0", SlicerRange("Readings", "0", "65535", "1") },
    { "--idark", SlicerRange("Readings", "0", "65535", "1") },
    { "--poisson", SlicerIn("Readings") },
    { "--seed", SlicerRange("Readings", "0", "1000000000", "1") },
    { "--verbose", SlicerIn("Advanced") },
  });
  return Run(app, argc, argv, [&] { return Simulate(o); });
}
