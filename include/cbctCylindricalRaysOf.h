#ifndef cbctCylindricalRaysOf_h
#define cbctCylindricalRaysOf_h

#include "cbctCylindricalRays.hcu"
#include "cbctDetectorCoordinates.h"
#include "cbctThreeDCircularProjectionGeometry.h"

namespace cbct
{

/** Projection k's CylindricalRays for the pixel indices of `detector` (a cylindrical geometry). */
inline CylindricalRays
CylindricalRaysOf(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, const DetectorCoordinates & detector)
{
  CylindricalRays c;
  const auto & p = geometry->GetParameters(k);
  for (unsigned int r = 0; r < 2; ++r)
    for (unsigned int e = 0; e < 3; ++e)
    {
      c.toMm[3 * r + e] = detector.IndexToPhysical()(r, e);
      c.toIndex[3 * r + e] = detector.PhysicalToIndex()(r, e);
    }
  c.radius = geometry->GetRadiusCylindricalDetector();
  c.projectionOffsetX = p.projectionOffsetX;
  c.projectionOffsetY = p.projectionOffsetY;
  c.sourceOffsetX = p.sourceOffsetX;
  c.sourceOffsetY = p.sourceOffsetY;
  c.sdd = p.sourceToDetectorDistance;
  return c;
}

} // namespace cbct

#endif
