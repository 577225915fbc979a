#include "cbctCircularOrbitBeadFit.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_levenberg_marquardt.h>
#include <vnl/algo/vnl_svd.h>
#include <vnl/vnl_least_squares_function.h>
#include <vnl/vnl_matrix_fixed.h>

#include <algorithm>
#include <cmath>

namespace cbct
{

namespace
{
/** Scale of each orbit parameter's variable: 1 mm, 1 mrad. */
constexpr double OrbitScale[CircularOrbitBeadFit::NumberOfOrbitParameters] = { 1., 1., 1., 1., 1., 1., 1e-3, 1e-3 };
constexpr double PlacementScale[5] = { 1e-3, 1e-3, 1e-3, 1., 1. };

double &
OrbitValue(ThreeDCircularProjectionGeometry::Parameters & p, unsigned int parameter)
{
  switch (parameter)
  {
    case CircularOrbitBeadFit::SourceToIsocenterDistance:
      return p.sourceToIsocenterDistance;
    case CircularOrbitBeadFit::SourceToDetectorDistance:
      return p.sourceToDetectorDistance;
    case CircularOrbitBeadFit::ProjectionOffsetX:
      return p.projectionOffsetX;
    case CircularOrbitBeadFit::ProjectionOffsetY:
      return p.projectionOffsetY;
    case CircularOrbitBeadFit::SourceOffsetX:
      return p.sourceOffsetX;
    case CircularOrbitBeadFit::SourceOffsetY:
      return p.sourceOffsetY;
    case CircularOrbitBeadFit::OutOfPlaneAngle:
      return p.outOfPlaneAngle;
    default:
      return p.inPlaneAngle;
  }
}

double &
PlacementValue(CircularOrbitBeadFit::Placement & p, unsigned int k)
{
  double * values[5] = { &p.angleX, &p.angleY, &p.angleZ, &p.shiftX, &p.shiftZ };
  return *values[k];
}

/** Reprojection residuals (pixels) of every observation; variables: the fitted orbit parameters,
 * then the placement, each (value - start) / scale. */
class OrbitFunction : public vnl_least_squares_function
{
public:
  OrbitFunction(const std::vector<std::array<double, 3>> & beads, const std::vector<BeadObservation> & observations,
                const std::vector<double> & gantryAngles, const CircularOrbitBeadFit::Parameters & orbit,
                const CircularOrbitBeadFit::Placement & placement, std::vector<unsigned int> fitted, const DetectorPixels & pixels)
    : vnl_least_squares_function(static_cast<unsigned int>(fitted.size() + 5),
                                 static_cast<unsigned int>(2 * observations.size()), no_gradient)
    , m_Beads(beads)
    , m_Observations(observations)
    , m_GantryAngles(gantryAngles)
    , m_Orbit(orbit)
    , m_Placement(placement)
    , m_Fitted(std::move(fitted))
    , m_Pixels(pixels)
  {}

  void
  Values(const vnl_vector<double> & x, CircularOrbitBeadFit::Parameters & orbit, CircularOrbitBeadFit::Placement & placement) const
  {
    orbit = m_Orbit;
    placement = m_Placement;
    for (std::size_t k = 0; k < m_Fitted.size(); ++k)
      OrbitValue(orbit, m_Fitted[k]) += OrbitScale[m_Fitted[k]] * x[static_cast<unsigned int>(k)];
    for (unsigned int k = 0; k < 5; ++k)
      PlacementValue(placement, k) += PlacementScale[k] * x[static_cast<unsigned int>(m_Fitted.size() + k)];
  }

