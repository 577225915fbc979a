#ifndef cbctPreprocessingOptions_h
#define cbctPreprocessingOptions_h

// RTK's input-projection preprocessing options (rtkinputprojections_section.ggo), declared once for
// every app that reads projections (cbct-fdk, cbct-sart, cbct-cgls, cbct-osem, cbct-asdpocs,
// cbct-admmtv), and the one loading path that reads the projections and preprocesses them
// (cbct::ProjectionPreprocessingFilter). The files are read as everywhere (cbctProjectionFiles.h,
// cbctProjectionRows.h): inspected before any pixel is read, put on a canonical grid (one process) and
// checked for NaN and infinities (--replace-nonfinite) before the preprocessing sees them.
//
// Projection files that hold integers (8, 16 or 32 bits, as detectors write them) are intensities
// and are converted to line integrals, ln(I0 - Idark) - ln(I - Idark), unless --nolineint keeps
// them as they are; files of floating-point values are line integrals, unless --i0 is given (then
// they are intensities too). RTK's meanings throughout, with two differences: without --i0, I0 is
// estimated from each projection's air (RTK takes the pixel type's largest value), and
// floating-point files can be intensities (RTK converts integer files only). Ring removal (--rings
// and its --rings-* parameters, named as TomoPy names them) is not RTK's: it acts on the line
// integrals, after the logarithm.
#include "cbctBufferedImageSource.h"
#include "cbctGridOptions.h"
#include "cbctProjectionFiles.h"
#include "cbctProjectionRows.h"
#include "cbctProjectionPreprocessingFilter.h"
#include "cbctDaubechiesWavelet.h"

#include <itkImageIOFactory.h>

#include <algorithm>
#include <limits>
#include <type_traits>

namespace cbct::apps
{

struct PreprocessingOptions
{
  // As given on the command line.
  double i0 = 0.;
  double dark = 0.;
  double airThreshold = std::numeric_limits<double>::quiet_NaN();
  bool noLineIntegral = false;
  std::string lowerCrop;
  std::string upperCrop;
  std::string binning;
  std::string radius;
  double multiplier = 0.;
  std::string waterPrecorrection;
  double scatterToPrimaryRatio = 0.;
  double nonNegativity = std::numeric_limits<double>::quiet_NaN();
  std::string rings = "none";
  unsigned int ringsSize = 0;
  double ringsSnr = 2.5;
  unsigned int ringsRows = 9;
  unsigned int ringsLevel = 3;
  std::string ringsWavelet = "db5";
  double ringsSigma = 2.;
  bool ringsNoPad = false;
  const CLI::Option * i0Option = nullptr;
  const CLI::Option * darkOption = nullptr;
  const CLI::Option * airThresholdOption = nullptr;

  // Set by the app before loading: the projections are emission counts (cbct-osem with the emission
  // projector), kept as they are whatever the files hold; --i0 and the intensity steps are refused.
  bool counts = false;

