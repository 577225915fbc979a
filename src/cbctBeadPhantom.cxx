#include "cbctBeadPhantom.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;
constexpr unsigned int MinimumBeads = 6;
constexpr double LargeRadiusRatio = 1.3;
} // namespace

BeadPhantom::BeadPhantom()
{
  this->SetToHelix();
}

void
BeadPhantom::SetToHelix(const HelixDesign & d)
{
  if (d.beads < MinimumBeads || d.beads > 10000)
    ThrowBadParameter("bead helix bead count", d.beads, "from " + std::to_string(MinimumBeads) + " to 10000 beads");
  CheckPositive("bead helix radius (mm)", d.helixRadius);
  CheckFinite("bead helix angle step (degrees)", d.angleStepDegrees);
  CheckPositive("bead helix axial step (mm)", d.axialStep);
  CheckPositive("small bead radius (mm)", d.smallRadius);
  CheckPositive("large bead radius (mm)", d.largeRadius);
  CheckPositive("bead phantom cylinder radius (mm)", d.cylinderRadius);
  CheckPositive("bead phantom cylinder half height (mm)", d.cylinderHalfHeight);
  CheckFinite("bead phantom plastic density (per mm)", d.plasticDensity);
  CheckFinite("bead density (per mm)", d.steelDensity);
  if (d.sizeCode.empty() || d.sizeCode.find_first_not_of("01") != std::string::npos)
    ThrowBadParameter("bead helix size code", "'" + d.sizeCode + "'", "a string of 0 (small bead) and 1 (large bead)");
  const double firstY = -0.5 * (d.beads - 1.) * d.axialStep;
  if (d.helixRadius + std::max(d.smallRadius, d.largeRadius) > d.cylinderRadius ||
      -firstY + std::max(d.smallRadius, d.largeRadius) > d.cylinderHalfHeight)
    ThrowBadParameter("bead helix", "of radius " + std::to_string(d.helixRadius) + " mm and height " +
                                      std::to_string(-2. * firstY) + " mm",
                      "beads inside the cylinder of radius " + std::to_string(d.cylinderRadius) + " mm and half height " +
                        std::to_string(d.cylinderHalfHeight) + " mm");

  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid body;
  body.shape = GeometricPhantom::Shape::Cylinder;
  body.density = d.plasticDensity;
  body.semiAxes = { { d.cylinderRadius, d.cylinderHalfHeight, d.cylinderRadius } };
  phantom->AddEllipsoid(body);
  for (unsigned int k = 0; k < d.beads; ++k)
  {
    const bool large = d.sizeCode[k % d.sizeCode.size()] == '1';
    const double radius = large ? d.largeRadius : d.smallRadius;
    const double angle = k * d.angleStepDegrees * Pi / 180.;
    GeometricPhantom::Ellipsoid bead;
    bead.shape = GeometricPhantom::Shape::Bead;
    bead.density = d.steelDensity - d.plasticDensity; // a steel ball replaces the plastic it sits in
    bead.center = { { d.helixRadius * std::cos(angle), firstY + k * d.axialStep, d.helixRadius * std::sin(angle) } };
    bead.semiAxes = { { radius, radius, radius } };
    phantom->AddEllipsoid(bead);
  }
  this->SetPhantom(phantom);
}

