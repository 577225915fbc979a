#include "cbctThreeDCircularProjectionGeometry.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_determinant.h>
#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_matrix_fixed.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** A value as a stream writes it (1500, not std::to_string's 1500.000000). */
std::string
Text(double value)
{
  std::ostringstream text;
  text << value;
  return text.str();
}

std::string
Named(const char * parameter, unsigned int k)
{
  return std::string(parameter) + " of projection " + std::to_string(k);
}

vnl_matrix_fixed<double, 4, 4>
RotationY(double a)
{
  vnl_matrix_fixed<double, 4, 4> r;
  r.set_identity();
  r(0, 0) = std::cos(a);
  r(0, 2) = std::sin(a);
  r(2, 0) = -std::sin(a);
  r(2, 2) = std::cos(a);
  return r;
}

vnl_matrix_fixed<double, 4, 4>
RotationX(double a)
{
  vnl_matrix_fixed<double, 4, 4> r;
  r.set_identity();
  r(1, 1) = std::cos(a);
  r(1, 2) = -std::sin(a);
  r(2, 1) = std::sin(a);
  r(2, 2) = std::cos(a);
  return r;
}

vnl_matrix_fixed<double, 4, 4>
RotationZ(double a)
{
  vnl_matrix_fixed<double, 4, 4> r;
  r.set_identity();
  r(0, 0) = std::cos(a);
  r(0, 1) = -std::sin(a);
  r(1, 0) = std::sin(a);
  r(1, 1) = std::cos(a);
  return r;
}

/** World to the rotated frame of RTK's parameters (the detector's axes and its normal). */
vnl_matrix_fixed<double, 4, 4>
Rotation(const ThreeDCircularProjectionGeometry::Parameters & p)
{
  return RotationZ(-p.inPlaneAngle) * RotationX(-p.outOfPlaneAngle) * RotationY(-p.gantryAngle);
}
} // namespace

double
ThreeDCircularProjectionGeometry::WrapAngle(double radians)
{
  double a = std::fmod(radians, 2. * Pi);
  if (a < 0.)
  {
    a += 2. * Pi;
  }
  // fmod of a value just below 2pi can round to exactly 2pi after the addition above.
  return a >= 2. * Pi ? 0. : a;
}

ThreeDCircularProjectionGeometry::MatrixType
ThreeDCircularProjectionGeometry::ComputeMatrix(const Parameters & p)
{
  vnl_matrix_fixed<double, 3, 3> detectorShift;
  detectorShift.set_identity();
  detectorShift(0, 2) = p.sourceOffsetX - p.projectionOffsetX;
  detectorShift(1, 2) = p.sourceOffsetY - p.projectionOffsetY;

  vnl_matrix_fixed<double, 3, 4> magnification(0.);
  if (p.sourceToDetectorDistance == 0.) // parallel: RTK's [[1,0,0,0],[0,1,0,0],[0,0,0,1]]
  {
    magnification(0, 0) = 1.;
    magnification(1, 1) = 1.;
    magnification(2, 3) = 1.;
  }
  else
  {
    magnification(0, 0) = -p.sourceToDetectorDistance;
    magnification(1, 1) = -p.sourceToDetectorDistance;
    magnification(2, 2) = 1.;
    magnification(2, 3) = -p.sourceToIsocenterDistance;
  }

  vnl_matrix_fixed<double, 4, 4> sourceShift;
  sourceShift.set_identity();
  sourceShift(0, 3) = -p.sourceOffsetX;
  sourceShift(1, 3) = -p.sourceOffsetY;

  const vnl_matrix_fixed<double, 4, 4> rotation = Rotation(p);

  return MatrixType(detectorShift * magnification * sourceShift * rotation);
}

