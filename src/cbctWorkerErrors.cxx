#include "cbctWorkerErrors.h"

#include <memory>

namespace cbct
{

namespace
{
// The test hook: a shared_ptr swapped atomically, so that a job reads a whole function or none.
std::shared_ptr<const std::function<void()>> &
InjectedFailure()
{
  static std::shared_ptr<const std::function<void()>> failure;
  return failure;
}
std::atomic<bool> injecting{ false }; // a cheap test before the atomic load of the shared_ptr
} // namespace

void
WorkerErrors::Keep(std::exception_ptr error) noexcept
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (!m_First)
    m_First = std::move(error);
  m_Failed.store(true, std::memory_order_release);
}

void
WorkerErrors::RethrowFirst()
{
  std::exception_ptr first;
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    first = m_First;
  }
  if (first)
    std::rethrow_exception(first);
}

void
WorkerErrors::SetInjectedFailure(std::function<void()> failure)
{
  std::shared_ptr<const std::function<void()>> hook;
  if (failure)
    hook = std::make_shared<const std::function<void()>>(std::move(failure));
  std::atomic_store(&InjectedFailure(), hook);
  injecting.store(static_cast<bool>(hook), std::memory_order_release);
}

void
WorkerErrors::CallInjectedFailure()
{
  if (!injecting.load(std::memory_order_acquire))
    return;
  const auto hook = std::atomic_load(&InjectedFailure());
  if (hook)
    (*hook)();
}

} // namespace cbct
