#ifndef cbctWaveletFourierStripeRemoval_h
#define cbctWaveletFourierStripeRemoval_h

#include "cbctDaubechiesWavelet.h"
#include "cbctRowFFTFilter.h"

#include <memory>
#include <string>
#include <vector>

namespace cbct
{

/** \class WaveletFourierStripeRemoval
 * \brief Münch, Trtik, Marone and Stampanoni's combined wavelet-Fourier stripe removal (Opt. Express
 * 17:8567, 2009; TomoPy's remove_stripe_fw) on one sinogram: `projections` rows (angles) of
 * `columns` detector pixels.
 *
 * The sinogram is decomposed by a 2D discrete wavelet transform over `level` levels. A stripe (an
 * offset constant along the angle, sharp across the detector) lives in the vertical details: low-pass
 * along the angle, high-pass across the detector (PyWavelets' cV). Each column of those details is
 * Fourier transformed along the angle and multiplied by 1 - exp(-f^2 / (2 sigma^2)), f the frequency
 * index, which removes what is constant along the angle and keeps what varies over a few cycles or
 * more; the inverse transforms give the sinogram back.
 *
 * As TomoPy: with `pad` the angle axis is extended by projections / 8 zero rows (half before, half
 * after) so that the Fourier transform's wrap-around does not join the first and the last angle; the
 * level, when 0, is ceil(log2(max(projections, columns))) (deeper levels than a line has samples
 * for are allowed, as PyWavelets allows them: the bands keep L - 1 coefficients). Two differences.
 * The default level is 3, not TomoPy's automatic one: a stripe of one to a few columns lives in the
 * first levels, while at coarse levels everything whose trace moves less than the level's scale
 * looks constant along the angle and goes too. On a Shepp-Logan head (512 columns, 180 projections,
 * no noise) level 3 leaves 1/6.3 of the rings and adds 4.7 % to the error; the automatic level 9
 * leaves 1/6.6 and adds 231 % (the head's own round detail goes). And:
 * TomoPy evaluates the damping for an even number of coefficients at half-integer frequencies (its
 * grid is shifted by half a bin), which keeps 3 % of the mean and treats f and -f differently;
 * here f is the transform's own frequency index, as in the paper, so a stripe constant along the
 * angle is removed whole.
 *
 * Double precision on the CPU. Values must be finite.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT WaveletFourierStripeRemoval
{
public:
  struct Parameters
  {
    /** Wavelet levels; 0: TomoPy's automatic level, ceil(log2(max(projections, columns))). */
    unsigned int level = 3;
    /** DaubechiesWavelet's name: "haar", "db1" .. "db10". */
    std::string wavelet = "db5";
    /** Width of the damping in frequency indices (> 0). */
    double sigma = 2.;
    /** Extend the angle axis by projections / 8 zero rows. */
    bool pad = true;
  };

  /** Checks the parameters (a clear error naming each) and plans the transforms. */
  WaveletFourierStripeRemoval(const Parameters & parameters, std::size_t projections, std::size_t columns);
  ~WaveletFourierStripeRemoval();

  /** The automatic level: ceil(log2(max(projections, columns))). */
  static unsigned int
  AutomaticLevel(std::size_t projections, std::size_t columns);

  /** The level used (the automatic one when 0 was given). */
  unsigned int
  GetLevel() const
  {
    return m_Level;
  }
  /** The padded number of rows along the angle, and the rows of zeros before the data. */
  std::size_t
  GetPaddedProjections() const
  {
    return m_Rows[0];
  }
  std::size_t
  GetPadBefore() const
  {
    return m_Shift;
  }
  /** Rows (along the angle) and columns of the coefficients of level n = 1 .. GetLevel() (index 0:
   * the padded sinogram). */
  const std::vector<std::size_t> &
  GetRows() const
  {
    return m_Rows;
  }
  const std::vector<std::size_t> &
  GetColumns() const
  {
    return m_Columns;
  }
  const DaubechiesWavelet &
  GetWavelet() const
  {
    return m_Wavelet;
  }
  /** The damping of frequency index f = 0 .. rows / 2 for `rows` coefficients along the angle,
   * without the inverse transform's 1 / rows. */
  static std::vector<double>
  Damping(std::size_t rows, double sigma);

  /** Filters the sinogram in[k * inStride + u] into out[k * outStride + u] (in and out may be the
   * same). Thread-safe (its work buffers are its own). */
  void
  Filter(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const;

private:
  Parameters m_Parameters;
  DaubechiesWavelet m_Wavelet;
  unsigned int m_Level = 0;
  std::size_t m_Projections = 0;
  std::size_t m_Shift = 0;
  std::vector<std::size_t> m_Rows;
  std::vector<std::size_t> m_Columns;
  std::vector<std::unique_ptr<RowFFTFilter>> m_Damping; ///< per level 1 .. L, index level - 1
};

} // namespace cbct

#endif
