#ifndef cbctFDKStageTimes_h
#define cbctFDKStageTimes_h

#include <algorithm>
#include <iterator>

namespace cbct
{

/** \class FDKStageTimes
 * \brief The stage times of an FDK filter: wall-clock seconds of weighting, ramp filtering,
 * backprojection, upload and download, summed over updates (and pieces, and frames).
 *
 * One piece of code for the 3D and the 4D FDK filters (CPU and CUDA), which derive from it beside
 * their ITK superclass; the CPU filters' upload and download stay 0.
 */
class FDKStageTimes
{
public:
  double
  GetWeightingTime() const
  {
    return m_StageSeconds[0];
  }
  double
  GetFilteringTime() const
  {
    return m_StageSeconds[1];
  }
  double
  GetBackProjectionTime() const
  {
    return m_StageSeconds[2];
  }
  /** Host-to-device and device-to-host transfer time (the CUDA filters'; 0 on the CPU). */
  double
  GetUploadTime() const
  {
    return m_StageSeconds[3];
  }
  double
  GetDownloadTime() const
  {
    return m_StageSeconds[4];
  }
  /** Sets every stage time back to 0. */
  void
  ResetStageTimes()
  {
    std::fill(std::begin(m_StageSeconds), std::end(m_StageSeconds), 0.);
  }

protected:
  /** Adds a run's times (a CUDA filter's CudaFDKTimes: upload, weighting, filtering, backprojection,
   * download, in seconds). */
  template <class TTimes>
  void
  AddStageTimes(const TTimes & times)
  {
    m_StageSeconds[0] += times.weighting;
    m_StageSeconds[1] += times.filtering;
    m_StageSeconds[2] += times.backprojection;
    m_StageSeconds[3] += times.upload;
    m_StageSeconds[4] += times.download;
  }

  /** Weighting, filtering, backprojection, upload, download (seconds). */
  double m_StageSeconds[5] = { 0., 0., 0., 0., 0. };
};

} // namespace cbct

#endif
