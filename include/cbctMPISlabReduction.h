#ifndef cbctMPISlabReduction_h
#define cbctMPISlabReduction_h

#include "ConeBeamCTMPIExport.h"
#include "cbctSlabReduction.h"

#include <mpi.h>

namespace cbct
{

/** \class MPISlabReduction
 * \brief SlabReduction among the ranks of an MPI communicator: a reduction to rank 0 and a broadcast
 * (rather than an all-reduce, whose result MPI does not promise to be the same bits on every rank),
 * in pieces of at most 2^28 floats.
 * \ingroup ConeBeamCT
 */
class ConeBeamCTMPI_EXPORT MPISlabReduction : public SlabReduction
{
public:
  explicit MPISlabReduction(MPI_Comm communicator)
    : m_Communicator(communicator)
  {}

  void
  SumProjections(float * values, std::size_t count) override;
  double
  Sum(double value) override;

private:
  MPI_Comm m_Communicator;
};

} // namespace cbct

#endif
