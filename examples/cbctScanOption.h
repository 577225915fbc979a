#ifndef cbctScanOption_h
#define cbctScanOption_h

// --scan DIR for the apps that read projections (cbct-fdk and the iterative apps): a vendor's scan
// (cbct::ScanImporter: Varian, Elekta, Nikon, Bruker), read as line integrals with the vendor's
// calibration, in place of --geometry and --projections (or --path/--regexp). Included by
// cbctProjectionFiles.h, whose functions turn to the scan when the options' `scan` is set:
// ValidateProjectionOptions(), ProjectionFiles(), InspectProjections(), ReadProjections(),
// ReadGeometry(o). An options struct without a `scan` field reads files as before (ScanPath() is
// then empty). --air-fallback and --air-fallback-i0 (AddScanImportOptions(), added with --scan and by
// cbct-import) pass cbct::ScanImporter::Options to the vendor's reader.
#include "cbctAppSupport.h"
#include "cbctGeometryCalibration.h"
#include "cbctMissingAirScanError.h"
#include "cbctScanImporter.h"

#include <cmath>
#include <map>
#include <type_traits>
#include <utility>

namespace cbct::apps
{

template <typename TOptions, typename = void>
struct HasScanOption : std::false_type
{};
template <typename TOptions>
struct HasScanOption<TOptions, std::void_t<decltype(std::declval<const TOptions &>().scan)>> : std::true_type
{};

/** The options' --scan, or empty (also for options without one). */
template <typename TOptions>
std::string
ScanPath(const TOptions & o)
{
  if constexpr (HasScanOption<TOptions>::value)
    return o.scan;
  else
    return std::string();
}

/** The choices given to the vendor's reader (cbct::ScanImporter::Options), from --air-fallback and
 * --air-fallback-i0: one set per process, shared by cbct-import and the apps' --scan. */
struct ScanImportChoices
{
  bool airFallback = false;
  double airFallbackI0 = 0.;
  bool calibrate = false; // --calibrate: the scan's geometry found from its projections
};
inline ScanImportChoices &
ScanImportSettings()
{
  static ScanImportChoices choices;
  return choices;
}

/** Adds --air-fallback and --air-fallback-i0 (cbct-import, and the apps' --scan through AddScanOption()). */
inline void
AddScanImportOptions(CLI::App & app)
{
  ScanImportChoices & choices = ScanImportSettings();
  app.add_flag("--air-fallback", choices.airFallback,
               "Varian (TrueBeam, OBI): a scan without an air scan under Calibrations/ is normalised with a constant I0 "
               "(--air-fallback-i0) instead of refused: p = log(I0 / (reading x mean norm chamber / norm chamber)); "
               "said in --verbose's log");
  app.add_option("--air-fallback-i0", choices.airFallbackI0,
                 "The I0 of --air-fallback, counts at the scan's mean norm-chamber reading (0: the brightest reading of "
                 "the scan, taken as unattenuated)")
    ->default_val(0.);
  SlicerModule().parameters["--air-fallback"] = SlicerIn("Input");
  SlicerModule().parameters["--air-fallback-i0"] = SlicerIn("Input");
}

/** The checked choices as ScanImporter's options; `option` names the scan's option in messages. */
inline cbct::ScanImporter::Options
ScanImporterOptions(const std::string & option)
{
  const ScanImportChoices & choices = ScanImportSettings();
  if (!std::isfinite(choices.airFallbackI0) || choices.airFallbackI0 < 0.)
    Bad("--air-fallback-i0", choices.airFallbackI0, "a finite I0 >= 0 (0: the scan's brightest reading)");
  if (choices.airFallbackI0 > 0. && !choices.airFallback)
    throw Error("--air-fallback-i0 without --air-fallback: the I0 is that of the fallback; add --air-fallback");
  if (choices.airFallback && option.empty())
    throw Error("--air-fallback without --scan: the fallback applies to a scanner's scan");
  cbct::ScanImporter::Options options;
  options.airScanFallback = choices.airFallback;
  options.fallbackI0 = choices.airFallbackI0;
  return options;
}

/** A scan reader's error as the apps say it: its message, and where the readings lack their air scan
 * (cbct::MissingAirScanError: the library names what it looked for), how to ask for the fallback on
 * the command line; `more` adds the app's own way out (cbct-import: --raw). */
inline std::string
ScanErrorText(const itk::ExceptionObject & e, const std::string & more = std::string())
{
  std::string text = WithoutItkPrefix(e.GetDescription());
  if (dynamic_cast<const cbct::MissingAirScanError *>(&e) != nullptr)
    text += ". To normalise with a constant I0 instead, add --air-fallback (I0: the scan's brightest reading, or "
            "--air-fallback-i0 I0, in counts at the scan's mean norm-chamber reading)" +
            more;
  return text;
}

/** The scan at `path`, opened once per process (headers and geometry files; no pixels). */
inline cbct::ScannerScan::Pointer
OpenScan(const std::string & path)
{
  static std::map<std::string, cbct::ScannerScan::Pointer> opened;
  auto found = opened.find(path);
  if (found != opened.end())
    return found->second;
  cbct::ScannerScan::Pointer scan;
  try
  {
    scan = cbct::ScanImporter::Open(path, "", ScanImporterOptions("--scan"));
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--scan " + path + ": " + ScanErrorText(e));
  }
  for (const std::string & file : scan->ProjectionFiles())
    RememberInput(file);
  return opened.emplace(path, scan).first->second;
}

/** Adds --calibrate (cbct-import, and the apps' --scan): the scan's rotation axis found from its own
 * projections (cbct::GeometryCalibration, auto: the offset and the roll) before the geometry is used. */
inline void
AddCalibrateOption(CLI::App & app)
{
  app.add_flag("--calibrate", ScanImportSettings().calibrate,
               "Find the rotation axis from the scan's own projections (offset along u and detector roll: opposite "
               "views refined by the sharpness of FDK slices, as cbct-calibrate --method auto) and use the corrected "
               "geometry; a fit the data cannot give is an error");
  SlicerModule().parameters["--calibrate"] = SlicerIn("Input");
}

/** The geometry of `stack` (line integrals) calibrated from it (GeometryCalibration, auto, offset and
 * roll; CUDA when there is a device), the fit printed on stdout as "NAME: calibrated: ...", its warnings
 * on stderr, and with `log` every step. `what` names the input in messages. */
inline cbct::ThreeDCircularProjectionGeometry::Pointer
CalibratedGeometry(const cbct::ThreeDCircularProjectionGeometry * nominal, const itk::Image<float, 3> * stack,
                   const std::string & what, std::ostream * log)
{
  auto calibration = cbct::GeometryCalibration::New();
  calibration->SetProjections(stack);
  calibration->SetGeometry(nominal);
  calibration->SetComputeCurves(false);
  if (cbct::CalibrationSliceReconstructor::CudaAvailable())
    calibration->SetHardware(cbct::CalibrationSliceReconstructor::Hardware::Cuda);
  if (log)
    calibration->SetLog([log](const std::string & line) { *log << AppName() << ": calibration: " << line << std::endl; });
  cbct::GeometryCalibrationResult result;
  Stopwatch clock;
  try
  {
    result = calibration->Compute();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--calibrate: could not calibrate " + what + ": " + WithoutItkPrefix(e.GetDescription()) +
                " (without --calibrate the scan's own geometry is used)");
  }
  for (const std::string & warning : result.warnings)
    PrintWarning("--calibrate: " + warning);
  for (const std::string & line : result.Describe())
    std::cout << AppName() << ": calibrated: " << line << std::endl;
  if (log)
    *log << AppName() << ": calibration: " << result.method << " in " << FormatSeconds(clock.Seconds()) << std::endl;
  return result.geometry;
}

