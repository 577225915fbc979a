#include "cbctGeometricPhantom.h"

#include "cbctAtomicOutput.h"
#include "cbctInputChecks.h"

#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** World vector into the ellipsoid's frame. The ellipsoid's x semi-axis points along
 * (cos a, 0, sin a): Kak & Slaney's in-plane angle with their y as our z (and RTK's orientation). */
std::array<double, 3>
ToEllipsoidFrame(const std::array<double, 3> & v, double angleY)
{
  if (angleY == 0.) // most solids (and every bead): no trigonometry per ray
    return v;
  const double c = std::cos(angleY), s = std::sin(angleY);
  return { { c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2] } };
}

const char *
Keyword(GeometricPhantom::Shape shape)
{
  switch (shape)
  {
    case GeometricPhantom::Shape::Cylinder:
      return "cylinder";
    case GeometricPhantom::Shape::Bead:
      return "bead";
    default:
      return "ellipsoid";
  }
}

/** The interval [tNear, tFar] of t where o + t d lies in the unit solid (its frame); false if none. */
bool
UnitSolidInterval(GeometricPhantom::Shape shape, const std::array<double, 3> & o, const std::array<double, 3> & d, double & tNear, double & tFar)
{
  if (shape != GeometricPhantom::Shape::Cylinder)
  {
    const double a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double b = o[0] * d[0] + o[1] * d[1] + o[2] * d[2];
    const double c = o[0] * o[0] + o[1] * o[1] + o[2] * o[2] - 1.;
    const double discriminant = b * b - a * c;
    if (discriminant <= 0.)
      return false;
    const double root = std::sqrt(discriminant);
    tNear = (-b - root) / a;
    tFar = (-b + root) / a;
    return true;
  }
  // The unit cylinder x^2 + z^2 <= 1, |y| <= 1: the infinite cylinder's interval within the slab's.
  const double infinity = std::numeric_limits<double>::infinity();
  tNear = -infinity;
  tFar = infinity;
  const double a = d[0] * d[0] + d[2] * d[2];
  const double b = o[0] * d[0] + o[2] * d[2];
  const double c = o[0] * o[0] + o[2] * o[2] - 1.;
  if (a > 0.)
  {
    const double discriminant = b * b - a * c;
    if (discriminant <= 0.)
      return false;
    const double root = std::sqrt(discriminant);
    tNear = (-b - root) / a;
    tFar = (-b + root) / a;
  }
  else if (c > 0.) // along the axis, outside the cross-section
    return false;
  if (d[1] != 0.)
  {
    const double t1 = (-1. - o[1]) / d[1], t2 = (1. - o[1]) / d[1];
    tNear = std::max(tNear, std::min(t1, t2));
    tFar = std::min(tFar, std::max(t1, t2));
  }
  else if (std::abs(o[1]) > 1.)
    return false;
  return tFar > tNear;
}
} // namespace

void
GeometricPhantom::AddEllipsoid(const Ellipsoid & e)
{
  const std::string which = std::string(Keyword(e.shape)) + " (solid " + std::to_string(m_Ellipsoids.size()) + ")";
  if (e.shape != Shape::Ellipsoid && e.shape != Shape::Cylinder && e.shape != Shape::Bead)
    ThrowBadParameter(which + " shape", static_cast<int>(e.shape), "an ellipsoid, a cylinder or a bead");
  CheckFinite(which + " density", e.density);
  CheckFinite(which + " angle", e.angleY);
  for (int i = 0; i < 3; ++i)
  {
    CheckFinite(which + " center", e.center[i]);
    CheckPositive(which + " semi-axis " + std::to_string(i), e.semiAxes[i]);
  }
  if (e.shape == Shape::Bead && (e.semiAxes[1] != e.semiAxes[0] || e.semiAxes[2] != e.semiAxes[0]))
    ThrowBadParameter(which + " semi-axes", std::to_string(e.semiAxes[0]) + ", " + std::to_string(e.semiAxes[1]) + ", " +
                                              std::to_string(e.semiAxes[2]),
                      "three equal semi-axes (a bead is a sphere)");
  m_Ellipsoids.push_back(e);
  this->Modified();
}

void
GeometricPhantom::ScaleDensities(double factor)
{
  CheckFinite("phantom density factor", factor);
  for (Ellipsoid & e : m_Ellipsoids)
    e.density *= factor;
  this->Modified();
}