  void
  f(const vnl_vector<double> & x, vnl_vector<double> & residuals) override
  {
    CircularOrbitBeadFit::Parameters orbit;
    CircularOrbitBeadFit::Placement placement;
    this->Values(x, orbit, placement);
    std::vector<std::array<double, 3>> moved(m_Beads.size());
    for (std::size_t b = 0; b < m_Beads.size(); ++b)
      moved[b] = placement.Apply(m_Beads[b]);
    std::vector<ThreeDCircularProjectionGeometry::MatrixType> matrices(m_GantryAngles.size());
    std::vector<bool> made(m_GantryAngles.size(), false);
    for (std::size_t k = 0; k < m_Observations.size(); ++k)
    {
      const BeadObservation & o = m_Observations[k];
      if (!made[o.projection])
      {
        orbit.gantryAngle = m_GantryAngles[o.projection];
        matrices[o.projection] = ThreeDCircularProjectionGeometry::ComputeMatrix(orbit);
        made[o.projection] = true;
      }
      const auto & m = matrices[o.projection];
      const auto & X = moved[o.bead];
      double h[3];
      for (unsigned int r = 0; r < 3; ++r)
        h[r] = m(r, 0) * X[0] + m(r, 1) * X[1] + m(r, 2) * X[2] + m(r, 3);
      const auto d = m_Pixels.Pixels(h[0] / h[2] - o.u, h[1] / h[2] - o.v);
      residuals[static_cast<unsigned int>(2 * k)] = d[0];
      residuals[static_cast<unsigned int>(2 * k + 1)] = d[1];
    }
  }

