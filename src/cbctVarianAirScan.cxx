// VarianScan: the air scan that goes with the projections (found by the scan's settings or by folder
// names), and the readings normalised by it, or without one, to line integrals.
#include "cbctVarianScanSupport.h"

#include "cbctLineIntegralSupport.h"
#include "cbctInputChecks.h"

#include <itkImageRegionIterator.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace cbct
{
using namespace varian;

void
VarianScan::FindAirScan(const std::string & root, const XmlSettings & settings, bool xim, const Options & options)
{
  // What the projections were taken with.
  const std::string bowtieSetting = Lower(Setting(settings, "Bowtie"));
  const bool bowtieKnown = settings.count("Bowtie") > 0;
  const bool bowtie = bowtieKnown && !bowtieSetting.empty() && bowtieSetting != "none";
  std::string fan = Lower(Setting(settings, xim ? "Fan" : "FanType"));
  if (fan.find("half") != std::string::npos)
    fan = "half";
  else if (fan.find("full") != std::string::npos)
    fan = "full";
  else
  {
    double largest = 0.;
    const auto geometry = this->Geometry();
    for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
      largest = std::max(largest, std::abs(geometry->GetParameters(k).projectionOffsetX));
    fan = largest > 10. ? "half" : "full";
  }
  // The air scan is a file of the projections' own format.
  const std::string extension =
    xim ? ".xim" : (EndsWith(ProjectionFiles().front(), ".hnc") ? std::string(".hnc") : std::string(".hnd"));
  const std::string wanted = bowtieKnown ? (bowtie ? "FilterBowtie*" : "Filter") : "Filter*";
  std::ostringstream describe;
  describe << (root.empty() ? std::string("<no scan folder>") : root) << "/Calibrations/AIR-*";
  if (m_KiloVolts > 0.)
    describe << " for " << m_KiloVolts << " kV";
  describe << ", " << fan << " fan, " << (bowtieKnown ? (bowtie ? "bowtie" : "no bowtie") : "any filter") << ": "
           << wanted << extension;

  std::vector<std::string> found;
  if (!root.empty() && IsDirectory(fs::path(root) / "Calibrations"))
  {
    std::vector<fs::path> folders;
    std::error_code error;
    const fs::path calibrations = fs::path(root) / "Calibrations";
    for (fs::directory_iterator it(calibrations, error), end; !error && it != end; it.increment(error))
    {
      const std::string name = it->path().filename().string();
      if (!IsDirectory(it->path()) || !StartsWith(name, "AIR-"))
        continue;
      const AirFolderName parsed = ParseAirFolder(name);
      if (m_KiloVolts > 0. && parsed.kiloVolts > 0. && std::abs(parsed.kiloVolts - m_KiloVolts) > 0.5)
        continue;
      if (!parsed.fan.empty() && parsed.fan != fan)
        continue;
      if (bowtieKnown && parsed.bowtie != bowtie)
        continue;
      folders.push_back(it->path());
    }
    std::sort(folders.begin(), folders.end());
    for (const auto & folder : folders)
    {
      std::vector<std::string> current, other;
      std::error_code walk;
      for (fs::recursive_directory_iterator it(folder, walk), end; !walk && it != end; it.increment(walk))
      {
        if (!IsFile(it->path()))
          continue;
        const std::string name = it->path().filename().string();
        if (!EndsWith(name, extension))
          continue;
        const std::string stem = name.substr(0, name.size() - extension.size());
        const bool isBowtie = StartsWith(stem, "FilterBowtie");
        const bool isPlain = Lower(stem) == "filter";
        if (!(bowtieKnown ? (bowtie ? isBowtie : isPlain) : (isBowtie || isPlain)))
          continue;
        const bool underCurrent = it->path().string().find("/Current/") != std::string::npos;
        (underCurrent ? current : other).push_back(it->path().string());
      }
      found = current.empty() ? other : current;
      if (!found.empty())
        break;
    }
  }
  if (found.empty())
  {
    m_AirScanSought = describe.str();
    if (options.airScanFallback)
      AddToLog("Air scan: none found (looked for " + describe.str() + "); fallback: I0 " +
               (options.fallbackI0 > 0. ? std::to_string(options.fallbackI0)
                                        : std::string("= the stack's brightest reading")) +
               " at the mean norm-chamber reading");
    else if (options.readingsOnly)
      AddToLog("Air scan: none found (looked for " + describe.str() +
               "); the readings as stored need none (line integrals would)");
    else
      FailMissingAirScan(describe.str());
    return;
  }
  std::sort(found.begin(), found.end(), NaturalLess);
  // TrueBeam 2.7 keeps frames per direction of rotation (_CW / _CC in the name): those of this scan's.
  if (found.size() > 1)
  {
    const std::string mine = m_Clockwise ? "_cw" : "_cc";
    std::vector<std::string> same;
    for (const auto & f : found)
      if (Lower(fs::path(f).filename().string()).find(mine) != std::string::npos)
        same.push_back(f);
    if (!same.empty())
      found = same;
  }
  for (const auto & file : found)
  {
    const Header header = ReadHeader(file);
    if (header.columns != m_Size[0] || header.rows != m_Size[1])
      Fail(file + ": air scan of " + std::to_string(header.columns) + " x " + std::to_string(header.rows) +
           " pixels; the projections have " + std::to_string(m_Size[0]) + " x " + std::to_string(m_Size[1]));
    const double norm = Number(header.dictionary, xim ? "KVNormChamber" : "dCTNormChamber", file);
    if (!(norm > 0.) || !std::isfinite(norm))
      Fail(file + ": air scan norm-chamber reading " + std::to_string(norm) + "; expected a value > 0");
    const double angle =
      found.size() > 1 ? Number(header.dictionary, xim ? "KVSourceRtn" : "dCTProjectionAngle", file) : 0.;
    m_AirFiles.push_back(file);
    m_AirNormChambers.push_back(norm);
    m_AirAngles.push_back(angle);
    std::ostringstream line;
    line << "Air scan: " << file << ", norm chamber " << norm;
    if (found.size() > 1)
      line << ", at " << (xim ? "KVSourceRtn " : "dCTProjectionAngle ") << angle;
    AddToLog(line.str());
  }
}

std::size_t
VarianScan::NormaliseWithAir(ProjectionsType * readings,
                             const std::vector<double> & normChambers,
                             const std::vector<double> & angles,
                             const std::vector<AirFrame> & air)
{
  if (readings == nullptr)
    Fail("ToLineIntegrals: no readings");
  const auto size = readings->GetBufferedRegion().GetSize();
  if (normChambers.size() != size[2] || angles.size() != size[2])
    Fail("ToLineIntegrals: " + std::to_string(size[2]) + " projections in the stack, but " +
         std::to_string(normChambers.size()) + " norm-chamber readings");
  if (air.empty())
    Fail("ToLineIntegrals: no air frame");
  const std::size_t pixels = size[0] * size[1];
  for (std::size_t k = 0; k < size[2]; ++k)
  {
    const double norm = normChambers[k];
    if (!(norm > 0.) || !std::isfinite(norm))
      Fail("ToLineIntegrals: norm-chamber reading of projection " + std::to_string(k) + " is " + std::to_string(norm) +
           "; expected > 0");
  }
  // Each air frame as counts per norm-chamber unit, clamped to one count first; in float, as the
  // readings: p = ln(a N_k / R) is then one quotient and one FastLog per reading (see below).
  std::size_t clamped = 0;
  std::vector<std::vector<float>> airPerUnit;
  std::vector<double> airAngles;
  for (const auto & frame : air)
  {
    const auto airSize = frame.image->GetBufferedRegion().GetSize();
    if (airSize[0] != size[0] || airSize[1] != size[1])
      Fail(frame.file + ": air scan of " + std::to_string(airSize[0]) + " x " + std::to_string(airSize[1]) +
           " pixels; the projections have " + std::to_string(size[0]) + " x " + std::to_string(size[1]));
    if (!(frame.normChamber > 0.) || !std::isfinite(frame.normChamber))
      Fail(frame.file + ": air scan norm-chamber reading " + std::to_string(frame.normChamber) + "; expected > 0");
    std::vector<float> values(pixels);
    const float * buffer = frame.image->GetBufferPointer();
    for (std::size_t i = 0; i < pixels; ++i)
    {
      double a = buffer[i];
      if (!(a >= 1.)) // below one count, or NaN
      {
        a = 1.;
        ++clamped;
      }
      values[i] = static_cast<float>(a / frame.normChamber);
    }
    airPerUnit.push_back(std::move(values));
    airAngles.push_back(Wrap360(frame.angleDegrees));
  }
  // Frames sorted by angle for the interpolation.
  std::vector<std::size_t> order(air.size());
  for (std::size_t j = 0; j < order.size(); ++j)
    order[j] = j;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return airAngles[a] < airAngles[b]; });

  // Per projection: the two frames around its angle (modulo 360) and the weight of the upper one.
  struct Interpolation
  {
    std::size_t lo = 0, hi = 0;
    double w = 0.;
  };
  std::vector<Interpolation> around(size[2]);
  for (std::size_t k = 0; k < size[2]; ++k)
  {
    Interpolation & it = around[k];
    it.lo = it.hi = order.front();
    if (order.size() > 1)
    {
      const double a = Wrap360(angles[k]);
      std::size_t upper = 0;
      while (upper < order.size() && airAngles[order[upper]] < a)
        ++upper;
      it.lo = order[(upper + order.size() - 1) % order.size()];
      it.hi = order[upper % order.size()];
      const double span = Wrap360(airAngles[it.hi] - airAngles[it.lo]);
      it.w = span > 0. ? Wrap360(a - airAngles[it.lo]) / span : 0.;
    }
  }

  // Several projections at a time (ITK's threads), each pixel without a branch so that the loop
  // vectorises: R clamped to one count (NaN too), the air interpolated and scaled by N_k, one
  // quotient and one FastLog (within about 1 ulp of ln). The numerator is held finite and positive, so
  // the line integral is finite whatever the inputs.
  const auto perProjection = detail::ConvertEachProjection(
    readings, [&](std::size_t k, float * slice, std::size_t count) -> std::size_t {
      const float * airLo = airPerUnit[around[k].lo].data();
      const float * airHi = airPerUnit[around[k].hi].data();
      const float w = static_cast<float>(around[k].w);
      const float w0 = static_cast<float>(1. - around[k].w); // not 1 - w in float: w near 1 would lose w0's digits
      const float norm = static_cast<float>(normChambers[k]);
      unsigned int below = 0;
      for (std::size_t i = 0; i < count; ++i)
      {
        float r = slice[i];
        below += !(r >= 1.f);
        r = r > 1.f ? r : 1.f;
        const float a = detail::ToNormalRange((w0 * airLo[i] + w * airHi[i]) * norm);
        slice[i] = detail::FastLog(a / r);
      }
      return below;
    });
  for (const std::size_t n : perProjection)
    clamped += n;
  return clamped;
}

