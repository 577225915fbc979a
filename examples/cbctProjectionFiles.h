#ifndef cbctProjectionFiles_h
#define cbctProjectionFiles_h

// Reading a geometry and a projection stack for the reconstruction apps (cbct-fdk, cbct-sart,
// cbct-cgls, cbct-osem): one file (--projections) or a directory and a regular expression
// (--path/--regexp), with optional --new-spacing/--new-origin and --replace-nonfinite. The options
// struct TOptions has the fields geometry, output, projections, path, regexp, subMatch, numericSort,
// newSpacing, newOrigin, replaceNonFinite (as given) and projectionSpacing, projectionOrigin,
// nonFiniteReplacement (parsed by ValidateProjectionOptions()).
//
// Every projection file is inspected before any pixel is read (InspectProjections(): a file cut
// short, of another size or not scalar is refused), then read on a canonical grid (a negative
// spacing or flipped axes are the same detector) and checked for NaN and infinities, which are an
// error unless --replace-nonfinite VALUE replaces them. A detector from files of a format without an
// origin (TIFF, PNG, ...) is centred unless --new-origin places it (CentreDetectorWithoutOrigin()).
#include "cbctAppSupport.h"
#include "cbctMemoryCheck.h"
#include "cbctScanOption.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"

#include <itkImageAlgorithm.h>
#include <itksys/SystemTools.hxx>
#include <itkRegularExpressionSeriesFileNames.h>

namespace cbct::apps
{

inline cbct::ThreeDCircularProjectionGeometry::Pointer
ReadGeometry(const std::string & path)
{
  RememberInput(path);
  auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(path);
  try
  {
    reader->GenerateOutputInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(std::string("--geometry: ") + e.GetDescription());
  }
  return reader->GetGeometry();
}

/** The geometry of --geometry, or of --scan (cbctScanOption.h). */
template <typename TOptions>
cbct::ThreeDCircularProjectionGeometry::Pointer
ReadGeometry(const TOptions & o)
{
  if (!ScanPath(o).empty())
    return ScanGeometry(ScanPath(o)); // with --calibrate, found from its projections
  return ReadGeometry(o.geometry);
}

/** The projection files: the one of --projections, or those in --path matching --regexp, sorted. */
template <typename TOptions>
std::vector<std::string>
ProjectionFiles(const TOptions & o)
{
  if (!ScanPath(o).empty())
    return OpenScan(ScanPath(o))->ProjectionFiles();
  if (!o.projections.empty())
    return { o.projections };
  auto names = itk::RegularExpressionSeriesFileNames::New();
  names->SetDirectory(o.path);
  names->SetRegularExpression(o.regexp);
  names->SetSubMatch(static_cast<unsigned int>(o.subMatch));
  names->SetNumericSort(o.numericSort);
  std::vector<std::string> files;
  try
  {
    files = names->GetFileNames();
  }
  catch (const std::logic_error &) // ITK's numeric sort converts each name's sub-match with std::stod
  {
    Bad("--submatch", o.subMatch,
        "with --nsort, a group of --regexp that is a number in every matching file name (e.g. --regexp "
        "'proj_([0-9]+)\\.tif$' --submatch 1; sub-match 0 is the whole name)");
  }
  if (files.empty())
    Bad("--regexp", Quoted(o.regexp), "a regular expression matching files in --path " + o.path + " (none matched)");
  return files;
}

/** Checks --geometry and the projection options shared by the apps that read projections
 * (--projections, or --path with --regexp, --submatch, --new-spacing, --new-origin) before any file
 * is read, and parses the last two into projectionSpacing and projectionOrigin. */
template <typename TOptions>
void
ValidateProjectionOptions(TOptions & o)
{
  if (ValidateScanOptions(o)) // --scan: the scan's files and geometry
    return;
  CheckReadableFile("--geometry", o.geometry, "geometry file");
  const bool single = !o.projections.empty();
  const bool series = !o.path.empty() || !o.regexp.empty();
  if (single && series)
    throw Error("--projections and --path/--regexp: give either one projections file or a directory and a "
                "regular expression, not both");
  if (!single && !series)
    throw Error("no projections: give --projections FILE, or --path DIR with --regexp REGEX");
  if (single)
    CheckReadableFile("--projections", o.projections, "image file");
  else
  {
    if (o.path.empty())
      o.path = ".";
    if (!itksys::SystemTools::FileIsDirectory(o.path))
      Bad("--path", Quoted(o.path), "an existing directory");
    if (o.regexp.empty())
      Bad("--regexp", "empty", "a regular expression matching the projection files' names in --path");
    if (o.subMatch < 0)
      Bad("--submatch", o.subMatch, "an integer >= 0");
  }
  if (!o.newSpacing.empty())
    o.projectionSpacing = ParsePositives("--new-spacing", o.newSpacing, 2);
  if (!o.newOrigin.empty())
    o.projectionOrigin = ParsePoint("--new-origin", o.newOrigin, 2);
  o.nonFiniteReplacement.clear();
  if (!o.replaceNonFinite.empty())
    o.nonFiniteReplacement = ParseNumbers("--replace-nonfinite", o.replaceNonFinite, { 1 },
                                          "a finite value to put in place of NaN and infinities (e.g. 0)");
  if (!o.nonFiniteReplacement.empty() && !std::isfinite(o.nonFiniteReplacement.front()))
    Bad("--replace-nonfinite", Quoted(o.replaceNonFinite), "a finite value to put in place of NaN and infinities (e.g. 0)");
  // The output may be none of the inputs (compared as files, not names): checked before any work.
  std::vector<InputOption> inputs{ { "--geometry", o.geometry, false } };
  for (const std::string & file : ProjectionFiles(o))
    inputs.push_back({ single ? "--projections" : "--path/--regexp", file, true });
  CheckOutputsAreNotInputs({ { "--output", o.output } }, inputs);
}

/** Adds --replace-nonfinite to `app` (the apps that read projections). */
inline void
AddNonFiniteOption(CLI::App & app, std::string & replaceNonFinite)
{
  app.add_option("--replace-nonfinite", replaceNonFinite,
                 "Replace NaN and infinite projection values by this value (by default they are an error)");
  SlicerModule().parameters["--replace-nonfinite"] = SlicerIn("Input", "string");
}

/** The projection files and what their headers say, inspected before any pixel is read. */
struct ProjectionInputs
{
  std::string option; // --projections or --path/--regexp
  std::vector<std::string> files;
  std::vector<cbct::ImageFileContents> contents; // one per file

