#ifndef cbctCudaJosephOperator_h
#define cbctCudaJosephOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaSlicedVolume.h"
#include "cbctCudaJoseph.hcu"
#include "cbctJosephProjector.h"

#include <algorithm>
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
    std::vector<JosephRay> rays(geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < rays.size(); ++k)
      rays[k] = JosephProjector(volume, projections, geometry, k).Ray();
    m_Rays.Upload(rays);
    for (unsigned int d = 0; d < 3; ++d)
      m_Launch.size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
    m_Launch.columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Launch.rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_Launch.firstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_Launch.firstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
    m_Launch.rays = m_Rays.Data();
    // Which slice stacks the texture path needs: the dominant axes of all rays.
    std::vector<unsigned int> all(rays.size());
    for (unsigned int k = 0; k < all.size(); ++k)
      all[k] = k;
    CudaDeviceBuffer<unsigned int> axes(1);
    CudaCheck(cudaMemset(axes.Data(), 0, sizeof(unsigned int)), "cudaMemset (axes)");
    CudaJosephLaunch launch = m_Launch;
    launch.subset = this->Subset(all)->Data();
    launch.count = static_cast<int>(all.size());
    CudaCheck(LaunchJosephAxes(launch, axes.Data(), nullptr), "LaunchJosephAxes");
    CudaCheck(cudaMemcpy(&m_Axes, axes.Data(), sizeof(unsigned int), cudaMemcpyDeviceToHost), "cudaMemcpy (axes)");
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
    if (m_VolumeTexture)
    {
      m_Slices.CopyFromDevice(volume, m_Launch.size, m_Axes, nullptr);
      for (int a = 0; a < 3; ++a)
        launch.slices[a] = m_Slices.Slices(a);
    }
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
    const int largest = std::max(m_Launch.size[0], std::max(m_Launch.size[1], m_Launch.size[2]));
    const int slab = m_Slab > 0 ? m_Slab : largest;
    for (launch.sliceBegin = 0; launch.sliceBegin < largest; launch.sliceBegin += slab)
    {
      launch.sliceEnd = launch.sliceBegin + slab;
      CudaCheck(LaunchJosephBack(launch, nullptr), "LaunchJosephBack");
    }
  }

  /** Forward projection through the texture unit (CudaSlicedVolume: a copy of the volume as slice
   * stacks, one bilinear fetch per sample; the default) or by reading four voxels per sample from
   * the volume (no copy; same weights, float-exact interpolation). */
  void
  SetVolumeTexture(bool on)
  {
    m_VolumeTexture = on;
  }
  /** Backprojection in slabs of this many slices along each ray's dominant axis (0: in one go): the
   * atomics of one launch then stay within a part of the volume that fits the L2 cache. */
  void
  SetBackProjectionSlab(int slices)
  {
    m_Slab = slices;
  }

private:
  CudaJosephLaunch m_Launch;
  CudaDeviceBuffer<JosephRay> m_Rays;
  CudaSlicedVolume m_Slices;
  unsigned int m_Axes = 0; ///< the rays' dominant axes (bit a for axis a)
  bool m_VolumeTexture = true;
  int m_Slab = 32; // measured on an H100 (benchmarks/README.md): 1.5 s instead of 2.6 s for problem S
};

} // namespace cbct

#endif
