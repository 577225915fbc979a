// cbct-calibrate: a scan's rotation axis (offset along u, detector roll, tilt) found from its own
// projections, written as a corrected RTK geometry.
#include "cbctAppSupport.h"
#include "cbctCalibrationReport.h"
#include "cbctConfiguration.h"
#include "cbctFourDAppSupport.h" // the projection input options, shared with the 4D apps
#include "cbctGeometryCalibration.h"
#include "cbctMemoryCheck.h"
#include "cbctPreprocessingOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <itkImage.h>

namespace
{
using namespace cbct::apps;
using ImageType = itk::Image<float, 3>;

struct Options : ProjectionInputOptions
{
  // As given on the command line.
  std::string scan;
  std::string output;
  std::string fit = "offset,roll";
  std::string method = "auto";
  std::string offsetAs = "stage";
  double range = 0.;
  double tiltRange = 3.;
  std::string score = "edges";
  std::string report;
  PreprocessingOptions preprocessing;
  std::string hardware = "auto";
  int threads = 0;
  bool verbose = false;

  // Checked and parsed by Validate().
  bool fitOffset = false, fitRoll = false, fitTilt = false;
  cbct::GeometryCalibration::Method calibrationMethod = cbct::GeometryCalibration::Method::Auto;
  cbct::AxisCorrection::OffsetModel model = cbct::AxisCorrection::OffsetModel::Stage;
  cbct::SharpnessScore::Measure measure = cbct::SharpnessScore::Measure::GradientEnergyPerVariation;
};

/** Checks every option before any file is read. */
void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  ValidateProjectionOptions(o);
  ValidatePreprocessingOptions(o.preprocessing);
  if (o.output.empty())
    Bad("--output", "empty", "the calibrated geometry's file (RTK XML)");
  CheckOutputDirectory("--output", o.output);
  {
    std::stringstream list(o.fit);
    std::string item;
    while (std::getline(list, item, ','))
    {
      if (item == "offset")
        o.fitOffset = true;
      else if (item == "roll")
        o.fitRoll = true;
      else if (item == "tilt")
        o.fitTilt = true;
      else
        Bad("--fit", Quoted(o.fit), "a comma-separated list of offset, roll and tilt (e.g. offset,roll)");
    }
    if (!o.fitOffset && !o.fitRoll && !o.fitTilt)
      Bad("--fit", Quoted(o.fit), "a comma-separated list of offset, roll and tilt (e.g. offset,roll)");
  }
  if (o.method != "auto" && o.method != "opposite" && o.method != "sharpness" && o.method != "beads")
    Bad("--method", Quoted(o.method), "auto, opposite, sharpness or beads");
  o.calibrationMethod = cbct::GeometryCalibration::ParseMethod(o.method);
  if (o.calibrationMethod == cbct::GeometryCalibration::Method::Beads)
    throw Error("--method beads: the bead-phantom calibration is not part of this build yet; use --method auto, "
                "opposite or sharpness on the scan's own projections");
  if (o.calibrationMethod == cbct::GeometryCalibration::Method::OppositeViews && o.fitTilt)
    Bad("--fit", Quoted(o.fit), "offset and/or roll with --method opposite (opposite views barely see the tilt: use "
                                "--method sharpness or auto for it)");
  if (o.fitRoll && !o.fitOffset)
    Bad("--fit", Quoted(o.fit), "offset with roll (the roll is found from the axis' offsets at several heights)");
  if (o.offsetAs != "stage" && o.offsetAs != "detector")
    Bad("--offset-as", Quoted(o.offsetAs), "stage (source and detector offsets: the rotation stage moved) or detector "
                                          "(the detector's offset alone)");
  o.model = o.offsetAs == "stage" ? cbct::AxisCorrection::OffsetModel::Stage : cbct::AxisCorrection::OffsetModel::Detector;
  if (!std::isfinite(o.range) || o.range < 0.)
    Bad("--range", o.range, "a half-width in detector pixels >= 0 (0: a quarter of the detector's width)");
  if (!std::isfinite(o.tiltRange) || !(o.tiltRange > 0.) || o.tiltRange > 45.)
    Bad("--tilt-range", o.tiltRange, "a half-width in degrees in (0, 45]");
  if (o.score != "edges" && o.score != "gradient" && o.score != "variance")
    Bad("--score", Quoted(o.score), "edges, gradient or variance");
  o.measure = cbct::SharpnessScore::Parse(o.score);
  if (o.hardware != "cpu" && o.hardware != "cuda" && o.hardware != "auto")
    Bad("--hardware", Quoted(o.hardware), "cpu, cuda or auto");
  if (!o.report.empty())
    CheckReportDirectory(o.report);
}

