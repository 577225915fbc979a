#ifndef cbctFDKFilterOptions_h
#define cbctFDKFilterOptions_h

// The FDK filter options of cbct-fdk and cbct-fourdfdk (ramp window, cut-off, RTK's --hann, the
// truncation correction --pad, --hannY, --no-displaced, the field of view --fov), checked and applied
// by one piece of code so that both apps accept the same values with the same messages. An app's Options derives from
// FDKFilterOptions (its fields stay o.window, o.cutOff, ...); each app declares the options itself,
// as their help texts differ.
#include "cbctAppSupport.h"
#include "cbctFieldOfViewMask.h"
#include "cbctRampFilterResponse.h"
#include "cbctSlicer.h"

#include <cmath>
#include <string>

namespace cbct::apps
{

struct FDKFilterOptions
{
  // As given on the command line.
  std::string window = "ramlak";
  double cutOff = 1.;
  double hann = 0.;
  double pad = 0.;
  double hannY = 0.;
  const CLI::Option * windowOption = nullptr; // to refuse --hann with --window/--cutoff
  const CLI::Option * cutOffOption = nullptr;
  bool noDisplaced = false;
  std::vector<std::string> fov; // --fov [zero|nan|off]: empty when given alone
  const CLI::Option * fovOption = nullptr;

  // Checked and parsed by ValidateFDKFilterOptions().
  cbct::RampWindow rampWindow = cbct::RampWindow::RamLak;
  cbct::FieldOfViewMode fieldOfView = cbct::FieldOfViewMode::Off;
};

/** --fov [zero|nan|off]: the scan's field of view, with its help and Slicer parameter. */
inline void
AddFieldOfViewOption(CLI::App & app, FDKFilterOptions & o, std::map<std::string, SlicerParameter> & slicer)
{
  o.fovOption = app.add_option(
                   "--fov", o.fov,
                   "Reconstruct only the scan's field of view: the voxels that every projection sees (the cylinder "
                   "the detector covers and, above and below, the cones its top and bottom rows reach; for a short "
                   "scan or a displaced detector the region all the needed projections cover). The others are "
                   "not backprojected (faster) and are written as 0 (--fov or --fov zero) or as NaN (--fov nan: 'not "
                   "measured', which no one can take for a value; tools that need finite values, such as cbct-compare, "
                   "refuse it); without --fov every voxel is reconstructed, as RTK does, though outside the field of "
                   "view its values are partial sums, wrong")
                   ->expected(0, 1);
  SlicerParameter p = SlicerIn("Output", "string-enumeration", { "off", "zero", "nan" });
  p.defaultValue = "off";
  slicer["--fov"] = p;
}

/** Checks the FDK filter options (windowOption and cutOffOption set) and fills rampWindow; --hann C
 * becomes the Hann window with cut-off C. */
inline void
ValidateFDKFilterOptions(FDKFilterOptions & o)
{
  try
  {
    o.rampWindow = cbct::ParseRampWindow(o.window);
  }
  catch (const itk::ExceptionObject &)
  {
    Bad("--window", Quoted(o.window), "one of ramlak, shepplogan, cosine, hamming, hann");
  }
  if (!std::isfinite(o.cutOff) || !(o.cutOff > 0.) || o.cutOff > 1.)
    Bad("--cutoff", o.cutOff, "a fraction of the Nyquist frequency in (0, 1]");
  // RTK's --hann C is the Hann window with cut-off C (0: none).
  if (!(o.hann >= 0. && o.hann <= 1.))
    Bad("--hann", o.hann, "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none");
  if (o.hann > 0.)
  {
    if (o.windowOption->count() + o.cutOffOption->count() > 0)
      throw Error("--hann and --window/--cutoff: --hann C is --window hann --cutoff C; give one or the other");
    o.rampWindow = cbct::RampWindow::Hann;
    o.cutOff = o.hann;
  }
  if (!std::isfinite(o.pad) || o.pad < 0.)
    Bad("--pad", o.pad, "a fraction of the detector width >= 0 (0: no truncation correction)");
  if (!(o.hannY >= 0. && o.hannY <= 1.))
    Bad("--hannY", o.hannY, "a cut-off in (0, 1] as a fraction of Nyquist, or 0 for none");
  o.fieldOfView = cbct::FieldOfViewMode::Off;
  if (o.fovOption && o.fovOption->count() > 0)
  {
    if (o.fov.size() > 1)
      Bad("--fov", Quoted(o.fov.back()), "given once: --fov, --fov zero, --fov nan or --fov off");
    const std::string mode = o.fov.empty() || o.fov.front().empty() ? "zero" : o.fov.front();
    if (mode != "zero" && mode != "nan" && mode != "off")
      Bad("--fov", Quoted(mode), "zero (the default when --fov is given alone), nan or off");
    o.fieldOfView = cbct::FieldOfViewMask::ParseMode(mode);
  }
}

/** Sets the checked options on an FDK filter (3D or 4D, CPU or CUDA): its ramp and weighting filters. */
template <class TFDK>
void
ApplyFDKFilterOptions(TFDK * fdk, const FDKFilterOptions & o)
{
  fdk->GetRampFilter()->SetWindow(o.rampWindow);
  fdk->GetRampFilter()->SetCutOff(o.cutOff);
  fdk->GetRampFilter()->SetTruncationCorrection(o.pad);
  fdk->GetRampFilter()->SetHannCutFrequencyY(o.hannY);
  fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(!o.noDisplaced);
  fdk->SetFieldOfView(o.fieldOfView);
}

} // namespace cbct::apps

#endif
