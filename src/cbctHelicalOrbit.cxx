#include "cbctHelicalOrbit.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** `a` wrapped into (-pi, pi]. */
double
Signed(double a)
{
  a = std::fmod(a, 2. * Pi);
  if (a > Pi)
    a -= 2. * Pi;
  else if (a <= -Pi)
    a += 2. * Pi;
  return a;
}
} // namespace

HelicalOrbit
HelicalOrbit::Of(const ThreeDCircularProjectionGeometry * geometry)
{
  HelicalOrbit orbit;
  const unsigned int n = geometry == nullptr ? 0 : geometry->GetNumberOfProjections();
  orbit.m_Azimuths.resize(n);
  orbit.m_AxialPositions.resize(n);
  double radius = 0.;
  for (unsigned int k = 0; k < n; ++k)
  {
    // Each step taken the short way round: consecutive projections are less than half a turn apart.
    orbit.m_Azimuths[k] =
      k == 0 ? 0. : orbit.m_Azimuths[k - 1] + Signed(geometry->GetSourceAzimuth(k) - geometry->GetSourceAzimuth(k - 1));
    orbit.m_AxialPositions[k] = geometry->GetSourcePosition(k)[1];
    radius += geometry->GetSourceRadius(k) / n;
  }
  if (n < 3)
    return orbit;
  const auto [low, high] = std::minmax_element(orbit.m_Azimuths.begin(), orbit.m_Azimuths.end());
  orbit.m_Turns = (*high - *low) / (2. * Pi);
  orbit.m_RotationSense = orbit.m_Azimuths.back() < 0. ? -1 : 1;

  // Least squares y = a + b lambda, in double with the means removed first.
  double meanAzimuth = 0., meanAxial = 0.;
  for (unsigned int k = 0; k < n; ++k)
  {
    meanAzimuth += orbit.m_Azimuths[k] / n;
    meanAxial += orbit.m_AxialPositions[k] / n;
  }
  double azimuthVariance = 0., axialVariance = 0., covariance = 0.;
  for (unsigned int k = 0; k < n; ++k)
  {
    const double da = orbit.m_Azimuths[k] - meanAzimuth, dy = orbit.m_AxialPositions[k] - meanAxial;
    azimuthVariance += da * da;
    axialVariance += dy * dy;
    covariance += da * dy;
  }
  // Less than a millionth of a turn: the source does not turn (a linear or static acquisition).
  if (!(*high - *low > 1e-6 * 2. * Pi) || !(azimuthVariance > 0.))
    return orbit;
  const double slope = covariance / azimuthVariance; // mm per radian of the signed azimuth
  orbit.m_FeedPerTurn = slope * orbit.m_RotationSense * 2. * Pi;
  orbit.m_AxialTravel = std::abs(slope) * (*high - *low);
  orbit.m_Linearity = axialVariance > 0. ? covariance * covariance / (azimuthVariance * axialVariance) : 0.;
  orbit.m_Helical =
    orbit.m_Linearity >= MinimumLinearity() && orbit.m_AxialTravel >= MinimumTravel() * radius && std::isfinite(slope);
  return orbit;
}

std::string
HelicalOrbit::Describe() const
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(1);
  if (m_AxialPositions.empty())
    return "no projections";
  const auto [low, high] = std::minmax_element(m_AxialPositions.begin(), m_AxialPositions.end());
  if (m_Helical)
    text << "a helical orbit: the source moves " << m_FeedPerTurn << " mm along the rotation axis (y) per turn over "
         << std::setprecision(2) << m_Turns << " turns, from y = " << std::setprecision(1) << m_AxialPositions.front()
         << " to " << m_AxialPositions.back() << " mm";
  else
    text << "a circular orbit over " << std::setprecision(2) << m_Turns << " turns (source y from " << std::setprecision(1)
         << *low << " to " << *high << " mm)";
  return text.str();
}

void
HelicalOrbit::RequireCircular(const ThreeDCircularProjectionGeometry * geometry,
                              const std::string & method,
                              const std::string & instead)
{
  const HelicalOrbit orbit = Of(geometry);
  if (orbit.IsHelical())
  {
    ThrowBadParameter(method + " geometry", orbit.Describe(),
                      "a circular orbit (" + method + " weights the projections of one circle; every turn of a helix " +
                        "summed with them gives a wrong volume). Reconstruct a helical scan with " + instead);
  }
}

} // namespace cbct
