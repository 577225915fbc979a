// cbct-simulate: a circular cone-beam or parallel scan geometry and the exact projections of a
// phantom, or (--emission) the emission projections (SPECT) of an activity phantom through an
// attenuation phantom with the collimator blur and Poisson noise.
#include "cbctAppSupport.h"
#include "cbctBreathingPhantomProjectionSource.h"
#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctEmissionApp.h"
#include "cbctEmissionForwardProjectionImageFilter.h"
#include "cbctIterativeApp.h" // CheckProjectorAndHardware()
#include "cbctMemoryCheck.h"
#include "cbctOrbitWobble.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctPhantomVolumeSource.h"
#include "cbctInputChecks.h" // Trimmed()
#include "cbctPhaseSignal.h"
#include "cbctPoissonNoiseImageFilter.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#if CBCT_USE_CUDA
#  include "cbctCudaEmissionForwardProjectionImageFilter.h"
#endif

#include <itkImage.h>

#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::apps;

/** --column-gains "U:G,U:G,...": column index (< columns) and gain error (> -1) of each defective
 * detector column; empty when not given. */
std::vector<std::pair<std::size_t, double>>
ParseColumnGains(const std::string & text, std::size_t columns)
{
  std::vector<std::pair<std::size_t, double>> gains;
  const std::string expected = "U:G pairs, e.g. 100:0.02,140:-0.01 (a column U from 0 to " + std::to_string(columns - 1) +
                               " whose gain is 1 + G, G > -1)";
  std::size_t start = 0;
  while (start < text.size())
  {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string pair = text.substr(start, end - start);
    const std::size_t colon = pair.find(':');
    char * stop = nullptr;
    const double column = colon == std::string::npos ? -1. : std::strtod(pair.c_str(), &stop);
    const bool columnOk = colon != std::string::npos && stop == pair.c_str() + colon && column >= 0. &&
                          column == std::floor(column) && column < static_cast<double>(columns);
    const std::string gainText = colon == std::string::npos ? "" : pair.substr(colon + 1);
    const double gain = gainText.empty() ? std::nan("") : std::strtod(gainText.c_str(), &stop);
    if (!columnOk || gainText.empty() || stop != gainText.c_str() + gainText.size() || !std::isfinite(gain) || !(gain > -1.))
      Bad("--column-gains", "'" + text + "'", expected);
    gains.emplace_back(static_cast<std::size_t>(column), gain);
    start = end + 1;
  }
  return gains;
}

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
  double helical = 0.; // pitch factor; 0: a circular scan
  double inPlaneAngle = 0.;
  double outOfPlaneAngle = 0.;
  double detectorRadius = 0.; // RTK's RadiusCylindricalDetector; 0: a flat panel
  std::string detectorSize = "256";
  std::string detectorSpacing = "1";
  std::string phantom = "shepplogan";
  double phantomScale = 60.;
  double phantomDensity = 1.;
  double i0 = 0.;
  double dark = 0.;
  std::string columnGains; // --column-gains U:G,...: detector columns whose gain is off (rings)
  int threads = 0;
  bool verbose = false;
  // --emission
  bool emission = false;
  std::string muPhantom;
  std::string muOutput;
  std::string psf;
  // --poisson: noise on the readings (--i0) or counts (--emission)
  bool poisson = false;
  long long seed = 1;
  std::string volumeDimension;
  std::string volumeSpacing;
  std::string hardware = "cpu";
  // --breathing: the moving phantom of 4D CBCT (cbct::BreathingPhantom)
  bool breathing = false;
  double breathingCycles = 10.;
  std::string breathingAmplitude = "0,10,0";
  std::string breathingEllipsoids;
  double breathingExponent = 1.;
  double breathingFirstPhase = 0.;
  double breathingIrregularity = 0.;
  std::string phasesOutput;
  // --wobble: a wobbling orbit (C-arm); --phantom-output: the phantom's description
  std::string wobble;
  std::string phantomOutput;
};

/** Where --breathing writes the phases: --phases-output, else OUTPUT without its extension (and a
 * .gz before it) followed by _phases.txt (proj.mha -> proj_phases.txt). */
std::string
PhasesPath(const Options & o)
{
  if (!o.phasesOutput.empty())
    return o.phasesOutput;
  std::string stem = o.output;
  for (int pass = 0; pass < 2; ++pass)
  {
    const auto slash = stem.find_last_of('/');
    const auto dot = stem.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == 0 || stem[dot - 1] == '/')
      break;
    const bool gz = itksys::SystemTools::LowerCase(stem.substr(dot)) == ".gz";
    stem.erase(dot);
    if (!gz)
      break;
  }
  return stem + "_phases.txt";
}

/** --breathing-ellipsoids "i,j,...": indices of the phantom's ellipsoids (integers >= 0). */
std::vector<unsigned int>
ParseEllipsoidIndices(const std::string & text)
{
  std::vector<unsigned int> indices;
  if (text.empty())
    return indices;
  const std::string expected = "ellipsoid indices i,j,... (integers >= 0, counted from 0 in the phantom's order)";
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
  {
    const std::string trimmed = cbct::Trimmed(item);
    char * end = nullptr;
    const double v = std::strtod(trimmed.c_str(), &end);
    if (trimmed.empty() || *end != '\0' || !(v >= 0.) || v != std::floor(v) || v > 1e6)
      Bad("--breathing-ellipsoids", Quoted(text), expected);
    indices.push_back(static_cast<unsigned int>(v));
  }
  if (text.back() == ',')
    Bad("--breathing-ellipsoids", Quoted(text), expected);
  return indices;
}