void
GeometricPhantom::SetToSheppLogan(double scale)
{
  CheckPositive("Shepp-Logan phantom scale (mm)", scale);
  // Kak & Slaney's 3D head: {density, centre (x, y, z), semi-axes (x, y, z), angle about y (degrees)},
  // with their axial axis mapped to our y (the rotation axis) and their y to our z.
  struct Row
  {
    double density, cx, cy, cz, ax, ay, az, angle;
  };
  static const Row rows[] = {
    { 2.00, 0., 0., 0., 0.69, 0.90, 0.92, 0. },
    { -0.98, 0., 0., 0., 0.6624, 0.880, 0.874, 0. },
    { -0.02, -0.22, -0.25, 0., 0.41, 0.21, 0.16, 108. },
    { -0.02, 0.22, -0.25, 0., 0.31, 0.22, 0.11, 72. },
    { 0.02, 0., -0.25, 0.35, 0.21, 0.50, 0.25, 0. },
    { 0.02, 0., -0.25, 0.10, 0.046, 0.046, 0.046, 0. },
    { 0.01, -0.08, -0.25, -0.65, 0.046, 0.020, 0.023, 0. },
    { 0.01, 0.06, -0.25, -0.65, 0.046, 0.020, 0.023, 90. },
    { 0.02, 0.06, 0.625, -0.105, 0.056, 0.10, 0.040, 90. },
    { -0.02, 0., 0.625, 0.10, 0.056, 0.10, 0.056, 0. },
  };
  m_Ellipsoids.clear();
  for (const Row & r : rows)
  {
    Ellipsoid e;
    e.density = r.density;
    e.center = { { r.cx * scale, r.cy * scale, r.cz * scale } };
    e.semiAxes = { { r.ax * scale, r.ay * scale, r.az * scale } };
    e.angleY = r.angle * Pi / 180.;
    this->AddEllipsoid(e);
  }
}

void
GeometricPhantom::ReadFromFile(const std::string & path)
{
  const std::string format = "'ellipsoid density cx cy cz ax ay az [angle_degrees]', 'cylinder density cx cy cz ax ay az "
                             "[angle_degrees]' or 'bead density cx cy cz radius'";
  std::ifstream in(path);
  if (!in)
  {
    ThrowBadParameter("phantom file", path, "a readable text file of " + format + " lines");
  }
  std::string line;
  int number = 0;
  auto previous = m_Ellipsoids;
  m_Ellipsoids.clear();
  while (std::getline(in, line))
  {
    ++number;
    const std::string content = Trimmed(line.substr(0, line.find('#')));
    if (content.empty())
      continue;
    std::istringstream words(content);
    std::string keyword;
    words >> keyword;
    Ellipsoid e;
    double angle = 0.;
    bool ok = true;
    if (keyword == "bead")
    {
      e.shape = Shape::Bead;
      double radius = 0.;
      words >> e.density >> e.center[0] >> e.center[1] >> e.center[2] >> radius;
      e.semiAxes = { { radius, radius, radius } };
      ok = !words.fail();
    }
    else
    {
      e.shape = keyword == "cylinder" ? Shape::Cylinder : Shape::Ellipsoid;
      words >> e.density >> e.center[0] >> e.center[1] >> e.center[2] >> e.semiAxes[0] >> e.semiAxes[1] >> e.semiAxes[2];
      ok = (keyword == "ellipsoid" || keyword == "cylinder") && !words.fail();
      if (ok && !(words >> angle))
      {
        angle = 0.; // the angle is optional
        words.clear();
      }
    }
    std::string extra;
    if (!ok || (words >> extra))
    {
      m_Ellipsoids = previous;
      ThrowBadParameter("line " + std::to_string(number) + " of phantom file " + path, "'" + content + "'", format);
    }
    e.angleY = angle * Pi / 180.;
    try
    {
      this->AddEllipsoid(e);
    }
    catch (const itk::ExceptionObject & error)
    {
      m_Ellipsoids = previous;
      ThrowBadParameter("line " + std::to_string(number) + " of phantom file " + path, "'" + content + "'",
                        std::string("valid values: ") + error.GetDescription());
    }
  }
  if (m_Ellipsoids.empty())
  {
    m_Ellipsoids = previous;
    ThrowBadParameter("phantom file " + path, "without solids", "at least one 'ellipsoid', 'cylinder' or 'bead' line");
  }
  this->Modified();
}