void
ThreeDCircularProjectionGeometry::AddProjection(double sid,
                                                double sdd,
                                                double gantryAngleDegrees,
                                                double projectionOffsetX,
                                                double projectionOffsetY,
                                                double outOfPlaneAngleDegrees,
                                                double inPlaneAngleDegrees,
                                                double sourceOffsetX,
                                                double sourceOffsetY)
{
  const double toRadians = Pi / 180.;
  Parameters p;
  p.sourceToIsocenterDistance = sid;
  p.sourceToDetectorDistance = sdd;
  p.gantryAngle = gantryAngleDegrees * toRadians;
  p.projectionOffsetX = projectionOffsetX;
  p.projectionOffsetY = projectionOffsetY;
  p.outOfPlaneAngle = outOfPlaneAngleDegrees * toRadians;
  p.inPlaneAngle = inPlaneAngleDegrees * toRadians;
  p.sourceOffsetX = sourceOffsetX;
  p.sourceOffsetY = sourceOffsetY;
  this->AddProjectionInRadians(p);
}

void
ThreeDCircularProjectionGeometry::AddProjectionInRadians(const Parameters & given)
{
  const auto k = this->GetNumberOfProjections();
  CheckPositive(Named("SourceToIsocenterDistance", k), given.sourceToIsocenterDistance);
  if (!std::isfinite(given.sourceToDetectorDistance) || given.sourceToDetectorDistance < 0.)
  {
    ThrowBadParameter(Named("SourceToDetectorDistance", k), given.sourceToDetectorDistance,
                      "a finite value > 0 (cone beam), or 0 (parallel beam)");
  }
  const bool parallel = given.sourceToDetectorDistance == 0.;
  if (k > 0 && parallel != m_Projections[0].parallel)
  {
    ThrowBadParameter(Named("SourceToDetectorDistance", k), given.sourceToDetectorDistance,
                      std::string(m_Projections[0].parallel ? "0, as projection 0 (parallel beam)"
                                                            : "a value > 0, as projection 0 (cone beam)") +
                        ": a geometry is all parallel or all cone beam");
  }
  CheckFinite(Named("GantryAngle", k), given.gantryAngle);
  CheckFinite(Named("ProjectionOffsetX", k), given.projectionOffsetX);
  CheckFinite(Named("ProjectionOffsetY", k), given.projectionOffsetY);
  CheckFinite(Named("OutOfPlaneAngle", k), given.outOfPlaneAngle);
  CheckFinite(Named("InPlaneAngle", k), given.inPlaneAngle);
  CheckFinite(Named("SourceOffsetX", k), given.sourceOffsetX);
  CheckFinite(Named("SourceOffsetY", k), given.sourceOffsetY);

  Projection projection;
  projection.hasParameters = true;
  projection.parameters = given;
  projection.parameters.gantryAngle = WrapAngle(given.gantryAngle);
  projection.parameters.outOfPlaneAngle = WrapAngle(given.outOfPlaneAngle);
  projection.parameters.inPlaneAngle = WrapAngle(given.inPlaneAngle);
  projection.matrix = ComputeMatrix(projection.parameters);
  projection.parallel = parallel;
  if (parallel)
    DeriveParallel(projection);
  else
    DeriveFromMatrix(projection);
  // The parameters are exact; keep them rather than the values recovered from the matrix.
  projection.gantryAngle = projection.parameters.gantryAngle;
  projection.sid = given.sourceToIsocenterDistance;
  projection.sdd = given.sourceToDetectorDistance;
  projection.principalU = given.sourceOffsetX - given.projectionOffsetX;
  projection.principalV = given.sourceOffsetY - given.projectionOffsetY;
  m_Projections.push_back(projection);
  if (this->IsCylindrical())
  {
    try
    {
      this->CheckCylinder(k, m_RadiusCylindricalDetector);
    }
    catch (...)
    {
      m_Projections.pop_back();
      throw;
    }
  }
  this->Modified();
}

