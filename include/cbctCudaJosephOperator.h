#ifndef cbctCudaJosephOperator_h
#define cbctCudaJosephOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaSlicedVolume.h"
#include "cbctCudaJoseph.hcu"
#include "cbctCudaJosephGather.hcu"
#include "cbctJosephGatherBackProjector.h" // MakeJosephGatherProjection()
#include "cbctJosephOperator.h"            // JosephAdjoint
#include "cbctJosephProjector.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaJosephOperator
 * \brief JosephOperator on the GPU: the same rays (JosephProjector::RayParameters()), A on device
 * buffers by one thread per ray, and A^T gathered voxel by voxel (cbctCudaJosephGather.hcu, the
 * default) or scattered by the same walk as A adding with atomics (SetAdjoint()). All three use the
 * same weights: the pair is a transpose up to the order of float additions.
 * \ingroup ConeBeamCT
 */
class CudaJosephOperator : public CudaProjectorOperator
{
public:
  CudaJosephOperator(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
                     const ThreeDCircularProjectionGeometry * geometry)
  {
    std::vector<JosephRay> rays(geometry->GetNumberOfProjections());
    std::vector<CylindricalRays> cylinders;
    for (unsigned int k = 0; k < rays.size(); ++k)
    {
      const JosephProjector projector(volume, projections, geometry, k);
      rays[k] = projector.Ray();
      if (projector.IsCylindrical())
        cylinders.push_back(projector.Cylinder());
    }
    m_Rays.Upload(rays);
    // A cylindrical detector: each pixel's ray through the cylinder, scattered back (no gather).
    m_Cylindrical = !cylinders.empty();
    if (m_Cylindrical)
    {
      m_Cylinders.Upload(cylinders);
      m_Launch.cylinders = m_Cylinders.Data();
    }
    const int size[3] = { static_cast<int>(volume->GetLargestPossibleRegion().GetSize(0)),
                          static_cast<int>(volume->GetLargestPossibleRegion().GetSize(1)),
                          static_cast<int>(volume->GetLargestPossibleRegion().GetSize(2)) };
    // The gather is written for cones (a cell's rays found through the source): parallel beams are
    // scattered.
    m_Parallel = geometry->GetNumberOfProjections() > 0 && geometry->IsParallel(0);
    std::vector<JosephGatherProjection> gather;
    for (const JosephRay & ray : rays)
    {
      if (m_Parallel || m_Cylindrical)
        break;
      gather.push_back(MakeJosephGatherProjection(ray, size));
      m_ReachesSource = m_ReachesSource || JosephGatherReachesSource(gather.back(), size);
    }
    if (!gather.empty())
      m_GatherProjections.Upload(gather);
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Launch.size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
      m_GatherStart[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetIndex(d));
    }
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
    m_Planes = ((m_Axes & 1u) ? 1 : 0) + ((m_Axes & 2u) ? 1 : 0) + ((m_Axes & 4u) ? 1 : 0);
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
      if (volume != m_StagedVolume)
        m_Slices.CopyFromDevice(volume, m_Launch.size, m_Axes, nullptr);
      for (int a = 0; a < 3; ++a)
        launch.slices[a] = m_Slices.Slices(a);
    }
    m_StagedVolume = nullptr;
    CudaCheck(LaunchJosephForward(launch, nullptr), "LaunchJosephForward");
  }

  /** With `forwardNext` and the texture path: the update writes the slice stacks too (one pass)
   * and the next Forward() of this volume uses them as they are. */
  void
  SARTUpdate(const CudaSARTLaunch & update, bool forwardNext) override
  {
    m_StagedVolume = nullptr;
    if (!forwardNext || !m_VolumeTexture)
    {
      CudaProjectorOperator::SARTUpdate(update, forwardNext);
      return;
    }
    m_Slices.UpdateFromDevice(update, m_Launch.size, m_Axes, nullptr);
    m_StagedVolume = update.volume;
  }

  /** volume = (add ? volume : 0) + sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    m_StagedVolume = nullptr;
    if (!add)
      CudaCheck(cudaMemsetAsync(volume, 0, this->Voxels() * sizeof(float), nullptr), "cudaMemsetAsync (backprojection)");
    if (m_Adjoint == JosephAdjoint::Gather && !m_Parallel && !m_Cylindrical)
      this->Gather(projections, volume, subset, count);
    else
      this->Scatter(projections, volume, subset, count);
  }

  /** The gather (default) or the scatter with atomics. */
  void
  SetAdjoint(JosephAdjoint adjoint)
  {
    m_Adjoint = adjoint;
  }
  JosephAdjoint
  GetAdjoint() const
  {
    return m_Adjoint;
  }

  /** The gather's kernel (CudaJosephGatherRuns, the default; CudaJosephGatherRecords; the first one,
   * CudaJosephGatherTiles, kept for comparison): all give the same adjoint up to float rounding. */
  void
  SetGatherKernel(CudaJosephGatherKernel kernel)
  {
    m_GatherKernel = kernel;
  }
  CudaJosephGatherKernel
  GetGatherKernel() const
  {
    return m_GatherKernel;
  }

  /** Projections whose rays the gather sets up at a time: at most CudaJosephGatherBatch, and fewer
   * when their rays (16 bytes per pixel and 4 per pixel and axis) and the tiles' plans (3 per tile)
   * would pass `bytes`. */
  int
  GatherBatch(std::size_t bytes = std::size_t(256) << 20) const
  {
    const std::size_t perProjection =
      this->PixelsPerProjection() * (sizeof(float4) + sizeof(float) * m_Planes) + this->GatherTiles() * 3 * sizeof(JosephGatherPlan);
    return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(CudaJosephGatherBatch, bytes / perProjection)));
  }

  /** Forward projection through the texture unit (CudaSlicedVolume: a copy of the volume as slice
   * stacks, one bilinear fetch per sample; the default) or by reading four voxels per sample from
   * the volume (no copy; same weights, float-exact interpolation). */
  void
  SetVolumeTexture(bool on)
  {
    m_VolumeTexture = on;
  }
  /** The scatter's backprojection in slabs of this many slices along each ray's dominant axis (0: in
   * one go): the atomics of one launch then stay within a part of the volume that fits the L2 cache. */
  void
  SetBackProjectionSlab(int slices)
  {
    m_Slab = slices;
  }

