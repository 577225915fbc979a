#ifndef cbctCudaVoxelBackProjectionOperator_h
#define cbctCudaVoxelBackProjectionOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaProjectionTexture.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctVoxelBackProjectionOperator.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaVoxelBackProjectionOperator
 * \brief VoxelBackProjectionOperator on the GPU: the forward projector's Forward(), and the voxel-based
 * backprojection by FDK's kernel without its distance weight (one bilinear texture fetch per voxel
 * and projection; the subset's projections are copied into a layered texture, 64 at a time).
 * \ingroup ConeBeamCT
 */
class CudaVoxelBackProjectionOperator : public CudaProjectorOperator
{
public:
  CudaVoxelBackProjectionOperator(std::unique_ptr<CudaProjectorOperator> forward, const itk::ImageBase<3> * volume,
                                  const itk::ImageBase<3> * projections, const ThreeDCircularProjectionGeometry * geometry)
    : m_Forward(std::move(forward))
    , m_Matrices(VoxelToPixelMatrices(volume, projections, geometry, 0, geometry->GetNumberOfProjections()))
  {
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Launch.size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
      m_Launch.first[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetIndex(d));
    }
    m_Columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_Launch.columnOffset = static_cast<float>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_Launch.rowOffset = static_cast<float>(projections->GetLargestPossibleRegion().GetIndex(1));
    m_Launch.distanceWeight = false;
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return m_Forward->PixelsPerProjection();
  }
  std::size_t
  Voxels() const override
  {
    return m_Forward->Voxels();
  }

  /** The forward projector's. */
  void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) override
  {
    m_Forward->Forward(volume, projections, subset, count);
  }

  /** The forward projector's (it may keep a copy of the volume for its next Forward()). */
  void
  SARTUpdate(const CudaSARTLaunch & update, bool forwardNext) override
  {
    m_Forward->SARTUpdate(update, forwardNext);
  }

  /** volume = (add ? volume : 0) + the voxel-based backprojection of the `count` projections of
   * `subset`. */
  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    if (!add)
      CudaCheck(cudaMemsetAsync(volume, 0, this->Voxels() * sizeof(float), nullptr), "cudaMemsetAsync (backprojection)");
    if (count <= 0)
      return;
    const std::vector<unsigned int> & k = this->HostSubset(subset);
    m_Texture.Reserve(m_Columns, m_Rows, std::min(count, CudaBackProjectionBatch));
    CudaBackProjectionLaunch launch = m_Launch;
    launch.volume = volume;
    launch.projections = m_Texture.Texture();
    for (int begin = 0; begin < count; begin += CudaBackProjectionBatch)
    {
      launch.count = std::min(CudaBackProjectionBatch, count - begin);
      for (int q = 0; q < launch.count; ++q)
      {
        m_Texture.CopyLayerFromDevice(projections + k[begin + q] * this->PixelsPerProjection(), m_Columns * sizeof(float), m_Columns,
                                      m_Rows, q, nullptr);
        launch.matrices[q] = TexelCentred(m_Matrices[k[begin + q]]);
      }
      CudaCheck(LaunchFDKBackProjection(launch, nullptr), "LaunchFDKBackProjection (voxel-based)");
    }
  }

private:
  std::unique_ptr<CudaProjectorOperator> m_Forward;
  std::vector<ConeProjection> m_Matrices;
  CudaBackProjectionLaunch m_Launch;
  CudaProjectionTexture m_Texture;
  int m_Columns = 0;
  int m_Rows = 0;
};

} // namespace cbct

#endif
