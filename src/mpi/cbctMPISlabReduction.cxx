#include "cbctMPISlabReduction.h"

#include <algorithm>

namespace cbct
{

void
MPISlabReduction::SumProjections(float * values, std::size_t count)
{
  int rank = 0;
  MPI_Comm_rank(m_Communicator, &rank);
  constexpr std::size_t piece = std::size_t(1) << 28;
  for (std::size_t first = 0; first < count; first += piece)
  {
    const int n = static_cast<int>(std::min(piece, count - first));
    if (rank == 0)
      MPI_Reduce(MPI_IN_PLACE, values + first, n, MPI_FLOAT, MPI_SUM, 0, m_Communicator);
    else
      MPI_Reduce(values + first, nullptr, n, MPI_FLOAT, MPI_SUM, 0, m_Communicator);
    MPI_Bcast(values + first, n, MPI_FLOAT, 0, m_Communicator);
  }
}

double
MPISlabReduction::Sum(double value)
{
  double sum = 0.;
  MPI_Reduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, m_Communicator);
  MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, m_Communicator);
  return sum;
}

} // namespace cbct