  /** Pixels of the stack: the files' pixels together. */
  std::uint64_t
  Pixels() const
  {
    std::uint64_t pixels = 0;
    for (const auto & c : contents)
      pixels += c.Pixels();
    return pixels;
  }
  /** Bytes the reading holds at its peak: the stack of floats, and the files' images beside it
   * while it is assembled from several files. */
  std::uint64_t
  ReadingBytes() const
  {
    return FloatBytes(this->Pixels(), files.size() > 1 ? 2 : 1);
  }
};

/** Lists and inspects the projection files (InspectImage(): each must be complete, scalar, of at
 * most 3 dimensions); no pixel is read. */
template <typename TOptions>
ProjectionInputs
InspectProjections(const TOptions & o)
{
  if (!ScanPath(o).empty())
    return InspectScan<ProjectionInputs>(o);
  ProjectionInputs inputs;
  inputs.option = o.projections.empty() ? "--path/--regexp" : "--projections";
  inputs.files = ProjectionFiles(o);
  for (const std::string & file : inputs.files)
    inputs.contents.push_back(InspectImage(inputs.option, file));
  return inputs;
}

/** Whether files of `format` (ImageFileContents::Format(): ITK's ImageIO without "ImageIO") have no
 * place for an origin, so that ITK's reader gives every image (0, 0, 0): TIFF (and LSM, built on
 * it), PNG, JPEG, BMP, BioRad and headerless raw data. Decided per format, not from a zero origin,
 * since a MetaImage, NRRD or NIfTI file may well put its first pixel at (0, 0) on purpose. */
inline bool
FormatCarriesNoOrigin(const std::string & format)
{
  for (const char * name : { "TIFF", "LSM", "PNG", "JPEG", "BMP", "BioRad", "Raw" })
    if (format == name)
      return true;
  return false;
}

/** When no origin was given (--new-origin) and none of the projection files (inspected already)
 * carries one (FormatCarriesNoOrigin()), their formats ("TIFF", "TIFF, PNG"); otherwise empty. */
template <typename TOptions>
std::string
FormatsWithoutDetectorOrigin(const TOptions & o, const std::vector<std::string> & files)
{
  if (!o.projectionOrigin.empty() || files.empty())
    return {};
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  std::string formats;
  for (const std::string & file : files)
  {
    const std::string & format = InspectImage(option, file).Format();
    if (!FormatCarriesNoOrigin(format))
      return {};
    if ((", " + formats + ", ").find(", " + format + ", ") == std::string::npos)
      formats += (formats.empty() ? "" : ", ") + format;
  }
  return formats;
}

/** A detector read from files without an origin (FormatsWithoutDetectorOrigin()) is centred on u and
 * v: origin -(N - 1) / 2 x spacing, as cbct-simulate writes it and as RTK's readers of vendor formats
 * place theirs, so that the rotation axis projects onto the detector's centre rather than onto its
 * first pixel (ITK's (0, 0)); a detector off centre is given by --new-origin. `stack` has its final
 * spacing (--new-spacing applied). Returns the formats, empty when nothing was changed. */
template <typename TImage, typename TOptions>
std::string
CentreDetectorWithoutOrigin(const TOptions & o, const std::vector<std::string> & files, TImage * stack)
{
  const std::string formats = FormatsWithoutDetectorOrigin(o, files);
  if (formats.empty())
    return formats;
  auto origin = stack->GetOrigin();
  const auto & region = stack->GetLargestPossibleRegion();
  for (unsigned int d = 0; d < 2; ++d)
    origin[d] = -(static_cast<double>(region.GetIndex(d)) + 0.5 * (static_cast<double>(region.GetSize(d)) - 1.)) *
                stack->GetSpacing()[d];
  stack->SetOrigin(origin);
  return formats;
}

/** With --verbose (`log` not null), says that the detector of `stack` was centred because its files
 * carry no origin (CentreDetectorWithoutOrigin()), and where its first pixel now is. */
template <typename TImage, typename TOptions>
void
LogCentredDetector(std::ostream * log, const std::string & name, const TOptions & o,
                   const std::vector<std::string> & files, const TImage * stack)
{
  const std::string formats = log ? FormatsWithoutDetectorOrigin(o, files) : std::string();
  if (formats.empty())
    return;
  *log << name << ": the projection files (" << formats
       << ") carry no detector origin: the detector is centred on the rotation axis, its first pixel at ("
       << stack->GetOrigin()[0] << ", " << stack->GetOrigin()[1] << ") mm (--new-origin U,V places it elsewhere)"
       << std::endl;
}

/** Reads the projection files and stacks them along the third axis (a 2D file is one projection, a
 * 3D file as many as its slices). The stack's third axis is the projection index: spacing 1, origin 0.
 * (itk::ImageSeriesReader makes every file one slice, so it cannot stack files of several projections.)
 * Each file is put on a canonical grid (cbct::CanonicalGrid) and checked for non-finite values:
 * an error naming the file, unless --replace-nonfinite gave a value to put in their place. Files
 * without an origin give a centred detector (CentreDetectorWithoutOrigin()). */
template <typename TImage, typename TOptions>
typename TImage::Pointer
ReadProjections(const TOptions & o, const ProjectionInputs & inputs)
{
  if (!ScanPath(o).empty())
    return ReadScanProjections<TImage>(o);
  const std::vector<std::string> & files = inputs.files;
  const std::string & option = inputs.option;
  std::vector<typename TImage::Pointer> images;
  itk::SizeValueType total = 0;
  for (const std::string & file : files)
  {
    auto image = ReadImage<TImage>(option, file, ImageRole::ProjectionStack);
    const NonFiniteValues nonFinite = FindNonFinite(image.GetPointer(), o.nonFiniteReplacement);
    if (nonFinite.Count() > 0 && o.nonFiniteReplacement.empty())
      throw Error(option + ": projection file " + file + " holds non-finite values: " +
                  nonFinite.Describe("pixel (u, v, projection)") +
                  "; expected finite line integrals (--replace-nonfinite VALUE replaces them)");
    if (nonFinite.Count() > 0)
      PrintWarning("--replace-nonfinite: replaced the non-finite values of " + file + " by " + o.replaceNonFinite + ": " +
                   nonFinite.Describe("pixel (u, v, projection)"));
    const auto & first = images.empty() ? image : images.front();
    const auto size = image->GetLargestPossibleRegion().GetSize();
    const auto firstSize = first->GetLargestPossibleRegion().GetSize();
    for (unsigned int d = 0; d < 2; ++d)
    {
      const bool sameSize = size[d] == firstSize[d];
      const bool sameSpacing = std::abs(image->GetSpacing()[d] - first->GetSpacing()[d]) <= 1e-6 * first->GetSpacing()[d];
      const bool sameOrigin = std::abs(image->GetOrigin()[d] - first->GetOrigin()[d]) <= 1e-3 * first->GetSpacing()[d];
      if (!sameSize || !sameSpacing || !sameOrigin)
      {
        std::ostringstream what;
        what << "projection file " << file << " has " << size[0] << " x " << size[1] << " pixels of "
             << image->GetSpacing()[0] << " x " << image->GetSpacing()[1] << " mm at (" << image->GetOrigin()[0] << ", "
             << image->GetOrigin()[1] << ") mm; the first file " << files.front() << " has " << firstSize[0] << " x "
             << firstSize[1] << " of " << first->GetSpacing()[0] << " x " << first->GetSpacing()[1] << " mm at ("
             << first->GetOrigin()[0] << ", " << first->GetOrigin()[1] << ") mm";
        throw Error(option + ": " + what.str());
      }
    }
    total += size[2];
    images.push_back(image);
  }

  typename TImage::Pointer stack;
  if (images.size() == 1)
    stack = images.front();
  else
  {
    stack = TImage::New();
    const auto & first = images.front();
    typename TImage::RegionType region = first->GetLargestPossibleRegion();
    region.SetIndex(2, 0);
    region.SetSize(2, total);
    stack->SetRegions(region);
    stack->SetSpacing(first->GetSpacing());
    stack->SetOrigin(first->GetOrigin());
    stack->SetDirection(first->GetDirection());
    stack->Allocate();
    itk::IndexValueType next = 0;
    for (const auto & image : images)
    {
      const auto & from = image->GetLargestPossibleRegion();
      typename TImage::RegionType to = from;
      to.SetIndex(0, region.GetIndex(0));
      to.SetIndex(1, region.GetIndex(1));
      to.SetIndex(2, next);
      itk::ImageAlgorithm::Copy(image.GetPointer(), stack.GetPointer(), from, to);
      next += static_cast<itk::IndexValueType>(from.GetSize(2));
    }
  }
  // The third axis indexes projections.
  auto spacing = stack->GetSpacing();
  auto origin = stack->GetOrigin();
  spacing[2] = 1.;
  origin[2] = 0.;
  for (unsigned int d = 0; d < 2 && !o.projectionSpacing.empty(); ++d)
    spacing[d] = o.projectionSpacing[d];
  for (unsigned int d = 0; d < 2 && !o.projectionOrigin.empty(); ++d)
    origin[d] = o.projectionOrigin[d];
  stack->SetSpacing(spacing);
  stack->SetOrigin(origin);
  auto region = stack->GetLargestPossibleRegion();
  if (region.GetIndex(2) != 0)
  {
    region.SetIndex(2, 0);
    stack->SetRegions(region);
  }
  CentreDetectorWithoutOrigin(o, files, stack.GetPointer()); // files without an origin (TIFF, PNG, ...)
  return stack;
}

/** InspectProjections() and ReadProjections() in one, for callers that check no memory first. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
ReadProjections(const TOptions & o, std::size_t & fileCount)
{
  const ProjectionInputs inputs = InspectProjections(o);
  fileCount = inputs.files.size();
  return ReadProjections<TImage>(o, inputs);
}

} // namespace cbct::apps

#endif