void
BeadPhantom::SetPhantom(const GeometricPhantom * phantom)
{
  if (phantom == nullptr)
    ThrowBadParameter("bead phantom", "none", "a GeometricPhantom with beads");
  std::vector<Bead> beads;
  auto copy = GeometricPhantom::New();
  for (const auto & solid : phantom->GetEllipsoids())
  {
    copy->AddEllipsoid(solid);
    if (solid.shape != GeometricPhantom::Shape::Bead)
      continue;
    Bead bead;
    bead.center = solid.center;
    bead.radius = solid.semiAxes[0];
    bead.density = solid.density;
    if (!(bead.density > 0.))
      ThrowBadParameter("density of the bead at (" + std::to_string(bead.center[0]) + ", " + std::to_string(bead.center[1]) +
                          ", " + std::to_string(bead.center[2]) + ") mm",
                        bead.density, "a density above the body's (> 0: beads are found as dense spots)");
    beads.push_back(bead);
  }
  if (beads.size() < MinimumBeads)
    ThrowBadParameter("number of beads in the phantom", beads.size(),
                      "at least " + std::to_string(MinimumBeads) +
                        " 'bead' solids (a projection matrix has 11 unknowns: 2 per bead seen)");
  std::sort(beads.begin(), beads.end(), [](const Bead & a, const Bead & b) {
    return a.center[1] != b.center[1] ? a.center[1] < b.center[1] : a.center < b.center;
  });
  double smallest = std::numeric_limits<double>::infinity(), smallestRadius = smallest, largestRadius = 0.;
  for (std::size_t i = 0; i < beads.size(); ++i)
  {
    smallestRadius = std::min(smallestRadius, beads[i].radius);
    largestRadius = std::max(largestRadius, beads[i].radius);
    for (std::size_t j = i + 1; j < beads.size(); ++j)
    {
      double d2 = 0.;
      for (int a = 0; a < 3; ++a)
        d2 += (beads[i].center[a] - beads[j].center[a]) * (beads[i].center[a] - beads[j].center[a]);
      const double distance = std::sqrt(d2);
      if (distance < beads[i].radius + beads[j].radius)
        ThrowBadParameter("beads " + std::to_string(i) + " and " + std::to_string(j) + " (by height y)",
                          "overlapping (centres " + std::to_string(distance) + " mm apart)",
                          "separate beads (calibration finds each bead's centre)");
      smallest = std::min(smallest, distance);
    }
  }
  m_HasSizeCode = largestRadius > LargeRadiusRatio * smallestRadius;
  std::string code;
  for (Bead & bead : beads)
  {
    bead.large = m_HasSizeCode && bead.radius > std::sqrt(smallestRadius * largestRadius);
    code += bead.large ? '1' : '0';
  }
  // The shortest run whose every occurrence along the phantom is unique.
  const unsigned int n = static_cast<unsigned int>(beads.size());
  m_IdentifyingRun = n;
  if (m_HasSizeCode)
    for (unsigned int run = 1; run < n; ++run)
    {
      std::set<std::string> seen;
      bool unique = true;
      for (unsigned int start = 0; start + run <= n && unique; ++start)
        unique = seen.insert(code.substr(start, run)).second;
      if (unique)
      {
        m_IdentifyingRun = run;
        break;
      }
    }
  m_Phantom = copy;
  m_Beads = beads;
  m_SmallestSpacing = smallest;
  this->Modified();
}

void
BeadPhantom::ReadFromFile(const std::string & path)
{
  auto phantom = GeometricPhantom::New();
  phantom->ReadFromFile(path);
  try
  {
    this->SetPhantom(phantom);
  }
  catch (const itk::ExceptionObject & e)
  {
    itkGenericExceptionMacro(<< "bead phantom file " << path << ": " << e.GetDescription());
  }
}

double
BeadPhantom::GetLargestRadius() const
{
  double largest = 0.;
  for (const Bead & bead : m_Beads)
    largest = std::max(largest, bead.radius);
  return largest;
}

std::string
BeadPhantom::Summary() const
{
  std::size_t large = 0;
  double low = m_Beads.front().center[1], high = m_Beads.back().center[1];
  double smallRadius = std::numeric_limits<double>::infinity(), largeRadius = 0.;
  for (const Bead & bead : m_Beads)
  {
    large += bead.large ? 1 : 0;
    smallRadius = std::min(smallRadius, bead.radius);
    largeRadius = std::max(largeRadius, bead.radius);
  }
  std::ostringstream out;
  out << m_Beads.size() << " beads";
  if (m_HasSizeCode)
    out << " (" << large << " large up to " << 2. * largeRadius << " mm across, " << m_Beads.size() - large << " small from "
        << 2. * smallRadius << " mm; any " << m_IdentifyingRun << " consecutive identify themselves)";
  else
    out << " of " << 2. * smallRadius << " to " << 2. * largeRadius << " mm across";
  out << " from y = " << low << " to " << high << " mm, at least " << m_SmallestSpacing << " mm apart";
  return out.str();
}

void
BeadPhantom::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Beads: " << this->Summary() << std::endl;
}

} // namespace cbct
