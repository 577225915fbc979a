#ifndef cbctThreadSlabReduction_h
#define cbctThreadSlabReduction_h

#include "ConeBeamCTExport.h"
#include "cbctSlabReduction.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace cbct
{

/** \class ThreadSlabReduction
 * \brief SlabReduction among the threads of one process (one per GPU): each thread calls through its
 * own Participant; the sums are taken in participant order, shared out among the threads. A thread
 * that fails calls Abandon(), so that the others stop instead of waiting for it.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ThreadSlabReduction
{
public:
  explicit ThreadSlabReduction(unsigned int participants);
  ~ThreadSlabReduction();
  ThreadSlabReduction(const ThreadSlabReduction &) = delete;
  ThreadSlabReduction &
  operator=(const ThreadSlabReduction &) = delete;

  /** The SlabReduction of participant `p` (in [0, participants)), to hand to that thread's filter. */
  SlabReduction *
  Participant(unsigned int p);

  /** A participant failed and will not sum again: every participant waiting in, or later entering,
   * a sum throws itk::ExceptionObject instead of waiting forever. */
  void
  Abandon();

private:
  class Member;
  void
  Wait();
  void
  SumProjections(unsigned int p, float * values, std::size_t count);
  double
  Sum(unsigned int p, double value);

  unsigned int m_Participants;
  std::vector<std::unique_ptr<Member>> m_Members;
  std::vector<float *> m_Buffers;
  std::vector<double> m_Values;
  std::vector<float> m_Result;
  std::mutex m_Mutex;
  std::condition_variable m_Changed;
  unsigned int m_Waiting = 0;
  unsigned long long m_Generation = 0;
  bool m_Abandoned = false;
};

} // namespace cbct

#endif
