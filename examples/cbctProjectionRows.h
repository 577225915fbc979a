#ifndef cbctProjectionRows_h
#define cbctProjectionRows_h

// Reading only some detector rows of a projection stack (an MPI rank reconstructs a slab of the
// volume, which projects onto a band of rows): the stack's layout from the files' headers, then the
// band of rows of every projection through ITK's streaming reader, which reads only those rows where
// the format allows (MetaImage, NRRD raw) and the whole file, cropped, elsewhere. The files are
// inspected first as everywhere (InspectProjections(): a file cut short is an error), the rows read
// are checked for NaN and infinities (--replace-nonfinite), and, since a band of rows cannot be put on
// a canonical grid without the whole file, a flipped or negative-spacing detector is refused here.
#include "cbctProjectionFiles.h"

#include <itkImageFileReader.h>

namespace cbct::apps
{

/** The projection stack the files of --projections or --path/--regexp make, without its pixels
 * (`context` says, in messages, why the stack is read by rows: "under mpirun"):
 * largest possible region, spacing and origin (with --new-spacing/--new-origin), direction; the
 * third axis indexes projections (spacing 1, origin 0); files without an origin give a centred
 * detector (CentreDetectorWithoutOrigin()). Reads the headers only. Refuses a detector
 * whose spacing is negative or whose direction is not the identity (ReadProjections() would turn it
 * onto a canonical grid; a band of rows read alone cannot be). */
template <typename TImage, typename TOptions>
typename TImage::Pointer
ProjectionStackInformation(const TOptions & o, std::vector<std::string> & files,
                           const std::string & context = "under mpirun")
{
  if (!ScanPath(o).empty())
    throw Error("--scan " + context + ": a scan is read whole by one process; import it first (cbct-import SCAN -o "
                "projections.mha -g geometry.xml) and give --projections and --geometry");
  files = InspectProjections(o).files;
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  typename TImage::Pointer stack = TImage::New();
  itk::SizeValueType total = 0;
  for (const std::string & file : files)
  {
    auto reader = itk::ImageFileReader<TImage>::New();
    reader->SetFileName(file);
    try
    {
      reader->UpdateOutputInformation();
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error(option + ": " + file + ": " + FirstLine(WithoutItkPrefix(e.GetDescription())));
    }
    const TImage * image = reader->GetOutput();
    const auto size = image->GetLargestPossibleRegion().GetSize();
    typename TImage::DirectionType identity;
    identity.SetIdentity();
    for (unsigned int d = 0; d < 2; ++d)
      if (!(image->GetSpacing()[d] > 0.) || image->GetDirection() != identity)
        throw Error(option + ": projection file " + file +
                    " has a negative spacing or a direction other than the identity; expected, " + context +
                    ", a detector stored with positive spacing along its u and v axes (a run that reads the whole "
                    "stack at once puts such a file on a canonical grid)");
    if (total == 0)
    {
      stack->CopyInformation(image);
      auto region = image->GetLargestPossibleRegion();
      stack->SetLargestPossibleRegion(region);
    }
    else
    {
      const auto firstSize = stack->GetLargestPossibleRegion().GetSize();
      for (unsigned int d = 0; d < 2; ++d)
        if (size[d] != firstSize[d] ||
            std::abs(image->GetSpacing()[d] - stack->GetSpacing()[d]) > 1e-6 * stack->GetSpacing()[d] ||
            std::abs(image->GetOrigin()[d] - stack->GetOrigin()[d]) > 1e-3 * stack->GetSpacing()[d])
          throw Error(option + ": projection file " + file + " has another detector (size, spacing or origin) than " +
                      files.front());
    }
    total += size[2];
  }
  auto region = stack->GetLargestPossibleRegion();
  region.SetIndex(2, 0);
  region.SetSize(2, total);
  stack->SetLargestPossibleRegion(region);
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
  CentreDetectorWithoutOrigin(o, files, stack.GetPointer()); // as ReadProjections() does
  return stack;
}

/** Rows [firstRow, firstRow + rowCount) of every projection of `information`'s stack, read from
 * `files`: an image with `information`'s largest possible region and these rows as its buffer. */
template <typename TImage, typename TOptions>
typename TImage::Pointer
ReadProjectionRows(const TOptions & o, const TImage * information, const std::vector<std::string> & files,
                   itk::IndexValueType firstRow, itk::SizeValueType rowCount)
{
  const std::string option = o.projections.empty() ? "--path/--regexp" : "--projections";
  const auto & whole = information->GetLargestPossibleRegion();
  auto rows = whole;
  rows.SetIndex(1, firstRow);
  rows.SetSize(1, rowCount);
  typename TImage::Pointer stack = TImage::New();
  stack->CopyInformation(information);
  stack->SetLargestPossibleRegion(whole);
  stack->SetBufferedRegion(rows);
  stack->SetRequestedRegion(rows);
  stack->Allocate();
  itk::IndexValueType next = 0;
  for (const std::string & file : files)
  {
    auto reader = itk::ImageFileReader<TImage>::New();
    reader->SetFileName(file);
    reader->UpdateOutputInformation();
    const auto & fileRegion = reader->GetOutput()->GetLargestPossibleRegion();
    auto band = fileRegion;
    band.SetIndex(1, fileRegion.GetIndex(1) + (firstRow - whole.GetIndex(1)));
    band.SetSize(1, rowCount);
    reader->GetOutput()->SetRequestedRegion(band);
    try
    {
      reader->Update();
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error(option + ": " + file + ": " + FirstLine(WithoutItkPrefix(e.GetDescription())));
    }
    auto to = rows;
    to.SetIndex(2, next);
    to.SetSize(2, fileRegion.GetSize(2));
    const NonFiniteValues nonFinite = FindNonFinite(reader->GetOutput(), o.nonFiniteReplacement);
    if (nonFinite.Count() > 0 && o.nonFiniteReplacement.empty())
      throw Error(option + ": projection file " + file + " holds non-finite values: " +
                  nonFinite.Describe("pixel (u, v, projection)") +
                  "; expected finite line integrals (--replace-nonfinite VALUE replaces them)");
    if (nonFinite.Count() > 0)
      PrintWarning("--replace-nonfinite: replaced the non-finite values of " + file + " by " + o.replaceNonFinite + ": " +
                   nonFinite.Describe("pixel (u, v, projection)"));
    itk::ImageAlgorithm::Copy(reader->GetOutput(), stack.GetPointer(), band, to);
    next += static_cast<itk::IndexValueType>(fileRegion.GetSize(2));
  }
  return stack;
}

} // namespace cbct::apps

#endif