  // Parsed by ValidatePreprocessingOptions(); `intensities` is set when the files are known.
  ProjectionPreprocessing settings;
};

/** Adds RTK's preprocessing options to `app` and their Slicer descriptions to `slicer`. */
inline void
AddPreprocessingOptions(CLI::App & app, PreprocessingOptions & o, std::map<std::string, SlicerParameter> & slicer)
{
  const std::string group = "Preprocessing";
  o.i0Option = app.add_option("--i0", o.i0, "Intensity through air (I0) for the conversion of intensities to line "
                                            "integrals; 0 or not given: estimated from each projection's air");
  o.darkOption = app.add_option("--idark", o.dark, "Intensity with the beam off (Idark), subtracted before the "
                                                   "logarithm")
                   ->capture_default_str();
  app.add_flag("--nolineint", o.noLineIntegral, "Keep integer projections as they are (no conversion of intensities "
                                                "to line integrals)");
  o.airThresholdOption = app.add_option("--airthres", o.airThreshold,
                                        "Pixels above this intensity saw air: I0 is their mean (when estimated), and "
                                        "the scatter correction leaves them out (default 32000 there)");
  AddListOption(app, "--lowercrop", o.lowerCrop, "Pixels removed at the start of u[,v] (RTK: one value crops u only)");
  AddListOption(app, "--uppercrop", o.upperCrop, "Pixels removed at the end of u[,v] (RTK: one value crops u only)");
  AddListOption(app, "--binning", o.binning, "Pixels averaged together along u[,v] (RTK: one value bins u only)");
  AddListOption(app, "--radius", o.radius, "Conditional median radius along u[,v[,projections]] in pixels (RTK: one "
                                           "value filters along u only; 0: none)");
  app.add_option("--multiplier", o.multiplier, "Conditional median: replace pixels further than this many standard "
                                               "deviations from their neighbourhood's median (0: every pixel, a plain median)")
    ->capture_default_str();
  AddListOption(app, "--wpc", o.waterPrecorrection, "Water precorrection: line integrals p become c0 + c1 p + c2 p^2 + "
                                                    "... for the coefficients c0,c1,c2,...");
  app.add_option("--spr", o.scatterToPrimaryRatio, "Boellaard scatter correction of intensities: scatter-to-primary "
                                                   "ratio (0: none)")
    ->capture_default_str();
  app.add_option("--nonneg", o.nonNegativity, "Boellaard scatter correction: the darkest pixel keeps at least this "
                                              "intensity (default 20)");
  app.add_option("--rings", o.rings, "Ring (stripe) removal on the line integrals, one detector row across the "
                                     "projections at a time: none, sorting (Vo et al. 2018: the columns found as "
                                     "stripes, each column's values sorted along the angle, take their neighbours' "
                                     "sorted values) or wavelet (Munch et al. 2009: "
                                     "wavelet-Fourier damping of what is constant along the angle)")
    ->capture_default_str();
  app.add_option("--rings-size", o.ringsSize, "--rings sorting: the detection's median window across the detector "
                                              "in pixels (0: TomoPy's, 1 % of the width, at least 5; 21 above 2000 "
                                              "pixels)")
    ->capture_default_str();
  app.add_option("--rings-snr", o.ringsSnr, "--rings sorting: the stripe detection's ratio (TomoPy's snr; larger "
                                            "finds fewer stripes); only detected stripes are replaced by their "
                                            "neighbours; 0: every column replaced by the median (the paper's "
                                            "algorithm 3 alone)")
    ->capture_default_str();
  app.add_option("--rings-rows", o.ringsRows, "--rings sorting: the neighbouring detector rows whose columns' "
                                              "offsets the stripe detection averages (a defect is in every row; "
                                              "1: each row alone)")
    ->capture_default_str();
  app.add_option("--rings-level", o.ringsLevel, "--rings wavelet: wavelet levels (0: TomoPy's, ceil(log2) "
                                                          "of the larger of the projections and the detector width, "
                                                          "which takes the object's coarse round detail too)")
    ->capture_default_str();
  app.add_option("--rings-wavelet", o.ringsWavelet, "--rings wavelet: the wavelet, haar or db1 .. db10")
    ->capture_default_str();
  app.add_option("--rings-sigma", o.ringsSigma, "--rings wavelet: the damping's width in Fourier space "
                                                          "along the angle (frequency indices; larger removes more, "
                                                          "of the object too)")
    ->capture_default_str();
  app.add_flag("--rings-no-pad", o.ringsNoPad, "--rings wavelet: no padding of the angle axis (by default "
                                                         "it is extended by 1/8 with zeros, as TomoPy's pad)");
  slicer["--i0"] = SlicerRange(group, "0", "1e9", "1", "double");
  slicer["--idark"] = SlicerWhenGiven(SlicerRange(group, "-1e9", "1e9", "1", "double"));
  slicer["--nolineint"] = SlicerIn(group);
  slicer["--airthres"] = SlicerRange(group, "-1e9", "1e9", "1", "double");
  slicer["--lowercrop"] = SlicerIn(group, "integer-vector");
  slicer["--uppercrop"] = SlicerIn(group, "integer-vector");
  slicer["--binning"] = SlicerIn(group, "integer-vector");
  slicer["--radius"] = SlicerIn(group, "integer-vector");
  slicer["--multiplier"] = SlicerRange(group, "0", "100", "0.1");
  slicer["--wpc"] = SlicerIn(group, "double-vector");
  slicer["--spr"] = SlicerRange(group, "0", "10", "0.01");
  slicer["--nonneg"] = SlicerRange(group, "-1e9", "1e9", "1", "double");
  const std::string rings = "Ring removal";
  slicer["--rings"] = SlicerIn(rings, "string-enumeration", { "none", "sorting", "wavelet" });
  slicer["--rings-size"] = SlicerRange(rings, "0", "1001", "1");
  slicer["--rings-snr"] = SlicerRange(rings, "0", "100", "0.1", "double");
  slicer["--rings-rows"] = SlicerRange(rings, "1", "1001", "1");
  slicer["--rings-level"] = SlicerRange(rings, "0", "30", "1");
  slicer["--rings-wavelet"] = SlicerIn(rings, "string-enumeration",
                                       { "haar", "db1", "db2", "db3", "db4", "db5", "db6", "db7", "db8", "db9", "db10" });
  slicer["--rings-sigma"] = SlicerRange(rings, "0.01", "100", "0.1");
  slicer["--rings-no-pad"] = SlicerIn(rings);
}

namespace detail
{
/** RTK's per-axis list: the values given, the other axes `fill`; at most `axes` values (a value
 * beyond `settable` axes must equal `fill`: the projection axis cannot be cropped or binned). */
template <std::size_t N>
std::array<unsigned int, N>
ParseAxisList(const std::string & option, const std::string & text, unsigned int fill, unsigned int settable,
              const std::string & expected)
{
  std::array<unsigned int, N> out;
  out.fill(fill);
  if (text.empty())
    return out;
  std::vector<std::size_t> counts;
  for (std::size_t n = 1; n <= 3; ++n) // u, v and the projection axis
    counts.push_back(n);
  const auto values = ParseNumbers(option, text, counts, expected);
  for (std::size_t d = 0; d < values.size(); ++d)
  {
    const double v = values[d];
    if (!(v >= 0.) || v != std::floor(v) || v > 1e6)
      Bad(option, Quoted(text), expected);
    if (d >= settable)
    {
      if (v != fill)
        Bad(option, Quoted(text), expected + " (the projection axis cannot be " + (fill == 1 ? "binned" : "cropped") +
                                    ": the geometry counts the projections)");
      continue;
    }
    out[d] = static_cast<unsigned int>(v);
  }
  return out;
}
} // namespace detail

/** Checks the preprocessing options before any file is read; fills `o.settings` but for
 * `intensities`, which depends on the files (SetProjectionKind()). */
inline void
ValidatePreprocessingOptions(PreprocessingOptions & o)
{
  ProjectionPreprocessing & s = o.settings;
  if (!std::isfinite(o.i0) || o.i0 < 0.)
    Bad("--i0", o.i0, "the intensity through air, > 0, or 0 to estimate it from each projection's air");
  CheckFinite("--idark", o.dark);
  if (o.i0 > 0. && !(o.i0 > o.dark))
    Bad("--i0", o.i0, "an intensity above --idark (" + std::to_string(o.dark) + ")");
  if (o.airThresholdOption && o.airThresholdOption->count() > 0)
    CheckFinite("--airthres", o.airThreshold, "a finite intensity");
  s.i0 = o.i0;
  s.dark = o.dark;
  s.airThreshold = o.airThreshold;
  s.lowerCrop = detail::ParseAxisList<2>("--lowercrop", o.lowerCrop, 0, 2, "pixels U[,V], integers >= 0");
  s.upperCrop = detail::ParseAxisList<2>("--uppercrop", o.upperCrop, 0, 2, "pixels U[,V], integers >= 0");
  s.binning = detail::ParseAxisList<2>("--binning", o.binning, 1, 2, "factors U[,V], integers >= 1");
  if (s.binning[0] < 1 || s.binning[1] < 1)
    Bad("--binning", Quoted(o.binning), "factors U[,V], integers >= 1");
  s.medianRadius = detail::ParseAxisList<3>("--radius", o.radius, 0, 3, "radii U[,V[,K]] in pixels, integers >= 0");
  if (!std::isfinite(o.multiplier) || o.multiplier < 0.)
    Bad("--multiplier", o.multiplier, "a finite value >= 0");
  s.medianMultiplier = o.multiplier;
  s.waterPrecorrection.clear();
  if (!o.waterPrecorrection.empty())
  {
    std::vector<std::size_t> counts;
    for (std::size_t n = 1; n <= 32; ++n)
      counts.push_back(n);
    s.waterPrecorrection = ParseNumbers("--wpc", o.waterPrecorrection, counts, "coefficients c0[,c1,c2,...]");
    for (double c : s.waterPrecorrection)
      if (!std::isfinite(c))
        Bad("--wpc", Quoted(o.waterPrecorrection), "finite coefficients c0[,c1,c2,...]");
  }
  if (!std::isfinite(o.scatterToPrimaryRatio) || o.scatterToPrimaryRatio < 0.)
    Bad("--spr", o.scatterToPrimaryRatio, "a finite scatter-to-primary ratio >= 0");
  s.scatterToPrimaryRatio = o.scatterToPrimaryRatio;
  if (!std::isnan(o.nonNegativity))
    CheckFinite("--nonneg", o.nonNegativity, "a finite intensity");
  s.nonNegativityThreshold = o.nonNegativity;

  s.rings.clear();
  if (o.rings != "none" && o.rings != "sorting" && o.rings != "wavelet")
    Bad("--rings", Quoted(o.rings), "none, sorting (Vo et al. 2018) or wavelet (Munch et al. 2009)");
  if (o.rings != "none")
    s.rings = o.rings;
  // A parameter of the other method is refused only when it differs from its default: Slicer passes
  // every parameter of the group, at its default when the user left it alone.
  const PreprocessingOptions defaults;
  const struct
  {
    const char * option;
    bool changed;
    const char * method;
  } parameters[] = { { "--rings-size", o.ringsSize != defaults.ringsSize, "sorting" },
                     { "--rings-snr", o.ringsSnr != defaults.ringsSnr, "sorting" },
                     { "--rings-rows", o.ringsRows != defaults.ringsRows, "sorting" },
                     { "--rings-level", o.ringsLevel != defaults.ringsLevel, "wavelet" },
                     { "--rings-wavelet", o.ringsWavelet != defaults.ringsWavelet, "wavelet" },
                     { "--rings-sigma", o.ringsSigma != defaults.ringsSigma, "wavelet" },
                     { "--rings-no-pad", o.ringsNoPad != defaults.ringsNoPad, "wavelet" } };
  for (const auto & p : parameters)
    if (p.changed && o.rings != p.method)
      throw Error(std::string(p.option) + ": a parameter of --rings " + p.method + ", and --rings is " + o.rings);
  if (!DaubechiesWavelet::IsKnown(o.ringsWavelet))
    Bad("--rings-wavelet", Quoted(o.ringsWavelet), "one of " + DaubechiesWavelet::KnownNames());
  if (!std::isfinite(o.ringsSigma) || !(o.ringsSigma > 0.))
    Bad("--rings-sigma", o.ringsSigma, "a finite value > 0");
  if (!std::isfinite(o.ringsSnr) || o.ringsSnr < 0.)
    Bad("--rings-snr", o.ringsSnr, "a finite value >= 0 (0: every column filtered)");
  if (o.ringsLevel > 30)
    Bad("--rings-level", o.ringsLevel, "0 (automatic) .. 30");
  if (o.ringsRows < 1)
    Bad("--rings-rows", o.ringsRows, "at least 1 (1: each row alone)");
  s.ringsSize = o.ringsSize;
  s.ringsSnr = o.ringsSnr;
  s.ringsRows = o.ringsRows;
  s.ringsLevel = o.ringsLevel;
  s.ringsWavelet = o.ringsWavelet;
  s.ringsSigma = o.ringsSigma;
  s.ringsPad = !o.ringsNoPad;
}

/** Whether the projection files hold integers (intensities, as detectors write them). Files of
 * both kinds in one series are refused. The files have been inspected (InspectProjections()): only
 * their headers are read here. */
inline bool
ProjectionFilesHoldIntegers(const std::vector<std::string> & files, const std::string & option)
{
  int kind = -1;
  for (const std::string & file : files)
  {
    auto io = itk::ImageIOFactory::CreateImageIO(file.c_str(), itk::IOFileModeEnum::ReadMode);
    if (io.IsNull())
      Bad(option, Quoted(file), "an image ITK can read");
    io->SetFileName(file);
    io->ReadImageInformation();
    const auto type = io->GetComponentType();
    const int integer = type == itk::IOComponentEnum::FLOAT || type == itk::IOComponentEnum::DOUBLE ? 0 : 1;
    if (kind >= 0 && integer != kind)
      throw Error(option + ": " + file + " holds " + (integer ? "integers" : "floating-point values") + " and " +
                  files.front() + " " + (integer ? "floating-point values" : "integers") +
                  ": a series must be all intensities (integers) or all line integrals");
    kind = integer;
  }
  return kind == 1;
}

/** Decides what the projections are and checks that the options fit: integer files are intensities
 * unless --nolineint; floating-point files are line integrals unless --i0 is given. */
inline void
SetProjectionKind(PreprocessingOptions & o, bool integerFiles)
{
  const bool i0Given = o.i0Option && o.i0Option->count() > 0;
  ProjectionPreprocessing & s = o.settings;
  if (o.counts && i0Given)
    Bad("--i0", o.i0, "no --i0 with the emission projector (its projections are counts, kept as they are)");
  s.intensities = o.counts ? false : integerFiles ? !o.noLineIntegral : i0Given;
  s.minimumSignal = integerFiles ? 1. : 0.; // one count; floating-point intensities: 1e-6 of I0 - Idark
  if (s.intensities)
    return;
  const std::string why = o.counts       ? "the emission projector's projections are counts, kept as they are"
                          : integerFiles ? "with --nolineint the projections are kept as they are"
                                         : "the files hold floating-point values, read as line integrals (give --i0, 0 "
                                           "to estimate it, to read them as intensities)";
  if (o.noLineIntegral && i0Given)
    Bad("--i0", o.i0, "no --i0 with --nolineint (no conversion to line integrals)");
  if (o.darkOption && o.darkOption->count() > 0)
    throw Error("--idark: " + why + ", so there is nothing to subtract it from");
  if (o.scatterToPrimaryRatio > 0.)
    throw Error("--spr: the scatter correction works on intensities, and " + why);
  if (o.airThresholdOption && o.airThresholdOption->count() > 0)
    throw Error("--airthres: it applies to intensities, and " + why);
}

/** The image type the preprocessing runs in (a CUDA image is filled from its result). */
using PreprocessingImage = itk::Image<float, 3>;

/** `image`'s grid and its buffered pixels as a TImage (the same image when TImage is PreprocessingImage). */
template <typename TImage>
typename TImage::Pointer
AsProjectionImage(const PreprocessingImage::Pointer & image)
{
  if constexpr (std::is_same_v<TImage, PreprocessingImage>)
    return image;
  else
  {
    auto copy = TImage::New();
    copy->CopyInformation(image);
    copy->SetLargestPossibleRegion(image->GetLargestPossibleRegion());
    copy->SetBufferedRegion(image->GetBufferedRegion());
    copy->SetRequestedRegion(image->GetBufferedRegion());
    copy->Allocate();
    std::copy(image->GetBufferPointer(), image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels(),
              copy->GetBufferPointer());
    return copy;
  }
}

/** The preprocessing of the options (`settings`, once SetProjectionKind() has run) on `input`. */
inline ProjectionPreprocessingFilter<PreprocessingImage>::Pointer
NewPreprocessingFilter(const PreprocessingOptions & o, const PreprocessingImage * input, const std::string & option)
{
  auto filter = ProjectionPreprocessingFilter<PreprocessingImage>::New();
  filter->SetInput(input);
  filter->SetParameters(o.settings);
  try
  {
    filter->UpdateOutputInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(option + ": preprocessing: " + WithoutItkPrefix(e.GetDescription()));
  }
  return filter;
}

/** Rows [firstRow, firstRow + rowCount) of the preprocessed stack (all of them when rowCount is 0)
 * whose unprocessed stack has the grid of `raw`: `read(region)` hands over the files' pixels of at
 * least `region` (the steps' own requested regions say which rows: all of them when a step works on
 * whole projections, I0 from the air or the scatter correction), read and checked as everywhere
 * (inspected files, NaN refused or replaced), then preprocessed. The result has the preprocessed
 * stack's largest possible region and the rows asked for as its buffer. With --verbose (`log` not
 * null) says what was done, as "NAME: preprocessing: ...". */
template <typename TImage, typename TOptions, typename TRead>
typename TImage::Pointer
PreprocessRows(const TOptions & o, const PreprocessingImage * raw, itk::IndexValueType firstRow,
               itk::SizeValueType rowCount, const std::string & name, std::ostream * log, const TRead & read)
{
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  const ProjectionPreprocessing & settings = o.preprocessing.settings;
  auto filter = NewPreprocessingFilter(o.preprocessing, raw, option);
  auto band = filter->GetOutput()->GetLargestPossibleRegion();
  if (rowCount > 0)
  {
    band.SetIndex(1, firstRow);
    band.SetSize(1, rowCount);
  }
  filter->GetOutput()->SetRequestedRegion(band);
  filter->GetOutput()->PropagateRequestedRegion();
  const auto needed = raw->GetRequestedRegion();
  Stopwatch clock;
  auto source = BufferedImageSource<PreprocessingImage>::New();
  PreprocessingImage::Pointer pixels = read(needed);
  source->SetImage(pixels);
  filter->SetInput(source->GetOutput());
  filter->GetOutput()->SetRequestedRegion(band);
  try
  {
    filter->GetOutput()->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(option + ": preprocessing: " + WithoutItkPrefix(e.GetDescription()));
  }
  PreprocessingImage::Pointer result = filter->GetOutput();
  result->DisconnectPipeline();
  if (log)
  {
    *log << name << ": preprocessing: " << settings.Describe();
    if (settings.intensities && settings.i0 == 0.)
    {
      const auto & i0s = filter->GetLineIntegralFilter()->GetI0s();
      const auto range = std::minmax_element(i0s.begin(), i0s.end());
      double sum = 0.;
      for (double v : i0s)
        sum += v;
      *log << "; I0 from " << *range.first << " to " << *range.second << ", mean " << sum / i0s.size();
    }
    if (settings.rings == "sorting" && settings.ringsSize == 0)
      *log << "; ring median size " << filter->GetSortingRingFilter()->GetSizeUsed();
    if (settings.rings == "wavelet" && settings.ringsLevel == 0)
      *log << "; ring removal level " << filter->GetWaveletRingFilter()->GetLevelUsed();
    if (rowCount > 0)
      *log << "; rows [" << band.GetIndex(1) << ", " << band.GetIndex(1) + static_cast<long>(band.GetSize(1))
           << ") from the files' rows [" << needed.GetIndex(1) << ", "
           << needed.GetIndex(1) + static_cast<long>(needed.GetSize(1)) << ")";
    *log << " (" << FormatSeconds(clock.Seconds()) << ")" << std::endl;
  }
  return AsProjectionImage<TImage>(result);
}

/** PreprocessRows() from `files` whose stack is `raw` (ProjectionStackInformation()): the rows of the
 * files the preprocessing needs are read alone (ReadProjectionRows(): inspected files, NaN refused
 * or replaced), as an MPI rank reads its band. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
LoadPreprocessedRows(const TOptions & o, const std::vector<std::string> & files, const PreprocessingImage * raw,
                     itk::IndexValueType firstRow, itk::SizeValueType rowCount, const std::string & name,
                     std::ostream * log)
{
  return PreprocessRows<TImage>(o, raw, firstRow, rowCount, name, log, [&](const itk::ImageRegion<3> & needed) {
    return ReadProjectionRows<PreprocessingImage>(o, raw, files, needed.GetIndex(1), needed.GetSize(1));
  });
}

/** The projection stack once preprocessed, without its pixels (cropping and binning change its
 * grid): `files` receive the files, `raw` their stack's grid (ProjectionStackInformation(), which
 * inspects every file first); reads the headers only. Then LoadProjectionRows() reads rows of it. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
PreprocessedStackInformation(TOptions & o, std::vector<std::string> & files, PreprocessingImage::Pointer & raw)
{
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  raw = ProjectionStackInformation<PreprocessingImage>(o, files);
  SetProjectionKind(o.preprocessing, ProjectionFilesHoldIntegers(files, option));
  const PreprocessingImage * grid = raw;
  ProjectionPreprocessingFilter<PreprocessingImage>::Pointer filter;
  if (!o.preprocessing.settings.DoesNothing())
  {
    filter = NewPreprocessingFilter(o.preprocessing, raw, option);
    grid = filter->GetOutput();
  }
  auto information = TImage::New();
  information->CopyInformation(grid);
  information->SetLargestPossibleRegion(grid->GetLargestPossibleRegion());
  return information;
}

/** Rows [firstRow, firstRow + rowCount) of every projection of the preprocessed stack
 * (PreprocessedStackInformation()), as an MPI rank reads them: the files' rows alone when there is
 * no preprocessing (ReadProjectionRows()), else LoadPreprocessedRows(). */
template <typename TImage, typename TOptions>
typename TImage::Pointer
LoadProjectionRows(const TOptions & o, const std::vector<std::string> & files, const PreprocessingImage * raw,
                   itk::IndexValueType firstRow, itk::SizeValueType rowCount, const std::string & name,
                   std::ostream * log)
{
  LogCentredDetector(log, name, o, files, raw);
  if (!o.preprocessing.settings.DoesNothing())
    return LoadPreprocessedRows<TImage>(o, files, raw, firstRow, rowCount, name, log);
  auto information = TImage::New();
  information->CopyInformation(raw);
  information->SetLargestPossibleRegion(raw->GetLargestPossibleRegion());
  return ReadProjectionRows<TImage>(o, information.GetPointer(), files, firstRow, rowCount);
}

/** The whole projection stack, preprocessed: the loading path of every app in one process, from
 * files already inspected (InspectProjections(), so that the caller can check the memory first).
 * The files are read as everywhere (ReadProjections(): a canonical grid, NaN refused or replaced):
 * straight into TImage without preprocessing; with it, into the preprocessing's image type and then
 * through PreprocessRows() over all rows, as an MPI rank preprocesses its band. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
LoadProjections(TOptions & o, const ProjectionInputs & inputs, const std::string & name, std::ostream * log)
{
  // A scan's files hold readings, but --scan reads them as line integrals (cbctScanOption.h).
  SetProjectionKind(o.preprocessing, ScanPath(o).empty() && ProjectionFilesHoldIntegers(inputs.files, inputs.option));
  if (o.preprocessing.settings.DoesNothing())
  {
    typename TImage::Pointer stack = ReadProjections<TImage>(o, inputs);
    LogCentredDetector(log, name, o, inputs.files, stack.GetPointer());
    return stack;
  }
  const PreprocessingImage::Pointer raw = ReadProjections<PreprocessingImage>(o, inputs);
  LogCentredDetector(log, name, o, inputs.files, raw.GetPointer());
  return PreprocessRows<TImage>(o, raw.GetPointer(), 0, 0, name, log,
                                [&](const itk::ImageRegion<3> &) { return raw; });
}

/** InspectProjections() and LoadProjections() in one, for callers that check no memory first. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
LoadProjections(TOptions & o, std::size_t & fileCount, const std::string & name, std::ostream * log)
{
  const ProjectionInputs inputs = InspectProjections(o);
  fileCount = inputs.files.size();
  return LoadProjections<TImage>(o, inputs, name, log);
}

} // namespace cbct::apps

#endif
