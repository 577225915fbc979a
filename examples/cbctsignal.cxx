// cbct-signal: the respiratory phase of each projection, from the projections themselves (the
// Amsterdam shroud and the breathing structure's motion in it) or from an external breathing signal,
// written as RTK's phase file (one value in [0, 1) per line) for the 4D reconstructions.
#include "cbctAppSupport.h"
#include "cbctBreathingSignal.h"
#include "cbctFourDAppSupport.h"
#include "cbctPhaseSignal.h"
#include "cbctProjectionFiles.h"

#include <itkImage.h>

#include <fstream>
#include <iomanip>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::apps;

struct Options : ProjectionInputOptions // read by cbct-fdk's helpers, without --scan
{
  // As given on the command line.
  std::string output;
  std::string inputSignal;  // --input-signal: an external breathing signal instead of the projections
  std::string shroud;       // --shroud: the Amsterdam shroud image
  std::string signalOutput; // --signal-output: the breathing signal, one value per line
  double sigma = 2.;
  std::string edges = "below";
  std::string method = "principal";
  long long slowHarmonics = 2;
  long long maximumStep = 2;
  std::string phaseZero = "minima";
  double period = 0.;
  double minimumRegularity = 0.5;
  int threads = 0;
  bool verbose = false;

  // Parsed by Validate().
  cbct::BreathingSignal::Options signal;
};

void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  CheckOutputDirectory("--output", o.output);
  if (!std::isfinite(o.sigma) || o.sigma < 0.)
    Bad("--sigma", o.sigma, "a Gaussian's standard deviation along v in mm >= 0 (0: none)");
  if (o.edges != "below" && o.edges != "above" && o.edges != "both")
    Bad("--edges", Quoted(o.edges), "below (denser below the edge, e.g. a diaphragm), above or both");
  if (o.method != "principal" && o.method != "edge")
    Bad("--method", Quoted(o.method), "principal (the shroud's principal motion) or edge (follow one edge)");
  if (o.slowHarmonics < 0 || o.slowHarmonics > 100)
    Bad("--slow-harmonics", o.slowHarmonics, "an integer from 0 to 100");
  if (o.maximumStep < 1 || o.maximumStep > 1000)
    Bad("--max-step", o.maximumStep, "an integer number of detector rows from 1 to 1000");
  if (o.phaseZero != "minima" && o.phaseZero != "maxima")
    Bad("--phase-zero", Quoted(o.phaseZero), "minima or maxima (which extreme of the signal is phase 0)");
  if (!std::isfinite(o.period) || o.period < 0. || (o.period > 0. && o.period < 3.))
    Bad("--period", o.period, "0 (found from the signal) or a breathing cycle's length in projections >= 3");
  if (!std::isfinite(o.minimumRegularity) || o.minimumRegularity < 0. || o.minimumRegularity > 1.)
    Bad("--min-regularity", o.minimumRegularity, "a value in [0, 1] (0: no check)");
  o.signal.sigma = o.sigma;
  o.signal.edgeDirection = o.edges == "below"   ? cbct::BreathingSignal::EdgeDirection::DenserBelow
                           : o.edges == "above" ? cbct::BreathingSignal::EdgeDirection::DenserAbove
                                                : cbct::BreathingSignal::EdgeDirection::Both;
  o.signal.method = o.method == "edge" ? cbct::BreathingSignal::Method::FollowEdge : cbct::BreathingSignal::Method::PrincipalMotion;
  o.signal.slowHarmonics = static_cast<unsigned int>(o.slowHarmonics);
  o.signal.maximumStep = static_cast<unsigned int>(o.maximumStep);
  o.signal.phaseZero = o.phaseZero == "maxima" ? cbct::BreathingSignal::PhaseZero::Maxima : cbct::BreathingSignal::PhaseZero::Minima;
  o.signal.period = o.period;
  o.signal.minimumRegularity = o.minimumRegularity;

  if (!o.shroud.empty())
    CheckImageOutput("--shroud", o.shroud);
  if (!o.signalOutput.empty())
    CheckOutputDirectory("--signal-output", o.signalOutput);
  const std::vector<std::pair<std::string, std::string>> outputs{ { "--output", o.output },
                                                                  { "--shroud", o.shroud },
                                                                  { "--signal-output", o.signalOutput } };
  if (!o.inputSignal.empty())
  {
    if (!o.projections.empty() || !o.path.empty() || !o.regexp.empty() || !o.shroud.empty())
      throw Error("--input-signal and --projections/--path/--shroud: the phases come from the external signal or "
                  "from the projections; give one or the other");
    CheckReadableFile("--input-signal", o.inputSignal, "breathing signal file");
    if (!o.geometry.empty())
      CheckReadableFile("--geometry", o.geometry, "geometry file");
    CheckOutputsAreNotInputs(outputs, { { "--input-signal", o.inputSignal, false }, { "--geometry", o.geometry, false } });
    return;
  }
  if (o.geometry.empty())
    throw Error("--geometry is required with projections (the number of projections is checked against it)");
  ValidateProjectionOptions(o); // --geometry, --projections or --path/--regexp, --new-*; --output not an input
  std::vector<InputOption> inputs{ { "--geometry", o.geometry, false } };
  for (const std::string & file : ProjectionFiles(o))
    inputs.push_back({ o.projections.empty() ? "--path/--regexp" : "--projections", file, true });
  CheckOutputsAreNotInputs(outputs, inputs);
}

