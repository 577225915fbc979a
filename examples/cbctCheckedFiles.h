#ifndef cbctCheckedFiles_h
#define cbctCheckedFiles_h

// Reading and writing files so that nothing is lost and nothing is silent (part of cbctAppSupport.h,
// which includes this file at its end):
// - an image is inspected before its pixels are read (cbct::ImageFileContents: a file cut short is
//   an error naming the file and the bytes expected and found), then read and put on a canonical
//   grid (cbct::CanonicalGrid: a negative spacing or a flipped or swapped direction is the same
//   image with positive spacing and the identity direction; an oblique direction is refused; a
//   negative spacing gets a warning saying where the pixels then lie, or in NIfTI is refused,
//   CheckNegativeSpacing());
// - every file read is remembered, and an output is refused before any work when it is one of
//   them (the same file, compared by device and inode, not by name), or when it would write a
//   companion file (.raw, .img) over one;
// - outputs are written beside their place and renamed into place when complete
//   (cbct::AtomicOutput), so that a failed or killed run leaves the previous output as it was;
// - non-finite pixel values (NaN, +-Inf) are counted and refused, or replaced where an option
//   says so.
#include "cbctAppSupport.h"
#include "cbctAtomicOutput.h"
#include "cbctCanonicalGrid.h"
#include "cbctImageFileContents.h"
#include "cbctProvenance.h"

