#include "cbctOrbitWobble.h"

#include "cbctInputChecks.h"

#include <random>

namespace cbct
{

ThreeDCircularProjectionGeometry::Pointer
OrbitWobble::Apply(const ThreeDCircularProjectionGeometry * geometry, double sourceMm, double angleDegrees, std::uint32_t seed)
{
  if (geometry == nullptr)
    ThrowBadParameter("geometry to wobble", "none", "a geometry");
  if (!std::isfinite(sourceMm) || sourceMm < 0.)
    ThrowBadParameter("orbit wobble of the source (mm)", sourceMm, "a distance >= 0");
  if (!std::isfinite(angleDegrees) || angleDegrees < 0. || angleDegrees > 45.)
    ThrowBadParameter("orbit wobble of the angles (degrees)", angleDegrees, "an angle from 0 to 45");
  std::mt19937 random(seed);
  // Uniform in [-1, 1] from the generator's 32-bit output.
  auto uniform = [&random]() { return 2. * (static_cast<double>(random()) + 0.5) / 4294967296. - 1.; };
  const double radians = angleDegrees * 3.14159265358979323846 / 180.;
  auto wobbled = ThreeDCircularProjectionGeometry::New();
  wobbled->SetRadiusCylindricalDetector(geometry->GetRadiusCylindricalDetector()); // the same detector
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    if (!geometry->HasParameters(k) || geometry->IsParallel(k))
      ThrowBadParameter("projection " + std::to_string(k) + " of the geometry to wobble",
                        geometry->HasParameters(k) ? "parallel" : "a bare matrix",
                        "a cone-beam projection given by RTK parameters");
    auto p = geometry->GetParameters(k);
    const double sid = sourceMm * uniform(), sourceX = sourceMm * uniform(), sourceY = sourceMm * uniform();
    const double gantry = radians * uniform(), outOfPlane = radians * uniform(), inPlane = radians * uniform();
    p.sourceToIsocenterDistance += sid; // with the detector: SourceToDetectorDistance unchanged
    p.sourceOffsetX += sourceX;
    p.sourceOffsetY += sourceY;
    p.projectionOffsetX += sourceX;
    p.projectionOffsetY += sourceY;
    p.gantryAngle += gantry;
    p.outOfPlaneAngle += outOfPlane;
    p.inPlaneAngle += inPlane;
    wobbled->AddProjectionInRadians(p);
  }
  return wobbled;
}

} // namespace cbct