/** The values one per line, with 17 significant digits, atomically. */
void
WriteValues(const std::string & option, const std::string & path, const std::vector<double> & values)
{
  WriteAtomically(option, path, [&](const std::string & temporary) {
    std::ofstream out(temporary);
    out << std::setprecision(17);
    for (const double v : values)
      out << v << '\n';
    out.close();
    if (!out)
      throw Error(option + " " + path + ": could not write the file");
  });
}

int
Signal(Options & o)
{
  Stopwatch total;
  Validate(o);
  std::vector<double> signal, phases;
  try
  {
    if (!o.inputSignal.empty())
    {
      std::size_t count = 0;
      if (!o.geometry.empty())
        count = ReadGeometry(o.geometry)->GetNumberOfProjections();
      RememberInput(o.inputSignal);
      try
      {
        signal = cbct::BreathingSignal::ReadSignal(o.inputSignal, count);
      }
      catch (const itk::ExceptionObject & e)
      {
        throw Error("--input-signal " + o.inputSignal + ": " + WithoutItkPrefix(e.GetDescription()));
      }
      phases = cbct::BreathingSignal::Phases(signal, o.signal);
      if (o.verbose)
        std::cout << "cbct-signal: read " << signal.size() << " values of a breathing signal from " << o.inputSignal << std::endl;
    }
    else
    {
      const auto geometry = ReadGeometry(o.geometry);
      Stopwatch clock;
      std::size_t files = 0;
      const auto projections = ReadProjections<ImageType>(o, files);
      const auto size = projections->GetLargestPossibleRegion().GetSize();
      if (size[2] != geometry->GetNumberOfProjections())
        Bad("--projections", std::to_string(size[2]) + " projections",
            std::to_string(geometry->GetNumberOfProjections()) + ", the number in --geometry " + o.geometry);
      if (o.verbose)
        std::cout << "cbct-signal: read " << size[0] << " x " << size[1] << " pixels x " << size[2] << " projections from "
                  << files << " file" << (files == 1 ? "" : "s") << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
      clock.Restart();
      auto result = cbct::BreathingSignal::FromProjections(projections, o.signal);
      signal = result.signal;
      phases = result.phases;
      if (o.verbose)
        std::cout << "cbct-signal: Amsterdam shroud (sigma " << o.sigma << " mm, edges " << o.edges << "), signal by "
                  << (o.method == "edge" ? "following an edge" : "principal motion") << " ("
                  << FormatSeconds(clock.Seconds()) << ")" << std::endl;
      if (!o.shroud.empty())
        WriteImage("--shroud", result.shroud.GetPointer(), o.shroud);
    }
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(std::string(o.inputSignal.empty() ? "--projections" : "--input-signal") + ": " +
                WithoutItkPrefix(e.GetDescription()));
  }
  if (o.verbose)
  {
    const double period = o.period > 0. ? o.period : cbct::BreathingSignal::DominantPeriod(signal, o.signal.slowHarmonics);
    const auto extrema = cbct::BreathingSignal::Extrema(signal, o.signal);
    std::cout << "cbct-signal: breathing cycle about " << std::setprecision(4) << period << " projections, regularity "
              << cbct::BreathingSignal::Regularity(signal, period, o.signal.slowHarmonics) << ", " << extrema.size() << " "
              << o.phaseZero << " (phase 0)" << std::setprecision(6) << std::endl;
  }
  if (!o.signalOutput.empty())
    WriteValues("--signal-output", o.signalOutput, signal);
  try
  {
    cbct::PhaseSignal::Write(o.output, phases);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--output " + o.output + ": could not write the file (" + WithoutItkPrefix(e.GetDescription()) + ")");
  }
  if (o.verbose)
    std::cout << "cbct-signal: wrote " << phases.size() << " phases to " << o.output << " (total "
              << FormatSeconds(total.Seconds()) << ")" << std::endl;
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Finds the respiratory phase of each projection and writes it as RTK's phase file (one value in [0, 1) "
                "per line, one line per projection) for cbct-fourdfdk and cbct-fourdrooster.\n"
                "From the projections (line integrals): the Amsterdam shroud (per projection, the edges across the "
                "detector rows summed along them, one column per projection; --shroud writes it), the motion of the "
                "breathing structure in it (--method principal: the centroid of the rows the shroud's principal "
                "change loads, or edge: one edge followed), and the cycles' extrema: phase 0 at each minimum of the "
                "signal (--phase-zero; v points to the head: for a diaphragm the minima are end-inhale, for "
                "cbct-simulate --breathing with a positive amplitude end-exhale), linear up to the next. "
                "--input-signal takes a breathing signal from elsewhere (a marker, a spirometer: one value per line) "
                "instead. A signal without regular cycles is refused (--min-regularity).",
                "cbct-signal" };
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK XML): the number of projections is checked against it");
  app.add_option("--projections", o.projections, "Projection stack of line integrals, one file (.mha, .nrrd, .nii, ...)");
  app.add_option("-p,--path", o.path, "Directory of the projection files (with --regexp)");
  app.add_option("-r,--regexp", o.regexp, "Regular expression selecting the projection files in --path");
  app.add_flag("--nsort", o.numericSort, "Sort the files by the numbers in their names");
  app.add_option("--submatch", o.subMatch, "Sub-match of --regexp used for sorting (0: the whole name)")->capture_default_str();
  app.add_option("--new-spacing", o.newSpacing, "Replace the projections' pixel spacing (mm): s or U,V");
  app.add_option("--new-origin", o.newOrigin, "Replace the projections' origin (mm): U,V");
  app.add_option("-o,--output", o.output, "Output phase file: one phase in [0, 1) per line")->required();
  app.add_option("--input-signal", o.inputSignal, "An external breathing signal (one value per line, one line per "
                                                  "projection) instead of the projections");
  app.add_option("--shroud", o.shroud, "Write the Amsterdam shroud (one column per projection, one row per detector row)");
  app.add_option("--signal-output", o.signalOutput, "Write the breathing signal, one value per line (mm along v)");
  app.add_option("--sigma", o.sigma, "Gaussian along v before the shroud's derivative (mm)")->capture_default_str();
  app.add_option("--edges", o.edges, "Edges the shroud keeps: below (denser below the edge: a diaphragm's dome, the "
                                     "top of a tumour), above, both")
    ->capture_default_str();
  app.add_option("--method", o.method, "principal (the centroid of the rows the shroud's principal motion loads) or edge "
                                       "(the path of one edge, dynamic programming)")
    ->capture_default_str();
  app.add_option("--slow-harmonics", o.slowHarmonics, "Harmonics of the scan removed (with the mean and a trend) from the "
                                                      "shroud's rows and the signal: the gantry's rotation")
    ->capture_default_str();
  app.add_option("--max-step", o.maximumStep, "With --method edge: rows the edge may move between projections")
    ->capture_default_str();
  app.add_option("--phase-zero", o.phaseZero, "minima or maxima of the signal at phase 0")->capture_default_str();
  app.add_option("--period", o.period, "Breathing cycle in projections (0: the signal's dominant period)")->capture_default_str();
  app.add_option("--min-regularity", o.minimumRegularity, "Least autocorrelation of the signal one cycle apart (0: no check)")
    ->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print what is done and how long it takes");
  AddNonFiniteOption(app, o.replaceNonFinite);
  AddCommonOptions(app, o.threads);
  DescribeForSlicer("CBCT Breathing Signal", {
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--projections", SlicerIo("image", "input", "Input") },
    { "--path", SlicerIo("directory", "input", "Input") },
    { "--regexp", SlicerIn("Input") },
    { "--nsort", SlicerIn("Input") },
    { "--submatch", SlicerRange("Input", "0", "99", "1") },
    { "--new-spacing", SlicerIn("Input", "double-vector") },
    { "--new-origin", SlicerIn("Input", "double-vector") },
    { "--input-signal", SlicerIo("file", "input", "Input", ".txt") },
    { "--output", SlicerIo("file", "output", "Output", ".txt") },
    { "--shroud", SlicerIo("image", "output", "Output") },
    { "--signal-output", SlicerIo("file", "output", "Output", ".txt") },
    { "--sigma", SlicerRange("Shroud", "0", "100", "0.5") },
    { "--edges", SlicerIn("Shroud", "string-enumeration", { "below", "above", "both" }) },
    { "--method", SlicerIn("Signal", "string-enumeration", { "principal", "edge" }) },
    { "--slow-harmonics", SlicerRange("Signal", "0", "100", "1") },
    { "--max-step", SlicerRange("Signal", "1", "1000", "1") },
    { "--phase-zero", SlicerIn("Phases", "string-enumeration", { "minima", "maxima" }) },
    { "--period", SlicerRange("Phases", "0", "100000", "1") },
    { "--min-regularity", SlicerRange("Phases", "0", "1", "0.05") },
    { "--verbose", SlicerIn("Advanced") },
  });
  return Run(app, argc, argv, [&] { return Signal(o); });
}
