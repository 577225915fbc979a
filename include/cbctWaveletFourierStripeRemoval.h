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
 * Only the detail across the detector is filtered (detailOnly, on by default): at each angle each
 * value is split into a reference from its neighbours across the detector (DetailReference(): the
 * median of the means of DetailPairs() symmetric pairs of neighbours, 3 for a median size of
 * 5, TomoPy's automatic size of the sorting filter; the value itself left out) and the rest, the
 * detail; the filter runs on the detail, and the reference is kept as it is. A stripe of one or two
 * columns is left out of its own reference and in one pair only of its neighbours': it goes whole to
 * the detail. An object's profile across the detector is smooth over a few pixels but at its edges
 * (the reference keeps it: a pair's mean is exact where the profile is linear, where a median over a
 * window holding the column is off by one column's slope and left a quarter of a stripe on a
 * sloping background), and the part of it that is constant along the angle is the object's own
 * rotationally symmetric
 * structure around the axis: a centred object's round edges, which the published filter takes with
 * the stripes (a centred water cylinder of 256 columns: +180 % error; a noiseless Shepp-Logan head:
 * +96 % on 256 columns, +22 % on 512). This follows the split of Vo et al.'s filtering-based
 * removal (2018, algorithm 2: only the part of the sinogram where stripes live is filtered) and the
 * mean-profile ring corrections that compare a column with a median or mean of its neighbours
 * (Boin and Haibel, Opt. Express 14:12071, 2006; Ketcham, Proc. SPIE 6318, 2006).
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
    /** Filter only the sinogram's detail across the detector: what a median of `medianSize` pixels
     * across the detector (0: SortingStripeRemoval::AutomaticSize) does not keep, at each angle (see
     * the class comment). False: the whole sinogram, as the paper and TomoPy. */
    bool detailOnly = true;
    unsigned int medianSize = 0;
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
  /** The number of symmetric pairs of neighbours whose means give a column's reference (odd, at least
   * 3 and at most 63: half the median size; 0 for a median size of 0). */
  static unsigned int
  DetailPairs(unsigned int medianSize);
  /** A value's reference across the detector: the median of the means of its `pairs` symmetric pairs
   * of neighbours (u - j and u + j, j = 1 .. pairs; mirrored ends: d c b a | a b c d), each exact on a
   * profile that is linear across the detector, and the value itself left out, so that a stripe goes
   * whole to the detail and one stripe (in one pair of a neighbour's) does not move its neighbours'
   * median. `work`: room for `pairs` values. Float, as the GPU computes it. */
  static float
  DetailReference(const float * line, std::size_t columns, std::size_t u, unsigned int pairs, float * work);

  /** The median's window across the detector that splits the sinogram (0: the whole sinogram is
   * filtered). */
  unsigned int
  GetMedianSize() const
  {
    return m_MedianSize;
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
  unsigned int m_MedianSize = 0; ///< 0: the whole sinogram is filtered
  std::vector<std::size_t> m_Rows;
  std::vector<std::size_t> m_Columns;
  std::vector<std::unique_ptr<RowFFTFilter>> m_Damping; ///< per level 1 .. L, index level - 1
};

} // namespace cbct

#endif
