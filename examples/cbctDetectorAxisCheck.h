#ifndef cbctDetectorAxisCheck_h
#define cbctDetectorAxisCheck_h

// The reconstruction apps' check that the detector reaches the rotation axis (cbct::DetectorAxisMiss),
// made on the projections' layout and the geometry before any reconstruction: an error in cbct-fdk,
// a warning in the iterative apps (CheckDetectorReachesAxis()). The message names the option, the
// detector's extent in u, where the axis projects, the reach on each side, the projection, and the
// likely cause read from the files: a negative spacing (ITK flips the axis about the first pixel, so
// a header whose spacing alone was negated puts the detector beside the axis) or a
// wrong origin (the file's, or --new-origin).
#include "cbctAppSupport.h"
#include "cbctDetectorAxisMiss.h"
#include "cbctScanOption.h"

#include <itkImageIOFactory.h>

#include <sstream>
#include <string>
#include <vector>

namespace cbct::apps
{

/** What a detector that misses the rotation axis is to an app. */
enum class AxisMissIs
{
  Error,  // FDK: the voxels near the axis have no data and the redundancy weights assume they do
  Warning // iterative methods: they fit the rays measured, so a truncated or one-sided scan still gives them a volume
};

/** The likely cause of a detector beside the rotation axis, from the first projection file's header
 * (its spacing and origin as stored, before ITK turns a negative spacing into a flipped axis) and the
 * options that replace them; `stack` is the detector as reconstructed. */
template <typename TOptions>
std::string
LikelyCauseOfAxisMiss(const TOptions & o, const std::vector<std::string> & files, const itk::ImageBase<3> * stack)
{
  std::ostringstream text;
  const auto & size = stack->GetLargestPossibleRegion().GetSize();
  std::ostringstream centred; // where a centred detector's first pixel would be
  centred << "(" << -0.5 * (static_cast<double>(size[0]) - 1.) * stack->GetSpacing()[0] << ", "
          << -0.5 * (static_cast<double>(size[1]) - 1.) * stack->GetSpacing()[1] << ") mm";
  if (!o.projectionOrigin.empty())
  {
    text << "--new-origin " << o.newOrigin << " put the first pixel at (" << o.projectionOrigin[0] << ", "
         << o.projectionOrigin[1] << ") mm; a detector centred on the axis would have it at " << centred.str()
         << " (or check --geometry's ProjectionOffsetX)";
    return text.str();
  }
  itk::ImageIOBase::Pointer io;
  if (!files.empty())
  {
    try
    {
      io = itk::ImageIOFactory::CreateImageIO(files.front().c_str(), itk::IOFileModeEnum::ReadMode);
      if (io)
      {
        io->SetFileName(files.front());
        io->ReadImageInformation();
      }
    }
    catch (const itk::ExceptionObject &)
    {
      io = nullptr; // the header was read before: only the hint is lost
    }
  }
  if (io && io->GetNumberOfDimensions() >= 2)
  {
    const double su = io->GetSpacing(0), sv = io->GetSpacing(1);
    text << files.front() << " gives spacing " << su << " x " << sv << " mm and origin (" << io->GetOrigin(0) << ", "
         << io->GetOrigin(1) << ") mm";
    if (!o.projectionSpacing.empty())
      text << " (--new-spacing " << o.newSpacing << " replaces the spacing)";
    if (su < 0. || sv < 0.)
      text << ": a negative spacing flips the axis about the first pixel (pixel i at origin + i x spacing), so a "
              "header whose spacing alone was negated describes the mirror image of the detector, beside the axis; "
              "give the positive spacing, or store the pixels reversed with the origin at the far end";
    else
      text << ": likely a wrong origin (the header's, e.g. MetaImage Offset; --new-origin U,V replaces it: a detector "
              "centred on the axis has its first pixel at "
           << centred.str() << ") or detector offset (--geometry's ProjectionOffsetX)";
    return text.str();
  }
  text << "likely a negative spacing in the files (ITK flips the axis about the first pixel) or a wrong origin "
          "(--new-origin U,V replaces it: a detector centred on the axis has its first pixel at "
       << centred.str() << ")";
  return text.str();
}

/** Refuses (AxisMissIs::Error) or warns about (AxisMissIs::Warning) projections whose detector misses
 * the rotation axis in some projection of `geometry` (cbct::DetectorAxisMiss: both outer edges on one
 * side, by more than a pixel); `projections` is the stack as it will be reconstructed (its layout only:
 * --new-spacing, --new-origin and preprocessing applied), `files` the files it came from. A half-fan
 * detector that reaches the axis passes. Returns whether the detector missed. */
template <typename TOptions>
bool
CheckDetectorReachesAxis(const TOptions & o, const std::vector<std::string> & files,
                         const cbct::ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections,
                         AxisMissIs what)
{
  const std::optional<cbct::DetectorAxisMiss> miss = cbct::DetectorAxisMiss::Find(geometry, projections);
  if (!miss)
    return false;
  std::string option;
  if (!ScanPath(o).empty())
    option = "--scan " + ScanPath(o);
  else if (!o.projections.empty())
    option = "--projections " + o.projections;
  else
    option = "--path " + o.path + " --regexp " + o.regexp;
  std::string text = option + " with --geometry " + (ScanPath(o).empty() ? o.geometry : std::string("of the scan")) +
                     ": the detector misses the rotation axis: " + miss->Describe();
  if (what == AxisMissIs::Error)
    text += "; FDK needs a detector that reaches the axis in every projection (a half fan may stop at it), else the "
            "voxels near the axis have no data";
  else
    text += "; the voxels near the axis are not seen from there (reconstructing anyway: an iterative method fits the "
            "rays measured)";
  text += "; " + LikelyCauseOfAxisMiss(o, files, projections);
  if (what == AxisMissIs::Error)
    throw Error(text);
  PrintWarning(text);
  return true;
}

} // namespace cbct::apps

#endif
