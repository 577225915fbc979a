#ifndef cbctSortingStripeRemoval_h
#define cbctSortingStripeRemoval_h

#include "ConeBeamCTExport.h"

#include <cstddef>

namespace cbct
{

/** \class SortingStripeRemoval
 * \brief Vo, Atwood and Drakopoulos' sorting-based stripe removal (Opt. Express 26:28396, 2018,
 * algorithm 3; TomoPy's remove_stripe_based_sorting) on one sinogram: `projections` rows (angles) of
 * `columns` detector pixels.
 *
 * A detector column whose gain is off adds nearly the same offset to every angle: a stripe in the
 * sinogram, a ring in the volume. Sorting each column's values along the angle turns the object's
 * features into smooth, monotone profiles that neighbouring columns share, while a stripe stays an
 * offset of one column; a median across the columns (`size` columns, SciPy's
 * "reflect" ends: d c b a | a b c d | d c b a) in the sorted domain replaces that column's sorted
 * profile by its neighbours', and each value goes back to its angle. Partial stripes (a column
 * wrong for some angles) are removed too; a column that is wrong by the same offset everywhere
 * keeps the mean of its neighbours.
 *
 * Exact arithmetic (a sort, a median, no sum): the CUDA filter gives the same values bit for bit.
 * Ties are ordered by angle, and -0 is taken as +0, so the order is one total order on both sides.
 * Values must be finite (a NaN has no place in an order).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT SortingStripeRemoval
{
public:
  /** `size`: the median's window across the detector, 1 .. `columns`. */
  SortingStripeRemoval(unsigned int size, std::size_t projections, std::size_t columns);

  /** TomoPy's choice when no size is given: 21 for detectors wider than 2000 pixels, else 1 % of
   * the width but at least 5 (and at most the width). */
  static unsigned int
  AutomaticSize(std::size_t columns);

  unsigned int
  GetSize() const
  {
    return m_Size;
  }

  /** Filters the sinogram in[k * inStride + u] into out[k * outStride + u] (k < projections,
   * u < columns; in and out may not overlap). Thread-safe (its work buffers are its own). */
  void
  Filter(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const;

private:
  unsigned int m_Size;
  std::size_t m_Projections;
  std::size_t m_Columns;
};

} // namespace cbct

#endif
