#include "cbctAxisCorrection.h"

#include "cbctInputChecks.h"

#include <cmath>

namespace cbct
{

ThreeDCircularProjectionGeometry::Pointer
AxisCorrection::Apply(const ThreeDCircularProjectionGeometry * nominal) const
{
  if (nominal == nullptr)
    ThrowBadParameter("AxisCorrection geometry", "none", "a circular geometry");
  CheckFinite("axis offset (mm)", offset);
  CheckFinite("detector roll (radians)", roll);
  CheckFinite("axis tilt (radians)", tilt);
  auto corrected = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < nominal->GetNumberOfProjections(); ++k)
  {
    if (!nominal->HasParameters(k))
      ThrowBadParameter("projection " + std::to_string(k) + " of the geometry", "a bare 3x4 matrix",
                        "a projection given by RTK's circular parameters (an axis correction adds to SourceOffsetX, "
                        "ProjectionOffsetX, InPlaneAngle and OutOfPlaneAngle)");
    if (nominal->IsParallel(k))
      ThrowBadParameter("projection " + std::to_string(k) + " of the geometry", "parallel beam",
                        "a cone-beam projection (the axis corrections are written for diverging rays)");
    ThreeDCircularProjectionGeometry::Parameters p = nominal->GetParameters(k);
    if (model == OffsetModel::Stage)
    {
      // The stage moved by offset / M in the object plane: in RTK's frame, which turns with the axis,
      // the source and the detector both move the other way.
      const double shift = offset * p.sourceToIsocenterDistance / p.sourceToDetectorDistance;
      p.sourceOffsetX -= shift;
      p.projectionOffsetX -= shift;
    }
    else
      p.projectionOffsetX -= offset;
    p.inPlaneAngle += roll;
    p.outOfPlaneAngle += tilt;
    corrected->AddProjectionInRadians(p);
  }
  return corrected;
}

namespace
{
/** Detector coordinates (mm) of the world point (0, y, 0) in projection k. */
std::pair<double, double>
ProjectAxisPoint(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, double y)
{
  const auto & m = geometry->GetMatrix(k);
  const double w = m(2, 1) * y + m(2, 3);
  return { (m(0, 1) * y + m(0, 3)) / w, (m(1, 1) * y + m(1, 3)) / w };
}
} // namespace

double
AxisCorrection::ProjectedAxisU(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, double y)
{
  return ProjectAxisPoint(geometry, k, y).first;
}

double
AxisCorrection::ProjectedAxisV(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, double y)
{
  return ProjectAxisPoint(geometry, k, y).second;
}

AxisCorrection
AxisCorrection::FitToAxisPoints(const ThreeDCircularProjectionGeometry * nominal,
                                const AxisCorrection & base,
                                const std::vector<double> & heights,
                                const std::vector<double> & targets,
                                const std::vector<double> & weights,
                                bool fitRoll)
{
  const std::size_t n = heights.size();
  if (n == 0 || targets.size() != n || weights.size() != n)
    ThrowBadParameter("axis points", n, "as many heights, targets and weights, at least one");
  if (fitRoll)
  {
    bool distinct = false;
    for (std::size_t i = 1; i < n; ++i)
      distinct = distinct || std::abs(heights[i] - heights[0]) > 1e-9;
    if (!distinct)
      ThrowBadParameter("axis points for a roll", "one height", "at least two distinct heights");
  }
  // Projection 0 alone: every projection of a circular geometry with constant parameters sees the
  // axis at the same place.
  auto first = ThreeDCircularProjectionGeometry::New();
  if (!nominal->HasParameters(0))
    ThrowBadParameter("projection 0 of the geometry", "a bare 3x4 matrix", "a projection given by RTK's parameters");
  first->AddProjectionInRadians(nominal->GetParameters(0));

  auto residuals = [&](const AxisCorrection & c) {
    const auto g = c.Apply(first);
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n; ++i)
      r[i] = ProjectedAxisU(g, 0, heights[i]) - targets[i];
    return r;
  };
  AxisCorrection c = base;
  for (int iteration = 0; iteration < 8; ++iteration)
  {
    const std::vector<double> r = residuals(c);
    const double stepOffset = 1e-3, stepRoll = 1e-6;
    AxisCorrection shifted = c;
    shifted.offset += stepOffset;
    const std::vector<double> ro = residuals(shifted);
    std::vector<double> rr(n, 0.);
    if (fitRoll)
    {
      shifted = c;
      shifted.roll += stepRoll;
      rr = residuals(shifted);
    }
    // Normal equations of the two (or one) parameters.
    double a11 = 0., a12 = 0., a22 = 0., b1 = 0., b2 = 0.;
    for (std::size_t i = 0; i < n; ++i)
    {
      const double jo = (ro[i] - r[i]) / stepOffset, jr = (rr[i] - r[i]) / stepRoll;
      a11 += weights[i] * jo * jo;
      a12 += weights[i] * jo * jr;
      a22 += weights[i] * jr * jr;
      b1 -= weights[i] * jo * r[i];
      b2 -= weights[i] * jr * r[i];
    }
    double dOffset = 0., dRoll = 0.;
    if (fitRoll)
    {
      const double det = a11 * a22 - a12 * a12;
      if (!(std::abs(det) > 0.))
        ThrowBadParameter("axis points for a roll", "a degenerate set", "heights that tell offset and roll apart");
      dOffset = (b1 * a22 - b2 * a12) / det;
      dRoll = (a11 * b2 - a12 * b1) / det;
    }
    else
      dOffset = b1 / a11;
    c.offset += dOffset;
    c.roll += dRoll;
    if (std::abs(dOffset) < 1e-9 && std::abs(dRoll) < 1e-12)
      break;
  }
  return c;
}

std::string
AxisCorrection::ModelName(OffsetModel model)
{
  return model == OffsetModel::Stage ? "stage" : "detector";
}

} // namespace cbct