/** The emission mode's voxel grid: --volume-spacing (default: the smallest detector pixel) and
 * --volume-dimension (default: the detector's width along x and z, its height along y), centred. */
ImageType::Pointer
EmissionGrid(const Options & o, const std::vector<unsigned int> & detector, const std::vector<double> & pixel)
{
  std::vector<double> spacing = o.volumeSpacing.empty() ? std::vector<double>(3, std::min(pixel[0], pixel[1]))
                                                        : ParsePositives("--volume-spacing", o.volumeSpacing, 3);
  std::vector<unsigned int> size;
  if (o.volumeDimension.empty())
  {
    const double extent[3] = { detector[0] * pixel[0], detector[1] * pixel[1], detector[0] * pixel[0] };
    for (unsigned int d = 0; d < 3; ++d)
      size.push_back(static_cast<unsigned int>(std::max(1., std::ceil(extent[d] / spacing[d] - 1e-9))));
  }
  else
    size = ParseSizes("--volume-dimension", o.volumeDimension, 3);
  auto grid = cbct::ConstantImageSource<ImageType>::New();
  ImageType::SizeType s;
  ImageType::SpacingType sp;
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    s[d] = size[d];
    sp[d] = spacing[d];
    origin[d] = -0.5 * (size[d] - 1.) * spacing[d];
  }
  grid->SetSize(s);
  grid->SetSpacing(sp);
  grid->SetOrigin(origin);
  grid->Update();
  return grid->GetOutput();
}

/** `phantom` voxelized on `grid` (2 x 2 x 2 samples per voxel). */
ImageType::Pointer
Voxelize(const cbct::GeometricPhantom * phantom, const ImageType * grid)
{
  auto source = cbct::PhantomVolumeSource<ImageType>::New();
  source->SetSize(grid->GetLargestPossibleRegion().GetSize());
  source->SetSpacing(grid->GetSpacing());
  source->SetOrigin(grid->GetOrigin());
  source->SetPhantom(phantom);
  source->SetSupersampling(2);
  source->Update();
  ImageType::Pointer image = source->GetOutput();
  image->DisconnectPipeline();
  return image;
}

