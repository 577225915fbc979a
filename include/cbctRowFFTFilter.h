#ifndef cbctRowFFTFilter_h
#define cbctRowFFTFilter_h

#include "ConeBeamCTExport.h"

#include <memory>
#include <vector>

namespace cbct
{

/** \class RowFFTFilter
 * \brief Filters real rows of a fixed (padded) length by a real, even frequency response, one row
 * per transform, in double precision: the CPU ramp filter's and its low-pass's FFTs.
 *
 * With ITK built on FFTW (ITK_USE_FFTWD) a real-to-complex and a complex-to-real plan are made once,
 * through ITK's FFTW proxy (under ITK's FFTW lock), and every thread executes them on its own
 * aligned buffers (a Workspace); otherwise vnl's complex FFT transforms the row with a zero imaginary
 * part. Plans are made with FFTW_ESTIMATE, whose choice does not depend on timing: every process
 * running the same binary (MPI ranks, streamed slabs) gets the same plan, and a row's result depends
 * on that row only, so a volume does not depend on how its rows were split.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT RowFFTFilter
{
public:
  /** `response[f]`, f = 0 .. length / 2: the gain at frequency f (and length - f), with the inverse
   * transform's 1 / length included, as RampFilterResponse() and HannLowPassResponse() give it. */
  RowFFTFilter(unsigned int length, std::vector<double> response);
  ~RowFFTFilter();
  RowFFTFilter(const RowFFTFilter &) = delete;
  RowFFTFilter &
  operator=(const RowFFTFilter &) = delete;

  unsigned int
  GetLength() const
  {
    return m_Length;
  }

  /** One thread's buffers: Row() (GetLength() doubles) is filled, Filter() filters it in place. */
  class ConeBeamCT_EXPORT Workspace
  {
  public:
    explicit Workspace(const RowFFTFilter & filter);
    ~Workspace();
    Workspace(const Workspace &) = delete;
    Workspace &
    operator=(const Workspace &) = delete;

    double *
    Row()
    {
      return m_Row;
    }

  private:
    friend class RowFFTFilter;
    double * m_Row = nullptr;
    void * m_Spectrum = nullptr; ///< fftw_complex[length / 2 + 1], or vnl's complex row
  };

  /** Filters `workspace.Row()` in place. Thread-safe: one workspace per thread. */
  void
  Filter(Workspace & workspace) const;

private:
  struct Plans;
  unsigned int m_Length = 0;
  std::vector<double> m_Response;
  std::unique_ptr<Plans> m_Plans;
};

} // namespace cbct

#endif
