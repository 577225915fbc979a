#include "cbctThreadSlabReduction.h"

#include <itkMacro.h>

#include <algorithm>

namespace cbct
{

class ThreadSlabReduction::Member : public SlabReduction
{
public:
  Member(ThreadSlabReduction * owner, unsigned int p)
    : m_Owner(owner)
    , m_P(p)
  {}
  void
  SumProjections(float * values, std::size_t count) override
  {
    m_Owner->SumProjections(m_P, values, count);
  }
  double
  Sum(double value) override
  {
    return m_Owner->Sum(m_P, value);
  }

private:
  ThreadSlabReduction * m_Owner;
  unsigned int m_P;
};

ThreadSlabReduction::ThreadSlabReduction(unsigned int participants)
  : m_Participants(std::max(1u, participants))
  , m_Buffers(m_Participants, nullptr)
  , m_Values(m_Participants, 0.)
{
  for (unsigned int p = 0; p < m_Participants; ++p)
    m_Members.emplace_back(new Member(this, p));
}

ThreadSlabReduction::~ThreadSlabReduction() = default;

SlabReduction *
ThreadSlabReduction::Participant(unsigned int p)
{
  return m_Members.at(p).get();
}

void
ThreadSlabReduction::Abandon()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_Abandoned = true;
  m_Changed.notify_all();
}

void
ThreadSlabReduction::Wait()
{
  // A reusable barrier: the last to arrive starts the next generation.
  std::unique_lock<std::mutex> lock(m_Mutex);
  const unsigned long long generation = m_Generation;
  if (!m_Abandoned && ++m_Waiting == m_Participants)
  {
    m_Waiting = 0;
    ++m_Generation;
    m_Changed.notify_all();
    return;
  }
  m_Changed.wait(lock, [&] { return m_Abandoned || m_Generation != generation; });
  if (m_Abandoned)
    itkGenericExceptionMacro(<< "another GPU of this reconstruction failed");
}

void
ThreadSlabReduction::SumProjections(unsigned int p, float * values, std::size_t count)
{
  if (m_Participants == 1)
    return;
  m_Buffers[p] = values;
  if (p == 0)
  {
    std::lock_guard<std::mutex> lock(m_Mutex);
    m_Result.resize(count);
  }
  this->Wait();
  // Each participant sums its share of the elements, in participant order (the same bits whoever
  // sums them).
  const std::size_t first = count * p / m_Participants, end = count * (p + 1) / m_Participants;
  for (std::size_t i = first; i < end; ++i)
  {
    float sum = m_Buffers[0][i];
    for (unsigned int q = 1; q < m_Participants; ++q)
      sum += m_Buffers[q][i];
    m_Result[i] = sum;
  }
  this->Wait();
  std::copy(m_Result.begin(), m_Result.end(), values);
  this->Wait(); // nobody reuses m_Result before everyone has copied it
}

double
ThreadSlabReduction::Sum(unsigned int p, double value)
{
  if (m_Participants == 1)
    return value;
  m_Values[p] = value;
  this->Wait();
  double sum = 0.;
  for (double v : m_Values)
    sum += v;
  this->Wait();
  return sum;
}

} // namespace cbct
