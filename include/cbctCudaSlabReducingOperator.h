#ifndef cbctCudaSlabReducingOperator_h
#define cbctCudaSlabReducingOperator_h

#include "cbctCudaProjectorOperator.h"
#include "cbctSlabReduction.h"

#include <cuda_runtime_api.h>

#include <map>
#include <memory>

namespace cbct
{

/** \class CudaSlabReducingOperator
 * \brief SlabReducingOperator on the GPU: the slab's forward projections of a subset are downloaded
 * (packed), summed over the participants on the host (SlabReduction), and uploaded back; the
 * backprojection stays the slab's own. One round trip of the subset's projections per forward
 * projection.
 * \ingroup ConeBeamCT
 */
class CudaSlabReducingOperator : public CudaProjectorOperator
{
public:
  CudaSlabReducingOperator(std::unique_ptr<CudaProjectorOperator> slab, SlabReduction * reduction)
    : m_Slab(std::move(slab))
    , m_Reduction(reduction)
  {}
  ~CudaSlabReducingOperator() override
  {
    if (m_Staging)
      cudaFreeHost(m_Staging);
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return m_Slab->PixelsPerProjection();
  }
  std::size_t
  Voxels() const override
  {
    return m_Slab->Voxels();
  }

  /** Also makes the slab operator's own copy of the subset. */
  CudaDeviceBuffer<unsigned int> *
  Subset(const std::vector<unsigned int> & projections) override
  {
    CudaDeviceBuffer<unsigned int> * mine = CudaProjectorOperator::Subset(projections);
    m_SlabSubsets[mine] = m_Slab->Subset(projections);
    return mine;
  }

  void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) override
  {
    m_Slab->Forward(volume, projections, m_SlabSubsets.at(subset), count);
    const std::vector<unsigned int> & indices = this->HostSubset(subset);
    const std::size_t pixels = this->PixelsPerProjection(), bytes = pixels * sizeof(float);
    this->ReserveStaging(indices.size() * pixels);
    for (std::size_t n = 0; n < indices.size(); ++n)
      CudaCheck(cudaMemcpyAsync(m_Staging + n * pixels, projections + indices[n] * pixels, bytes, cudaMemcpyDeviceToHost, nullptr),
                "cudaMemcpyAsync (partial projections to the host)", bytes);
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (partial projections)");
    m_Reduction->SumProjections(m_Staging, indices.size() * pixels);
    for (std::size_t n = 0; n < indices.size(); ++n)
      CudaCheck(cudaMemcpyAsync(projections + indices[n] * pixels, m_Staging + n * pixels, bytes, cudaMemcpyHostToDevice, nullptr),
                "cudaMemcpyAsync (summed projections to the device)", bytes);
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (summed projections)");
  }

  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    m_Slab->Back(projections, volume, m_SlabSubsets.at(subset), count, add);
  }

  /** The slab's own update (element-wise: nothing to sum). */
  void
  SARTUpdate(const CudaSARTLaunch & update, bool forwardNext) override
  {
    m_Slab->SARTUpdate(update, forwardNext);
  }

private:
  void
  ReserveStaging(std::size_t count)
  {
    if (count <= m_StagingCount)
      return;
    if (m_Staging)
      cudaFreeHost(m_Staging);
    m_Staging = nullptr;
    m_StagingCount = 0;
    CudaCheck(cudaMallocHost(reinterpret_cast<void **>(&m_Staging), count * sizeof(float)), "cudaMallocHost (projection sums)",
              count * sizeof(float));
    m_StagingCount = count;
  }

  std::unique_ptr<CudaProjectorOperator> m_Slab;
  SlabReduction * m_Reduction;
  std::map<const CudaDeviceBuffer<unsigned int> *, CudaDeviceBuffer<unsigned int> *> m_SlabSubsets;
  float * m_Staging = nullptr;
  std::size_t m_StagingCount = 0;
};

} // namespace cbct

#endif
