#ifndef cbctCudaFDKPiecePlan_h
#define cbctCudaFDKPiecePlan_h

#include "ConeBeamCTExport.h"
#include "cbctCudaFDKDevicePipeline.h"
#include "cbctWorkerErrors.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cbct
{

/** \class CudaFDKPiecePlan
 * \brief How the CUDA FDK filters (3D and 4D) fit a reconstruction into a device's memory: the
 * volume in a number of pieces along y, doubled while a run would need more than the memory budget
 * or the device runs out (itk::MemoryAllocationError), up to one volume row per piece.
 *
 * The plan keeps its pieces from one Run() to the next: the 4D filter runs frame after frame through
 * one plan, so once a frame needed more pieces the next ones start there. Not thread-safe: one plan
 * per device thread.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaFDKPiecePlan
{
public:
  /** The pieces of the volume for a number of pieces (SlabSplit::Tapered), each with the detector
   * rows it projects onto. */
  using Planner = std::function<std::vector<CudaFDKPiece>(unsigned int count)>;
  /** The error message of a run over the budget: what `pieces` pieces would need (`needed` bytes). */
  using OverBudgetMessage = std::function<std::string(std::size_t pieces, std::size_t needed)>;

  /** Starts with `count` pieces (at least 1, at most `most`: the volume's rows along y). */
  CudaFDKPiecePlan(Planner planner, unsigned int count, unsigned int most);

  /** The pieces the next Run() starts with. */
  const std::vector<CudaFDKPiece> &
  GetPieces() const
  {
    return m_Pieces;
  }

  /** Runs `problem` on `pipeline` in this plan's pieces, first checking what they need against
   * `budget` bytes (an error with overBudget()'s message when over, so that a run fails early rather
   * than half-way); on either error, twice the pieces and again, until one volume row per piece, when
   * the error is thrown on. `beforeRun(pieces)` is called before each attempt (progress counts). */
  CudaFDKTimes
  Run(CudaFDKDevicePipeline & pipeline, const CudaFDKProblem & problem, std::size_t budget,
      const OverBudgetMessage & overBudget, const std::atomic<bool> & abort,
      const CudaFDKDevicePipeline::PieceCallback & pieceDone, const std::function<void(std::size_t)> & beforeRun = {});

private:
  Planner m_Planner;
  unsigned int m_Count;
  unsigned int m_Most;
  std::vector<CudaFDKPiece> m_Pieces;
};

/** Runs work(i, notify) for i in [0, count) as the CUDA FDK filters run their devices or frames: in
 * the calling thread when count is 1 (notify() then calls poll() at once), else one thread each while
 * the calling thread calls poll() every 100 ms and whenever a worker calls notify() (ITK's progress and
 * abort observers run in the filter's own thread). Each job runs through `errors` (WorkerErrors: the
 * first failure kept as thrown); a worker that fails sets `abort`, so that the others stop at their
 * next step. The caller releases what it holds, then calls errors.RethrowFirst(). */
ConeBeamCT_EXPORT void
RunCudaFDKWorkers(unsigned int count, const std::function<void(unsigned int, const std::function<void()> &)> & work,
                  const std::function<void()> & poll, std::atomic<bool> & abort, WorkerErrors & errors);

} // namespace cbct

#endif
