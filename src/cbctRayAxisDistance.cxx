#include "cbctRayAxisDistance.h"

#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_matrix_fixed.h>

#include <cmath>
#include <limits>

namespace cbct
{

RayAxisDistance::RayAxisDistance(const ThreeDCircularProjectionGeometry * geometry,
                                 unsigned int k,
                                 const DetectorCoordinates & detector)
{
  if (geometry->IsCylindrical())
  {
    if (!geometry->IsCylinderCentredOnSource(k))
      geometry->RequireFlatPanel("the rays' distance from the axis on a cylinder not centred on the source");
    // D = A (sin gamma, dv, cos gamma): A's columns from the directions to three points of the cylinder.
    const double r = geometry->GetRadiusCylindricalDetector();
    const double u0 = geometry->GetPrincipalPointU(k), v0 = geometry->GetPrincipalPointV(k);
    const auto source = geometry->GetSourcePosition(k);
    const auto sine = geometry->GetDetectorPoint(k, u0 + 0.5 * 3.14159265358979323846 * r, v0) - source;
    const auto cosine = geometry->GetDetectorPoint(k, u0, v0) - source;
    const auto height = geometry->GetDetectorPoint(k, u0, v0 + 1.) - source - cosine;
    const itk::Vector<double, 3> columns[3] = { sine, height, cosine };
    for (unsigned int c = 0; c < 3; ++c)
    {
      m_X[c] = columns[c][0];
      m_Z[c] = columns[c][2];
      m_Numerator[c] = source[2] * columns[c][0] - source[0] * columns[c][2];
    }
    const auto & d = detector.IndexToPhysical();
    for (unsigned int c = 0; c < 3; ++c)
    {
      m_Gamma[c] = (d(0, c) - (c == 2 ? u0 : 0.)) / r;
      m_Dv[c] = d(1, c) - (c == 2 ? v0 : 0.);
    }
    m_Cylindrical = true;
    return;
  }
  const auto & m = geometry->GetMatrix(k);
  vnl_matrix_fixed<double, 3, 3> left;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      left(r, c) = m(r, c);
  vnl_matrix_fixed<double, 3, 3> pixelToDetector;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      pixelToDetector(r, c) = detector.IndexToPhysical()(r, c);
  // Ray direction from the source towards pixel (i, j): D = -L^-1 (u, v, 1) (the matrix is
  // normalised so that points in front of the source have a negative third coordinate).
  const vnl_matrix_fixed<double, 3, 3> direction =
    -(vnl_matrix_inverse<double>(left.as_ref()).as_matrix() * pixelToDetector.as_ref());
  const auto source = geometry->GetSourcePosition(k);
  for (unsigned int c = 0; c < 3; ++c)
  {
    m_X[c] = direction(0, c);
    m_Z[c] = direction(2, c);
    m_Numerator[c] = source[2] * direction(0, c) - source[0] * direction(2, c);
  }
}

double
RayAxisDistance::OnCylinder(double gamma, double dv) const
{
  const double b[3] = { std::sin(gamma), dv, std::cos(gamma) };
  double n = 0., x = 0., z = 0.;
  for (unsigned int c = 0; c < 3; ++c)
  {
    n += m_Numerator[c] * b[c];
    x += m_X[c] * b[c];
    z += m_Z[c] * b[c];
  }
  return n / std::sqrt(x * x + z * z);
}

double
RayAxisDistance::operator()(double i, double j) const
{
  if (m_Cylindrical)
    return this->OnCylinder(m_Gamma[0] * i + m_Gamma[1] * j + m_Gamma[2], m_Dv[0] * i + m_Dv[1] * j + m_Dv[2]);
  const double n = m_Numerator[0] * i + m_Numerator[1] * j + m_Numerator[2];
  const double x = m_X[0] * i + m_X[1] * j + m_X[2];
  const double z = m_Z[0] * i + m_Z[1] * j + m_Z[2];
  return n / std::sqrt(x * x + z * z);
}

double
RayAxisDistance::Column(double distance, double j) const
{
  if (m_Cylindrical)
  {
    // s grows monotonically with gamma across the rays that leave the source towards the detector
    // (|gamma| < pi/2): bisection along the row between the columns of gamma = -+ 89.9 degrees.
    if (m_Gamma[0] == 0.)
      return std::numeric_limits<double>::quiet_NaN();
    const double limit = 0.4995 * 3.14159265358979323846;
    double a = (-limit - m_Gamma[1] * j - m_Gamma[2]) / m_Gamma[0], b = (limit - m_Gamma[1] * j - m_Gamma[2]) / m_Gamma[0];
    double sa = (*this)(a, j) - distance, sb = (*this)(b, j) - distance;
    if (!(sa * sb <= 0.))
      return std::numeric_limits<double>::quiet_NaN(); // no ray of this row reaches that distance
    for (int n = 0; n < 200 && std::abs(b - a) > 1e-10 * (1. + std::abs(a)); ++n)
    {
      const double c = 0.5 * (a + b), sc = (*this)(c, j) - distance;
      if ((sc <= 0.) == (sa <= 0.))
      {
        a = c;
        sa = sc;
      }
      else
        b = c;
    }
    return 0.5 * (a + b);
  }
  // Along row j: n(i) = n0 + n1 i, and likewise x(i), z(i). s(i) = distance means
  // distance^2 (x^2 + z^2) = n^2 with n of the sign of `distance`: a quadratic in i.
  const double n0 = m_Numerator[1] * j + m_Numerator[2], n1 = m_Numerator[0];
  const double x0 = m_X[1] * j + m_X[2], x1 = m_X[0];
  const double z0 = m_Z[1] * j + m_Z[2], z1 = m_Z[0];
  const double d2 = distance * distance;
  const double a = d2 * (x1 * x1 + z1 * z1) - n1 * n1;
  const double b = 2. * (d2 * (x0 * x1 + z0 * z1) - n0 * n1);
  const double c = d2 * (x0 * x0 + z0 * z0) - n0 * n0;
  const double axisColumn = -n0 / n1; // where the ray passes through the axis
  if (distance == 0.)
    return axisColumn;
  double roots[2];
  int count = 0;
  if (std::abs(a) <= 1e-12 * (std::abs(b) + std::abs(c)))
  {
    roots[count++] = -c / b;
  }
  else
  {
    const double discriminant = b * b - 4. * a * c;
    if (discriminant < 0.)
      return std::numeric_limits<double>::quiet_NaN(); // no ray of this row reaches that distance
    const double q = -0.5 * (b + std::copysign(std::sqrt(discriminant), b));
    roots[count++] = q / a;
    if (q != 0.)
      roots[count++] = c / q;
  }
  // Squaring also admitted -distance: keep the roots on the right side of the axis, the nearest to it.
  double best = std::numeric_limits<double>::quiet_NaN();
  for (int r = 0; r < count; ++r)
  {
    const double n = n0 + n1 * roots[r];
    if ((n > 0.) != (distance > 0.))
      continue;
    if (std::isnan(best) || std::abs(roots[r] - axisColumn) < std::abs(best - axisColumn))
      best = roots[r];
  }
  return best;
}

AxisDistanceCoefficients
RayAxisDistance::GetCoefficients() const
{
  AxisDistanceCoefficients c;
  for (unsigned int d = 0; d < 3; ++d)
  {
    c.numerator[d] = static_cast<float>(m_Numerator[d]);
    c.x[d] = static_cast<float>(m_X[d]);
    c.z[d] = static_cast<float>(m_Z[d]);
  }
  return c;
}

} // namespace cbct
