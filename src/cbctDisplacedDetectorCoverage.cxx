#include "cbctDisplacedDetectorCoverage.h"

#include "cbctDetectorCoordinates.h"
#include "cbctRayAxisDistance.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{

DisplacedDetectorCoverage::DisplacedDetectorCoverage(const ThreeDCircularProjectionGeometry * geometry,
                                                     const itk::ImageBase<3> * projections,
                                                     double fieldOfView)
  : m_FieldOfView(fieldOfView)
{
  const DetectorCoordinates detector(projections);
  const auto & largest = projections->GetLargestPossibleRegion();
  const double i0 = largest.GetIndex(0) - 0.5, i1 = largest.GetIndex(0) + largest.GetSize(0) - 0.5;
  const double j0 = static_cast<double>(largest.GetIndex(1)), j1 = j0 + largest.GetSize(1) - 1.;
  const double rows[3] = { j0, 0.5 * (j0 + j1), j1 };
  m_Negative = m_Positive = m_Tolerance = std::numeric_limits<double>::infinity();
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    const RayAxisDistance s(geometry, k, detector);
    for (double j : rows)
    {
      const double a = s(i0, j), b = s(i1, j);
      m_Negative = std::min(m_Negative, -std::min(a, b));
      m_Positive = std::min(m_Positive, std::max(a, b));
      m_Tolerance = std::min(m_Tolerance, std::abs(b - a) / (i1 - i0)); // mm at the axis per pixel, on average
    }
  }
  if (geometry->GetNumberOfProjections() == 0)
    m_Negative = m_Positive = m_Tolerance = 0.;
}

double
DisplacedDetectorCoverage::ReconstructedRadius(const itk::ImageBase<3> * volume)
{
  const auto & region = volume->GetLargestPossibleRegion();
  double lo[3], hi[3];
  for (unsigned int d = 0; d < 3; ++d)
  {
    lo[d] = std::numeric_limits<double>::infinity();
    hi[d] = -lo[d];
  }
  // The voxel centres at the corners of the grid, in world coordinates (any direction matrix).
  for (unsigned int corner = 0; corner < 8; ++corner)
  {
    itk::ContinuousIndex<double, 3> index;
    for (unsigned int d = 0; d < 3; ++d)
      index[d] = region.GetIndex(d) + ((corner >> d) & 1u ? region.GetSize(d) - 1. : 0.);
    itk::Point<double, 3> point;
    volume->TransformContinuousIndexToPhysicalPoint(index, point);
    for (unsigned int d = 0; d < 3; ++d)
    {
      lo[d] = std::min(lo[d], point[d]);
      hi[d] = std::max(hi[d], point[d]);
    }
  }
  const double centreX = 0.5 * (lo[0] + hi[0]), centreZ = 0.5 * (lo[2] + hi[2]);
  const double inscribed = 0.5 * std::min(hi[0] - lo[0], hi[2] - lo[2]);
  return std::sqrt(centreX * centreX + centreZ * centreZ) + inscribed;
}

bool
DisplacedDetectorCoverage::NeedsWeighting() const
{
  const double nearSide = std::min(m_Negative, m_Positive), wideSide = std::max(m_Negative, m_Positive);
  return std::min(wideSide, m_FieldOfView) - nearSide > m_Tolerance;
}

double
DisplacedDetectorCoverage::Overlap() const
{
  return std::max(std::min(m_Negative, m_Positive), m_Tolerance);
}

std::string
DisplacedDetectorCoverage::Describe(bool allowed) const
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(1);
  const double nearSide = std::min(m_Negative, m_Positive), wideSide = std::max(m_Negative, m_Positive);
  const bool centred = wideSide - nearSide <= m_Tolerance;
  if (centred)
    text << "detector centred on the rotation axis (it reaches " << nearSide << " mm on each side)";
  else
    text << "detector reaches " << nearSide << " mm from the rotation axis on one side and " << wideSide
         << " mm on the other";
  if (std::isinf(m_FieldOfView))
    text << "; field of view not given";
  else
    text << "; the volume needs " << m_FieldOfView << " mm";
  if (!allowed)
  {
    text << ": displaced-detector weighting switched off";
    if (this->NeedsWeighting())
      text << ", so voxels beyond " << nearSide << " mm from the axis are reconstructed from one side only";
  }
  else if (this->NeedsWeighting())
  {
    text << ": displaced-detector weighting (rays within " << this->Overlap()
         << " mm of the axis share their weight with the opposite view)";
    if (nearSide <= 0.)
      text << "; in some projections the detector does not reach the axis, so voxels near it lack data";
  }
  else if (centred || m_FieldOfView <= nearSide)
    text << ": seen from both sides, no displaced-detector weighting";
  else
    text << ": no displaced-detector weighting (nothing to gain beyond " << nearSide << " mm)";
  if (m_FieldOfView > wideSide)
    text << "; beyond " << wideSide << " mm the volume is outside the field of view";
  return text.str();
}

} // namespace cbct