void
ThreeDCircularProjectionGeometry::AddProjection(const MatrixType & given)
{
  const auto k = this->GetNumberOfProjections();
  for (unsigned int r = 0; r < 3; ++r)
  {
    for (unsigned int c = 0; c < 4; ++c)
    {
      CheckFinite(Named("Matrix", k) + " element (" + std::to_string(r) + "," + std::to_string(c) + ")",
                  given(r, c));
    }
  }
  vnl_matrix_fixed<double, 3, 3> left;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      left(r, c) = given(r, c);
  const double rowNorm = std::sqrt(left(2, 0) * left(2, 0) + left(2, 1) * left(2, 1) + left(2, 2) * left(2, 2));
  const double determinant = vnl_determinant(left);
  if (!(rowNorm > 0.) || !(std::abs(determinant) > 1e-12 * rowNorm * rowNorm * rowNorm))
  {
    ThrowBadParameter(Named("Matrix", k) + " determinant of the left 3x3 block",
                      determinant,
                      "a non-singular projective matrix (source and detector not degenerate; a parallel "
                      "projection is given by RTK parameters with SourceToDetectorDistance 0)");
  }
  if (k > 0 && m_Projections[0].parallel)
  {
    ThrowBadParameter(Named("Matrix", k), "a cone-beam matrix",
                      "a parallel projection, as projection 0: a geometry is all parallel or all cone beam");
  }
  if (this->IsCylindrical())
  {
    ThrowBadParameter(Named("Matrix", k), "a bare matrix",
                      "RTK parameters: the detector is cylindrical (RadiusCylindricalDetector " +
                        Text(m_RadiusCylindricalDetector) + " mm), and a matrix does not say where the cylinder is");
  }
  // Normalise: unit third row (so the homogeneous coordinate is a distance in mm) and a positive
  // determinant (RTK's orientation: points between source and detector get a negative third coordinate).
  const double scale = (determinant > 0. ? 1. : -1.) / rowNorm;
  Projection projection;
  projection.hasParameters = false;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 4; ++c)
      projection.matrix(r, c) = given(r, c) * scale;
  DeriveFromMatrix(projection);
  // Positive beyond rounding: a source on the detector's plane through the origin gives an SID of
  // 1e-16 or -1e-16 by the luck of rounding, accepted once and refused after a write and read (found
  // by the geometry fuzzer: regressions/cbctFuzzGeometryXml/sid_zero_by_rounding.xml).
  const double sourceDistance = projection.source.GetVectorFromOrigin().GetNorm();
  if (!std::isfinite(projection.sid) || !(projection.sid > 1e-9 * sourceDistance)) // > 0 too: the distance is >= 0
  {
    ThrowBadParameter(Named("SourceToIsocenterDistance (derived from the matrix)", k), projection.sid,
                      "a finite value > 0 beyond rounding (> 1e-9 of the source's distance from the origin, " +
                        std::to_string(sourceDistance) + " mm): the source in front of the detector");
  }
  m_Projections.push_back(projection);
  this->Modified();
}

void
ThreeDCircularProjectionGeometry::DeriveFromMatrix(Projection & projection)
{
  const MatrixType & m = projection.matrix;
  vnl_matrix_fixed<double, 3, 3> left;
  vnl_vector_fixed<double, 3> translation;
  for (unsigned int r = 0; r < 3; ++r)
  {
    for (unsigned int c = 0; c < 3; ++c)
      left(r, c) = m(r, c);
    translation(r) = m(r, 3);
  }
  // The source is the matrix's null space: M * [S; 1] = 0.
  const vnl_vector_fixed<double, 3> source = -(vnl_matrix_inverse<double>(left.as_ref()).as_matrix() * translation);
  for (unsigned int i = 0; i < 3; ++i)
    projection.source[i] = source(i);

  const vnl_vector_fixed<double, 3> principalAxis = left.get_row(2); // unit after normalisation
  projection.sid = dot_product(principalAxis, source);
  projection.principalU = dot_product(left.get_row(0), principalAxis);
  projection.principalV = dot_product(left.get_row(1), principalAxis);
  projection.sdd = (left.get_row(1) - projection.principalV * principalAxis).magnitude();
  projection.gantryAngle = WrapAngle(std::atan2(source(0), source(2)));
  projection.azimuth = projection.gantryAngle;
  for (unsigned int i = 0; i < 3; ++i)
    projection.direction[i] = -principalAxis(i); // the third row points from the detector to the source
}

