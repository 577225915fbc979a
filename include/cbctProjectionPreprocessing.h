#ifndef cbctProjectionPreprocessing_h
#define cbctProjectionPreprocessing_h

#include <array>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace cbct
{

/** \class ProjectionPreprocessing
 * \brief What ProjectionPreprocessingFilter does to projections as they are read: the settings of
 * RTK's input-projection options (rtkinputprojections_section.ggo), with RTK's meanings.
 *
 * In the order they are applied: crop (--lowercrop, --uppercrop: pixels removed at the low and high
 * end of u and v), conditional median (--radius, --multiplier), binning (--binning: averages of
 * binning[0] x binning[1] pixels), Boellaard scatter correction (--spr, --nonneg, --airthres), the
 * conversion of intensities to line integrals (--i0, --idark, --airthres), ring (stripe) removal
 * (--rings and its --rings-* parameters: not an RTK option), water precorrection (--wpc). The scatter
 * correction and the conversion apply to intensities only. Ring removal acts on line integrals, as
 * TomoPy's stripe filters do: a column's gain error is an offset there, the same at every angle.
 * \ingroup ConeBeamCT
 */
struct ProjectionPreprocessing
{
  /** The projections are detector readings, to be converted to line integrals. */
  bool intensities = false;
  /** The air reading; 0: estimated per projection from its air. */
  double i0 = 0.;
  /** The reading with the beam off. */
  double dark = 0.;
  /** Pixels above this saw air: for the I0 estimate (NaN: found automatically) and the scatter
   * correction (NaN: RTK's 32000). */
  double airThreshold = std::numeric_limits<double>::quiet_NaN();
  /** (I - Idark) and (I0 - Idark) are taken as at least this: 1 (a count) for integer readings. */
  double minimumSignal = 1.;
  /** Pixels removed at the start and the end of u and v. */
  std::array<unsigned int, 2> lowerCrop{ { 0, 0 } };
  std::array<unsigned int, 2> upperCrop{ { 0, 0 } };
  /** Pixels averaged together along u and v (1: none). */
  std::array<unsigned int, 2> binning{ { 1, 1 } };
  /** Conditional median: radius along u, v and the projection axis (0: none), and multiplier. */
  std::array<unsigned int, 3> medianRadius{ { 0, 0, 0 } };
  double medianMultiplier = 0.;
  /** Boellaard scatter correction: scatter-to-primary ratio (0: none) and non-negativity threshold
   * (NaN: RTK's 20). */
  double scatterToPrimaryRatio = 0.;
  double nonNegativityThreshold = std::numeric_limits<double>::quiet_NaN();
  /** Water precorrection coefficients c0, c1, ... (empty: none). */
  std::vector<double> waterPrecorrection;
  /** Ring (stripe) removal: "" (none), "sorting" (Vo et al. 2018, SortingStripeRemoval) or "wavelet"
   * (Münch et al. 2009, WaveletFourierStripeRemoval); the parameters of each are TomoPy's. */
  std::string rings;
  /** sorting: the median's window across the detector in pixels (0: TomoPy's automatic size). */
  unsigned int ringsSize = 0;
  /** sorting: the stripe detection's ratio (TomoPy's snr; larger finds fewer stripes), 0 to filter
   * every column (SortingStripeRemoval). */
  double ringsSnr = 2.5;
  /** sorting: the neighbouring detector rows whose offsets the stripe detection pools (1: each row
   * alone; SortingStripeRemovalImageFilter). */
  unsigned int ringsRows = 9;
  /** wavelet: levels (0: TomoPy's automatic level), wavelet name, damping width and padding of the
   * angle axis. */
  unsigned int ringsLevel = 3;
  std::string ringsWavelet = "db5";
  double ringsSigma = 2.;
  bool ringsPad = true;

  bool
  Crops() const
  {
    return lowerCrop[0] + lowerCrop[1] + upperCrop[0] + upperCrop[1] > 0;
  }
  bool
  Bins() const
  {
    return binning[0] > 1 || binning[1] > 1;
  }
  bool
  Medians() const
  {
    return medianRadius[0] + medianRadius[1] + medianRadius[2] > 0;
  }
  bool
  CorrectsScatter() const
  {
    return intensities && scatterToPrimaryRatio > 0.;
  }
  bool
  PrecorrectsWater() const
  {
    return !waterPrecorrection.empty();
  }
  bool
  RemovesRings() const
  {
    return !rings.empty();
  }
  /** Whether anything is done at all. */
  bool
  DoesNothing() const
  {
    return !intensities && !Crops() && !Bins() && !Medians() && !PrecorrectsWater() && !RemovesRings();
  }

  /** The steps done, in order, e.g. "crop 4,4 / 4,4 pixels; intensities to line integrals (I0 estimated per
   * projection, Idark 100)"; "nothing" when none. */
  std::string
  Describe() const
  {
    std::ostringstream text;
    const char * separator = "";
    auto next = [&]() -> std::ostringstream & {
      text << separator;
      separator = "; ";
      return text;
    };
    if (Crops())
      next() << "crop " << lowerCrop[0] << "," << lowerCrop[1] << " pixels at the start and " << upperCrop[0] << ","
             << upperCrop[1] << " at the end of u,v";
    if (Medians())
      next() << "conditional median of radius " << medianRadius[0] << "," << medianRadius[1] << "," << medianRadius[2]
             << " (multiplier " << medianMultiplier << ")";
    if (Bins())
      next() << "binning " << binning[0] << "x" << binning[1];
    if (CorrectsScatter())
      next() << "Boellaard scatter correction (scatter-to-primary ratio " << scatterToPrimaryRatio << ")";
    if (intensities)
    {
      next() << "intensities to line integrals (I0 ";
      if (i0 > 0.)
        text << i0;
      else if (airThreshold == airThreshold)
        text << "the mean above " << airThreshold << " per projection";
      else
        text << "estimated from the air of each projection";
      text << ", Idark " << dark << ")";
    }
    if (rings == "sorting")
    {
      next() << "sorting-based ring removal (median size ";
      if (ringsSize)
        text << ringsSize;
      else
        text << "automatic";
      if (ringsSnr > 0.)
        text << ", where a stripe is detected: snr " << ringsSnr << ", pooled over " << ringsRows << " rows)";
      else
        text << ", every column)";
    }
    else if (RemovesRings())
    {
      next() << (rings == "wavelet" ? "wavelet-Fourier" : rings) << " ring removal (" << ringsWavelet << ", level ";
      if (ringsLevel)
        text << ringsLevel;
      else
        text << "automatic";
      text << ", sigma " << ringsSigma << (ringsPad ? ", padded" : ", not padded");
      if (ringsSnr > 0.)
        text << ", where a stripe is detected: snr " << ringsSnr << ", pooled over " << ringsRows << " rows";
      text << ")";
    }
    if (PrecorrectsWater())
    {
      next() << "water precorrection (";
      for (std::size_t i = 0; i < waterPrecorrection.size(); ++i)
        text << (i ? "," : "") << waterPrecorrection[i];
      text << ")";
    }
    return separator[0] == '\0' ? "nothing" : text.str();
  }
};

} // namespace cbct

#endif