int
Simulate(const Options & o)
{
  Stopwatch total;
  // Check everything before any work.
  ApplyThreads(o.threads);
  if (o.projections < 1 || o.projections > 1000000)
    Bad("--nproj", o.projections, "an integer >= 1 (and <= 1000000)");
  CheckFinite("--first-angle", o.firstAngle, "an angle in degrees");
  if (o.helical != 0. && (!std::isfinite(o.helical) || !(o.helical > 0.) || o.helical > 2.))
    Bad("--helical", o.helical, "a pitch factor in (0, 2] (the table's feed per turn over the detector's height at the "
                                "isocentre; above 2 the helix leaves parts of the object seen over less than half a turn), "
                                "or 0 for a circular scan");
  if (o.helical == 0. && (!std::isfinite(o.arc) || !(o.arc > 0.) || o.arc > 360.))
    Bad("--arc", o.arc, "an angle in degrees in (0, 360] (more turns with --helical)");
  if (o.helical != 0. && (!std::isfinite(o.arc) || !(o.arc > 0.) || o.arc > 360000.))
    Bad("--arc", o.arc, "an angle in degrees in (0, 360000] (with --helical: 360 per turn)");
  CheckPositive("--sid", o.sid, "a source-to-isocenter distance > 0 in mm (parallel beam: the detector's distance from the axis)");
  if (!std::isfinite(o.sdd) || !(o.sdd >= 0.))
    Bad("--sdd", o.sdd, "a source-to-detector distance > 0 in mm, or 0 for parallel beam");
  CheckFinite("--proj-offset-x", o.offsetX, "a detector offset in mm");
  CheckFinite("--proj-offset-y", o.offsetY, "a detector offset in mm");
  CheckFinite("--source-offset-x", o.sourceOffsetX, "a source offset in mm");
  CheckFinite("--source-offset-y", o.sourceOffsetY, "a source offset in mm");
  if (!std::isfinite(o.inPlaneAngle) || std::abs(o.inPlaneAngle) >= 90.)
    Bad("--in-angle", o.inPlaneAngle, "a detector roll in degrees between -90 and 90");
  if (!std::isfinite(o.outOfPlaneAngle) || std::abs(o.outOfPlaneAngle) >= 90.)
    Bad("--out-angle", o.outOfPlaneAngle, "a tilt in degrees between -90 and 90");
  const auto size = ParseSizes("--detector-size", o.detectorSize, 2);
  const auto spacing = ParsePositives("--detector-spacing", o.detectorSpacing, 2);
  CheckOutputDirectory("--geometry", o.geometry);
  CheckImageOutput("--output", o.output);
  CheckOutputsAreNotInputs({ { "--geometry", o.geometry }, { "--output", o.output } }, { { "--phantom", o.phantom, false } });
  auto phantom = MakePhantom("--phantom", o.phantom, o.phantomScale);
  CheckFinite("--phantom-density", o.phantomDensity, "a finite factor");
  phantom->ScaleDensities(o.phantomDensity);
  if (!o.phantomOutput.empty())
  {
    CheckOutputDirectory("--phantom-output", o.phantomOutput);
    CheckOutputsAreNotInputs({ { "--geometry", o.geometry }, { "--output", o.output }, { "--phantom-output", o.phantomOutput } },
                             { { "--phantom", o.phantom, false } });
  }
  std::vector<double> wobble;
  if (!o.wobble.empty())
  {
    const std::string expected = "SOURCE_MM,ANGLE_DEGREES: how far the source and detector (>= 0 mm) and the angles (0 to "
                                 "45 degrees) move at most, e.g. 2,1";
    wobble = ParseNumbers("--wobble", o.wobble, { 2 }, expected);
    if (!(wobble[0] >= 0.) || !std::isfinite(wobble[0]) || !(wobble[1] >= 0.) || !(wobble[1] <= 45.))
      Bad("--wobble", Quoted(o.wobble), expected);
    if (o.sdd == 0.)
      throw Error("--wobble: moves a cone-beam source; a parallel scan (--sdd 0) has none");
  }
  if (!std::isfinite(o.i0) || o.i0 < 0. || o.i0 > 65535.)
    Bad("--i0", o.i0, "an intensity through air from 1 to 65535 (16-bit readings), or 0 for line integrals");
  if (!std::isfinite(o.dark) || o.dark < 0. || (o.i0 > 0. && !(o.dark < o.i0)))
    Bad("--idark", o.dark, "an intensity >= 0 below --i0");
  if (o.emission && (o.i0 > 0. || o.dark != 0.))
    throw Error(std::string(o.i0 > 0. ? "--i0" : "--idark") + ": simulates X-ray detector readings; --emission simulates "
                "counts (give one or the other)");
  if (!o.emission && o.i0 == 0. && o.dark != 0.)
    throw Error("--idark: simulates detector readings; give --i0 too");
  if (!o.emission && o.i0 == 0. && o.poisson)
    throw Error("--poisson: simulates noisy detector readings or emission counts; give --i0 or --emission too");
  if (o.seed < 0 || o.seed > 0xffffffffll)
    Bad("--seed", o.seed, "an integer from 0 to 4294967295");
  const auto columnGains = ParseColumnGains(o.columnGains, size[0]);
  if (o.emission && !columnGains.empty())
    throw Error("--column-gains: simulates an X-ray detector's columns; --emission simulates counts");
  cbct::GeometricPhantom::Pointer muPhantom;
  cbct::CollimatorBlur blur;
  if (!o.emission && (!o.muPhantom.empty() || !o.muOutput.empty() || !o.psf.empty() || !o.volumeDimension.empty() ||
                      !o.volumeSpacing.empty()))
    throw Error("--mu-phantom, --mu-output, --psf, --volume-dimension and --volume-spacing simulate emission data: "
                "give --emission");
  if (!o.muOutput.empty())
  {
    if (o.muPhantom.empty())
      throw Error("--mu-output " + o.muOutput + ": needs --mu-phantom (the attenuation map it writes)");
    CheckImageOutput("--mu-output", o.muOutput);
  }
  ImageType::Pointer emissionGrid, mu;
  if (o.emission)
  {
    if (!o.muPhantom.empty())
      muPhantom = MakePhantom("--mu-phantom", o.muPhantom, o.phantomScale);
    if (!o.psf.empty())
      blur = ParsePsf("--psf", o.psf);
    // The attenuation map is voxelized and checked before any output is written.
    emissionGrid = EmissionGrid(o, size, spacing);
    if (muPhantom)
    {
      mu = Voxelize(muPhantom, emissionGrid);
      try
      {
        cbct::EmissionLattice::CheckAttenuation(mu);
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error("--mu-phantom " + o.muPhantom + ": " + WithoutItkPrefix(e.GetDescription()));
      }
    }
  }
  cbct::BreathingPhantom::Pointer breathing;
  std::vector<double> phases;
  if (!o.breathing && (!o.breathingEllipsoids.empty() || o.breathingCycles != 10. || o.breathingAmplitude != "0,10,0" ||
                       o.breathingExponent != 1. || o.breathingFirstPhase != 0. || o.breathingIrregularity != 0. ||
                       !o.phasesOutput.empty()))
    throw Error("--breathing-cycles, --breathing-amplitude, --breathing-ellipsoids, --breathing-exponent, "
                "--breathing-first-phase, --breathing-irregularity and --phases-output simulate a breathing patient: "
                "give --breathing");
  if (o.breathing)
  {
    if (o.emission)
      throw Error("--breathing: simulates a breathing X-ray scan; --emission does not move its phantoms (give one or the other)");
    CheckPositive("--breathing-cycles", o.breathingCycles, "a number of breathing cycles during the scan > 0");
    if (!std::isfinite(o.breathingFirstPhase) || o.breathingFirstPhase < 0. || !(o.breathingFirstPhase < 1.))
      Bad("--breathing-first-phase", o.breathingFirstPhase, "a phase in [0, 1)");
    if (!std::isfinite(o.breathingIrregularity) || o.breathingIrregularity < 0. || !(o.breathingIrregularity < 1.))
      Bad("--breathing-irregularity", o.breathingIrregularity, "a fraction in [0, 1) of the mean cycle (0: regular)");
    CheckPositive("--breathing-exponent", o.breathingExponent, "an exponent n > 0 of the waveform sin^2n");
    const auto amplitude = ParsePoint("--breathing-amplitude", o.breathingAmplitude, 3);
    const auto moving = ParseEllipsoidIndices(o.breathingEllipsoids);
    for (const unsigned int i : moving)
      if (i >= phantom->GetEllipsoids().size())
        Bad("--breathing-ellipsoids", Quoted(o.breathingEllipsoids),
            "indices below the phantom's " + std::to_string(phantom->GetEllipsoids().size()) + " ellipsoids");
    const std::string phasesPath = PhasesPath(o);
    CheckOutputDirectory("--phases-output", phasesPath);
    CheckOutputsAreNotInputs({ { "--geometry", o.geometry }, { "--output", o.output }, { "--phases-output", phasesPath } },
                             { { "--phantom", o.phantom, false } });
    breathing = cbct::BreathingPhantom::New();
    breathing->SetPhantom(phantom);
    try
    {
      breathing->SetMovingEllipsoids(moving);
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--breathing-ellipsoids " + o.breathingEllipsoids + ": " + WithoutItkPrefix(e.GetDescription()));
    }
    breathing->SetAmplitude({ { amplitude[0], amplitude[1], amplitude[2] } });
    breathing->SetWaveformExponent(o.breathingExponent);
    const auto count = static_cast<unsigned int>(o.projections);
    phases = o.breathingIrregularity > 0.
               ? cbct::BreathingPhantom::IrregularScanPhases(count, o.breathingCycles, o.breathingIrregularity,
                                                             static_cast<std::uint32_t>(o.seed), o.breathingFirstPhase)
               : cbct::BreathingPhantom::ScanPhases(count, o.breathingCycles, o.breathingFirstPhase);
  }
  if (!std::isfinite(o.detectorRadius) || o.detectorRadius < 0.)
    Bad("--detector-radius", o.detectorRadius, "the radius of a cylindrical detector in mm (e.g. --sdd: centred on the "
                                               "source), or 0 for a flat panel");
  if (o.detectorRadius != 0. && o.sdd == 0.)
    throw Error("--detector-radius: a cylindrical detector is a cone-beam scanner's; --sdd 0 is parallel beam (give --sdd > 0)");
  if (o.helical != 0. && o.sdd == 0.)
    throw Error("--helical: simulates a cone-beam helix; --sdd 0 is parallel beam (give --sdd > 0)");
  if (o.helical != 0. && o.emission)
    throw Error("--helical: simulates an X-ray scanner's helix; --emission simulates a SPECT circle (give one or the other)");
  CheckProjectorAndHardware("joseph", 0., o.hardware);
  if (!o.emission && o.hardware != "cpu")
    throw Error("--hardware " + o.hardware + ": only --emission runs on the GPU (exact projections are computed on the CPU)");
  {
    MemoryNeed need;
    need.Add("projections", FloatBytes(std::uint64_t(size[0]) * size[1] * static_cast<std::uint64_t>(o.projections)));
    need.remedy = "give fewer projections (--nproj) or a smaller detector (--detector-size)";
    CheckMemory("the simulation", need);
  }

  // Projection k at first + k * arc / nproj, as RTK's rtksimulatedgeometry. A helix moves the source
  // and the detector together along y (the table moving the patient the other way), as RTK writes it:
  // the table position added to SourceOffsetY and ProjectionOffsetY, centred on y = 0 over the scan.
  auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
  try
  {
    geometry->SetRadiusCylindricalDetector(o.detectorRadius);
    // Checked against the first projection before any work (each projection is checked as it is added).
    geometry->AddProjection(o.sid, o.sdd, o.firstAngle, o.offsetX, o.offsetY, 0., 0., o.sourceOffsetX, o.sourceOffsetY);
    geometry->Clear();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--detector-radius: " + WithoutItkPrefix(e.GetDescription()));
  }
  const auto count = static_cast<unsigned int>(o.projections);
  const double feed = o.helical * size[1] * spacing[1] * (o.sdd > 0. ? o.sid / o.sdd : 1.); // mm per turn
  const double travel = feed * (count - 1.) * o.arc / count / 360.;
  for (unsigned int k = 0; k < count; ++k)
  {
    const double table = feed * k * o.arc / count / 360. - 0.5 * travel;
    geometry->AddProjection(o.sid, o.sdd, o.firstAngle + k * o.arc / count, o.offsetX, o.offsetY + table,
                            o.outOfPlaneAngle, o.inPlaneAngle, o.sourceOffsetX, o.sourceOffsetY + table);
  }
  if (!wobble.empty())
    geometry = cbct::OrbitWobble::Apply(geometry, wobble[0], wobble[1], static_cast<std::uint32_t>(o.seed));
  auto geometryWriter = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
  geometryWriter->SetFilename(o.geometry);
  geometryWriter->SetObject(geometry);
  geometryWriter->SetProtectedFiles(InputFiles());
  try
  {
    geometryWriter->WriteFile(); // beside its place, renamed into place when complete
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--geometry " + o.geometry + ": could not write the file (" + WithoutItkPrefix(e.GetDescription()) + ")");
  }
  if (o.verbose)
    std::cout << "cbct-simulate: geometry: " << count << (o.sdd == 0. ? " parallel" : "") << " projections from "
              << o.firstAngle << " deg over " << o.arc
              << " deg, SID " << o.sid << " mm, SDD " << o.sdd << " mm, detector offset (" << o.offsetX << ", "
              << o.offsetY << ") mm, source offset (" << o.sourceOffsetX << ", " << o.sourceOffsetY << ") mm"
              << (wobble.empty() ? "" : ", wobbling by up to ") << (wobble.empty() ? "" : o.wobble)
              << (wobble.empty() ? "" : " (mm, deg; seed " + std::to_string(o.seed) + ")") << " -> " << o.geometry << std::endl;
  if (o.verbose && o.helical > 0.)
    std::cout << "cbct-simulate: helical pitch " << o.helical << ": " << feed << " mm per turn over " << o.arc / 360.
              << " turns, the source from y = " << o.sourceOffsetY - 0.5 * travel << " to " << o.sourceOffsetY + 0.5 * travel
              << " mm" << std::endl;

  // The detector grid: u, v centred on the detector's origin (offsets are in the geometry), one
  // slice per projection.
  ImageType::SizeType imageSize{ { size[0], size[1], count } };
  ImageType::SpacingType imageSpacing;
  imageSpacing[0] = spacing[0];
  imageSpacing[1] = spacing[1];
  imageSpacing[2] = 1.;
  ImageType::PointType origin;
  origin[0] = -0.5 * (size[0] - 1.) * spacing[0];
  origin[1] = -0.5 * (size[1] - 1.) * spacing[1];
  origin[2] = 0.;
  std::ostringstream what;
  if (o.phantom == "shepplogan")
    what << "Shepp-Logan, scale " << o.phantomScale << " mm";
  else if (o.phantom == "beads")
    what << "bead phantom: " << cbct::BeadPhantom::New()->Summary();
  else
    what << o.phantom;
  Stopwatch clock;
  ImageType::Pointer projections;
  if (breathing)
  {
    auto source = cbct::BreathingPhantomProjectionSource<ImageType>::New();
    source->SetSize(imageSize);
    source->SetSpacing(imageSpacing);
    source->SetOrigin(origin);
    source->SetGeometry(geometry);
    source->SetBreathingPhantom(breathing);
    source->SetPhases(phases);
    auto bar = ProgressBar::Attach(source, "projecting");
    source->Update();
    projections = source->GetOutput();
    if (o.verbose)
    {
      const auto & a = breathing->GetAmplitude();
      std::cout << "cbct-simulate: breathing: " << o.breathingCycles << " cycles"
                << (o.breathingIrregularity > 0. ? " of irregular length (+-" + std::to_string(o.breathingIrregularity) +
                                                     ", seed " + std::to_string(o.seed) + ")"
                                                 : std::string())
                << ", ellipsoids " << (o.breathingEllipsoids.empty() ? std::string("all") : o.breathingEllipsoids)
                << " moved by (" << a[0] << ", " << a[1] << ", " << a[2] << ") mm * sin^" << 2. * o.breathingExponent
                << "(pi phase), phase 0 = end-exhale; projected " << what.str() << " onto " << size[0] << " x "
                << size[1] << " pixels of " << spacing[0] << " x " << spacing[1] << " mm x " << count
                << " projections (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    }
  }
  else if (!o.emission)
  {
    auto source = cbct::PhantomProjectionSource<ImageType>::New();
    source->SetSize(imageSize);
    source->SetSpacing(imageSpacing);
    source->SetOrigin(origin);
    source->SetGeometry(geometry);
    source->SetPhantom(phantom);
    auto bar = ProgressBar::Attach(source, "projecting");
    source->Update();
    projections = source->GetOutput();
    if (o.verbose)
      std::cout << "cbct-simulate: projected " << phantom->GetEllipsoids().size() << " solids (" << what.str()
                << ") onto " << size[0] << " x " << size[1] << " pixels of " << spacing[0] << " x " << spacing[1]
                << " mm x " << count << " projections (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
  }
  else
  {
    const ImageType * grid = emissionGrid.GetPointer();
    auto activity = Voxelize(phantom, grid);
    if (mu && !o.muOutput.empty())
      WriteImage("--mu-output", mu.GetPointer(), o.muOutput);
    const auto g = grid->GetLargestPossibleRegion().GetSize();
    if (o.verbose)
      std::cout << "cbct-simulate: emission: activity " << what.str() << ", attenuation "
                << (muPhantom ? o.muPhantom : std::string("none")) << ", voxelized on " << g[0] << " x " << g[1] << " x "
                << g[2] << " voxels of " << grid->GetSpacing()[0] << " x " << grid->GetSpacing()[1] << " x "
                << grid->GetSpacing()[2] << " mm (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    clock.Restart();
    auto detector = cbct::ConstantImageSource<ImageType>::New();
    detector->SetSize(imageSize);
    detector->SetSpacing(imageSpacing);
    detector->SetOrigin(origin);
    // The CUDA twin derives from ForwardProjectionImageFilter (with the emission projector chosen).
    cbct::ForwardProjectionImageFilter<ImageType>::Pointer forward;
#if CBCT_USE_CUDA
    if (o.hardware == "cuda")
      forward = cbct::CudaEmissionForwardProjectionImageFilter<ImageType>::New().GetPointer();
    else
#endif
      forward = cbct::EmissionForwardProjectionImageFilter<ImageType>::New();
    forward->SetInput(0, detector->GetOutput());
    forward->SetVolume(activity);
    forward->SetAttenuationMap(mu);
    forward->SetCollimatorBlur(blur);
    forward->SetGeometry(geometry);
    auto bar = ProgressBar::Attach(forward, "projecting");
    forward->Update();
    projections = forward->GetOutput();
    if (o.verbose)
      std::cout << "cbct-simulate: emission projections onto " << size[0] << " x " << size[1] << " pixels of " << spacing[0]
                << " x " << spacing[1] << " mm x " << count << " projections, "
                << (blur.IsOn() ? "collimator blur sigma(d) = " + std::to_string(blur.sigma0) + " + " +
                                    std::to_string(blur.slope) + " d mm"
                                : std::string("no collimator blur"))
                << ", " << (o.hardware == "cuda" ? "CUDA" : "CPU") << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
    if (o.poisson)
    {
      clock.Restart();
      auto noise = cbct::PoissonNoiseImageFilter<ImageType>::New();
      noise->SetInput(projections);
      noise->SetSeed(static_cast<std::uint64_t>(o.seed));
      try
      {
        noise->Update();
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error("--phantom " + o.phantom + ": " + WithoutItkPrefix(e.GetDescription()) + " (activity must be >= 0)");
      }
      projections = noise->GetOutput();
      if (o.verbose)
      {
        double total = 0.;
        const float * p = projections->GetBufferPointer();
        for (std::size_t i = 0; i < projections->GetBufferedRegion().GetNumberOfPixels(); ++i)
          total += p[i];
        std::cout << "cbct-simulate: Poisson noise, seed " << o.seed << ": " << total << " counts in all ("
                  << FormatSeconds(clock.Seconds()) << ")" << std::endl;
      }
    }
  }
  if (!columnGains.empty())
  {
    // A column whose gain is 1 + g reads (1 + g) times the signal: its line integrals lose ln(1 + g),
    // in every row and projection (the readings below are made from them).
    const auto & region = projections->GetBufferedRegion();
    float * p = projections->GetBufferPointer();
    for (const auto & [column, gain] : columnGains)
    {
      const auto offset = static_cast<float>(std::log1p(gain));
      for (std::size_t line = 0; line < region.GetSize(1) * region.GetSize(2); ++line)
        p[line * region.GetSize(0) + column] -= offset;
    }
    if (o.verbose)
      std::cout << "cbct-simulate: " << columnGains.size() << " detector column(s) with a gain off" << std::endl;
  }
  clock.Restart();
  if (o.i0 > 0.)
  {
    // Detector readings in 16 bits: (I0 - Idark) exp(-p) + Idark, Poisson draws with --poisson.
    using CountImage = itk::Image<unsigned short, 3>;
    auto readings = cbct::LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
    readings->SetInput(projections);
    readings->SetI0(o.i0);
    readings->SetIDark(o.dark);
    readings->SetPoissonNoise(o.poisson);
    readings->SetSeed(static_cast<std::uint64_t>(o.seed));
    readings->Update();
    if (o.verbose)
      std::cout << "cbct-simulate: detector readings in 16 bits, I0 " << o.i0 << ", Idark " << o.dark
                << (o.poisson ? ", Poisson noise (seed " + std::to_string(o.seed) + ")" : ", no noise") << std::endl;
    WriteImage("--output", readings->GetOutput(), o.output);
  }
  else
    WriteImage("--output", projections.GetPointer(), o.output);
  if (!o.phantomOutput.empty())
  {
    try
    {
      phantom->WriteToFile(o.phantomOutput, "cbct-simulate --phantom " + o.phantom + ": " + std::to_string(phantom->GetEllipsoids().size()) +
                                              " solids (densities per mm, lengths in mm; cbctGeometricPhantom.h)");
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--phantom-output " + o.phantomOutput + ": could not write the file (" + WithoutItkPrefix(e.GetDescription()) + ")");
    }
    if (o.verbose)
      std::cout << "cbct-simulate: wrote the phantom's description to " << o.phantomOutput << std::endl;
  }
  if (breathing)
  {
    try
    {
      cbct::PhaseSignal::Write(PhasesPath(o), phases); // atomic: appears only when complete
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--phases-output " + PhasesPath(o) + ": could not write the file (" + WithoutItkPrefix(e.GetDescription()) + ")");
    }
    if (o.verbose)
      std::cout << "cbct-simulate: wrote the phase of each projection to " << PhasesPath(o) << std::endl;
  }
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
  CLI::App app{ "Makes a circular cone-beam (or, with --sdd 0, parallel) scan geometry (RTK XML) and the exact line "
                "integrals of a phantom (ray-ellipsoid and ray-cylinder intersection) for every projection; --wobble makes "
                "the orbit wobble.\n"
                "Projection k is taken at gantry angle first-angle + k * arc / nproj. The projection stack has "
                "U x V x nproj pixels of spacing (s, s, 1) with u and v centred on the detector's origin. --i0 writes "
                "16-bit detector readings instead of line integrals (--idark, --poisson noise with --seed).\n"
                "--emission simulates SPECT instead: --phantom is the activity (per mm^3) and --mu-phantom the "
                "attenuation (mu per mm), both voxelized on --volume-dimension x --volume-spacing (2 x 2 x 2 samples "
                "per voxel) and projected with the emission projector (attenuation, --psf collimator blur), then "
                "--poisson draws counts (the projections are the expected counts) with --seed.",
                "cbct-simulate" };
  app.add_option("-g,--geometry", o.geometry, "Output geometry file (RTK ThreeDCircularGeometry XML)")->required();
  app.add_option("-o,--output", o.output, "Output projections (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_option("--nproj", o.projections, "Number of projections")->capture_default_str();
  app.add_option("--first-angle", o.firstAngle, "Gantry angle of the first projection (degrees)")->capture_default_str();
  app.add_option("--arc", o.arc, "Angular arc covered by the projections (degrees, (0, 360]; with --helical 360 per turn)")
    ->capture_default_str();
  app.add_option("--sid", o.sid, "Source-to-isocenter distance (mm)")->capture_default_str();
  app.add_option("--sdd", o.sdd, "Source-to-detector distance (mm); 0: parallel beam (RTK's convention; then --sid is the "
                                 "detector's distance from the rotation axis, SPECT's radius of rotation)")
    ->capture_default_str();
  app.add_option("--proj-offset-x", o.offsetX, "Detector offset along u (mm)")->capture_default_str();
  app.add_option("--proj-offset-y", o.offsetY, "Detector offset along v (mm)")->capture_default_str();
  app.add_option("--source-offset-x", o.sourceOffsetX, "Source offset along u (mm, RTK's SourceOffsetX)")
    ->capture_default_str();
  app.add_option("--in-angle", o.inPlaneAngle, "Detector roll about the beam (degrees, RTK's InPlaneAngle): the "
                                               "rotation axis leans across the detector's rows")
    ->capture_default_str();
  app.add_option("--out-angle", o.outOfPlaneAngle, "Tilt of the source-detector plane against the rotation axis "
                                                   "(degrees, RTK's OutOfPlaneAngle)")
    ->capture_default_str();
  app.add_option("--source-offset-y", o.sourceOffsetY, "Source offset along v (mm, RTK's SourceOffsetY)")
    ->capture_default_str();
  app.add_option("--helical", o.helical, "A helical scan of pitch factor PITCH in (0, 2]: the source and the detector move "
                                         "along the rotation axis (y) by PITCH times the detector's height at the isocentre "
                                         "(rows x pixel height x SID / SDD) per turn, centred on y = 0 (RTK's helix: the "
                                         "table position in SourceOffsetY and ProjectionOffsetY); --arc gives the turns. "
                                         "0: a circular scan")
    ->capture_default_str();
  app.add_option("--wobble", o.wobble, "A wobbling orbit (a C-arm's): SOURCE_MM,ANGLE_DEGREES, each projection's source "
                                       "and detector moved by up to SOURCE_MM along each axis and its gantry, out-of-plane "
                                       "and in-plane angles by up to ANGLE_DEGREES, uniformly at random from --seed; the "
                                       "geometry written has each projection's parameters");
  app.add_option("--detector-radius", o.detectorRadius,
                 "A cylindrical detector of this radius (mm; RTK's RadiusCylindricalDetector): the panel bent about an axis "
                 "parallel to v, u the arc length; --sdd centres it on the source, as a CT scanner's. 0: a flat panel")
    ->capture_default_str();
  app.add_option("--detector-size", o.detectorSize, "Detector pixels: N or U,V")->capture_default_str();
  app.add_option("--detector-spacing", o.detectorSpacing, "Detector pixel size (mm): s or U,V")->capture_default_str();
  app.add_option("--phantom", o.phantom, "'shepplogan', 'beads' (a geometry calibration phantom: 24 steel beads of 1 and "
                                         "2 mm on a helix in a PMMA cylinder, see cbctBeadPhantom.h) or a phantom text "
                                         "file of ellipsoids, cylinders and beads (see cbctGeometricPhantom.h)")
    ->capture_default_str();
  app.add_option("--phantom-output", o.phantomOutput, "Write the phantom as a text file (the bead phantom's description "
                                                      "that cbct-calibrate --method beads reads)");
  app.add_option("--phantom-scale", o.phantomScale, "Scale of the Shepp-Logan phantom (mm)")->capture_default_str();
  app.add_option("--phantom-density", o.phantomDensity, "Factor on every density of the phantom (e.g. 0.02: the "
                                                       "Shepp-Logan head in attenuation per mm, near water)")
    ->capture_default_str();
  app.add_option("--i0", o.i0, "Write detector readings instead of line integrals: 16-bit intensities, I0 through air "
                               "(0: line integrals)")
    ->capture_default_str();
  app.add_option("--idark", o.dark, "Intensity with the beam off, added to the readings (with --i0)")->capture_default_str();
  app.add_option("--column-gains", o.columnGains, "Detector columns whose gain is off, U:G pairs (column U reads 1 + G "
                                                  "times the signal, e.g. 100:0.02,140:-0.01): the stripes that make "
                                                  "rings (--rings in the reconstruction apps removes them)");
    app.add_flag("--emission", o.emission, "Emission projections (SPECT) of the activity --phantom through --mu-phantom");
  app.add_option("--mu-phantom", o.muPhantom, "With --emission: the attenuation phantom, an ellipsoid file of mu per mm "
                                              "(or 'shepplogan'); none: no attenuation");
  app.add_option("--mu-output", o.muOutput, "With --mu-phantom: write the voxelized attenuation map (for cbct-osem "
                                            "--attenuation)");
  app.add_option("--psf", o.psf, "With --emission: collimator blur SIGMA0,SLOPE, a Gaussian of sigma(d) = SIGMA0 + SLOPE d "
                                 "mm for activity d mm from the detector");
  app.add_flag("--poisson", o.poisson, "Poisson noise: on the readings (with --i0), or counts drawn around the expected "
                                       "counts (with --emission)");
  app.add_option("--seed", o.seed, "Seed of --poisson, --breathing-irregularity and --wobble (the same seed gives the same "
                                 "readings, counts, cycles or orbit on any machine)")
    ->capture_default_str();
  app.add_option("--volume-dimension", o.volumeDimension, "With --emission: voxels of the grid the phantoms are voxelized "
                                                          "on, N or X,Y,Z (default: covering the detector)");
  app.add_option("--volume-spacing", o.volumeSpacing, "With --emission: voxel size of that grid (mm), s or X,Y,Z (default: "
                                                      "the smallest detector pixel)");
  app.add_option("--hardware", o.hardware, "With --emission: cpu or cuda (a CUDA build and device)")->capture_default_str();
  app.add_flag("--breathing", o.breathing, "A breathing patient (4D CBCT): the --breathing-ellipsoids of the phantom "
                                           "move by AMPLITUDE * sin^2n(pi phase) in each projection (phase 0 = end-exhale, "
                                           "at rest; 0.5 = end-inhale), and the phase of each projection is written to "
                                           "--phases-output (one value in [0, 1) per line, RTK's signal file)");
  app.add_option("--breathing-cycles", o.breathingCycles, "With --breathing: breathing cycles during the scan")
    ->capture_default_str();
  app.add_option("--breathing-amplitude", o.breathingAmplitude, "With --breathing: displacement X,Y,Z at end-inhale (mm; "
                                                                "y is cranio-caudal)")
    ->capture_default_str();
  app.add_option("--breathing-ellipsoids", o.breathingEllipsoids, "With --breathing: indices i,j,... of the moving "
                                                                  "ellipsoids, from 0 in the phantom's order (default: all; "
                                                                  "Shepp-Logan: 0 and 1 are the skull)");
  app.add_option("--breathing-exponent", o.breathingExponent, "With --breathing: n of the waveform sin^2n (1: sinusoidal; "
                                                              "2 or 3: longer at exhale, Lujan's model)")
    ->capture_default_str();
  app.add_option("--breathing-first-phase", o.breathingFirstPhase, "With --breathing: phase of the first projection, [0, 1)")
    ->capture_default_str();
  app.add_option("--breathing-irregularity", o.breathingIrregularity, "With --breathing: each cycle lasts (1 + r) times the "
                                                                      "mean, r uniform in +-this fraction, drawn from --seed "
                                                                      "(0: regular)")
    ->capture_default_str();
  app.add_option("--phases-output", o.phasesOutput, "With --breathing: the phases file (default: OUTPUT without its "
                                                    "extension + _phases.txt)");
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and how long it takes");
  AddCommonOptions(app, o.threads);
  DescribeForSlicer("CBCT Simulate Projections", {
    { "--geometry", SlicerIo("file", "output", "Output", ".xml") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--nproj", SlicerRange("Scan", "1", "10000", "1") },
    { "--first-angle", SlicerRange("Scan", "-360", "360", "1") },
    { "--arc", SlicerRange("Scan", "0", "360000", "1") },
    { "--helical", SlicerRange("Scan", "0", "2", "0.1") },
    { "--detector-radius", SlicerRange("Detector", "0", "100000", "10") },
    { "--sid", SlicerRange("Scan", "0", "100000", "10") },
    { "--sdd", SlicerRange("Scan", "0", "100000", "10") },
    { "--proj-offset-x", SlicerIn("Detector") },
    { "--proj-offset-y", SlicerIn("Detector") },
    { "--source-offset-x", SlicerIn("Scan") },
    { "--source-offset-y", SlicerIn("Scan") },
    { "--wobble", SlicerIn("Scan", "double-vector") },
    { "--in-angle", SlicerIn("Scan") },
    { "--out-angle", SlicerIn("Scan") },
    { "--detector-size", SlicerIn("Detector", "integer-vector") },
    { "--detector-spacing", SlicerIn("Detector", "double-vector") },
    { "--phantom", SlicerIn("Phantom") },
    { "--phantom-scale", SlicerRange("Phantom", "0", "10000", "1") },
    { "--phantom-output", SlicerIo("file", "output", "Phantom", ".txt") },
    { "--phantom-density", SlicerRange("Phantom", "-1000", "1000", "0.01") },
    { "--i0", SlicerRange("Readings", "0", "65535", "1") },
    { "--idark", SlicerRange("Readings", "0", "65535", "1") },
    { "--column-gains", SlicerIn("Detector") },
    { "--emission", SlicerIn("Emission") },
    { "--mu-phantom", SlicerIn("Emission") },
    { "--mu-output", SlicerIo("image", "output", "Emission") },
    { "--psf", SlicerIn("Emission", "double-vector") },
    { "--poisson", SlicerIn("Emission") },
    { "--seed", SlicerRange("Emission", "0", "4294967295", "1") },
    { "--volume-dimension", SlicerIn("Emission", "integer-vector") },
    { "--volume-spacing", SlicerIn("Emission", "double-vector") },
    { "--breathing", SlicerIn("Breathing") },
    { "--breathing-cycles", SlicerRange("Breathing", "0", "10000", "1") },
    { "--breathing-amplitude", SlicerIn("Breathing", "double-vector") },
    { "--breathing-ellipsoids", SlicerIn("Breathing", "integer-vector") },
    { "--breathing-exponent", SlicerRange("Breathing", "0", "10", "0.5") },
    { "--breathing-first-phase", SlicerRange("Breathing", "0", "1", "0.01") },
    { "--breathing-irregularity", SlicerRange("Breathing", "0", "1", "0.05") },
    { "--phases-output", SlicerIo("file", "output", "Breathing", ".txt") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "cpu", "cuda" }) },
    { "--verbose", SlicerIn("Advanced") },
  });
  return Run(app, argc, argv, [&] { return Simulate(o); });
}