void
ThreeDCircularProjectionGeometry::DeriveParallel(Projection & projection)
{
  const MatrixType & m = projection.matrix;
  const Parameters & p = projection.parameters;
  // The first two rows are the rotated x and y axes; their cross product the rotated z axis, which
  // points from the rotation axis to the source's side.
  VectorType x, y;
  for (unsigned int c = 0; c < 3; ++c)
  {
    x[c] = m(0, c);
    y[c] = m(1, c);
  }
  const VectorType z = itk::CrossProduct(x, y);
  for (unsigned int i = 0; i < 3; ++i)
  {
    projection.direction[i] = -z[i];
    projection.source[i] = p.sourceOffsetX * x[i] + p.sourceOffsetY * y[i] + p.sourceToIsocenterDistance * z[i];
  }
  projection.sid = p.sourceToIsocenterDistance;
  projection.sdd = 0.;
  projection.principalU = p.sourceOffsetX - p.projectionOffsetX;
  projection.principalV = p.sourceOffsetY - p.projectionOffsetY;
  // Redundancy runs over the direction of the rays (source offsets mean nothing at infinity).
  projection.azimuth = WrapAngle(std::atan2(z[0], z[2]));
}

ThreeDCircularProjectionGeometry::Pointer
ThreeDCircularProjectionGeometry::Subset(const std::vector<unsigned int> & indices) const
{
  auto subset = Self::New();
  subset->m_RadiusCylindricalDetector = m_RadiusCylindricalDetector; // every projection was checked here
  for (unsigned int k : indices)
  {
    this->CheckIndex(k);
    subset->m_Projections.push_back(m_Projections[k]);
  }
  return subset;
}

void
ThreeDCircularProjectionGeometry::SetRadiusCylindricalDetector(double radius)
{
  if (!std::isfinite(radius) || radius < 0.)
  {
    ThrowBadParameter("RadiusCylindricalDetector", radius, "a radius > 0 in mm, or 0 for a flat panel");
  }
  if (radius != 0.)
  {
    for (unsigned int k = 0; k < m_Projections.size(); ++k)
      this->CheckCylinder(k, radius);
  }
  if (radius != m_RadiusCylindricalDetector)
  {
    m_RadiusCylindricalDetector = radius;
    this->Modified();
  }
}

void
ThreeDCircularProjectionGeometry::CheckCylinder(unsigned int k, double radius) const
{
  const Projection & projection = m_Projections[k];
  const std::string what = "RadiusCylindricalDetector " + Text(radius) + " mm with projection " + std::to_string(k);
  if (projection.parallel)
  {
    ThrowBadParameter(what, "parallel beam (SourceToDetectorDistance 0)", "a cone beam: a cylindrical detector is a cone-beam scanner's");
  }
  if (!projection.hasParameters)
  {
    ThrowBadParameter(what, "a bare matrix", "RTK parameters: a matrix does not say where the cylinder is");
  }
  // The source's distance from the cylinder's axis (x = 0, z = SID - SDD + R in the rotated frame).
  const Parameters & p = projection.parameters;
  const double dz = p.sourceToDetectorDistance - radius;
  const double distance = std::sqrt(p.sourceOffsetX * p.sourceOffsetX + dz * dz);
  if (!(distance < radius * (1. - 1e-9)))
  {
    ThrowBadParameter(what, "a cylinder the source is not inside (its axis " + Text(distance) + " mm from the source, SDD " +
                              Text(p.sourceToDetectorDistance) + " mm, SourceOffsetX " + Text(p.sourceOffsetX) + " mm)",
                      "a radius > sqrt(SourceOffsetX^2 + (SDD - R)^2), e.g. R = SDD (the source on the cylinder's axis): "
                      "every ray from the source must meet the detector once");
  }
}