  const std::vector<unsigned int> &
  Fitted() const
  {
    return m_Fitted;
  }

private:
  const std::vector<std::array<double, 3>> & m_Beads;
  const std::vector<BeadObservation> & m_Observations;
  const std::vector<double> & m_GantryAngles;
  CircularOrbitBeadFit::Parameters m_Orbit;
  CircularOrbitBeadFit::Placement m_Placement;
  std::vector<unsigned int> m_Fitted;
  DetectorPixels m_Pixels;
};

vnl_matrix_fixed<double, 3, 3>
Rotation(unsigned int axis, double angle)
{
  vnl_matrix_fixed<double, 3, 3> r;
  r.set_identity();
  const double c = std::cos(angle), s = std::sin(angle);
  const unsigned int a = (axis + 1) % 3, b = (axis + 2) % 3;
  r(a, a) = c;
  r(a, b) = -s;
  r(b, a) = s;
  r(b, b) = c;
  return r;
}
} // namespace

const char *
CircularOrbitBeadFit::Name(unsigned int parameter)
{
  static const char * names[NumberOfOrbitParameters] = { "SourceToIsocenterDistance", "SourceToDetectorDistance",
                                                          "ProjectionOffsetX",         "ProjectionOffsetY",
                                                          "SourceOffsetX",             "SourceOffsetY",
                                                          "OutOfPlaneAngle",           "InPlaneAngle" };
  return parameter < NumberOfOrbitParameters ? names[parameter] : "unknown";
}

std::array<double, 3>
CircularOrbitBeadFit::Placement::Apply(const std::array<double, 3> & x) const
{
  const vnl_matrix_fixed<double, 3, 3> r = Rotation(2, angleZ) * Rotation(0, angleX) * Rotation(1, angleY);
  std::array<double, 3> moved;
  for (unsigned int a = 0; a < 3; ++a)
    moved[a] = r(a, 0) * x[0] + r(a, 1) * x[1] + r(a, 2) * x[2];
  moved[0] += shiftX;
  moved[2] += shiftZ;
  return moved;
}

std::array<double, 2>
CircularOrbitBeadFit::Project(const Parameters & orbit, double gantryAngle, const Placement & placement, const std::array<double, 3> & x)
{
  Parameters p = orbit;
  p.gantryAngle = gantryAngle;
  const auto m = ThreeDCircularProjectionGeometry::ComputeMatrix(p);
  const auto X = placement.Apply(x);
  double h[3];
  for (unsigned int r = 0; r < 3; ++r)
    h[r] = m(r, 0) * X[0] + m(r, 1) * X[1] + m(r, 2) * X[2] + m(r, 3);
  return { { h[0] / h[2], h[1] / h[2] } };
}

CircularOrbitBeadFit::Result
CircularOrbitBeadFit::Fit(const std::vector<std::array<double, 3>> & beads,
                          const std::vector<BeadObservation> & observations,
                          const std::vector<double> & gantryAngles,
                          const Parameters & orbit,
                          const Placement & placement,
                          const std::array<bool, NumberOfOrbitParameters> & fitted,
                          const DetectorPixels & pixels)
{
  CheckPositive("initial SourceToIsocenterDistance (mm)", orbit.sourceToIsocenterDistance);
  CheckPositive("initial SourceToDetectorDistance (mm)", orbit.sourceToDetectorDistance);
  std::vector<unsigned int> free;
  for (unsigned int p = 0; p < NumberOfOrbitParameters; ++p)
    if (fitted[p])
      free.push_back(p);
  for (const BeadObservation & o : observations)
  {
    if (o.projection >= gantryAngles.size() || o.bead >= beads.size())
      ThrowBadParameter("bead observation", "of bead " + std::to_string(o.bead) + " in projection " + std::to_string(o.projection),
                        "a bead below " + std::to_string(beads.size()) + " and a projection below " +
                          std::to_string(gantryAngles.size()));
    CheckFinite("bead centre u (mm) in projection " + std::to_string(o.projection), o.u);
    CheckFinite("bead centre v (mm) in projection " + std::to_string(o.projection), o.v);
  }
  const std::size_t unknowns = free.size() + 5;
  if (2 * observations.size() < unknowns + 1)
    ThrowBadParameter("number of beads seen in all projections", observations.size(),
                      "more than " + std::to_string(unknowns / 2) + " (a circular orbit fit has " + std::to_string(unknowns) +
                        " unknowns, each bead seen gives 2 equations)");

  OrbitFunction function(beads, observations, gantryAngles, orbit, placement, free, pixels);
  vnl_levenberg_marquardt lm(function);
  lm.set_x_tolerance(1e-12);
  lm.set_f_tolerance(1e-16);
  lm.set_g_tolerance(1e-14);
  lm.set_max_function_evals(static_cast<int>(200 * (unknowns + 1)));
  vnl_vector<double> x(static_cast<unsigned int>(unknowns), 0.);
  lm.minimize_without_gradient(x);
  const auto code = lm.get_failure_code();
  if (code == vnl_nonlinear_minimizer::ERROR_FAILURE || code == vnl_nonlinear_minimizer::ERROR_DODGY_INPUT ||
      code == vnl_nonlinear_minimizer::FAILED_TOO_MANY_ITERATIONS || code == vnl_nonlinear_minimizer::FAILED_USER_REQUEST ||
      !(lm.get_end_error() <= lm.get_start_error()))
    ThrowBadParameter("circular orbit fit", "not converged (MINPACK status " + std::to_string(int(code)) + ")",
                      "a fit that converges: a nominal geometry near the truth and beads identified right");

  Result result;
  function.Values(x, result.orbit, result.placement);
  result.iterations = static_cast<unsigned int>(lm.get_num_iterations());
  vnl_vector<double> residuals(function.get_number_of_residuals());
  function.f(x, residuals);
  double squares = 0.;
  for (std::size_t k = 0; k < observations.size(); ++k)
  {
    const double di = residuals[static_cast<unsigned int>(2 * k)], dj = residuals[static_cast<unsigned int>(2 * k + 1)];
    const double e = std::sqrt(di * di + dj * dj);
    if (!std::isfinite(e))
      ThrowBadParameter("circular orbit fit", "a non-finite reprojection", "beads in front of the source");
    result.errors.push_back(e);
    result.error.Add(e);
    squares += di * di + dj * dj;
  }
  // Uncertainties: s^2 (J^T J)^-1 with J by central differences in the scaled variables.
  const unsigned int m = function.get_number_of_residuals(), n = static_cast<unsigned int>(unknowns);
  vnl_matrix<double> jacobian(m, n);
  vnl_vector<double> plus(m), minus(m);
  const double h = 1e-4;
  for (unsigned int c = 0; c < n; ++c)
  {
    vnl_vector<double> xp = x, xm = x;
    xp[c] += h;
    xm[c] -= h;
    function.f(xp, plus);
    function.f(xm, minus);
    jacobian.set_column(c, (plus - minus) / (2. * h));
  }
  const double variance = m > n ? squares / (m - n) : 0.;
  vnl_svd<double> svd(jacobian.transpose() * jacobian);
  const vnl_matrix<double> covariance = svd.pinverse() * variance;
  for (std::size_t k = 0; k < free.size(); ++k)
    result.uncertainty[free[k]] =
      OrbitScale[free[k]] * std::sqrt(std::max(covariance(static_cast<unsigned int>(k), static_cast<unsigned int>(k)), 0.));
  for (unsigned int k = 0; k < 5; ++k)
  {
    const unsigned int c = static_cast<unsigned int>(free.size() + k);
    result.placementUncertainty[k] = PlacementScale[k] * std::sqrt(std::max(covariance(c, c), 0.));
  }
  return result;
}

} // namespace cbct
