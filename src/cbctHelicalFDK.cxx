#include "cbctHelicalFDK.h"

#include "cbctDetectorCoordinates.h"
#include "cbctHelicalOrbit.h"
#include "cbctInputChecks.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

std::string
Mm(double value)
{
  std::ostringstream text;
  text << value;
  return text.str();
}
} // namespace

bool
IsHelicalGeometry(const ThreeDCircularProjectionGeometry * geometry)
{
  return geometry != nullptr && HelicalOrbit::Of(geometry).IsHelical();
}

std::vector<double>
HelicalFDKSetup::AngularGaps(const ThreeDCircularProjectionGeometry * geometry)
{
  const HelicalOrbit orbit = HelicalOrbit::Of(geometry);
  const auto & lambda = orbit.UnwrappedAzimuths();
  const std::size_t n = lambda.size();
  std::vector<double> gaps(n, 0.);
  for (std::size_t k = 0; k < n; ++k)
  {
    const double before = k > 0 ? std::abs(lambda[k] - lambda[k - 1]) : (n > 1 ? std::abs(lambda[1] - lambda[0]) : 2. * Pi);
    const double after = k + 1 < n ? std::abs(lambda[k + 1] - lambda[k]) : before;
    gaps[k] = 0.5 * (before + after);
  }
  return gaps;
}

std::vector<double>
FDKAngularGaps(const ThreeDCircularProjectionGeometry * geometry)
{
  return IsHelicalGeometry(geometry) ? HelicalFDKSetup::AngularGaps(geometry) : geometry->GetAngularGaps();
}

