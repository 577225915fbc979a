#ifndef cbctVoxelBackProjectionOperator_h
#define cbctVoxelBackProjectionOperator_h

#include "cbctDetectorCoordinates.h"
#include "cbctFDKBackProjection.hcu"
#include "cbctFDKBackProjectionImageFilter.h" // VoxelToPixelMatrices()
#include "cbctProjectorOperator.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctCylindricalRaysOf.h"
#include "cbctVoxelRunBackProjection.h"
#include "cbctWorkerErrors.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace cbct
{

/** AccumulateVoxelRunScalar() on a cylindrical detector: each voxel's flat panel pixel (the launch's
 * matrix) moved to the cylinder's pixel of the same ray before sampling. */
inline void
AccumulateCylinderVoxelRun(const VoxelRunLaunch<float> & l, const CylindricalRays & cylinder)
{
  const float * m = l.matrix;
  for (int x = 0; x < l.width; ++x)
  {
    float hu, hv, hw;
    HomogeneousAt(m, static_cast<float>(l.x0 + x), l.y, l.z, hu, hv, hw);
    for (int r = 0; r < BackProjectionRun; ++r, hu += m[2], hv += m[6], hw += m[10])
    {
      if (r < l.rFirst || r >= l.rEnd || !(hw < 0.f))
        continue;
      double i = 0., j = 0.;
      CylinderPixelOfFlatPixel(cylinder, static_cast<double>(hu) / hw, static_cast<double>(hv) / hw, i, j);
      l.sum[r * l.width + x] += DetectorSample(l.projection, l.nx, l.ny, l.firstColumn, l.firstRow, static_cast<float>(i),
                                               static_cast<float>(j));
    }
  }
}

/** \class VoxelBackProjectionOperator
 * \brief A forward projector paired with the voxel-based backprojector, as RTK and TIGRE pair them
 * for SART and OSEM: each voxel adds the bilinear sample of each projection where its centre
 * projects (no distance weight). It is not the forward projector's transpose, so CGLS cannot use it;
 * SART and OSEM normalise by its backprojection of ones, which makes the scale irrelevant. On the
 * GPU it is one texture fetch per voxel and projection (CudaVoxelBackProjectionOperator) instead
 * of the scattered additions of the exact adjoint.
 *
 * Voxels are walked in runs of BackProjectionRun along z and projections in batches of
 * BackProjectionBatch, summed in that order, exactly as the CUDA kernel does.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class VoxelBackProjectionOperator : public ProjectorOperator
{
public:
  VoxelBackProjectionOperator(std::unique_ptr<ProjectorOperator> forward, const TImage * volume, const TImage * projections,
                              const ThreeDCircularProjectionGeometry * geometry)
    : m_Forward(std::move(forward))
    , m_Matrices(VoxelToFlatPanelPixelMatrices(volume, projections, geometry, 0, geometry->GetNumberOfProjections()))
  {
    // A cylindrical detector: each voxel's flat panel pixel moved to the cylinder's (its ray's) pixel.
    if (geometry->IsCylindrical())
    {
      const DetectorCoordinates detector(projections);
      for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
        m_Cylinders.push_back(CylindricalRaysOf(geometry, k, detector));
    }
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
      m_First[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetIndex(d));
    }
    m_Columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_FirstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_FirstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
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
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const override
  {
    m_Forward->Forward(volume, projections, subset, add);
  }

  /** volume (+)= the voxel-based backprojection of the projections of `subset`. */
  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const override
  {
    const int firstRun = RunStart(m_First[2]), zEnd = m_First[2] + m_Size[2];
    const int runs = (zEnd - firstRun + BackProjectionRun - 1) / BackProjectionRun;
    const std::size_t plane = static_cast<std::size_t>(m_Size[0]) * m_Size[1];
    ParallelizeArray(
      0, static_cast<itk::SizeValueType>(runs) * m_Size[1],
      [&](itk::SizeValueType unit) {
        const int y = static_cast<int>(unit % m_Size[1]), run = firstRun + static_cast<int>(unit / m_Size[1]) * BackProjectionRun;
        const float fy = static_cast<float>(m_First[1] + y), fz = static_cast<float>(run);
        // The kernel adds each batch's register sums to the volume (cleared first unless `add`); so
        // does this, in `total`.
        std::vector<float> total(static_cast<std::size_t>(m_Size[0]) * BackProjectionRun, 0.f);
        std::vector<float> sum(total.size());
        for (int r = 0; r < BackProjectionRun && add; ++r)
        {
          const int z = run + r - m_First[2];
          if (z >= 0 && z < m_Size[2])
            std::copy_n(volume + z * plane + static_cast<std::size_t>(y) * m_Size[0], m_Size[0], total.begin() + r * m_Size[0]);
        }
        for (std::size_t begin = 0; begin < subset.size(); begin += BackProjectionBatch)
        {
          std::fill(sum.begin(), sum.end(), 0.f);
          VoxelRunLaunch<float> launch;
          launch.nx = m_Columns;
          launch.ny = m_Rows;
          launch.firstColumn = m_FirstColumn;
          launch.firstRow = m_FirstRow;
          launch.x0 = m_First[0];
          launch.width = m_Size[0];
          launch.y = fy;
          launch.z = fz;
          launch.sum = sum.data();
          for (std::size_t n = begin; n < std::min(subset.size(), begin + BackProjectionBatch); ++n)
          {
            launch.matrix = m_Matrices[subset[n]].matrix;
            launch.projection = projections + subset[n] * PixelsPerProjection();
            if (m_Cylinders.empty())
              AccumulateVoxelRun(launch);
            else
              AccumulateCylinderVoxelRun(launch, m_Cylinders[subset[n]]);
          }
          for (std::size_t i = 0; i < sum.size(); ++i)
            total[i] += sum[i];
        }
        for (int r = 0; r < BackProjectionRun; ++r)
        {
          const int z = run + r - m_First[2];
          if (z < 0 || z >= m_Size[2])
            continue;
          float * out = volume + z * plane + static_cast<std::size_t>(y) * m_Size[0];
          for (int x = 0; x < m_Size[0]; ++x)
            out[x] = total[r * m_Size[0] + x];
        }
      });
  }

private:
  std::unique_ptr<ProjectorOperator> m_Forward;
  std::vector<ConeProjection> m_Matrices;
  std::vector<CylindricalRays> m_Cylinders; ///< a cylindrical detector's, per projection (else empty)
  int m_Size[3];
  int m_First[3];
  int m_Columns, m_Rows, m_FirstColumn, m_FirstRow;
};

} // namespace cbct

#endif
