#include "cbctMPIContext.h"

#include <cstdlib>
#include <vector>

namespace cbct
{

bool
MPIContext::LaunchedByMPI()
{
  for (const char * variable : { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS", "SLURM_PROCID" })
    if (std::getenv(variable))
      return true;
  return false;
}

MPIContext::MPIContext(int * argc, char *** argv)
{
  int already = 0;
  MPI_Initialized(&already);
  if (!already && !LaunchedByMPI())
    return;
  if (!already)
    MPI_Init(argc, argv);
  m_Initialized = !already;
  MPI_Comm_rank(MPI_COMM_WORLD, &m_Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_Size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m_Rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &m_LocalRank);
  MPI_Comm_free(&local);
}

MPIContext::~MPIContext()
{
  if (m_Initialized)
  {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  }
}

bool
MPIContext::AgreeOnSuccess(MPI_Comm communicator, bool ok, const std::string & message, std::string & failure)
{
  failure.clear();
  int initialized = 0, rank = 0, size = 1;
  MPI_Initialized(&initialized);
  if (initialized)
  {
    MPI_Comm_rank(communicator, &rank);
    MPI_Comm_size(communicator, &size);
  }
  if (size == 1)
  {
    if (!ok)
      failure = message;
    return ok;
  }
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, communicator);
  if (all == 1)
    return true;
  // The lowest failing rank tells everyone its message.
  int failed = ok ? size : rank, first = 0, count = 0, one = ok ? 0 : 1;
  MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, communicator);
  MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, communicator);
  int length = rank == first ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, communicator);
  std::vector<char> text(static_cast<std::size_t>(length) + 1, '\0');
  if (rank == first)
    message.copy(text.data(), message.size());
  MPI_Bcast(text.data(), length, MPI_CHAR, first, communicator);
  failure = "rank " + std::to_string(first) + ": " + std::string(text.data(), static_cast<std::size_t>(length));
  if (count > 1)
    failure += " (and " + std::to_string(count - 1) + " more rank" + (count > 2 ? "s" : "") + " failed)";
  return false;
}

void
MPIContext::Abort(int code) const
{
  if (m_Size > 1)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

} // namespace cbct