#include <itkImageRegionIterator.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cbct::apps
{

/** The images inspected so far, by path. */
inline std::map<std::string, cbct::ImageFileContents> &
InspectedImages()
{
  static std::map<std::string, cbct::ImageFileContents> inspected;
  return inspected;
}

/** Inspects an image file once per process (the result is kept): its format, size and data files,
 * checked complete. A file ITK cannot read names `option` and the file; a file cut short names the
 * file and the bytes expected and found. */
inline const cbct::ImageFileContents &
InspectImage(const std::string & option, const std::string & path)
{
  auto & inspected = InspectedImages();
  const auto found = inspected.find(path);
  if (found != inspected.end())
    return found->second;
  CheckReadableFile(option, path, "image file");
  cbct::ImageFileContents contents;
  try
  {
    contents = cbct::ImageFileContents::Inspect(path);
  }
  catch (const itk::ExceptionObject & e)
  {
    std::string why = FirstLine(WithoutItkPrefix(e.GetDescription()));
    if (why.rfind("format of image file", 0) == 0)
      why = "its format is none that ITK reads";
    Bad(option, Quoted(path), "an image ITK can read (" + why + ")");
  }
  for (const std::string & file : contents.Files())
    RememberInput(file);
  try
  {
    contents.CheckComplete();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(option + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  const auto & dimensions = contents.Dimensions();
  for (std::size_t d = 3; d < dimensions.size(); ++d)
    if (dimensions[d] > 1)
      Bad(option, Quoted(path) + " (" + contents.Description() + ")", "an image of at most 3 dimensions");
  if (contents.Components() != 1)
    Bad(option, Quoted(path) + " (" + contents.Description() + ")",
        "one value per pixel (a scalar image; convert colour or vector images first)");
  return inspected.emplace(path, contents).first->second;
}

/** What an image read by ReadImage() is: a volume (any grid made canonical), a projection stack
 * (the third axis counts projections), or a picture shown as it is stored (no change of grid). */
enum class ImageRole
{
  Volume,
  ProjectionStack,
  Picture
};

/** A MetaImage of FileDimension (1 or 2) axes read at that dimension and given the missing axes of
 * one voxel (spacing 1, origin 0) up to TImage's: see ReadPixels(). */
template <typename TImage, unsigned int FileDimension>
typename TImage::Pointer
ReadWithMissingAxes(const std::string & path)
{
  using FlatImage = itk::Image<typename TImage::PixelType, FileDimension>;
  auto reader = itk::ImageFileReader<FlatImage>::New();
  reader->SetFileName(path);
  reader->Update();
  const FlatImage * flat = reader->GetOutput();
  typename TImage::RegionType region;
  typename TImage::SpacingType spacing;
  typename TImage::PointType origin;
  typename TImage::DirectionType direction;
  direction.SetIdentity();
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
  {
    const bool inFile = d < FileDimension;
    region.SetSize(d, inFile ? flat->GetLargestPossibleRegion().GetSize(d) : 1);
    spacing[d] = inFile ? flat->GetSpacing()[d] : 1.;
    origin[d] = inFile ? flat->GetOrigin()[d] : 0.;
    for (unsigned int e = 0; e < FileDimension && inFile; ++e)
      direction(d, e) = flat->GetDirection()(d, e);
  }
  typename TImage::Pointer image = TImage::New();
  image->SetRegions(region);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  image->SetDirection(direction);
  image->SetMetaDataDictionary(flat->GetMetaDataDictionary()); // ITK_original_spacing: CheckNegativeSpacing()
  image->Allocate();
  std::copy(flat->GetBufferPointer(), flat->GetBufferPointer() + region.GetNumberOfPixels(), image->GetBufferPointer());
  return image;
}

/** The pixels of an inspected image file, through ITK's reader. A 1D or 2D MetaImage is read at its
 * own dimension and given the missing axes of one voxel: ITK 5.2's MetaImageIO, asked for a 3D region
 * of a 1D or 2D file whose pixels need converting, frees a pointer it never allocated (ASCII MET_SHORT
 * data in 2D, ASCII MET_DOUBLE in 1D; found by cbctFuzzProjectionFile,
 * test/fuzz/regressions/cbctFuzzProjectionFile/). */
template <typename TImage>
typename TImage::Pointer
ReadPixels(const std::string & path, const cbct::ImageFileContents & contents)
{
  if constexpr (TImage::ImageDimension == 3)
  {
    if (contents.Format() == "MetaImage" && contents.Dimensions().size() == 2)
      return ReadWithMissingAxes<TImage, 2>(path);
    if (contents.Format() == "MetaImage" && contents.Dimensions().size() == 1)
      return ReadWithMissingAxes<TImage, 1>(path);
  }
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(path);
  reader->Update();
  typename TImage::Pointer image = reader->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** A negative spacing in an image file: a warning, or for NIfTI and Analyze an error, naming the
 * option, the file, the axis and the value.
 * ITK's reader, and so every app, takes it for a flipped axis: pixel i at origin + i x spacing (the
 * reader turns the spacing positive and the direction round, keeping the file's spacing in the
 * dictionary as "ITK_original_spacing"), which is the image stored the other way round when the origin
 * is its far end; but a header whose spacing alone was negated describes the mirror image about its
 * first pixel (a detector wholly on one side of the rotation axis: once reconstructed with MAE 0.34, silently). ITK
 * itself calls a negative spacing unsupported; the warning says where the pixels then lie.
 * NIfTI (and Analyze, read by the same ImageIO) defines pixdim as positive and places voxels by its
 * qform or sform, whose own arithmetic (nifti1_io) takes a non-positive pixdim for 1 mm while ITK's
 * reader flips the axis: two readings of one file, so it is refused (a flip belongs in the qform). */
template <typename TImage>
void
CheckNegativeSpacing(const std::string & option, const std::string & path, const TImage * image, ImageRole role)
{
  std::vector<double> original;
  if (!itk::ExposeMetaData<std::vector<double>>(image->GetMetaDataDictionary(), "ITK_original_spacing", original))
    return;
  const unsigned int axes = role == ImageRole::ProjectionStack ? 2 : TImage::ImageDimension;
  const char * const names[2][3] = { { "x", "y", "z" }, { "u", "v", "" } };
  const auto & region = image->GetLargestPossibleRegion();
  for (unsigned int d = 0; d < axes && d < original.size(); ++d)
  {
    if (!(original[d] < 0.))
      continue;
    unsigned int world = 0; // the world axis that index axis d runs along
    for (unsigned int r = 1; r < TImage::ImageDimension; ++r)
      if (std::abs(image->GetDirection()(r, d)) > std::abs(image->GetDirection()(world, d)))
        world = r;
    auto first = region.GetIndex();
    auto last = first;
    last[d] += static_cast<itk::IndexValueType>(region.GetSize(d)) - 1;
    typename TImage::PointType a, b;
    image->TransformIndexToPhysicalPoint(first, a);
    image->TransformIndexToPhysicalPoint(last, b);
    const char * axis = names[role == ImageRole::ProjectionStack ? 1 : 0][d];
    std::ostringstream text;
    if (InspectImage(option, path).Format() == "Nifti")
    {
      text << Quoted(path) << " with pixdim " << original[d] << " along " << axis;
      Bad(option, text.str(),
          "a positive pixdim (NIfTI's voxel sizes are positive: its qform arithmetic reads a negative one as 1 mm, "
          "ITK's reader as a flipped axis; give a flip by the qform or sform)");
    }
    text << option << " " << path << " has a negative spacing along " << axis << " (" << original[d]
         << " mm), read as a flipped axis: its pixels run from " << a[world] << " mm (the first stored) to " << b[world]
         << " mm (a header whose spacing alone was negated describes the mirror image about its first pixel)";
    PrintWarning(text.str());
  }
}

/** Reads an image checked on the way in (InspectImage()), on a canonical grid unless it is a
 * Picture; every failure names the option and the file. A negative spacing is a flipped axis, with a
 * warning, or in NIfTI an error (CheckNegativeSpacing()). */
template <typename TImage>
typename TImage::Pointer
ReadImage(const std::string & option, const std::string & path, ImageRole role = ImageRole::Volume)
{
  const cbct::ImageFileContents contents = InspectImage(option, path);
  typename TImage::Pointer image;
  try
  {
    image = ReadPixels<TImage>(path, contents);
  }
  catch (const itk::ExceptionObject & e)
  {
    Bad(option, Quoted(path), "an image ITK can read (" + FirstLine(WithoutItkPrefix(e.GetDescription())) + ")");
  }
  if (role == ImageRole::Picture)
    return image;
  CheckNegativeSpacing(option, path, image.GetPointer(), role);
  try
  {
    return cbct::CanonicalGrid<TImage>(image, path, role == ImageRole::ProjectionStack);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(option + ": " + WithoutItkPrefix(e.GetDescription()));
  }
}

/** The non-finite pixel values of an image: how many of each kind, and where the first is. */
struct NonFiniteValues
{
  std::uint64_t nan = 0, positive = 0, negative = 0;
  itk::Index<3> first{ { 0, 0, 0 } };

  std::uint64_t
  Count() const
  {
    return nan + positive + negative;
  }
  /** "3 (2 NaN, 1 +Inf; the first at pixel (4, 7, 2))" */
  std::string
  Describe(const std::string & pixel = "pixel") const
  {
    std::ostringstream text;
    text << this->Count() << " (";
    const char * separator = "";
    if (nan > 0)
    {
      text << nan << " NaN";
      separator = ", ";
    }
    if (positive > 0)
    {
      text << separator << positive << " +Inf";
      separator = ", ";
    }
    if (negative > 0)
      text << separator << negative << " -Inf";
    text << "; the first at " << pixel << " (" << first[0] << ", " << first[1] << ", " << first[2] << "))";
    return text.str();
  }
};

/** Counts the non-finite values of `image` and, when `replacement` is given, replaces them by it. */
template <typename TImage>
NonFiniteValues
FindNonFinite(TImage * image, const typename TImage::RegionType & region, const std::vector<double> & replacement)
{
  NonFiniteValues found;
  itk::ImageRegionIterator<TImage> it(image, region);
  for (; !it.IsAtEnd(); ++it)
  {
    const auto value = it.Get();
    if (std::isfinite(value))
      continue;
    if (found.Count() == 0)
      for (unsigned int d = 0; d < 3; ++d)
        found.first[d] = it.GetIndex()[d];
    if (std::isnan(value))
      ++found.nan;
    else if (value > 0)
      ++found.positive;
    else
      ++found.negative;
    if (!replacement.empty())
      it.Set(static_cast<typename TImage::PixelType>(replacement.front()));
  }
  return found;
}

/** The same over the whole buffered region. */
template <typename TImage>
NonFiniteValues
FindNonFinite(TImage * image, const std::vector<double> & replacement = {})
{
  return FindNonFinite(image, image->GetBufferedRegion(), replacement);
}

/** Refuses an image holding NaN or infinities, naming the option, the file and where. */
template <typename TImage>
void
CheckFiniteValues(const std::string & option, const std::string & path, TImage * image, const std::string & expected)
{
  const NonFiniteValues found = FindNonFinite(image);
  if (found.Count() > 0)
    throw Error(option + " " + path + " holds non-finite values: " + found.Describe("voxel") + "; expected " + expected);
}

/** The files an image output writes: the file, and the companions of formats with detached data
 * (.mhd: .raw or .zraw; .nhdr: .raw or .raw.gz; .hdr: .img; .img: .hdr). */
inline std::vector<std::string>
OutputFiles(const std::string & path)
{
  std::vector<std::string> files{ path };
  const std::string lower = itksys::SystemTools::LowerCase(path);
  auto stem = [&](std::size_t suffix) { return path.substr(0, path.size() - suffix); };
  auto ends = [&](const std::string & suffix) {
    return lower.size() > suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends(".mhd"))
    files.insert(files.end(), { stem(4) + ".raw", stem(4) + ".zraw" });
  else if (ends(".nhdr"))
    files.insert(files.end(), { stem(5) + ".raw", stem(5) + ".raw.gz" });
  else if (ends(".hdr"))
    files.insert(files.end(), { stem(4) + ".img", stem(4) + ".img.gz" });
  else if (ends(".img"))
    files.push_back(stem(4) + ".hdr");
  return files;
}

/** `path` made absolute and its directory resolved (for outputs that do not exist yet). */
inline std::string
AbsolutePath(const std::string & path)
{
  std::string directory = itksys::SystemTools::GetFilenamePath(path);
  if (directory.empty())
    directory = ".";
  char resolved[PATH_MAX];
  if (realpath(directory.c_str(), resolved) == nullptr)
    return path;
  return std::string(resolved) + "/" + itksys::SystemTools::GetFilenameName(path);
}

inline bool
SameFile(const std::string & a, const std::string & b)
{
  return cbct::AtomicOutput::SameFile(a, b) || AbsolutePath(a) == AbsolutePath(b);
}

/** An input of an app: its option, its path, and whether it is an image (whose data files count). */
struct InputOption
{
  std::string option;
  std::string path;
  bool image = true;
};

/** Refuses, before any work, an output that is one of the inputs (or that would write a companion
 * over one of them, or over another output): the scan would be lost. Files are compared as files
 * (device and inode: another spelling, a symbolic or a hard link is the same file). Every input
 * is remembered: WriteImage() never replaces one. Image inputs are inspected (InspectImage(): a
 * damaged one is reported here, naming its option). */
inline void
CheckOutputsAreNotInputs(const std::vector<std::pair<std::string, std::string>> & outputs, const std::vector<InputOption> & inputs)
{
  std::vector<std::pair<std::string, std::string>> inputFiles; // option, file
  for (const InputOption & input : inputs)
  {
    if (input.path.empty() || !itksys::SystemTools::FileExists(input.path, true))
      continue;
    RememberInput(input.path);
    inputFiles.emplace_back(input.option, input.path);
    if (input.image)
      for (const std::string & file : InspectImage(input.option, input.path).Files())
        inputFiles.emplace_back(input.option, file);
  }
  for (std::size_t o = 0; o < outputs.size(); ++o)
  {
    const auto & [option, output] = outputs[o];
    if (output.empty())
      continue;
    for (const std::string & file : OutputFiles(output))
    {
      for (const auto & [inputOption, input] : inputFiles)
        if (SameFile(file, input))
          Bad(option, Quoted(output) + (file == output ? "" : " (which writes " + file + ")") + ", the same file as the " +
                        inputOption + " " + input,
              "an output that is none of the inputs (writing it would destroy the input)");
      for (std::size_t other = 0; other < o; ++other)
        for (const std::string & otherFile : OutputFiles(outputs[other].second))
          if (SameFile(file, otherFile))
            Bad(option, Quoted(output) + ", the same file as " + outputs[other].first + " " + outputs[other].second,
                "a file of its own");
    }
  }
}

/** Writes a file atomically: `write(temporaryPath)` writes it beside `path`, then it is renamed into
 * place (cbct::AtomicOutput), never replacing one of the InputFiles(). A failure names the option. */
inline void
WriteAtomically(const std::string & option, const std::string & path, const std::function<void(const std::string &)> & write)
{
  try
  {
    cbct::AtomicOutput output(path);
    output.SetProtectedFiles(InputFiles());
    write(output.TemporaryPath());
    output.Commit();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error(option + " " + path + ": could not write the file (" + OneLine(WithoutItkPrefix(e.GetDescription())) + ")");
  }
}

/** Writes an image atomically (WriteAtomically()); a failure names the option and the file. What was
 * written is inspected before it is moved into place (cbct::ImageFileContents): a writer that ends
 * without saying that it could not write everything (a full disk) leaves the previous output. */
template <typename TImage>
void
WriteImage(const std::string & option, const TImage * image, const std::string & path)
{
  WriteAtomically(option, path, [&](const std::string & temporary) {
    auto writer = itk::ImageFileWriter<TImage>::New();
    writer->SetFileName(temporary);
    writer->SetInput(image);
    if (!Provenance().empty()) // the app's provenance entries beside the image's own (cbctProvenance.h)
    {
      itk::ImageIOBase::Pointer io = itk::ImageIOFactory::CreateImageIO(temporary.c_str(), itk::IOFileModeEnum::WriteMode);
      if (io.IsNotNull())
      {
        io->SetMetaDataDictionary(WithProvenance(image->GetMetaDataDictionary()));
        writer->SetImageIO(io);
        writer->SetUseInputMetaDataDictionary(false);
      }
    }
    writer->Update();
    cbct::ImageFileContents::Inspect(temporary).CheckComplete();
  });
}

} // namespace cbct::apps

#endif
