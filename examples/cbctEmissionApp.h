#ifndef cbctEmissionApp_h
#define cbctEmissionApp_h

// The emission options shared by cbct-osem, cbct-forward and cbct-simulate: --attenuation (a mu map
// image) and --psf SIGMA0,SLOPE (the collimator's depth-dependent blur), which choose the emission
// projector, their checks, their Slicer descriptions and their --verbose line.
#include "cbctAppSupport.h"
#include "cbctEmissionLattice.h"

#include <itkImage.h>

#include <sstream>

namespace cbct::apps
{

struct EmissionOptions
{
  // As given on the command line.
  std::string attenuation; // --attenuation: mu per mm
  std::string psf;         // --psf SIGMA0,SLOPE

  // Parsed by ParseEmission(), read by ReadAttenuation().
  cbct::CollimatorBlur blur;
  itk::Image<float, 3>::Pointer mu;

  /** Whether either option asks for the emission model. */
  bool
  Given() const
  {
    return !attenuation.empty() || !psf.empty();
  }
};

/** Adds --attenuation and --psf to `app`. */
inline void
AddEmissionOptions(CLI::App & app, EmissionOptions & o)
{
  app.add_option("--attenuation", o.attenuation,
                 "Attenuation map (linear attenuation coefficients per mm, >= 0, on any grid; e.g. from a CT): the "
                 "emission projector attenuates each view slice by slice (implies --fp emission)");
  app.add_option("--psf", o.psf,
                 "Collimator blur SIGMA0,SLOPE: a Gaussian of sigma(d) = SIGMA0 + SLOPE d mm for activity d mm from "
                 "the detector (SPECT: the collimator's resolution; implies --fp emission)");
}

/** The Slicer descriptions of AddEmissionOptions()'s options. */
inline void
AddEmissionSlicer(std::map<std::string, SlicerParameter> & slicer)
{
  slicer["--attenuation"] = SlicerIo("image", "input", "Emission");
  slicer["--psf"] = SlicerIn("Emission", "double-vector");
}

/** "SIGMA0,SLOPE" as a collimator blur (both finite and >= 0). */
inline cbct::CollimatorBlur
ParsePsf(const std::string & option, const std::string & text)
{
  const std::string expected = "SIGMA0,SLOPE: sigma at the detector (mm) and its growth per mm of distance, both >= 0";
  const auto values = ParseNumbers(option, text, { 2 }, expected);
  if (!std::isfinite(values[0]) || !std::isfinite(values[1]) || values[0] < 0. || values[1] < 0.)
    Bad(option, Quoted(text), expected);
  cbct::CollimatorBlur blur;
  blur.sigma0 = values[0];
  blur.slope = values[1];
  return blur;
}

/** Checks --attenuation and --psf and settles --fp: with either, the emission projector (--fp emission or
 * left out); `fpGiven` tells whether --fp was on the command line. */
inline void
ParseEmission(EmissionOptions & o, std::string & fp, bool fpGiven)
{
  if (!o.attenuation.empty())
    CheckReadableFile("--attenuation", o.attenuation, "image file");
  if (!o.psf.empty())
    o.blur = ParsePsf("--psf", o.psf);
  if (!o.Given())
    return;
  if (fpGiven && fp != "emission")
    Bad("--fp", Quoted(fp), "emission (or left out) with --attenuation or --psf: the attenuation and blur models are the "
                            "emission projector's");
  fp = "emission";
}

/** Reads --attenuation (when given) and checks every value is finite and >= 0. */
inline void
ReadAttenuation(EmissionOptions & o)
{
  if (o.attenuation.empty())
    return;
  o.mu = ReadImage<itk::Image<float, 3>>("--attenuation", o.attenuation);
  try
  {
    cbct::EmissionLattice::CheckAttenuation(o.mu);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--attenuation " + o.attenuation + ": " + WithoutItkPrefix(e.GetDescription()));
  }
}

/** For --verbose: "attenuation map FILE (X x Y x Z voxels of ... mm), collimator blur sigma(d) = ...". */
inline std::string
DescribeEmission(const EmissionOptions & o)
{
  std::ostringstream text;
  if (o.mu)
  {
    const auto size = o.mu->GetLargestPossibleRegion().GetSize();
    text << "attenuation map " << o.attenuation << " (" << size[0] << " x " << size[1] << " x " << size[2] << " voxels of "
         << o.mu->GetSpacing()[0] << " x " << o.mu->GetSpacing()[1] << " x " << o.mu->GetSpacing()[2] << " mm)";
  }
  else
    text << "no attenuation";
  if (o.blur.IsOn())
    text << ", collimator blur sigma(d) = " << o.blur.sigma0 << " + " << o.blur.slope << " d mm";
  else
    text << ", no collimator blur";
  return text.str();
}

} // namespace cbct::apps

#endif
