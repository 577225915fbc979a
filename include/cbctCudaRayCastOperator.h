#ifndef cbctCudaRayCastOperator_h
#define cbctCudaRayCastOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaRayCast.hcu"
#include "cbctCudaVolumeTexture.h"
#include "cbctRayCastProjector.h"

#include <vector>

namespace cbct
{

/** \class CudaRayCastOperator
 * \brief The ray caster's pair on the GPU, the twin of RayCastOperator: A samples a 3D texture of
 * the volume with the hardware's trilinear filter at a fixed step along each ray; A^T walks the same
 * samples adding the texture unit's weights with atomics.
 * \ingroup ConeBeamCT
 */
class CudaRayCastOperator : public CudaProjectorOperator
{
public:
  /** `stepMm`: distance between samples along a ray (> 0). */
  CudaRayCastOperator(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
                      const ThreeDCircularProjectionGeometry * geometry, double stepMm)
  {
    std::vector<RayCastRay> rays(geometry->GetNumberOfProjections());
    std::vector<CylindricalRays> cylinders;
    for (unsigned int k = 0; k < rays.size(); ++k)
    {
      const RayCastProjector projector(volume, projections, geometry, k, stepMm);
      rays[k] = projector.Ray();
      if (projector.IsCylindrical())
        cylinders.push_back(projector.Cylinder());
    }
    m_Rays.Upload(rays);
    if (!cylinders.empty())
    {
      m_Cylinders.Upload(cylinders);
      m_Launch.cylinders = m_Cylinders.Data();
    }
    for (unsigned int d = 0; d < 3; ++d)
      m_Launch.size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
    m_Launch.columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Launch.rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_Launch.firstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_Launch.firstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
    m_Launch.step = static_cast<float>(stepMm);
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

  void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) override
  {
    m_Texture.CopyFromDevice(volume, m_Launch.size, nullptr);
    CudaRayCastLaunch launch = m_Launch;
    launch.volumeTexture = m_Texture.Linear();
    launch.projections = projections;
    launch.subset = subset->Data();
    launch.count = count;
    CudaCheck(LaunchRayCastForward(launch, nullptr), "LaunchRayCastForward");
  }

  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    if (!add)
      CudaCheck(cudaMemsetAsync(volume, 0, this->Voxels() * sizeof(float), nullptr), "cudaMemsetAsync (backprojection)");
    CudaRayCastLaunch launch = m_Launch;
    launch.volume = volume;
    launch.projections = const_cast<float *>(projections);
    launch.subset = subset->Data();
    launch.count = count;
    CudaCheck(LaunchRayCastBack(launch, nullptr), "LaunchRayCastBack");
  }

private:
  CudaRayCastLaunch m_Launch;
  CudaDeviceBuffer<RayCastRay> m_Rays;
  CudaDeviceBuffer<CylindricalRays> m_Cylinders; ///< a cylindrical detector's (else empty)
  CudaVolumeTexture m_Texture;
};

} // namespace cbct

#endif
