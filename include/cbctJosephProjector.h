#ifndef cbctJosephProjector_h
#define cbctJosephProjector_h

#include "cbctDetectorCoordinates.h"
#include "cbctJoseph.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_matrix_fixed.h>

#include <cmath>

namespace cbct
{

/** \class JosephProjector
 * \brief Joseph's ray discretisation, shared by the forward projector and its exact adjoint.
 *
 * A ray from the source through a detector pixel crosses the volume; along its dominant axis (in
 * voxel index space) it meets every slice once, and there the volume is interpolated bilinearly in
 * the slice plane (zero outside the volume). Each sample stands for the ray's length between two
 * slices (mm). The walk itself is JosephVisit() (cbctJoseph.hcu), shared with the CUDA kernels.
 * Visit() calls `f(offset, weight)` for the four voxels of each sample, so the forward
 * projector sums weight * volume[offset] and the backprojector adds weight * value to
 * volume[offset]: the two are transposes of each other by construction.
 * \ingroup ConeBeamCT
 */
class JosephProjector
{
public:
  /** For `volume` (its grid) and projection k of `geometry` laid out as `projections`. */
  template <typename TVolume, typename TProjections>
  JosephProjector(const TVolume * volume, const TProjections * projections, const ThreeDCircularProjectionGeometry * geometry,
                  unsigned int k)
    : m_Detector(projections)
  {
    const auto & size = volume->GetLargestPossibleRegion().GetSize();
    const auto & start = volume->GetLargestPossibleRegion().GetIndex();
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Size[d] = static_cast<long>(size[d]);
      m_Start[d] = static_cast<double>(start[d]);
    }
    // World to voxel index: inverse of origin + direction * spacing * index.
    vnl_matrix_fixed<double, 3, 3> toWorld;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        toWorld(r, c) = volume->GetDirection()(r, c) * volume->GetSpacing()[c];
    m_ToIndex = vnl_matrix_inverse<double>(toWorld.as_ref()).as_matrix();
    for (unsigned int d = 0; d < 3; ++d)
      m_Origin[d] = volume->GetOrigin()[d];
    const auto & m = geometry->GetMatrix(k);
    vnl_matrix_fixed<double, 3, 3> left;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        left(r, c) = m(r, c);
    m_Inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
    const auto s = geometry->GetSourcePosition(k);
    for (unsigned int d = 0; d < 3; ++d)
      m_Source[d] = s[d];
    m_Sdd = geometry->GetSourceToDetectorDistance(k);
    // Joseph walks the volume's index space (a slab as the whole volume does): the source in the
    // index coordinates of the volume's index space, and where the voxels in memory start.
    this->RayParameters(m_Ray.q0, m_Ray.toIndex, m_Ray.toWorld, false);
    for (unsigned int d = 0; d < 3; ++d)
      m_Ray.start[d] = static_cast<int>(start[d]);
    for (unsigned int d = 0; d < 3; ++d)
      m_SizeInt[d] = static_cast<int>(m_Size[d]);
  }

  /** The ray through pixel (i, j) in closed form: the source in voxel index coordinates `q0`
   * (counted from the first voxel in memory, as the ray caster wants, or with `fromFirstVoxel` false
   * in the volume's index space, as Ray() holds Joseph's), and 3x3 matrices (row major) taking (i, j, 1) to the ray's direction in voxel
   * index coordinates (`toIndex`) and in world mm (`toWorld`), as Visit() computes them. */
  void
  RayParameters(double q0[3], double toIndex[9], double toWorld[9], bool fromFirstVoxel = true) const
  {
    const auto & d = m_Detector.IndexToPhysical();
    for (unsigned int r = 0; r < 3; ++r)
    {
      q0[r] = fromFirstVoxel ? -m_Start[r] : 0.;
      for (unsigned int c = 0; c < 3; ++c)
        q0[r] += m_ToIndex(r, c) * (m_Source[c] - m_Origin[c]);
      for (unsigned int c = 0; c < 3; ++c)
        toWorld[r * 3 + c] = -m_Sdd * (m_Inverse(r, 0) * d(0, c) + m_Inverse(r, 1) * d(1, c) + m_Inverse(r, 2) * d(2, c));
    }
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        toIndex[r * 3 + c] = m_ToIndex(r, 0) * toWorld[c] + m_ToIndex(r, 1) * toWorld[3 + c] + m_ToIndex(r, 2) * toWorld[6 + c];
  }

  /** The projection's rays in the form JosephVisit() walks them. */
  const JosephRay &
  Ray() const
  {
    return m_Ray;
  }

  /** Visits the samples of the ray through pixel (i, j) of the projection (pixel indices):
   * f(offset into the volume buffer, weight in mm), see JosephVisit(). */
  template <typename F>
  void
  Visit(double i, double j, F && f) const
  {
    JosephVisit(m_Ray, m_SizeInt, i, j, f);
  }

private:
  DetectorCoordinates m_Detector;
  long m_Size[3];
  double m_Start[3];
  double m_Origin[3];
  double m_Source[3];
  double m_Sdd;
  vnl_matrix_fixed<double, 3, 3> m_ToIndex;
  vnl_matrix_fixed<double, 3, 3> m_Inverse;
  JosephRay m_Ray;
  int m_SizeInt[3];
};

} // namespace cbct

#endif