bool
ThreeDCircularProjectionGeometry::IsCylinderCentredOnSource(unsigned int k) const
{
  this->CheckIndex(k);
  if (!this->IsCylindrical())
    return false;
  const Parameters & p = m_Projections[k].parameters;
  const double r = m_RadiusCylindricalDetector;
  return std::abs(p.sourceToDetectorDistance - r) <= 1e-9 * r && std::abs(p.sourceOffsetX) <= 1e-9 * r;
}

bool
ThreeDCircularProjectionGeometry::FlatFromCylindrical(unsigned int k, double u, double v, double & flatU, double & flatV) const
{
  this->CheckIndex(k);
  if (!this->IsCylindrical())
  {
    flatU = u;
    flatV = v;
    return true;
  }
  const Parameters & p = m_Projections[k].parameters;
  const double r = m_RadiusCylindricalDetector, a = (u + p.projectionOffsetX) / r;
  // The cylinder's point and the ray from the source to it, in the rotated frame (source at z = SID).
  const double x = r * std::sin(a) - p.sourceOffsetX;
  const double y = v + p.projectionOffsetY - p.sourceOffsetY;
  const double z = r * (1. - std::cos(a)) - p.sourceToDetectorDistance;
  if (!(z < 0.))
    return false;
  const double t = -p.sourceToDetectorDistance / z;
  flatU = p.sourceOffsetX + t * x - p.projectionOffsetX;
  flatV = p.sourceOffsetY + t * y - p.projectionOffsetY;
  return true;
}

void
ThreeDCircularProjectionGeometry::CylindricalFromFlat(unsigned int k, double flatU, double flatV, double & u, double & v) const
{
  this->CheckIndex(k);
  if (!this->IsCylindrical())
  {
    u = flatU;
    v = flatV;
    return;
  }
  const Parameters & p = m_Projections[k].parameters;
  const double r = m_RadiusCylindricalDetector;
  // Rotated frame, origin moved to the cylinder's axis: the source at (sx, SDD - R) in (x, z), the ray
  // towards the flat panel's point along (dx, -SDD); it leaves the cylinder where |S + t d| = R, t > 0.
  const double sx = p.sourceOffsetX, sz = p.sourceToDetectorDistance - r;
  const double dx = flatU + p.projectionOffsetX - sx, dy = flatV + p.projectionOffsetY - p.sourceOffsetY;
  const double dz = -p.sourceToDetectorDistance;
  const double a = dx * dx + dz * dz, b = sx * dx + sz * dz, c = sx * sx + sz * sz - r * r; // c < 0: inside
  const double root = std::sqrt(b * b - a * c);
  const double t = b > 0. ? -c / (b + root) : (root - b) / a; // the positive root, without cancellation
  const double x = sx + t * dx, z = sz + t * dz;
  u = r * std::atan2(x, -z) - p.projectionOffsetX;
  v = p.sourceOffsetY + t * dy - p.projectionOffsetY;
}

void
ThreeDCircularProjectionGeometry::Clear()
{
  m_Projections.clear();
  this->Modified();
}

void
ThreeDCircularProjectionGeometry::CheckIndex(unsigned int k) const
{
  if (k >= m_Projections.size())
  {
    ThrowBadParameter("projection index",
                      k,
                      "an index below the number of projections (" + std::to_string(m_Projections.size()) + ")");
  }
}

const ThreeDCircularProjectionGeometry::MatrixType &
ThreeDCircularProjectionGeometry::GetMatrix(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].matrix;
}

bool
ThreeDCircularProjectionGeometry::HasParameters(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].hasParameters;
}

const ThreeDCircularProjectionGeometry::Parameters &
ThreeDCircularProjectionGeometry::GetParameters(unsigned int k) const
{
  this->CheckIndex(k);
  if (!m_Projections[k].hasParameters)
  {
    ThrowBadParameter("projection " + std::to_string(k), "a bare matrix", "a projection given by RTK parameters");
  }
  return m_Projections[k].parameters;
}

