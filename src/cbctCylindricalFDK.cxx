#include "cbctCylindricalFDK.h"

#include "cbctHelicalFDK.h"
#include "cbctInputChecks.h"

#include <sstream>

namespace cbct
{

void
RequireFlatOrCentredCylinder(const ThreeDCircularProjectionGeometry * geometry, const std::string & method)
{
  if (!geometry->IsCylindrical())
    return;
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    if (!geometry->IsCylinderCentredOnSource(k))
    {
      const auto & p = geometry->GetParameters(k);
      std::ostringstream value;
      value << "a cylinder whose axis misses the source in projection " << k << " (RadiusCylindricalDetector "
            << geometry->GetRadiusCylindricalDetector() << " mm, SourceToDetectorDistance " << p.sourceToDetectorDistance
            << " mm, SourceOffsetX " << p.sourceOffsetX << " mm)";
      ThrowBadParameter(method + " detector", value.str(),
                        "a flat panel, or a cylinder centred on the source in every projection (RadiusCylindricalDetector = "
                        "SourceToDetectorDistance, SourceOffsetX 0): " + method +
                          " weights and filters equiangular columns; reconstruct other cylinders iteratively (SART, CGLS or OSEM)");
    }
  }
}

std::vector<CylindricalWeightingProjection>
CylindricalWeightingParameters(const ThreeDCircularProjectionGeometry * geometry, const DetectorCoordinates & detector,
                               unsigned int first, unsigned int count)
{
  RequireFlatOrCentredCylinder(geometry, "FDK");
  const auto gaps = FDKAngularGaps(geometry);
  const double start = geometry->GetAngularRangeStart();
  const double radius = geometry->GetRadiusCylindricalDetector();
  const auto & m = detector.IndexToPhysical();
  std::vector<CylindricalWeightingProjection> parameters(count);
  for (unsigned int c = 0; c < count; ++c)
  {
    const unsigned int k = first + c;
    CylindricalWeightingProjection & p = parameters[c];
    const double u0 = geometry->GetPrincipalPointU(k), v0 = geometry->GetPrincipalPointV(k);
    p.gammaFromIndex[0] = static_cast<float>(m(0, 0) / radius);
    p.gammaFromIndex[1] = static_cast<float>(m(0, 1) / radius);
    p.gammaFromIndex[2] = static_cast<float>((m(0, 2) - u0) / radius);
    p.vFromIndex[0] = static_cast<float>(m(1, 0));
    p.vFromIndex[1] = static_cast<float>(m(1, 1));
    p.vFromIndex[2] = static_cast<float>(m(1, 2) - v0);
    const double sdd = geometry->GetSourceToDetectorDistance(k);
    p.sdd = static_cast<float>(sdd);
    p.scale = static_cast<float>(geometry->GetSourceToIsocenterDistance(k) * sdd * 0.5 * gaps[k]);
    p.axis = RayAxisDistance(geometry, k, detector).GetCoefficients();
    p.sourceRadius = static_cast<float>(geometry->GetSourceRadius(k));
    p.beta = static_cast<float>(ThreeDCircularProjectionGeometry::WrapAngle(geometry->GetSourceAzimuth(k) - start));
  }
  return parameters;
}

} // namespace cbct