private:
  /** volume += the gather's A^T projections, in batches of GatherBatch() projections. */
  void
  Gather(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count)
  {
    CudaJosephGatherLaunch launch;
    launch.volume = volume;
    launch.projections = projections;
    for (int d = 0; d < 3; ++d)
    {
      launch.size[d] = m_Launch.size[d];
      launch.start[d] = m_GatherStart[d];
    }
    launch.columns = m_Launch.columns;
    launch.rows = m_Launch.rows;
    launch.firstColumn = m_Launch.firstColumn;
    launch.firstRow = m_Launch.firstRow;
    launch.rays = m_Rays.Data();
    launch.gather = m_GatherProjections.Data();
    launch.subset = subset->Data();
    int planes = 0;
    for (int a = 0; a < 3; ++a)
      launch.plane[a] = (m_Axes >> a) & 1u ? planes++ : -1;
    const int batch = this->GatherBatch();
    m_Lines.Reserve(static_cast<std::size_t>(batch) * this->PixelsPerProjection(), "gather adjoint: rays");
    m_Steps.Reserve(static_cast<std::size_t>(batch) * this->PixelsPerProjection() * std::max(planes, 1), "gather adjoint: steps");
    m_Plans.Reserve(static_cast<std::size_t>(batch) * this->GatherTiles() * 3, "gather adjoint: plans");
    launch.lines = m_Lines.Data();
    launch.steps = m_Steps.Data();
    launch.plans = m_Plans.Data();
    launch.exhaustive = m_ReachesSource ? 1 : 0;
    launch.kernel = m_GatherKernel;
    for (launch.first = 0; launch.first < count; launch.first += batch)
    {
      launch.count = std::min(batch, count - launch.first);
      CudaCheck(LaunchJosephGatherSetUp(launch, nullptr), "LaunchJosephGatherSetUp");
      CudaCheck(LaunchJosephGather(launch, nullptr), "LaunchJosephGather");
    }
  }

  std::size_t
  GatherTiles() const
  {
    int tiles[3];
    JosephGatherTiles(m_Launch.size, tiles);
    return static_cast<std::size_t>(tiles[0]) * tiles[1] * tiles[2];
  }

  /** volume += A^T projections by the forward walk with atomics, in slabs of m_Slab slices. */
  void
  Scatter(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count)
  {
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

  CudaJosephLaunch m_Launch;
  CudaDeviceBuffer<JosephRay> m_Rays;
  CudaDeviceBuffer<CylindricalRays> m_Cylinders; ///< a cylindrical detector's (else empty)
  bool m_Cylindrical = false;
  CudaSlicedVolume m_Slices;
  unsigned int m_Axes = 0; ///< the rays' dominant axes (bit a for axis a)
  int m_Planes = 0;         ///< how many axes the rays have (the gather's step planes)
  CudaDeviceBuffer<JosephGatherProjection> m_GatherProjections;
  CudaDeviceBuffer<float4> m_Lines;
  CudaDeviceBuffer<float> m_Steps;
  CudaDeviceBuffer<JosephGatherPlan> m_Plans;
  bool m_ReachesSource = false; ///< some tile needs the gather's exhaustive path for some projection
  bool m_Parallel = false;
  int m_GatherStart[3] = { 0, 0, 0 }; ///< the volume's first voxel in its index space (a slab's is not 0)
  JosephAdjoint m_Adjoint = JosephAdjoint::Gather;
  CudaJosephGatherKernel m_GatherKernel = CudaJosephGatherRuns;
  bool m_VolumeTexture = true;
  /** The volume whose slice stacks SARTUpdate() wrote, for the next call only (any call clears it). */
  const float * m_StagedVolume = nullptr;
  int m_Slab = 32; // measured on an H100 (benchmarks/README.md): 1.5 s instead of 2.6 s for problem S
};

} // namespace cbct

#endif
