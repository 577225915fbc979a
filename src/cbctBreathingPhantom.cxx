#include "cbctBreathingPhantom.h"

#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

void
CheckPhase(const std::string & parameter, double phase)
{
  if (!std::isfinite(phase) || phase < 0. || phase >= 1.)
  {
    ThrowBadParameter(parameter, phase, "a phase in [0, 1)");
  }
}

/** frac(x) in [0, 1), also for negative x and for the rounding of values just below an integer. */
double
Fraction(double x)
{
  double f = x - std::floor(x);
  if (f >= 1.) // x = -1e-18: x - floor(x) rounds to 1
    f = 0.;
  return f;
}

void
CheckScan(unsigned int numberOfProjections, double numberOfCycles, double firstPhase)
{
  if (numberOfProjections == 0)
    ThrowBadParameter("number of projections of a breathing scan", numberOfProjections, "at least 1");
  CheckPositive("number of breathing cycles", numberOfCycles);
  CheckPhase("first phase of a breathing scan", firstPhase);
}
} // namespace

BreathingPhantom::BreathingPhantom() = default;

void
BreathingPhantom::SetPhantom(const GeometricPhantom * phantom)
{
  if (phantom == nullptr)
    ThrowBadParameter("BreathingPhantom phantom", "none", "a GeometricPhantom");
  auto copy = GeometricPhantom::New();
  for (const auto & e : phantom->GetEllipsoids())
    copy->AddEllipsoid(e);
  m_Phantom = copy;
  this->Modified();
}

void
BreathingPhantom::SetMovingEllipsoids(const std::vector<unsigned int> & indices)
{
  auto sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  const auto repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end())
    ThrowBadParameter("moving ellipsoid index", *repeated, "each index once");
  m_MovingEllipsoids = indices;
  this->Modified();
}

void
BreathingPhantom::SetAmplitude(const std::array<double, 3> & amplitude)
{
  for (unsigned int i = 0; i < 3; ++i)
    CheckFinite("breathing amplitude component " + std::to_string(i) + " (mm)", amplitude[i]);
  m_Amplitude = amplitude;
  this->Modified();
}

void
BreathingPhantom::SetWaveformExponent(double n)
{
  CheckPositive("breathing waveform exponent n (sin^2n)", n);
  m_WaveformExponent = n;
  this->Modified();
}

double
BreathingPhantom::Waveform(double phase) const
{
  CheckPhase("breathing phase", phase);
  const double s = std::sin(Pi * phase);
  return std::pow(s * s, m_WaveformExponent);
}

std::array<double, 3>
BreathingPhantom::Displacement(double phase) const
{
  const double w = this->Waveform(phase);
  return { { m_Amplitude[0] * w, m_Amplitude[1] * w, m_Amplitude[2] * w } };
}

GeometricPhantom::Pointer
BreathingPhantom::AtPhase(double phase) const
{
  if (m_Phantom.IsNull())
    ThrowBadParameter("BreathingPhantom phantom", "none", "a GeometricPhantom set with SetPhantom()");
  const auto & ellipsoids = m_Phantom->GetEllipsoids();
  std::vector<bool> moves(ellipsoids.size(), m_MovingEllipsoids.empty());
  for (const unsigned int i : m_MovingEllipsoids)
  {
    if (i >= ellipsoids.size())
    {
      std::ostringstream expected;
      expected << "an index below the phantom's " << ellipsoids.size() << " ellipsoids";
      ThrowBadParameter("moving ellipsoid index", i, expected.str());
    }
    moves[i] = true;
  }
  const auto d = this->Displacement(phase);
  auto moved = GeometricPhantom::New();
  for (std::size_t i = 0; i < ellipsoids.size(); ++i)
  {
    auto e = ellipsoids[i];
    if (moves[i])
      for (unsigned int c = 0; c < 3; ++c)
        e.center[c] += d[c];
    moved->AddEllipsoid(e);
  }
  return moved;
}

std::vector<double>
BreathingPhantom::ScanPhases(unsigned int numberOfProjections, double numberOfCycles, double firstPhase)
{
  CheckScan(numberOfProjections, numberOfCycles, firstPhase);
  std::vector<double> phases(numberOfProjections);
  for (unsigned int k = 0; k < numberOfProjections; ++k)
    phases[k] = Fraction(firstPhase + numberOfCycles * k / numberOfProjections);
  return phases;
}

std::vector<double>
BreathingPhantom::IrregularScanPhases(unsigned int numberOfProjections,
                                      double numberOfCycles,
                                      double periodVariation,
                                      std::uint32_t seed,
                                      double firstPhase)
{
  CheckScan(numberOfProjections, numberOfCycles, firstPhase);
  if (!std::isfinite(periodVariation) || periodVariation < 0. || periodVariation >= 1.)
    ThrowBadParameter("breathing period variation", periodVariation, "a fraction in [0, 1)");

  // Time in mean cycles since the start of the cycle the scan begins in; cycle i lasts lengths[i].
  const double end = firstPhase + numberOfCycles;
  const auto covering = static_cast<std::size_t>(std::ceil(end)) + 1;
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-1., 1.);
  std::vector<double> lengths(covering);
  double total = 0.;
  for (double & length : lengths)
  {
    length = 1. + periodVariation * uniform(random);
    total += length;
  }
  // The first cycle keeps its regular length so that firstPhase means what it says; the others are
  // scaled so that the cycles cover as much time as regular ones.
  const double scale = (covering - 1.) / (total - lengths[0]);
  lengths[0] = 1.;
  for (std::size_t i = 1; i < covering; ++i)
    lengths[i] *= scale;

  std::vector<double> phases(numberOfProjections);
  std::size_t cycle = 0;
  double cycleStart = 0.;
  for (unsigned int k = 0; k < numberOfProjections; ++k)
  {
    const double t = firstPhase + numberOfCycles * k / numberOfProjections;
    while (cycle + 1 < covering && t >= cycleStart + lengths[cycle])
    {
      cycleStart += lengths[cycle];
      ++cycle;
    }
    phases[k] = Fraction((t - cycleStart) / lengths[cycle]);
  }
  return phases;
}

void
BreathingPhantom::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Ellipsoids: " << (m_Phantom.IsNull() ? 0 : m_Phantom->GetEllipsoids().size()) << std::endl;
  os << indent << "Moving ellipsoids: ";
  if (m_MovingEllipsoids.empty())
    os << "all";
  for (const unsigned int i : m_MovingEllipsoids)
    os << i << ' ';
  os << std::endl;
  os << indent << "Amplitude (mm): " << m_Amplitude[0] << ", " << m_Amplitude[1] << ", " << m_Amplitude[2] << std::endl;
  os << indent << "Waveform: sin^(2n)(pi phase), n = " << m_WaveformExponent << std::endl;
}

} // namespace cbct
