#ifndef cbctPythonFDK_h
#define cbctPythonFDK_h

// What the bindings of 3D FDK (_fdk, conebeamct.cxx) and 4D FDK (_fourd_fdk, fourd.cxx) share: the
// volume grid and the filter settings, their check of the cut-off, how they are set on a filter (CPU
// or CUDA, 3D or 4D) and the stage times each returns.
#include "cbctPythonSupport.h"

#include "cbctConstantImageSource.h"
#include "cbctFieldOfViewMask.h"
#include "cbctRampFilterResponse.h"

#include <array>
#include <cmath>
#include <string>

namespace cbct::python
{

/** The grid of the volume (of each frame) and the FDK filter's settings, checked by the binding. */
struct FdkFilterOptions
{
  std::array<unsigned long, 3> size; // x, y, z
  Triple spacing;
  Triple origin;
  RampWindow window = RampWindow::RamLak;
  double cutOff = 1.;
  bool displaced = true;
  double pad = 0.;
  double hannY = 0.;
  FieldOfViewMode fieldOfView = FieldOfViewMode::Off;
};

/** The field of view's mode from Python's `fov` ('off', 'zero' or 'nan', as the wrapper passes it),
 * or a ValueError naming `fov`. */
inline FieldOfViewMode
CheckedFieldOfView(const std::string & fov)
{
  if (fov != "off" && fov != "zero" && fov != "nan")
    throw py::value_error("fov is '" + fov + "'; expected None (every voxel), 'zero' or 'nan'");
  return FieldOfViewMask::ParseMode(fov);
}

/** The cut-off of the ramp window, or a ValueError naming `cutoff`. */
inline double
CheckedCutOff(double cutOff)
{
  if (!std::isfinite(cutOff) || !(cutOff > 0.) || cutOff > 1.)
    throw py::value_error("cutoff is " + py::repr(py::float_(cutOff)).cast<std::string>() +
                          "; expected a fraction of the Nyquist frequency in (0, 1]");
  return cutOff;
}

/** A zero volume on the options' grid: the FDK filter's first input. */
template <class TImage>
typename ConstantImageSource<TImage>::Pointer
FdkGrid(const FdkFilterOptions & o)
{
  auto grid = ConstantImageSource<TImage>::New();
  typename TImage::SizeType size;
  typename TImage::SpacingType spacing;
  typename TImage::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    size[d] = o.size[d];
    spacing[d] = o.spacing[d];
    origin[d] = o.origin[d];
  }
  grid->SetSize(size);
  grid->SetSpacing(spacing);
  grid->SetOrigin(origin);
  grid->SetConstant(0.f);
  return grid;
}

/** The options' ramp window, cut-off, truncation correction, Hann along v and displaced-detector
 * weighting on an FDK filter. */
template <class TFDK>
void
ApplyFdkFilterOptions(TFDK * fdk, const FdkFilterOptions & o)
{
  fdk->GetRampFilter()->SetWindow(o.window);
  fdk->GetRampFilter()->SetCutOff(o.cutOff);
  fdk->GetRampFilter()->SetTruncationCorrection(o.pad);
  fdk->GetRampFilter()->SetHannCutFrequencyY(o.hannY);
  fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(o.displaced);
  fdk->SetFieldOfView(o.fieldOfView);
}

/** The filter's stage times (seconds) into the returned info dict. */
template <class TFDK>
void
AddStageTimes(py::dict & info, const TFDK * fdk)
{
  info["weighting_s"] = fdk->GetWeightingTime();
  info["filtering_s"] = fdk->GetFilteringTime();
  info["backprojection_s"] = fdk->GetBackProjectionTime();
  info["upload_s"] = fdk->GetUploadTime();
  info["download_s"] = fdk->GetDownloadTime();
}

} // namespace cbct::python

#endif
