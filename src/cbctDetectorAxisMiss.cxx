#include "cbctDetectorAxisMiss.h"

#include "cbctDetectorCoordinates.h"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctRayAxisDistance.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{

std::optional<DetectorAxisMiss>
DetectorAxisMiss::Find(const ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections)
{
  const unsigned int count = geometry->GetNumberOfProjections();
  if (count == 0 || geometry->IsParallel(0))
    return std::nullopt;
  // The decision is the coverage's: its least reach on a side over every projection, against a pixel.
  const DisplacedDetectorCoverage coverage(geometry, projections, std::numeric_limits<double>::infinity());
  const double tolerance = coverage.Tolerance();
  if (!(coverage.Negative() < -tolerance) && !(coverage.Positive() < -tolerance))
    return std::nullopt;
  // Which projection: the same edges and rows as the coverage, projection by projection.
  const DetectorCoordinates detector(projections);
  const auto & largest = projections->GetLargestPossibleRegion();
  const double i0 = largest.GetIndex(0) - 0.5, i1 = largest.GetIndex(0) + largest.GetSize(0) - 0.5;
  const double j0 = static_cast<double>(largest.GetIndex(1)), j1 = j0 + largest.GetSize(1) - 1.;
  const double middle = 0.5 * (j0 + j1);
  const double rows[3] = { j0, middle, j1 };
  for (unsigned int k = 0; k < count; ++k)
  {
    const RayAxisDistance s(geometry, k, detector);
    double negative = std::numeric_limits<double>::infinity(), positive = negative;
    for (double j : rows)
    {
      const double a = s(i0, j), b = s(i1, j);
      negative = std::min(negative, -std::min(a, b));
      positive = std::min(positive, std::max(a, b));
    }
    if (!(negative < -tolerance) && !(positive < -tolerance))
      continue;
    DetectorAxisMiss miss;
    miss.m_Projection = k;
    miss.m_GantryAngleDegrees = geometry->GetGantryAngle(k) * 180. / 3.14159265358979323846;
    miss.m_Negative = negative;
    miss.m_Positive = positive;
    miss.m_Tolerance = tolerance;
    const double u0 = detector.U(i0, middle), u1 = detector.U(i1, middle);
    miss.m_LowU = std::min(u0, u1);
    miss.m_HighU = std::max(u0, u1);
    const double axisColumn = s.Column(0., middle);
    miss.m_AxisU = std::isfinite(axisColumn) ? detector.U(axisColumn, middle) : std::numeric_limits<double>::quiet_NaN();
    return miss;
  }
  return std::nullopt; // not reached: the coverage's least reach is some projection's
}

std::string
DetectorAxisMiss::Describe() const
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(1);
  text << "in projection " << m_Projection << " (gantry angle " << m_GantryAngleDegrees
       << " deg) the detector's columns span u = " << m_LowU << " to " << m_HighU << " mm (outer pixel edges)";
  if (std::isfinite(m_AxisU))
    text << " but the rotation axis projects at u = " << m_AxisU << " mm";
  else
    text << " but no ray of it meets the rotation axis";
  const bool negativeMissed = m_Negative < m_Positive;
  const double wide = negativeMissed ? m_Positive : m_Negative;
  text << ": its rays pass the axis " << this->Gap() << " to " << wide << " mm away, on one side only (reach "
       << m_Negative << " mm on the negative side, " << m_Positive << " mm on the positive side; negative: not reached)";
  return text.str();
}

} // namespace cbct
