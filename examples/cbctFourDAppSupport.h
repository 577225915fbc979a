#ifndef cbctFourDAppSupport_h
#define cbctFourDAppSupport_h

// What cbct-fourdfdk and cbct-fourdrooster share: the projection input options (cbct-fdk's, with
// shorter help texts; their fields cbct-signal's too) and their Slicer parameters, the phase file (--signal) and its reading, and
// the check of --frames; one piece of code so that both apps take and refuse them alike.
#include "cbctAppSupport.h"
#include "cbctPhaseSignal.h"
#include "cbctGridOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctScanOption.h"

#include <map>
#include <string>
#include <vector>

namespace cbct::apps
{

/** The projection input fields cbctProjectionFiles.h reads (--geometry, --projections, --path,
 * --regexp, --nsort, --submatch, --new-spacing, --new-origin, --replace-nonfinite) of cbct-fourdfdk,
 * cbct-fourdrooster and cbct-signal, whose Options derive from it; --scan, where an app has it, is
 * its own field. */
struct ProjectionInputOptions
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
  std::string replaceNonFinite;

  // Checked and parsed by ValidateProjectionOptions().
  std::vector<double> projectionSpacing;
  std::vector<double> projectionOrigin;
  std::vector<double> nonFiniteReplacement;
};

/** The projection input options (--geometry, --scan, --projections, --path, --regexp, --nsort,
 * --submatch, --new-spacing, --new-origin, --replace-nonfinite) into TOptions' fields of those
 * names, and their Slicer parameters. */
template <class TOptions>
void
AddFourDProjectionOptions(CLI::App & app, TOptions & o, std::map<std::string, SlicerParameter> & slicer)
{
  app.add_option("-g,--geometry", o.geometry, "Geometry file (RTK ThreeDCircularGeometry XML; required without --scan)");
  AddScanOption(app, o.scan);
  app.add_option("--projections", o.projections, "Projection stack, one file (.mha, .nrrd, .nii, .tif, ...)");
  app.add_option("-p,--path", o.path, "Directory of the projection files (with --regexp)");
  app.add_option("-r,--regexp", o.regexp, "Regular expression selecting the projection files in --path");
  app.add_flag("--nsort", o.numericSort, "Sort the files numerically on --submatch instead of alphabetically");
  app.add_option("--submatch", o.subMatch, "Sub-match of --regexp used for sorting (0: the whole name)")->capture_default_str();
  AddListOption(app, "--new-spacing,--newspacing", o.newSpacing, "Replace the projections' pixel spacing (mm): s or U,V");
  AddListOption(app, "--new-origin,--neworigin", o.newOrigin, "Replace the projections' origin (mm): U,V, the centre of the first pixel");
  AddNonFiniteOption(app, o.replaceNonFinite);
  slicer.insert({
    { "--geometry", SlicerIo("file", "input", "Input", ".xml") },
    { "--projections", SlicerIo("image", "input", "Input") },
    { "--path", SlicerIo("directory", "input", "Input") },
    { "--regexp", SlicerIn("Input") },
    { "--nsort", SlicerIn("Input") },
    { "--submatch", SlicerRange("Input", "0", "99", "1") },
    { "--new-spacing", SlicerIn("Input", "double-vector") },
    { "--new-origin", SlicerIn("Input", "double-vector") },
  });
}

/** --signal, the phase file (required), and its Slicer parameter. */
inline void
AddPhaseSignalOption(CLI::App & app, std::string & signal, std::map<std::string, SlicerParameter> & slicer)
{
  app.add_option("--signal", signal, "Phase file: one phase in [0, 1) per line, one line per projection (RTK's signal file)")
    ->required();
  slicer.insert({ "--signal", SlicerIo("file", "input", "Input", ".txt") });
}

/** --frames: the number of breathing phases, in [1, 1000]. */
inline void
ValidateFrames(long long frames)
{
  if (frames < 1 || frames > 1000)
    Bad("--frames", frames, "an integer number of breathing phases in [1, 1000]");
}

/** The phases of the --signal file, one per projection of the geometry (`count`). */
inline std::vector<double>
ReadPhases(const std::string & signal, unsigned int count)
{
  try
  {
    return cbct::PhaseSignal::Read(signal, count);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--signal " + signal + ": " + WithoutItkPrefix(e.GetDescription()) + " (one phase per projection of the geometry)");
  }
}

} // namespace cbct::apps

#endif
