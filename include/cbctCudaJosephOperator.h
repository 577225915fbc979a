#ifndef cbctCudaJosephOperator_h
#define cbctCudaJosephOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaJoseph.hcu"
#include "cbctJosephProjector.h"

#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaJosephOperator
 * \brief JosephOperator on the GPU: the same rays (JosephProjector::RayParameters()), A on device
 * buffers by one thread per ray, and A^T by the same walk adding with atomics, so the two are
 * transposes up to the order of float additions.
 * \ingroup ConeBeamCT
 */
class CudaJosephOperator : public CudaProjectorOperator
{
public:
  CudaJosephOperator(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
                     const ThreeDCircularProjectionGeometry * geometry)
  {
    std::vector<CudaJosephRay> rays(geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < rays.size(); ++k)
      JosephProjector(volume, projections, geometry, k).RayParameters(rays[k].q0, rays[k].toIndex, rays[k].toWorld);
    m_Rays.Upload(rays);
    for (unsigned int d = 0; d < 3; ++d)
      m_Launch.size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
    m_Launch.columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Launch.rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_Launch.firstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_Launch.firstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
    m_Launch.rays = m_Rays.Data();
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return static_cast<std::size_t>(m_Launch.columns) * m_Launch.rows;
  }
  std::size_t
  Voxels() const override
  {
    return static_cast<std::size_t>(m_Launch.size[0]) * m_Launch.size[1] * m_Launch.size[2];
  }

  /** projections[k] = A_k volume for the k of `subset` (device buffers). */
  void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) override
  {
    CudaJosephLaunch launch = m_Launch;
    launch.volume = const_cast<float *>(volume);
    launch.projections = projections;
    launch.subset = subset->Data();
    launch.count = count;
    CudaCheck(LaunchJosephForward(launch, nullptr), "LaunchJosephForward");
  }

  /** volume = (add ? volume : 0) + sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    if (!add)
      CudaCheck(cudaMemsetAsync(volume, 0, this->Voxels() * sizeof(float), nullptr), "cudaMemsetAsync (backprojection)");
    CudaJosephLaunch launch = m_Launch;
    launch.volume = volume;
    launch.projections = const_cast<float *>(projections);
    launch.subset = subset->Data();
    launch.count = count;
    CudaCheck(LaunchJosephBack(launch, nullptr), "LaunchJosephBack");
  }

private:
  CudaJosephLaunch m_Launch;
  CudaDeviceBuffer<CudaJosephRay> m_Rays;
};

} // namespace cbct

#endif