/** The line integrals of --scan read for --calibrate, kept for ReadScanProjections() (read once). */
inline std::map<std::string, cbct::ScannerScan::ProjectionsType::Pointer> &
ScanStacksReadForCalibration()
{
  static std::map<std::string, cbct::ScannerScan::ProjectionsType::Pointer> stacks;
  return stacks;
}

/** The geometry of the scan at `path`: the vendor's, or with --calibrate the one found from its
 * projections (once per process). */
inline cbct::ThreeDCircularProjectionGeometry::Pointer
ScanGeometry(const std::string & path)
{
  if (!ScanImportSettings().calibrate)
    return OpenScan(path)->Geometry();
  static std::map<std::string, cbct::ThreeDCircularProjectionGeometry::Pointer> calibrated;
  auto found = calibrated.find(path);
  if (found != calibrated.end())
    return found->second;
  cbct::ScannerScan::ProjectionsType::Pointer stack;
  try
  {
    stack = cbct::ScanImporter::ReadLineIntegrals(OpenScan(path));
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--scan " + path + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  ScanStacksReadForCalibration()[path] = stack;
  const auto geometry = CalibratedGeometry(OpenScan(path)->Geometry(), stack, "--scan " + path, nullptr);
  return calibrated.emplace(path, geometry).first->second;
}

/** Adds --scan to `app` (the apps that read projections), with --calibrate and the import options. */
inline void
AddScanOption(CLI::App & app, std::string & scan)
{
  app.add_option("--scan", scan, "A scanner's scan folder or file (Varian, Elekta XVI, Nikon, Bruker: see cbct-import), "
                                 "read as line integrals with its geometry, in place of --geometry and --projections");
  SlicerModule().parameters["--scan"] = SlicerIo("directory", "input", "Input");
  AddScanImportOptions(app);
  AddCalibrateOption(app);
}

/** With --scan: refuses the options that the scan replaces or that do not apply to line integrals,
 * opens the scan and checks the output against its files. Returns false without --scan. */
template <typename TOptions>
bool
ValidateScanOptions(TOptions & o)
{
  if constexpr (!HasScanOption<TOptions>::value)
    return false;
  else
  {
  const std::string scan = ScanPath(o);
  ScanImporterOptions(scan.empty() ? std::string() : "--scan"); // refuses --air-fallback without --scan
  if (scan.empty() && ScanImportSettings().calibrate)
    throw Error("--calibrate without --scan: it calibrates a scanner's scan; for a geometry file and projections, run "
                "cbct-calibrate first");
  if (scan.empty() && o.geometry.empty())
    throw Error("--geometry is required: give the geometry file (RTK XML), or a scanner's scan with --scan");
  if (scan.empty())
    return false;
  if (!o.projections.empty() || !o.path.empty() || !o.regexp.empty())
    throw Error("--scan and --projections/--path/--regexp: the scan brings its projections; give one or the other");
  if (!o.geometry.empty())
    throw Error("--scan and --geometry: the scan brings its geometry; give one or the other");
  if (!o.newSpacing.empty() || !o.newOrigin.empty())
    throw Error("--scan and --new-spacing/--new-origin: the scan gives its detector's grid");
  if ((o.preprocessing.i0Option && o.preprocessing.i0Option->count() > 0) ||
      (o.preprocessing.darkOption && o.preprocessing.darkOption->count() > 0))
    throw Error("--scan and --i0/--idark: the scan's projections are line integrals, its vendor's calibration "
                "applied (cbct-import --raw writes the readings, for --i0/--idark)");
  if (!itksys::SystemTools::FileExists(scan))
    Bad("--scan", Quoted(scan), "an existing scan folder or file");
  if (!o.replaceNonFinite.empty())
    throw Error("--scan and --replace-nonfinite: the scan's line integrals are finite by construction");
  o.nonFiniteReplacement.clear();
  const cbct::ScannerScan::Pointer opened = OpenScan(scan);
  // The scan's detector grid, as --new-origin would give it: the files' own origin is not the scan's.
  const auto origin = opened->DetectorOrigin();
  const auto spacing = opened->DetectorSpacing();
  o.projectionOrigin = { origin[0], origin[1] };
  o.projectionSpacing = { spacing[0], spacing[1] };
  std::vector<InputOption> inputs;
  for (const std::string & file : opened->ProjectionFiles())
    inputs.push_back({ "--scan", file, false });
  CheckOutputsAreNotInputs({ { "--output", o.output } }, inputs);
  return true;
  }
}

/** The stack of the scan's line integrals as TImage (an itk::Image<float, 3>, or a CUDA image filled
 * from it), checked finite. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
ReadScanProjections(const TOptions & o)
{
  const std::string scan = ScanPath(o);
  cbct::ScannerScan::ProjectionsType::Pointer stack;
  auto & kept = ScanStacksReadForCalibration();
  auto found = kept.find(scan);
  if (found != kept.end()) // read already by --calibrate
  {
    stack = found->second;
    kept.erase(found);
  }
  else
  try
  {
    stack = cbct::ScanImporter::ReadLineIntegrals(OpenScan(scan));
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--scan " + scan + ": " + ScanErrorText(e));
  }
  const NonFiniteValues nonFinite = FindNonFinite(stack.GetPointer());
  if (nonFinite.Count() > 0)
    throw Error("--scan " + scan + ": its line integrals hold non-finite values: " +
                nonFinite.Describe("pixel (u, v, projection)") + "; expected finite values");
  if constexpr (std::is_same_v<TImage, cbct::ScannerScan::ProjectionsType>)
    return stack;
  else
  {
    auto copy = TImage::New();
    copy->CopyInformation(stack);
    copy->SetRegions(stack->GetLargestPossibleRegion());
    copy->Allocate();
    std::copy(stack->GetBufferPointer(), stack->GetBufferPointer() + stack->GetBufferedRegion().GetNumberOfPixels(),
              copy->GetBufferPointer());
    return copy;
  }
}

/** The ProjectionInputs (cbctProjectionFiles.h) of the scan: its files, each described as the first
 * (ScanImporter refuses files of another size when it reads them). */
template <typename TInputs, typename TOptions>
TInputs
InspectScan(const TOptions & o)
{
  TInputs inputs;
  inputs.option = "--scan";
  inputs.files = OpenScan(ScanPath(o))->ProjectionFiles();
  const auto first = InspectImage("--scan", inputs.files.front());
  inputs.contents.assign(inputs.files.size(), first);
  return inputs;
}

} // namespace cbct::apps

#endif
