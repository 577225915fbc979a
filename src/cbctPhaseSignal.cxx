#include "cbctPhaseSignal.h"

#include "cbctAtomicOutput.h"

#include <itkMacro.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{
namespace
{
std::string
Trimmed(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
  {
    return {};
  }
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The check of one value; `where` says where it came from ("line 12 of f.txt", "index 3 of ...").
void
CheckValue(double value, const std::string & where)
{
  if (!std::isfinite(value) || value < 0. || value >= 1.)
  {
    std::ostringstream message;
    message << "Phase " << value << " at " << where << ": a respiratory phase must be a finite value in [0, 1) "
            << "(0 and 1 are the same point of the cycle; write 1 as 0)";
    itkGenericExceptionMacro(<< message.str());
  }
}

void
CheckCount(std::size_t count, std::size_t expectedCount, const std::string & what)
{
  if (count == 0)
  {
    itkGenericExceptionMacro(<< what << " holds no phase: expected one value in [0, 1) per projection"
                             << (expectedCount > 0 ? " (" + std::to_string(expectedCount) + " projections)" : std::string()));
  }
  if (expectedCount > 0 && count != expectedCount)
  {
    itkGenericExceptionMacro(<< what << " holds " << count << " phases but there are " << expectedCount
                             << " projections: expected one phase per projection, in projection order");
  }
}
} // namespace

std::vector<double>
PhaseSignal::Read(const std::string & path, std::size_t expectedCount)
{
  std::ifstream file(path);
  if (!file)
  {
    itkGenericExceptionMacro(<< "Cannot open the phase file '" << path << "': " << std::strerror(errno));
  }
  std::vector<double> phases;
  std::string line;
  std::size_t lineNumber = 0;
  while (std::getline(file, line))
  {
    ++lineNumber;
    const auto comment = line.find('#');
    const std::string text = Trimmed(comment == std::string::npos ? line : line.substr(0, comment));
    if (text.empty())
    {
      continue;
    }
    const std::string where = "line " + std::to_string(lineNumber) + " of '" + path + "'";
    errno = 0;
    char * end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || errno == ERANGE)
    {
      itkGenericExceptionMacro(<< "'" << text << "' at " << where
                               << " is not a number: expected one phase in [0, 1) per line");
    }
    CheckValue(value, where);
    phases.push_back(value);
  }
  if (file.bad())
  {
    itkGenericExceptionMacro(<< "Cannot read the phase file '" << path << "' (read error after line " << lineNumber << ")");
  }
  CheckCount(phases.size(), expectedCount, "The phase file '" + path + "'");
  return phases;
}

void
PhaseSignal::Write(const std::string & path, const std::vector<double> & phases)
{
  Check(phases, 0, "The phases to write to '" + path + "'");
  AtomicOutput output(path);
  {
    std::ofstream file(output.TemporaryPath());
    file << std::setprecision(std::numeric_limits<double>::max_digits10);
    for (const double phase : phases)
    {
      file << phase << '\n';
    }
    file.flush();
    if (!file)
    {
      itkGenericExceptionMacro(<< "Cannot write the phase file '" << path << "'");
    }
  }
  output.Commit();
}

void
PhaseSignal::Check(const std::vector<double> & phases, std::size_t expectedCount, const std::string & what)
{
  for (std::size_t k = 0; k < phases.size(); ++k)
  {
    CheckValue(phases[k], "index " + std::to_string(k) + " of " + what);
  }
  CheckCount(phases.size(), expectedCount, what);
}

std::vector<PhaseSignal::FrameLink>
PhaseSignal::InterpolationWeights(const std::vector<double> & phases, unsigned int numberOfFrames)
{
  if (numberOfFrames < 1)
  {
    itkGenericExceptionMacro(<< "Number of frames " << numberOfFrames << ": expected at least 1");
  }
  Check(phases, 0, "the phases");
  std::vector<FrameLink> links(phases.size());
  for (std::size_t k = 0; k < phases.size(); ++k)
  {
    const double x = phases[k] * numberOfFrames;
    const double floorX = std::floor(x);
    // A phase just below 1 can round x up to N: that is frame 0 of the next cycle.
    const auto lower = static_cast<unsigned int>(floorX) % numberOfFrames;
    const double upperWeight = std::min(std::max(x - floorX, 0.), 1.);
    links[k].lower = lower;
    links[k].upper = (lower + 1) % numberOfFrames;
    links[k].lowerWeight = 1. - upperWeight;
    links[k].upperWeight = upperWeight;
  }
  return links;
}

unsigned int
PhaseSignal::NearestFrame(double phase, unsigned int numberOfFrames)
{
  if (numberOfFrames < 1)
  {
    itkGenericExceptionMacro(<< "Number of frames " << numberOfFrames << ": expected at least 1");
  }
  CheckValue(phase, "NearestFrame");
  const double x = phase * numberOfFrames;
  // Round half down so that a phase exactly between two frames goes to the lower one.
  const double nearest = std::ceil(x - 0.5);
  return static_cast<unsigned int>(static_cast<long long>(nearest) % numberOfFrames);
}

double
PhaseSignal::CyclicDistance(double a, double b)
{
  double d = std::fabs(a - b);
  d -= std::floor(d);
  return std::min(d, 1. - d);
}

} // namespace cbct
