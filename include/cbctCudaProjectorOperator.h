#ifndef cbctCudaProjectorOperator_h
#define cbctCudaProjectorOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaJoseph.hcu" // CudaSARTLaunch, LaunchSARTUpdate

#include <memory>
#include <stdexcept>
#include <vector>

namespace cbct
{

/** \class CudaProjectorOperator
 * \brief ProjectorOperator on the GPU: A and A^T between device buffers laid out as the volume and
 * projection stack it was made for. Calls are queued on the default stream.
 * \ingroup ConeBeamCT
 */
class CudaProjectorOperator
{
public:
  virtual ~CudaProjectorOperator() = default;
  virtual std::size_t
  PixelsPerProjection() const = 0;
  virtual std::size_t
  Voxels() const = 0;

  /** A device copy of a subset of projection indices, owned by this operator, for the calls below. */
  virtual CudaDeviceBuffer<unsigned int> *
  Subset(const std::vector<unsigned int> & projections)
  {
    m_Subsets.emplace_back(new CudaDeviceBuffer<unsigned int>());
    m_Subsets.back()->Upload(projections);
    m_HostSubsets.push_back(projections);
    return m_Subsets.back().get();
  }
  /** The host copy of a subset made by Subset(). */
  const std::vector<unsigned int> &
  HostSubset(const CudaDeviceBuffer<unsigned int> * subset) const
  {
    for (std::size_t n = 0; n < m_Subsets.size(); ++n)
      if (m_Subsets[n].get() == subset)
        return m_HostSubsets[n];
    throw std::logic_error("CudaProjectorOperator: a subset not made by this operator's Subset()");
  }

  /** projections[k] = A_k volume for the `count` projections k of `subset` (device buffers). */
  virtual void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) = 0;

  /** volume = (add ? volume : 0) + sum over the `count` k of `subset` of A_k^T projections[k]. */
  virtual void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) = 0;

  /** SART's update of the volume (LaunchSARTUpdate(): `update` names the volume, correction,
   * sensitivity, lambda and positivity; Voxels() voxels). With `forwardNext` the caller promises
   * that the next call of this operator is Forward() of this volume, unchanged: an operator that
   * projects from its own copy of the volume (Joseph's slice stacks) then writes that copy in the
   * same pass and the Forward() skips its copy (SART's subsets: one read of the volume fewer). */
  virtual void
  SARTUpdate(const CudaSARTLaunch & update, bool forwardNext)
  {
    (void)forwardNext;
    CudaCheck(LaunchSARTUpdate(update, nullptr), "LaunchSARTUpdate");
  }

private:
  std::vector<std::unique_ptr<CudaDeviceBuffer<unsigned int>>> m_Subsets;
  std::vector<std::vector<unsigned int>> m_HostSubsets;
};

} // namespace cbct

#endif
