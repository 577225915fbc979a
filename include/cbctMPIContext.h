#ifndef cbctMPIContext_h
#define cbctMPIContext_h

#include "ConeBeamCTMPIExport.h"

#include <mpi.h>

#include <string>

namespace cbct
{

/** \class MPIContext
 * \brief MPI for a program that may or may not run under mpirun: initialised only when a launcher
 * started the process (a single-process user never touches MPI), finalised at scope exit.
 *
 * Size() is 1 and Rank() 0 when MPI is not initialised, so the same code runs either way. Errors
 * that one rank meets reach every rank through AgreeOnSuccess() (a collective), so that all stop
 * with one clear message naming the rank instead of the others waiting forever.
 * \ingroup ConeBeamCT
 */
class ConeBeamCTMPI_EXPORT MPIContext
{
public:
  MPIContext(int * argc, char *** argv);
  ~MPIContext();
  MPIContext(const MPIContext &) = delete;
  MPIContext &
  operator=(const MPIContext &) = delete;

  /** Whether an MPI launcher (Open MPI, MPICH, PMIx, Slurm's srun) started this process. */
  static bool
  LaunchedByMPI();

  bool
  Initialized() const
  {
    return m_Initialized;
  }
  int
  Rank() const
  {
    return m_Rank;
  }
  int
  Size() const
  {
    return m_Size;
  }
  /** Rank among the ranks on this machine (to pick one GPU per rank). */
  int
  LocalRank() const
  {
    return m_LocalRank;
  }
  MPI_Comm
  Communicator() const
  {
    return MPI_COMM_WORLD;
  }

  /** Collective over `communicator`: true when every rank passes `ok`; otherwise `failure`
   * receives, on every rank, "rank R: <its message>" for the first failing rank (and how many failed). */
  static bool
  AgreeOnSuccess(MPI_Comm communicator, bool ok, const std::string & message, std::string & failure);

  /** Ends every rank of the job now (MPI_Abort), with `code`. */
  [[noreturn]] void
  Abort(int code) const;

private:
  bool m_Initialized = false;
  int m_Rank = 0;
  int m_Size = 1;
  int m_LocalRank = 0;
};

} // namespace cbct

#endif
