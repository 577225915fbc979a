#ifndef cbctSlabReduction_h
#define cbctSlabReduction_h

#include <cstddef>

namespace cbct
{

/** \class SlabReduction
 * \brief The sums shared by the participants of an iterative reconstruction cut into slabs of the
 * volume (several GPUs of a process, or the ranks of an MPI job).
 *
 * Each participant holds one slab along y of the volume and the whole projection stack. Projecting
 * its slab gives it a partial forward projection; SumProjections() adds the partials of every
 * participant, so that each has A x whole (for the rows it needs to backproject), and backprojects
 * into its own slab only. Inner products of volume vectors (CGLS) are partial too and summed by Sum().
 * Communication is one forward projection per subset (not a volume), which is why the volume, not
 * the projections, is cut: the subsets of OS-SART and OSEM are small, and a slab needs only its
 * share of the volume's memory.
 *
 * Every participant calls the same sums in the same order (they are collective), and gets the same
 * result to the bit, so the participants' iterations stay in step. Implementations:
 * ThreadSlabReduction (threads of one process, one per GPU) and MPISlabReduction (ranks).
 * \ingroup ConeBeamCT
 */
class SlabReduction
{
public:
  virtual ~SlabReduction() = default;

  /** Replaces `values[0, count)` by their sum over the participants. */
  virtual void
  SumProjections(float * values, std::size_t count) = 0;

  /** The sum of `value` over the participants. */
  virtual double
  Sum(double value) = 0;
};

} // namespace cbct

#endif