bool
ThreeDCircularProjectionGeometry::IsParallel(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].parallel;
}

void
ThreeDCircularProjectionGeometry::RequireConeBeam(const std::string & method) const
{
  if (!m_Projections.empty() && m_Projections[0].parallel)
  {
    ThrowBadParameter(method + " geometry", "parallel beam (SourceToDetectorDistance 0)",
                      "a cone-beam geometry (" + method +
                        " is written for diverging rays; reconstruct parallel projections iteratively: SART, CGLS or OSEM)");
  }
}

void
ThreeDCircularProjectionGeometry::RequireFlatPanel(const std::string & method) const
{
  if (this->IsCylindrical())
  {
    ThrowBadParameter(method + " detector", "cylindrical (RadiusCylindricalDetector " + Text(m_RadiusCylindricalDetector) + " mm)",
                      "a flat panel (RadiusCylindricalDetector 0): " + method + " does not handle a cylindrical detector yet");
  }
}

ThreeDCircularProjectionGeometry::PointType
ThreeDCircularProjectionGeometry::GetSourcePosition(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].source;
}

ThreeDCircularProjectionGeometry::VectorType
ThreeDCircularProjectionGeometry::GetRayDirection(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].direction;
}

ThreeDCircularProjectionGeometry::PointType
ThreeDCircularProjectionGeometry::GetDetectorPoint(unsigned int k, double u, double v) const
{
  this->CheckIndex(k);
  const Projection & projection = m_Projections[k];
  const MatrixType & m = projection.matrix;
  PointType point;
  if (projection.parallel)
  {
    // u = x . X + m03, v = y . X + m13, and the plane at SID beyond the axis along the rays.
    for (unsigned int i = 0; i < 3; ++i)
      point[i] = m(0, i) * (u - m(0, 3)) + m(1, i) * (v - m(1, 3)) + projection.sid * projection.direction[i];
    return point;
  }
  if (this->IsCylindrical())
  {
    // The cylinder's point in the rotated frame, turned back into the world.
    const Parameters & p = projection.parameters;
    const double r = m_RadiusCylindricalDetector, a = (u + p.projectionOffsetX) / r;
    vnl_vector_fixed<double, 4> rotated;
    rotated(0) = r * std::sin(a);
    rotated(1) = v + p.projectionOffsetY;
    rotated(2) = p.sourceToIsocenterDistance - p.sourceToDetectorDistance + r * (1. - std::cos(a));
    rotated(3) = 1.;
    const vnl_vector_fixed<double, 4> world = Rotation(p).transpose() * rotated;
    for (unsigned int i = 0; i < 3; ++i)
      point[i] = world(i);
    return point;
  }
  // M (X, 1) = w (u, v, 1) with w = -SDD on the detector plane: X - S = -SDD * M3^-1 (u, v, 1).
  vnl_matrix_fixed<double, 3, 3> left;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      left(r, c) = m(r, c);
  const vnl_matrix_fixed<double, 3, 3> inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
  for (unsigned int i = 0; i < 3; ++i)
    point[i] = projection.source[i] - projection.sdd * (inverse(i, 0) * u + inverse(i, 1) * v + inverse(i, 2));
  return point;
}

double
ThreeDCircularProjectionGeometry::GetGantryAngle(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].gantryAngle;
}

double
ThreeDCircularProjectionGeometry::GetSourceAzimuth(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].azimuth;
}

double
ThreeDCircularProjectionGeometry::GetSourceRadius(unsigned int k) const
{
  this->CheckIndex(k);
  const PointType & s = m_Projections[k].source;
  return std::sqrt(s[0] * s[0] + s[2] * s[2]);
}

double
ThreeDCircularProjectionGeometry::GetSourceToIsocenterDistance(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].sid;
}

double
ThreeDCircularProjectionGeometry::GetSourceToDetectorDistance(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].sdd;
}

