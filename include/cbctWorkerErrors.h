#ifndef cbctWorkerErrors_h
#define cbctWorkerErrors_h

#include "ConeBeamCTExport.h"

#include <itkImageRegion.h>
#include <itkMultiThreaderBase.h>

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace cbct
{

/** \class WorkerErrors
 * \brief The first exception thrown by any of a set of jobs on other threads, rethrown on the thread
 * that waits for them.
 *
 * Why: ITK's thread pool (itk::PoolMultiThreader, ITK's default) drops an exception thrown inside a
 * ParallelizeArray() job: the job's remaining items are skipped and the call returns as if all went
 * well, so an out-of-memory error, a CUDA error or an unreadable file would leave a silently wrong
 * result. ParallelizeImageRegion() passes the first exception on, but may do so before the other jobs
 * have returned, and ITK's other threaders wrap exceptions into an itk::ExceptionObject that loses
 * their type (a std::bad_alloc no longer reads as one). Every job of the project therefore runs
 * through Run() (or the ParallelizeArray(), ParallelizeImageRegion() and RunThreads() below, which do
 * it): the exception is caught on the worker, the first one kept as it was thrown (its type too: a
 * std::bad_alloc, an itk::ProcessAborted), the jobs that start afterwards skip their work, and
 * RethrowFirst() throws it on the caller once every job has returned.
 *
 * For tests, SetInjectedFailure() installs a function that every job calls before its work (it may
 * throw, e.g. a std::bad_alloc on the third job): it shows that a failure on any worker reaches the
 * caller. It is not an option of any app.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT WorkerErrors
{
public:
  WorkerErrors() = default;
  WorkerErrors(const WorkerErrors &) = delete;
  WorkerErrors &
  operator=(const WorkerErrors &) = delete;

  /** Runs `job()` unless an earlier job failed; an exception it throws is kept if it is the first.
   * Returns whether the job ran and returned normally. Safe to call from any number of threads. */
  template <typename TJob>
  bool
  Run(TJob && job) noexcept
  {
    if (this->Failed())
      return false;
    try
    {
      CallInjectedFailure();
      std::forward<TJob>(job)();
      return true;
    }
    catch (...)
    {
      this->Keep(std::current_exception());
      return false;
    }
  }

  /** Keeps `error` if no exception has been kept yet (for callers that catch themselves). */
  void
  Keep(std::exception_ptr error) noexcept;

  /** Whether a job has failed (cheap: the other jobs test it to stop early). */
  bool
  Failed() const noexcept
  {
    return m_Failed.load(std::memory_order_acquire);
  }

  /** Throws the first exception kept, on the calling thread; does nothing when every job succeeded. */
  void
  RethrowFirst();

  /** For tests only: `failure` is called at the start of every job run through Run() in this
   * process (from the worker threads, so it must be thread safe); an exception it throws is that
   * job's failure. An empty function (the default) removes it. */
  static void
  SetInjectedFailure(std::function<void()> failure);

private:
  static void
  CallInjectedFailure();

  std::mutex m_Mutex;
  std::exception_ptr m_First;
  std::atomic<bool> m_Failed{ false };
};

/** `threader`->ParallelizeArray(first, end, job, filter), each item run through a WorkerErrors: the
 * first exception of any item is rethrown here once every job has returned, and items not started
 * when one failed are skipped. `filter`, when given, receives ITK's progress as with ITK's call. */
template <typename TJob>
void
ParallelizeArray(itk::MultiThreaderBase * threader, itk::SizeValueType first, itk::SizeValueType end, TJob && job,
                 itk::ProcessObject * filter = nullptr)
{
  WorkerErrors errors;
  threader->ParallelizeArray(
    first, end, [&](itk::SizeValueType i) { errors.Run([&] { job(i); }); }, filter);
  errors.RethrowFirst();
}

/** ParallelizeArray() on a new threader (itk::MultiThreaderBase::New(): ITK's global default number
 * of threads); `filter`, when given, receives ITK's progress. */
template <typename TJob>
void
ParallelizeArray(itk::SizeValueType first, itk::SizeValueType end, TJob && job, itk::ProcessObject * filter = nullptr)
{
  auto threader = itk::MultiThreaderBase::New();
  ParallelizeArray(threader.GetPointer(), first, end, std::forward<TJob>(job), filter);
}

/** `threader`->ParallelizeImageRegion(region, job, filter), each piece run through a WorkerErrors. */
template <unsigned int VDimension, typename TJob>
void
ParallelizeImageRegion(itk::MultiThreaderBase * threader, const itk::ImageRegion<VDimension> & region, TJob && job,
                       itk::ProcessObject * filter = nullptr)
{
  WorkerErrors errors;
  threader->template ParallelizeImageRegion<VDimension>(
    region, [&](const itk::ImageRegion<VDimension> & piece) { errors.Run([&] { job(piece); }); }, filter);
  errors.RethrowFirst();
}

/** `job(i)` for i in [0, count), each on its own std::thread (one per GPU, say), joined here; the
 * first exception is rethrown once all have returned. `onFailure()` runs on a thread whose job failed
 * (or was skipped after another's failure), once its error is kept: e.g. to release the others
 * waiting for it, whose "another thread failed" then does not hide the cause. */
template <typename TJob, typename TOnFailure>
void
RunThreads(std::size_t count, TJob && job, TOnFailure && onFailure)
{
  WorkerErrors errors;
  std::vector<std::thread> threads;
  threads.reserve(count);
  try
  {
    for (std::size_t i = 0; i < count; ++i)
      threads.emplace_back([&errors, &job, &onFailure, i]() {
        if (!errors.Run([&] { job(i); }))
          onFailure();
      });
  }
  catch (...) // a thread that could not start: the others are released and joined first
  {
    errors.Keep(std::current_exception());
    onFailure();
  }
  for (auto & t : threads)
    t.join();
  errors.RethrowFirst();
}

template <typename TJob>
void
RunThreads(std::size_t count, TJob && job)
{
  RunThreads(count, std::forward<TJob>(job), [] {});
}

} // namespace cbct

#endif