double
VarianScan::NormaliseWithoutAir(ProjectionsType * readings, const std::vector<double> & normChambers, double i0)
{
  if (readings == nullptr)
    Fail("ToLineIntegrals: no readings");
  const auto size = readings->GetBufferedRegion().GetSize();
  if (normChambers.size() != size[2])
    Fail("ToLineIntegrals: " + std::to_string(size[2]) + " projections in the stack, but " +
         std::to_string(normChambers.size()) + " norm-chamber readings");
  double mean = 0.;
  for (double n : normChambers)
  {
    if (!(n > 0.) || !std::isfinite(n))
      Fail("ToLineIntegrals: a norm-chamber reading is " + std::to_string(n) + "; expected > 0");
    mean += n / static_cast<double>(normChambers.size());
  }
  // Each reading clamped to one count (NaN too) and scaled to the mean norm-chamber reading; several
  // projections at a time, as NormaliseWithAir.
  if (!(i0 > 0.) || !std::isfinite(i0))
  {
    const auto brightest = detail::ConvertEachProjection(
      readings, [&](std::size_t, const float * slice, std::size_t count) -> float {
        float m = 1.f;
        for (std::size_t i = 0; i < count; ++i)
          m = slice[i] > m ? slice[i] : m;
        return m;
      });
    i0 = 0.;
    for (std::size_t k = 0; k < size[2]; ++k)
      i0 = std::max(i0, static_cast<double>(brightest[k]) * mean / normChambers[k]);
  }
  // ln(I0 / (R Nmean / N_k)) = ln(c_k / R), c_k = I0 N_k / Nmean.
  detail::ConvertEachProjection(readings, [&](std::size_t k, float * slice, std::size_t count) -> int {
    const float c = detail::ToNormalRange(static_cast<float>(i0 * normChambers[k] / mean));
    for (std::size_t i = 0; i < count; ++i)
    {
      float r = slice[i];
      r = r > 1.f ? r : 1.f;
      slice[i] = detail::FastLog(c / r);
    }
    return 0;
  });
  return i0;
}

} // namespace cbct