HelicalFDKSetup
HelicalFDKSetup::Of(const ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections, double flatTop)
{
  if (!(flatTop >= 0. && flatTop < 1.))
    ThrowBadParameter("helical FDK's weight function's flat top Q", flatTop, "a fraction of the detector's height in [0, 1)");
  const HelicalOrbit orbit = HelicalOrbit::Of(geometry);
  if (!orbit.IsHelical())
    ThrowBadParameter("helical FDK geometry", orbit.Describe(), "a helical orbit");
  const unsigned int n = geometry->GetNumberOfProjections();
  const double sid = geometry->GetSourceRadius(0), sdd = geometry->GetSourceToDetectorDistance(0);
  for (unsigned int k = 0; k < n; ++k)
  {
    const std::string which = "helical FDK: projection " + std::to_string(k);
    if (geometry->IsParallel(k))
      ThrowBadParameter(which, "parallel beam", "a cone beam");
    if (!(std::abs(geometry->GetSourceRadius(k) - sid) <= 1e-6 * sid))
      ThrowBadParameter(which + "'s source distance from the axis", Mm(geometry->GetSourceRadius(k)) + " mm",
                        "that of projection 0, " + Mm(sid) + " mm: a helix turns at one radius");
    if (!(std::abs(geometry->GetSourceToDetectorDistance(k) - sdd) <= 1e-6 * sdd))
      ThrowBadParameter(which + "'s SourceToDetectorDistance", Mm(geometry->GetSourceToDetectorDistance(k)) + " mm",
                        "that of projection 0, " + Mm(sdd) + " mm");
    if (geometry->HasParameters(k))
    {
      const auto & p = geometry->GetParameters(k);
      if (p.sourceOffsetX != 0. || p.outOfPlaneAngle != 0. || p.inPlaneAngle != 0.)
        ThrowBadParameter(which, "a source offset across the axis or a tilt (SourceOffsetX " + Mm(p.sourceOffsetX) +
                                   " mm, OutOfPlaneAngle " + Mm(p.outOfPlaneAngle * 180. / Pi) + " deg, InPlaneAngle " +
                                   Mm(p.inPlaneAngle * 180. / Pi) + " deg)",
                          "a helix whose source faces the axis and whose detector is not tilted (all three 0)");
    }
    if (geometry->IsCylindrical() && !geometry->IsCylinderCentredOnSource(k))
      ThrowBadParameter(which + "'s cylindrical detector", "not centred on the source",
                        "RadiusCylindricalDetector = SourceToDetectorDistance (equiangular columns)");
  }
  // The detector's rows: their outer edges in v, from the principal point.
  const DetectorCoordinates detector(projections);
  const auto & largest = projections->GetLargestPossibleRegion();
  const double j0 = largest.GetIndex(1) - 0.5, j1 = largest.GetIndex(1) + static_cast<double>(largest.GetSize(1)) - 0.5;
  const double i = largest.GetIndex(0);
  const double v0 = geometry->GetPrincipalPointV(0);
  const double va = detector.V(i, j0), vb = detector.V(i, j1);
  const double low = std::min(va, vb), high = std::max(va, vb);
  if (!(high > low))
    ThrowBadParameter("helical FDK detector", "no rows", "a detector of at least one row");

  HelicalFDKSetup setup;
  const auto & lambda = orbit.UnwrappedAzimuths();
  const auto & axial = orbit.AxialPositions();
  // The source's height as the straight line of its azimuth (least squares, as HelicalOrbit fits it).
  double ml = 0., my = 0.;
  for (unsigned int k = 0; k < n; ++k)
  {
    ml += lambda[k] / n;
    my += axial[k] / n;
  }
  double sll = 0., sly = 0.;
  for (unsigned int k = 0; k < n; ++k)
  {
    sll += (lambda[k] - ml) * (lambda[k] - ml);
    sly += (lambda[k] - ml) * (axial[k] - my);
  }
  const double slope = sly / sll;
  HelicalScan & s = setup.m_Scan;
  s.sourceRadius = static_cast<float>(sid);
  s.sdd = static_cast<float>(sdd);
  s.axialPerRadian = static_cast<float>(slope);
  s.axialAtZero = static_cast<float>(my - slope * ml);
  s.azimuthAtZero = static_cast<float>(geometry->GetSourceAzimuth(0));
  const auto [first, last] = std::minmax_element(lambda.begin(), lambda.end());
  const double step = (*last - *first) / std::max(1u, n - 1);
  s.lambdaFirst = static_cast<float>(*first - 0.5 * step);
  s.lambdaLast = static_cast<float>(*last + 0.5 * step);
  s.rowCentre = static_cast<float>(0.5 * (low + high) - v0);
  s.rowHalfHeight = static_cast<float>(0.5 * (high - low));
  s.flatTop = static_cast<float>(flatTop);
  s.transitionScale = static_cast<float>(1.5707963267948966 / (1. - flatTop));
  s.cylindrical = geometry->IsCylindrical() ? 1 : 0;
  for (unsigned int k = 0; k < n; ++k)
    setup.m_Views.push_back(setup.ViewAt(lambda[k]));
  setup.m_Feed = orbit.FeedPerTurn();
  setup.m_Turns = orbit.Turns();
  const double collimation = (high - low) * sid / sdd;
  setup.m_Pitch = std::abs(orbit.FeedPerTurn()) / collimation;
  if (setup.m_Pitch > 2.)
  {
    std::ostringstream value;
    value << std::fixed << std::setprecision(2) << setup.m_Pitch << " (" << std::setprecision(1) << std::abs(setup.m_Feed)
          << " mm per turn over a detector " << collimation << " mm high at the isocentre)";
    ThrowBadParameter("helical FDK pitch factor", value.str(),
                      "at most 2: above, even the lines through the axis are seen by no view (the helix leaves gaps); "
                      "a taller detector, or a lower table feed");
  }
  return setup;
}

HelicalView
HelicalFDKSetup::ViewAt(double lambda) const
{
  HelicalView view;
  view.lambda = static_cast<float>(lambda);
  const double azimuth = static_cast<double>(m_Scan.azimuthAtZero) + lambda;
  view.sinAzimuth = static_cast<float>(std::sin(azimuth));
  view.cosAzimuth = static_cast<float>(std::cos(azimuth));
  return view;
}

std::string
HelicalFDKSetup::Describe() const
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << "helical FDK: pitch " << m_Pitch << " (" << std::setprecision(1)
       << std::abs(m_Feed) << " mm per turn, the detector " << std::abs(m_Feed) / m_Pitch
       << " mm high at the isocentre), " << m_Turns << " turns, weight function flat to |q| = " << std::setprecision(2)
       << m_Scan.flatTop;
  return text.str();
}

} // namespace cbct