/** The hardware of the sharpness method's FDK, and a sentence for --verbose. */
cbct::CalibrationSliceReconstructor::Hardware
ChooseHardware(const Options & o, std::string & why)
{
  using Hardware = cbct::CalibrationSliceReconstructor::Hardware;
  if (o.hardware == "cpu")
  {
    why = "CPU (--hardware cpu)";
    return Hardware::Cpu;
  }
  std::string device;
  const bool available = cbct::CalibrationSliceReconstructor::CudaAvailable(&device);
  if (o.hardware == "cuda")
  {
    if (!available)
      throw Error("--hardware cuda: " + device);
    why = "CUDA (" + device + ")";
    return Hardware::Cuda;
  }
  why = available ? "CUDA (" + device + "; --hardware auto)" : "CPU (" + device + "; --hardware auto)";
  return available ? Hardware::Cuda : Hardware::Cpu;
}

int
Calibrate(Options & o)
{
  Validate(o);
  std::string why;
  const auto hardware = ChooseHardware(o, why);
  const std::string source = o.scan.empty() ? "--geometry " + o.geometry : "--scan " + o.scan;
  Stopwatch total;
  auto geometry = ReadGeometry(o);
  const ProjectionInputs inputs = InspectProjections(o);
  {
    MemoryNeed need;
    need.Add("projections", inputs.ReadingBytes());
    need.remedy = "bin the projections (--binning) or crop them (--lowercrop, --uppercrop)";
    CheckMemory("the calibration", need);
  }
  ImageType::Pointer projections = LoadProjections<ImageType>(o, inputs, "cbct-calibrate", o.verbose ? &std::cout : nullptr);
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  if (geometry->GetNumberOfProjections() != size[2])
    throw Error(source + " has " + std::to_string(geometry->GetNumberOfProjections()) + " projections; the projections hold " +
                std::to_string(size[2]));
  if (o.verbose)
    std::cout << "cbct-calibrate: " << size[0] << " x " << size[1] << " pixels of " << projections->GetSpacing()[0] << " x "
              << projections->GetSpacing()[1] << " mm x " << size[2] << " projections (" << FormatSeconds(total.Seconds())
              << "); sharpness FDK on " << why << std::endl;

  auto calibration = cbct::GeometryCalibration::New();
  calibration->SetProjections(projections);
  calibration->SetGeometry(geometry);
  calibration->SetFitOffset(o.fitOffset);
  calibration->SetFitRoll(o.fitRoll);
  calibration->SetFitTilt(o.fitTilt);
  calibration->SetMethod(o.calibrationMethod);
  calibration->SetOffsetModel(o.model);
  calibration->SetSearchRange(o.range);
  calibration->SetTiltRange(o.tiltRange);
  calibration->SetMeasure(o.measure);
  calibration->SetHardware(hardware);
  calibration->SetComputeCurves(o.verbose || !o.report.empty());
  if (o.verbose)
    calibration->SetLog([](const std::string & line) { std::cout << "cbct-calibrate: " << line << std::endl; });
  cbct::GeometryCalibrationResult result;
  Stopwatch clock;
  try
  {
    result = calibration->Compute();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("could not calibrate " + source + " (no geometry written): " + WithoutItkPrefix(e.GetDescription()));
  }
  const double seconds = clock.Seconds();
  for (const std::string & warning : result.warnings)
    PrintWarning(warning);
  for (const std::string & line : result.Describe())
    std::cout << "cbct-calibrate: " << line << std::endl;
  if (o.verbose)
    for (const auto & curve : result.curves)
    {
      std::cout << "cbct-calibrate: " << curve.parameter << " (" << curve.method << "), " << curve.score << ":";
      for (std::size_t i = 0; i < curve.values.size(); ++i)
        std::cout << " " << Number(curve.values[i]) << ":" << Number(curve.scores[i]);
      std::cout << std::endl;
    }

  WriteAtomically("--output", o.output, [&](const std::string & temporary) {
    auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
    writer->SetFilename(temporary);
    writer->SetObject(result.geometry);
    writer->WriteFile();
  });
  if (!o.report.empty())
    WriteCalibrationReport(o.report, result,
                           { "cbct-calibrate (ConeBeamCT " CBCT_VERSION ")", "nominal geometry: " + source,
                             "calibrated geometry: " + o.output, "calibration time: " + FormatSeconds(seconds) });
  std::cout << "cbct-calibrate: wrote " << o.output << " (" << result.method << ", " << FormatSeconds(seconds) << ")"
            << (o.report.empty() ? std::string() : " and the report in " + o.report) << std::endl;
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Finds a circular scan's rotation axis from its own projections and writes the corrected geometry "
                "(RTK XML): the axis' offset along u, the detector's roll about the beam (InPlaneAngle) and, when "
                "asked, the axis' tilt toward the source (OutOfPlaneAngle). Methods: opposite views (each ray and the "
                "same line measured from the other side of the orbit, registered to sub-pixel: full, short and half-fan "
                "scans), sharpness (FDK slices at several heights reconstructed for candidate axes, the sharpest "
                "kept: full and short scans), auto (opposite views, their offset refined by sharpness, which also "
                "fits the tilt when asked). "
                "Prints each fitted value with its uncertainty; --verbose and --report add every step and the "
                "score against each parameter. A fit the data cannot give is an error and writes nothing.",
                "cbct-calibrate" };
  std::map<std::string, SlicerParameter> slicer;
  AddFourDProjectionOptions(app, o, slicer);
  AddPreprocessingOptions(app, o.preprocessing, slicer);
  app.add_option("-o,--output", o.output, "Output: the calibrated geometry (RTK ThreeDCircularGeometry XML)")->required();
  app.add_option("--fit", o.fit, "What to fit: a comma-separated list of offset, roll and tilt")->capture_default_str();
  app.add_option("--method", o.method, "auto, opposite, sharpness or beads (a bead phantom's projections)")
    ->capture_default_str();
  app.add_option("--offset-as", o.offsetAs,
                 "How the offset is written: stage (the rotation stage stands off the source-detector line, as in "
                 "micro-CT: SourceOffsetX and ProjectionOffsetX move together) or detector (the detector alone "
                 "moved, as on a C-arm: ProjectionOffsetX)")
    ->capture_default_str();
  app.add_option("--range", o.range, "Half-width of the offset's search in detector pixels (0: a quarter of the "
                                     "detector's width)")
    ->capture_default_str();
  app.add_option("--tilt-range", o.tiltRange, "Half-width of the tilt's search in degrees")->capture_default_str();
  app.add_option("--score", o.score, "Sharpness measure: edges (gradient energy per total variation), gradient (gradient energy) or variance")->capture_default_str();
  app.add_option("--report", o.report, "Directory for the report: calibration.txt, scores.csv and scores.png (the "
                                       "score against each parameter)");
  app.add_option("--hardware", o.hardware, "The sharpness method's FDK: cpu, cuda or auto (CUDA when this build has "
                                           "it and a device is present)")
    ->capture_default_str();
  app.add_flag("-v,--verbose", o.verbose, "Print every step, the fits and the score curves");
  AddCommonOptions(app, o.threads);
  // --scan brings the apps' --calibrate with it; here calibrating is the whole point.
  app.remove_option(app.get_option("--calibrate"));
  SlicerModule().parameters.erase("--calibrate");
  slicer.insert({
    { "--output", SlicerIo("file", "output", "Output", ".xml") },
    { "--fit", SlicerIn("Calibration") },
    { "--method", SlicerIn("Calibration", "string-enumeration", { "auto", "opposite", "sharpness", "beads" }) },
    { "--offset-as", SlicerIn("Calibration", "string-enumeration", { "stage", "detector" }) },
    { "--range", SlicerRange("Calibration", "0", "10000", "1") },
    { "--tilt-range", SlicerRange("Calibration", "0.1", "45", "0.5") },
    { "--score", SlicerIn("Calibration", "string-enumeration", { "edges", "gradient", "variance" }) },
    { "--report", SlicerIo("directory", "output", "Output") },
    { "--hardware", SlicerIn("Advanced", "string-enumeration", { "auto", "cpu", "cuda" }) },
    { "--verbose", SlicerIn("Advanced") },
  });
  DescribeForSlicer("CBCT Geometry Calibration", slicer);
  return Run(app, argc, argv, [&] { return Calibrate(o); });
}