void
GeometricPhantom::WriteToFile(const std::string & path, const std::string & comment) const
{
  AtomicOutput output(path);
  {
    std::ofstream file(output.TemporaryPath());
    std::istringstream lines(comment);
    std::string line;
    while (std::getline(lines, line))
      file << "# " << line << '\n';
    file << "# ellipsoid|cylinder density cx cy cz ax ay az angle_degrees; bead density cx cy cz radius (mm, per mm)\n";
    file << std::setprecision(std::numeric_limits<double>::max_digits10);
    for (const Ellipsoid & e : m_Ellipsoids)
    {
      file << Keyword(e.shape) << ' ' << e.density << ' ' << e.center[0] << ' ' << e.center[1] << ' ' << e.center[2];
      if (e.shape == Shape::Bead)
        file << ' ' << e.semiAxes[0] << '\n';
      else
        file << ' ' << e.semiAxes[0] << ' ' << e.semiAxes[1] << ' ' << e.semiAxes[2] << ' ' << e.angleY * 180. / Pi << '\n';
    }
    file.flush();
    if (!file)
      itkGenericExceptionMacro(<< "Cannot write the phantom file '" << path << "'");
  }
  output.Commit();
}

double
GeometricPhantom::LineIntegral(const std::array<double, 3> & source, const std::array<double, 3> & direction, bool wholeLine) const
{
  const double length = std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
  double sum = 0.;
  for (const Ellipsoid & e : m_Ellipsoids)
  {
    const std::array<double, 3> shifted{ { source[0] - e.center[0], source[1] - e.center[1], source[2] - e.center[2] } };
    // A line that misses the solid's bounding sphere misses the solid (most rays, for small beads):
    // skipped before the change of frame. Conservative (a margin), so sums are unchanged.
    const double a = e.semiAxes[0], b = e.semiAxes[1], c = e.semiAxes[2];
    const double bound2 = e.shape == Shape::Cylinder ? std::max(a, c) * std::max(a, c) + b * b : std::max({ a * a, b * b, c * c });
    const double along = (shifted[0] * direction[0] + shifted[1] * direction[1] + shifted[2] * direction[2]) / length;
    const double far2 = shifted[0] * shifted[0] + shifted[1] * shifted[1] + shifted[2] * shifted[2];
    if (far2 - along * along > bound2 * (1. + 1e-6) + 1e-12 * far2 + 1e-9) // the margin covers the subtraction's rounding
      continue;
    // In the frame where the solid is the unit sphere (cylinder), intersect the line o + t d with it.
    std::array<double, 3> o = ToEllipsoidFrame(shifted, e.angleY);
    std::array<double, 3> d = ToEllipsoidFrame(direction, e.angleY);
    for (int i = 0; i < 3; ++i)
    {
      o[i] /= e.semiAxes[i];
      d[i] /= e.semiAxes[i];
    }
    double tNear = 0., tFar = 0.;
    if (!UnitSolidInterval(e.shape, o, d, tNear, tFar))
      continue;
    if (!wholeLine)
      tNear = std::max(tNear, 0.); // only in front of the source
    if (tFar > tNear)
      sum += e.density * (tFar - tNear) * length;
  }
  return sum;
}

double
GeometricPhantom::Density(const std::array<double, 3> & point) const
{
  double sum = 0.;
  for (const Ellipsoid & e : m_Ellipsoids)
  {
    const std::array<double, 3> shifted{ { point[0] - e.center[0], point[1] - e.center[1], point[2] - e.center[2] } };
    const std::array<double, 3> q = ToEllipsoidFrame(shifted, e.angleY);
    double r = 0.;
    for (int i = 0; i < 3; ++i)
    {
      if (e.shape == Shape::Cylinder && i == 1)
        continue;
      r += (q[i] / e.semiAxes[i]) * (q[i] / e.semiAxes[i]);
    }
    if (r <= 1. && (e.shape != Shape::Cylinder || std::abs(q[1]) <= e.semiAxes[1]))
      sum += e.density;
  }
  return sum;
}

void
GeometricPhantom::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Solids: " << m_Ellipsoids.size() << std::endl;
}

} // namespace cbct
