#ifndef cbctSortingStripeRemoval_h
#define cbctSortingStripeRemoval_h

#include "ConeBeamCTExport.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cbct
{

/** \class SortingStripeRemoval
 * \brief Vo, Atwood and Drakopoulos' sorting-based stripe removal (Opt. Express 26:28396, 2018; TomoPy's
 * remove_stripe_based_sorting) applied where their stripe detection finds a stripe, as the paper
 * recommends for large stripes (its algorithm 5, TomoPy's remove_large_stripe), on one sinogram:
 * `projections` rows (angles) of `columns` detector pixels of line integrals.
 *
 * A detector column whose gain is off adds nearly the same offset to every angle: a stripe in the
 * sinogram, a ring in the volume. Sorting each column's values along the angle turns the object's
 * features into smooth profiles that neighbouring columns share, while a stripe stays an offset of
 * one column at every rank.
 *
 * Detection (snr > 0; 2.5 by default): each column's offset is the median over the ranks (a twentieth
 * left out at each end, TomoPy's drop_ratio 0.1) of its sorted profile less its neighbours' line:
 * the median of the size / 2 nearest columns on its left (at their mean position) and that on its
 * right, joined by a line. The paper's detection then sorts the offsets, fits a line to the middle
 * half, takes what the line spans over the list as the noise and marks the columns beyond 0.5 snr
 * noise from the line's ends, if the extreme one lies beyond snr noise (DetectStripes()). Correction
 * (Correct()): a marked column whose difference from its neighbours' line has a small spread over the
 * ranks (a gain error) loses its offset; another takes, rank by rank, the line between the nearest
 * unmarked column on each side, each value back to its angle. Unmarked columns keep their values,
 * bit for bit. The image filter pools every measure over neighbouring detector rows before it
 * detects (SortingStripeRemovalImageFilter's DetectionRows; Filter() here: one row alone).
 *
 * Where this differs from TomoPy's remove_large_stripe, and why (measured on a Shepp-Logan head, an
 * off-centre and a centred water cylinder, 256 and 512 columns, with and without Poisson noise: see
 * docs/guide/preprocessing.md):
 * - the offset is a difference, not a ratio: line integrals, where a gain is an offset;
 * - the median over the ranks, not the mean: an edge of the object seen at some of the angles bends
 *   a column's sorted profile at those ranks only; with the mean a noiseless head's skull passed for
 *   stripes (+36 % error);
 * - the reference leaves the column out and joins the two sides by a line, where the median over a
 *   window holding the column is off by one column's slope (a 256-column head kept 1/3.4 of its
 *   rings); at the detector's ends the line goes through the nearest and the next columns of one side;
 * - the offsets are computed twice, the second time with the first's stripes left out of their
 *   neighbours' lines (a 3 % stripe shifts its neighbours' by 3/4 %);
 * - a marked column stays a stripe only if its offset from TomoPy's reference (the median of `size`
 *   sorted profiles centred on it, mirrored ends) is at least a tenth of its offset from the line
 *   (KeepsItsOffset()): the edge of a round object centred on the axis is constant along the angle
 *   like a stripe and bends away from the line (by 0.08 to 0.15 on a water cylinder) but not from
 *   the median, which keeps any profile monotone across the detector;
 * - no dilation of the mask: a gain error stays in its column, and interpolating its neighbours too
 *   took more of the object (an off-centre cylinder: 5.8x instead of 13x);
 * - the noise is at least NoiseFloor(), 1e-3 (a gain of 0.1 %): in a noiseless scan the fitted line
 *   is flat and the object's own small offsets passed for stripes;
 * - where a column's neighbourhood (QuietColumns() a side) is quieter than the row, the paper's test
 *   that a row has a stripe is also made with that neighbourhood's noise (median and median
 *   distance): a stripe in the air beside a coarse noiseless head, whose skull edges made the row's
 *   noise large, was missed;
 * - snr 2.5 by default, not 3: with 3 a 1 % stripe in a 256-column scan with Poisson noise of 10^4
 *   counts was missed in one row;
 * - each offset is weighted by the inverse of its column's Poisson noise (NoiseWeight() of its
 *   level, the column's median line integral): behind a thick object the offsets are noisier than
 *   in the air, and there a noisy centred cylinder's columns passed for stripes;
 * - a gain error loses its offset (the median over the ranks, from its neighbours' line with the
 *   final stripes left out, pooled over the rows) instead of taking its neighbours' line, which left
 *   it their noise (a noisy off-axis cylinder of 256 columns kept 1/4.9 of its rings); a stripe
 *   that is not one offset (IsAnOffset()) still takes the line.
 *
 * snr = 0: the paper's algorithm 3 alone, every column replaced by the median of `size` sorted
 * profiles centred on it (SciPy's "reflect" ends: d c b a | a b c d | d c b a); partial stripes (a
 * column wrong for some angles) go too, and the object loses a little everywhere (its edges).
 *
 * Exact arithmetic (sorts, medians, one fused multiply-add per value, double sums in a fixed order):
 * the CUDA filter gives the same values bit for bit. Ties are ordered by angle, and -0 is taken as +0, so the order is one total
 * order on both sides. Values must be finite (a NaN has no place in an order).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT SortingStripeRemoval
{
public:
  /** `size`: the median's window across the detector, 1 .. `columns`. `snr`: the detection's
   * ratio (TomoPy's snr; larger finds fewer stripes), or 0 to filter every column (algorithm 3 alone). */
  SortingStripeRemoval(unsigned int size, std::size_t projections, std::size_t columns, double snr = 2.5);

  /** Vo et al.'s stripe detection on the columns' offsets (see the class comment), each weighted by
   * NoiseWeight() of its level when `level` is given: 1 where a column is a stripe. */
  static std::vector<unsigned char>
  DetectStripes(const double * offsets, std::size_t columns, double snr, const double * level = nullptr);

  /** The weight of a column's offset in the detection: exp(-level / 2), the inverse of the relative
   * noise of a line integral `level` of Poisson counts (its variance is e^level / I0), with the level
   * taken within 0 .. 4: beyond 4 (2 % of the counts through air) scatter and the detector's own
   * noise take over from the counts' (and data that are not line integrals keep a weight). */
  static double
  NoiseWeight(double level)
  {
    return std::exp(-0.5 * std::min(4., std::max(0., level)));
  }

  /** Whether a column found on its offset from its neighbours' line (`between`) stays a stripe: its
   * offset from the median of its window (`centred`) is at least a tenth of that (see the class
   * comment). */
  static bool
  KeepsItsOffset(double centred, double between)
  {
    return std::abs(centred) >= 0.1 * std::abs(between);
  }

  /** The detection's least noise, in line integrals: a gain error of 0.1 % (see the class comment). */
  static double
  NoiseFloor()
  {
    return 1e-3;
  }
  /** The columns on each side whose offsets give a quiet neighbourhood's noise (DetectStripes()). */
  static std::size_t
  QuietColumns()
  {
    return 8;
  }

  /** TomoPy's choice when no size is given: 21 for detectors wider than 2000 pixels, else 1 % of
   * the width but at least 5 (and at most the width). */
  static unsigned int
  AutomaticSize(std::size_t columns);

  unsigned int
  GetSize() const
  {
    return m_Size;
  }
  double
  GetSNR() const
  {
    return m_SNR;
  }

  /** Filters the sinogram in[k * inStride + u] into out[k * outStride + u] (k < projections,
   * u < columns; in and out may not overlap), the detection on this sinogram alone (one detector row:
   * FirstOffsets(), SecondOffsets(), Correct() with no other row's offsets). Thread-safe (its work
   * buffers are its own). */
  void
  Filter(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const;

  // ---- The detection in stages, so that it can pool the measures of several detector rows -------
  // A defective column adds the same offset in every row: the mean of a column's offsets over a band
  // of rows keeps a stripe's and divides the noise by the root of the band's rows. The image filter
  // runs FirstOffsets() on every row, averages the measures over each row's band (PoolFirstRow(),
  // Pool()), detects (DetectStripes()), runs SecondOffsets() with those stripes, averages and detects
  // again (FinalStripes()), runs CorrectionOffsets() with those, and corrects each row with its band's
  // stripes and mean offsets (Correct()).

  /** A sinogram's measures of each column, `columns` values each: its offset from TomoPy's median of
   * `size` sorted profiles centred on it (`centred`) and from its neighbours' line (`between`), both
   * the median over the ranks of the difference; the spread of that difference over the ranks (its
   * upper less its lower quartile: small for a gain error, which is the same offset at every rank);
   * the column's median value (`level`: the line integral whose noise its offsets carry); and what
   * the correction subtracts (`correction`: CorrectionOffsets()). */
  struct Measures
  {
    std::vector<double> centred, between, spread, level, correction;
    explicit Measures(std::size_t columns = 0)
      : centred(columns)
      , between(columns)
      , spread(columns)
      , level(columns)
      , correction(columns)
    {}
  };

  /** The first measures (no stripe left out of the neighbours' lines). */
  void
  FirstOffsets(const float * in, std::ptrdiff_t inStride, Measures & measures) const;

  /** `first` with the offsets from the neighbours' line (and their spread) recomputed with the
   * columns marked in `stripes` left out of every line, for the columns whose neighbours (2 * the
   * median's half-width a side) hold a marked column (the others' lines are unchanged). */
  void
  SecondOffsets(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes, const Measures & first,
                Measures & second) const;

  /** `measures.correction` of the columns marked in `stripes`: their offset from their neighbours'
   * line (as `between`) with the columns of `stripes` left out of every line (the final stripes, where
   * SecondOffsets() left out the first ones, which hold the stripes' neighbours); the others' is their
   * `between`. */
  void
  CorrectionOffsets(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes, Measures & measures) const;

  /** The output: each column marked in `stripes` loses its offset (`measures.correction`, a band's
   * mean) where its difference from its neighbours' line is nearly the same at every rank (its spread
   * at most 1.5 times the offset: a gain error), and otherwise takes, rank by rank, the line between the
   * nearest unmarked column on each side (a stripe that comes and goes with the angle), each value
   * written back to its angle; the other columns keep their values bit for bit. */
  void
  Correct(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes, const Measures & measures,
          float * out, std::ptrdiff_t outStride) const;
  /** The output with the marked columns' values taken from `replacement` (the same sinogram as
   * another filter corrected it, replacement[k * replacementStride + u]) and the others kept. */
  void
  Replace(const float * in, std::ptrdiff_t inStride, const unsigned char * stripes, const float * replacement,
          std::ptrdiff_t replacementStride, float * out, std::ptrdiff_t outStride) const;

  /** Whether a marked column loses its offset rather than takes its neighbours' line (Correct()). */
  static bool
  IsAnOffset(double offset, double spread)
  {
    return spread <= 1.5 * std::abs(offset);
  }

  /** The stripes found on the second measures' offsets that keep their offset from the centred
   * median (KeepsItsOffset()). */
  static std::vector<unsigned char>
  FinalStripes(const Measures & measures, double snr);

  /** The detector rows whose measures row `row` (of `detectorRows`) pools: `rows` consecutive rows
   * (at most the detector's) centred on it (rows / 2 before it), shifted inward at the detector's
   * ends so that every row pools as many. Returns the first; there are min(rows, detectorRows). */
  static std::size_t
  PoolFirstRow(std::size_t row, std::size_t detectorRows, unsigned int rows);

  /** The mean of each measure over the `count` rows, summed in their order (double). */
  static Measures
  Pool(const Measures * const * rows, std::size_t count);

  /** The default number of detector rows whose offsets the detection pools (DetectionRows). */
  static unsigned int
  DefaultDetectionRows()
  {
    return 9;
  }

private:
  unsigned int m_Size;
  std::size_t m_Projections;
  std::size_t m_Columns;
  double m_SNR;
};

} // namespace cbct

#endif
