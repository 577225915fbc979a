#ifndef cbctCudaIterativeDevices_h
#define cbctCudaIterativeDevices_h

#include "cbctCudaDevice.h"
#include "cbctCudaDeviceSlabs.h"
#include "cbctInputChecks.h"

#include <vector>

namespace cbct
{

/** \class CudaIterativeDevices
 * \brief The GPUs of a CUDA iterative filter (its SetDevices()): none or one, the filter iterates on
 * that device; several, on slabs of the volume, one per device (CudaDeviceSlabs).
 * \ingroup ConeBeamCT
 */
class CudaIterativeDevices
{
public:
  /** The devices, as cudaSetDevice counts them; empty (the default): the current device. */
  const std::vector<int> &
  GetDevices() const
  {
    return m_Devices;
  }

protected:
  /** Checks and keeps `devices`; whether they changed. */
  bool
  AssignDevices(const std::vector<int> & devices)
  {
    if (devices == m_Devices)
      return false;
    CheckCudaDevices(devices);
    m_Devices = devices;
    return true;
  }

  /** Runs `work` on the whole volume (one device; `shared`: the reduction an MPI job gives, if any),
   * or on one slab per device. */
  template <typename TImage>
  void
  RunOnDevices(SlabReduction * shared, const TImage * initial, TImage * output,
               const typename CudaDeviceSlabs<TImage>::Work & work) const
  {
    if (m_Devices.size() <= 1)
    {
      if (!m_Devices.empty())
        CudaCheck(cudaSetDevice(m_Devices[0]), "cudaSetDevice (" + std::to_string(m_Devices[0]) + ")");
      work(initial, output, shared, true);
      return;
    }
    if (shared)
      ThrowBadParameter("number of CUDA devices of a reconstruction shared with other MPI ranks", m_Devices.size(),
                        "one (one GPU per rank)");
    CudaDeviceSlabs<TImage>::Run(m_Devices, initial, output, work);
  }

private:
  std::vector<int> m_Devices;
};

} // namespace cbct

#endif
