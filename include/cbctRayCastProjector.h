#ifndef cbctRayCastProjector_h
#define cbctRayCastProjector_h

#include "cbctJosephProjector.h"
#include "cbctRayCast.hcu"

namespace cbct
{

/** \class RayCastProjector
 * \brief The ray caster's discretisation of one projection on the CPU (see cbctRayCast.hcu):
 * segments of a fixed step along each ray, the volume interpolated trilinearly at their middles with
 * the GPU texture unit's weights. Visit() calls `f(offset, weight)` for the eight voxels of each
 * sample, so the forward projector and its adjoint are transposes by construction.
 * \ingroup ConeBeamCT
 */
class RayCastProjector
{
public:
  /** For `volume` (its grid), projection k of `geometry` laid out as `projections`, and a step in
   * mm (> 0). */
  template <typename TVolume, typename TProjections>
  RayCastProjector(const TVolume * volume, const TProjections * projections, const ThreeDCircularProjectionGeometry * geometry,
                   unsigned int k, double stepMm)
    : m_Step(static_cast<float>(stepMm))
  {
    // The ray caster counts voxels from the first one in memory.
    const JosephProjector joseph(volume, projections, geometry, k);
    const JosephRay ray = joseph.RayFromFirstVoxel();
    m_Cylindrical = joseph.IsCylindrical();
    m_Cylinder = joseph.Cylinder();
    for (int d = 0; d < 3; ++d)
    {
      m_Ray.q0[d] = static_cast<float>(ray.q0[d]);
      m_Size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
    }
    for (int e = 0; e < 9; ++e)
    {
      m_Ray.toIndex[e] = static_cast<float>(ray.toIndex[e]);
      m_Ray.toWorld[e] = static_cast<float>(ray.toWorld[e]);
    }
    for (int e = 0; e < 6; ++e)
      m_Ray.originStep[e] = static_cast<float>(ray.originStep[e]);
    m_Ray.parallel = ray.parallel;
  }

  const RayCastRay &
  Ray() const
  {
    return m_Ray;
  }

  /** Visits the samples of the ray through pixel (i, j) of the projection (pixel indices). */
  template <typename F>
  void
  Visit(double i, double j, F && f) const
  {
    if (m_Cylindrical && !FlatPixelOfCylinderPixel(m_Cylinder, i, j, i, j))
      return; // a cylinder's pixel whose ray never crosses the flat panel's plane
    RayCastVisit(m_Ray, m_Size, static_cast<float>(i), static_cast<float>(j), m_Step, f);
  }

  /** A cylindrical detector's rays (JosephProjector::Cylinder()); unused for a flat panel. */
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
  bool m_Cylindrical = false;
  CylindricalRays m_Cylinder;
  RayCastRay m_Ray;
  int m_Size[3];
  float m_Step;
};

} // namespace cbct

#endif
