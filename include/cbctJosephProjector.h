#ifndef cbctJosephProjector_h
#define cbctJosephProjector_h

#include "cbctCylindricalRaysOf.h"
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
    if (geometry->IsCylindrical())
    {
      m_Cylindrical = true;
      m_Cylinder = CylindricalRaysOf(geometry, k, m_Detector);
    }
    // Joseph walks the volume's index space (a slab as the whole volume does): the rays in the index
    // coordinates of the volume's index space, and where the voxels in memory start.
    if (geometry->IsParallel(k))
      this->ParallelRays(geometry, k);
    else
      this->ConeRays(geometry, k);
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Ray.start[d] = static_cast<int>(start[d]);
      m_SizeInt[d] = static_cast<int>(m_Size[d]);
    }
  }

  /** The projection's rays with q0 counted from the first voxel in memory (as the ray caster wants)
   * rather than in the volume's index space (as Ray() holds Joseph's); start is then zero. */
  JosephRay
  RayFromFirstVoxel() const
  {
    JosephRay ray = m_Ray;
    for (unsigned int d = 0; d < 3; ++d)
    {
      ray.q0[d] -= m_Start[d];
      ray.start[d] = 0;
    }
    return ray;
  }

  /** The ray through pixel (i, j) in closed form, cone beam: the source in voxel index coordinates
   * `q0` (counted from the first voxel in memory, or with `fromFirstVoxel` false in the volume's index
   * space), and 3x3 matrices (row major) taking (i, j, 1) to the ray's direction in voxel index
   * coordinates (`toIndex`) and in world mm (`toWorld`). A parallel beam's rays need Ray() (each
   * pixel has its own origin there). */
  void
  RayParameters(double q0[3], double toIndex[9], double toWorld[9], bool fromFirstVoxel = true) const
  {
    const JosephRay ray = fromFirstVoxel ? this->RayFromFirstVoxel() : m_Ray;
    for (unsigned int r = 0; r < 3; ++r)
      q0[r] = ray.q0[r];
    for (unsigned int e = 0; e < 9; ++e)
    {
      toIndex[e] = ray.toIndex[e];
      toWorld[e] = ray.toWorld[e];
    }
  }

  /** The projection's rays in the form JosephVisit() walks them. */
  const JosephRay &
  Ray() const
  {
    return m_Ray;
  }

  /** Visits the samples of the ray through pixel (i, j) of the projection (pixel indices):
   * f(offset into the volume buffer, weight in mm), see JosephVisit(). On a cylindrical detector the
   * ray through the cylinder's pixel, walked as the ray of the flat panel's point it crosses
   * (FlatPixelOfCylinderPixel()): the same line, the same samples per mm. */
  template <typename F>
  void
  Visit(double i, double j, F && f) const
  {
    if (m_Cylindrical)
    {
      double fi = 0., fj = 0.;
      if (FlatPixelOfCylinderPixel(m_Cylinder, i, j, fi, fj))
        JosephVisit(m_Ray, m_SizeInt, fi, fj, f);
      return;
    }
    JosephVisit(m_Ray, m_SizeInt, i, j, f);
  }

  /** Whether the detector is a cylinder (then Ray() is the flat panel's, and pixel indices go through
   * Cylinder() first), and its rays. */
  bool
  IsCylindrical() const
  {
    return m_Cylindrical;
  }
  const CylindricalRays &
  Cylinder() const
  {
    return m_Cylinder;
  }

private:
  /** Cone beam: every ray from the source S through the detector point of pixel (i, j),
   * X - S = -SDD M3^-1 (u, v, 1) (see the geometry's header). */
  void
  ConeRays(const ThreeDCircularProjectionGeometry * geometry, unsigned int k)
  {
    const auto & m = geometry->GetMatrix(k);
    vnl_matrix_fixed<double, 3, 3> left;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        left(r, c) = m(r, c);
    const vnl_matrix_fixed<double, 3, 3> inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
    const auto s = geometry->GetSourcePosition(k);
    const double sdd = geometry->GetSourceToDetectorDistance(k);
    const auto & d = m_Detector.IndexToPhysical();
    for (unsigned int r = 0; r < 3; ++r)
    {
      m_Ray.q0[r] = 0.;
      for (unsigned int c = 0; c < 3; ++c)
        m_Ray.q0[r] += m_ToIndex(r, c) * (s[c] - m_Origin[c]);
      for (unsigned int c = 0; c < 3; ++c)
        m_Ray.toWorld[r * 3 + c] = -sdd * (inverse(r, 0) * d(0, c) + inverse(r, 1) * d(1, c) + inverse(r, 2) * d(2, c));
    }
    this->DirectionToIndex();
  }

  /** Parallel beam: the ray of pixel (i, j) passes its detector point, along the geometry's ray
   * direction; that point is affine in (i, j). */
  void
  ParallelRays(const ThreeDCircularProjectionGeometry * geometry, unsigned int k)
  {
    auto toIndex = [&](const ThreeDCircularProjectionGeometry::PointType & p, double q[3]) {
      for (unsigned int r = 0; r < 3; ++r)
      {
        q[r] = 0.;
        for (unsigned int c = 0; c < 3; ++c)
          q[r] += m_ToIndex(r, c) * (p[c] - m_Origin[c]);
      }
    };
    auto point = [&](double i, double j) { return geometry->GetDetectorPoint(k, m_Detector.U(i, j), m_Detector.V(i, j)); };
    double q10[3], q01[3];
    toIndex(point(0., 0.), m_Ray.q0);
    toIndex(point(1., 0.), q10);
    toIndex(point(0., 1.), q01);
    const auto direction = geometry->GetRayDirection(k);
    for (unsigned int r = 0; r < 3; ++r)
    {
      m_Ray.originStep[r] = q10[r] - m_Ray.q0[r];
      m_Ray.originStep[3 + r] = q01[r] - m_Ray.q0[r];
      m_Ray.toWorld[r * 3 + 0] = 0.;
      m_Ray.toWorld[r * 3 + 1] = 0.;
      m_Ray.toWorld[r * 3 + 2] = direction[r];
    }
    m_Ray.parallel = 1;
    this->DirectionToIndex();
  }

  /** toIndex = ToIndex * toWorld: the direction in voxel index coordinates. */
  void
  DirectionToIndex()
  {
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        m_Ray.toIndex[r * 3 + c] =
          m_ToIndex(r, 0) * m_Ray.toWorld[c] + m_ToIndex(r, 1) * m_Ray.toWorld[3 + c] + m_ToIndex(r, 2) * m_Ray.toWorld[6 + c];
  }

  DetectorCoordinates m_Detector;
  long m_Size[3];
  double m_Start[3];
  double m_Origin[3];
  vnl_matrix_fixed<double, 3, 3> m_ToIndex;
  JosephRay m_Ray;
  int m_SizeInt[3];
  bool m_Cylindrical = false;
  CylindricalRays m_Cylinder;
};

} // namespace cbct

#endif