double
ThreeDCircularProjectionGeometry::GetPrincipalPointU(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].principalU;
}

double
ThreeDCircularProjectionGeometry::GetPrincipalPointV(unsigned int k) const
{
  this->CheckIndex(k);
  return m_Projections[k].principalV;
}

namespace
{
/** Source azimuths sorted ascending with the projection each came from, and the cyclic gaps after each. */
struct SortedAngles
{
  std::vector<std::pair<double, unsigned int>> angles;
  std::vector<double> gapAfter; // gap from angles[i] to angles[i+1] (cyclic)
  double median = 0.;
  std::size_t largest = 0;
};

SortedAngles
SortAngles(const std::vector<double> & azimuths)
{
  SortedAngles s;
  for (unsigned int k = 0; k < azimuths.size(); ++k)
    s.angles.emplace_back(azimuths[k], k);
  std::sort(s.angles.begin(), s.angles.end());
  const std::size_t n = s.angles.size();
  s.gapAfter.resize(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const double next = (i + 1 < n) ? s.angles[i + 1].first : s.angles[0].first + 2. * Pi;
    s.gapAfter[i] = next - s.angles[i].first;
  }
  std::vector<double> sorted = s.gapAfter;
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  s.median = sorted[n / 2];
  s.largest = static_cast<std::size_t>(std::max_element(s.gapAfter.begin(), s.gapAfter.end()) - s.gapAfter.begin());
  return s;
}
} // namespace

std::vector<double>
ThreeDCircularProjectionGeometry::Azimuths() const
{
  std::vector<double> azimuths(m_Projections.size());
  for (std::size_t k = 0; k < m_Projections.size(); ++k)
    azimuths[k] = m_Projections[k].azimuth;
  return azimuths;
}

std::vector<double>
ThreeDCircularProjectionGeometry::GetAngularGaps() const
{
  const std::size_t n = m_Projections.size();
  std::vector<double> weights(n, 0.);
  if (n == 0)
    return weights;
  if (n == 1)
  {
    weights[0] = 2. * Pi;
    return weights;
  }
  SortedAngles s = SortAngles(this->Azimuths());
  for (auto & gap : s.gapAfter)
  {
    if (gap > 3. * s.median)
      gap = s.median; // the open end of a short or limited-angle scan
  }
  for (std::size_t i = 0; i < n; ++i)
  {
    const double before = s.gapAfter[(i + n - 1) % n];
    weights[s.angles[i].second] = 0.5 * (before + s.gapAfter[i]);
  }
  return weights;
}

double
ThreeDCircularProjectionGeometry::GetAngularRange() const
{
  const std::size_t n = m_Projections.size();
  if (n < 2)
    return 0.;
  const SortedAngles s = SortAngles(this->Azimuths());
  return 2. * Pi - s.gapAfter[s.largest];
}

double
ThreeDCircularProjectionGeometry::GetAngularRangeStart() const
{
  const std::size_t n = m_Projections.size();
  if (n == 0)
    return 0.;
  const SortedAngles s = SortAngles(this->Azimuths());
  return s.angles[(s.largest + 1) % n].first;
}

void
ThreeDCircularProjectionGeometry::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfProjections: " << m_Projections.size() << std::endl;
  os << indent << "RadiusCylindricalDetector: " << m_RadiusCylindricalDetector << (this->IsCylindrical() ? " mm" : " (flat panel)")
     << std::endl;
  for (std::size_t k = 0; k < m_Projections.size() && k < 3; ++k)
  {
    os << indent << "Projection " << k << (m_Projections[k].hasParameters ? " (parameters)" : " (matrix)")
       << (m_Projections[k].parallel ? ", parallel" : "") << ": gantry " << m_Projections[k].gantryAngle * 180. / Pi
       << " deg, SID " << m_Projections[k].sid << " mm, SDD " << m_Projections[k].sdd << " mm" << std::endl;
  }
}

} // namespace cbct
