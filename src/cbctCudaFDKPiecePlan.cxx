#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaFDKPiecePlan.h"

#  include <itkMacro.h>

#  include <algorithm>
#  include <chrono>
#  include <condition_variable>
#  include <mutex>
#  include <thread>

namespace cbct
{

CudaFDKPiecePlan::CudaFDKPiecePlan(Planner planner, unsigned int count, unsigned int most)
  : m_Planner(std::move(planner))
  , m_Count(std::max(1u, std::min(count, most)))
  , m_Most(std::max(1u, most))
{
  m_Pieces = m_Planner(m_Count);
}

CudaFDKTimes
CudaFDKPiecePlan::Run(CudaFDKDevicePipeline & pipeline, const CudaFDKProblem & problem, std::size_t budget,
                      const OverBudgetMessage & overBudget, const std::atomic<bool> & abort,
                      const CudaFDKDevicePipeline::PieceCallback & pieceDone, const std::function<void(std::size_t)> & beforeRun)
{
  for (;;)
  {
    std::size_t maxRows = 1, maxVoxels = 1;
    for (const auto & p : m_Pieces)
    {
      maxRows = std::max<std::size_t>(maxRows, static_cast<std::size_t>(p.rows));
      maxVoxels = std::max(maxVoxels, p.box.Voxels());
    }
    try
    {
      // Fail early (and so fall back to more pieces) rather than half-way.
      const std::size_t needed = CudaFDKDevicePipeline::BytesFor(problem, maxVoxels, maxRows, m_Pieces.size());
      if (needed > budget)
        throw itk::MemoryAllocationError(__FILE__, __LINE__, overBudget(m_Pieces.size(), needed), ITK_LOCATION);
      if (beforeRun)
        beforeRun(m_Pieces.size());
      return pipeline.Run(problem, m_Pieces, abort, pieceDone);
    }
    catch (const itk::MemoryAllocationError &)
    {
      if (m_Count >= m_Most)
        throw; // one volume row per piece and still too large: the message says what was asked and what is free
      m_Count = std::min(2 * m_Count, m_Most);
      m_Pieces = m_Planner(m_Count);
    }
  }
}

void
RunCudaFDKWorkers(unsigned int count, const std::function<void(unsigned int, const std::function<void()> &)> & work,
                  const std::function<void()> & poll, std::atomic<bool> & abort, WorkerErrors & errors)
{
  if (count == 1)
    errors.Run([&] { work(0, poll); });
  else
  {
    std::mutex mutex;
    std::condition_variable changed;
    const std::function<void()> notify = [&changed]() { changed.notify_all(); };
    unsigned int running = count;
    std::vector<std::thread> threads;
    try
    {
      for (unsigned int i = 0; i < count; ++i)
        threads.emplace_back([&, i]() {
          if (!errors.Run([&] { work(i, notify); }))
            abort = true; // the other workers stop at their next step
          std::lock_guard<std::mutex> lock(mutex);
          --running;
          changed.notify_all();
        });
    }
    catch (...) // a thread that could not start: the others stop, and are waited for
    {
      errors.Keep(std::current_exception());
      abort = true;
      std::lock_guard<std::mutex> lock(mutex);
      running -= count - static_cast<unsigned int>(threads.size());
    }
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (running > 0)
      {
        changed.wait_for(lock, std::chrono::milliseconds(100));
        lock.unlock();
        poll();
        lock.lock();
      }
    }
    for (auto & t : threads)
      t.join();
  }
}

} // namespace cbct

#endif
