#include "cbctScanSeries.h"

#include <itkImportImageContainer.h>

#include <array>
#include <cmath>
#include <sstream>

namespace cbct
{
namespace
{
[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}
} // namespace

void
ScanSeries::AddScan(ScannerScan * scan, const std::string & name)
{
  if (scan == nullptr)
    Fail("ScanSeries: no scan given for " + name);
  if (!m_Scans.empty())
  {
    const auto spacing = m_Scans.front()->DetectorSpacing();
    const auto origin = m_Scans.front()->DetectorOrigin();
    const auto otherSpacing = scan->DetectorSpacing();
    const auto otherOrigin = scan->DetectorOrigin();
    for (unsigned int d = 0; d < 2; ++d)
      if (!(std::abs(otherSpacing[d] - spacing[d]) <= 1e-6 * spacing[d]) ||
          !(std::abs(otherOrigin[d] - origin[d]) <= 1e-6 * spacing[d]))
      {
        std::ostringstream what;
        what << "scan " << name << " has a detector of " << otherSpacing[0] << " x " << otherSpacing[1]
             << " mm pixels from (" << otherOrigin[0] << ", " << otherOrigin[1] << ") mm; the first, " << m_Names.front()
             << ", of " << spacing[0] << " x " << spacing[1] << " mm from (" << origin[0] << ", " << origin[1]
             << ") mm: scans read together must share one detector grid";
        Fail(what.str());
      }
  }
  m_Scans.push_back(scan);
  m_Names.push_back(name);
  const auto & files = scan->ProjectionFiles();
  m_Files.insert(m_Files.end(), files.begin(), files.end());
  this->CopyLog(m_Scans.size() - 1, 0);
  this->Modified();
}

void
ScanSeries::CopyLog(std::size_t s, std::size_t from) const
{
  const auto & log = m_Scans[s]->Log();
  for (std::size_t i = from; i < log.size(); ++i)
    this->AddToLog(m_Names[s] + ": " + log[i]);
}

std::string
ScanSeries::Format() const
{
  std::string formats;
  for (const auto & scan : m_Scans)
  {
    const std::string format = scan->Format();
    if ((", " + formats + ", ").find(", " + format + ", ") == std::string::npos)
      formats += (formats.empty() ? "" : ", ") + format;
  }
  return std::to_string(m_Scans.size()) + " scan" + (m_Scans.size() == 1 ? "" : "s") + ": " + formats;
}

ThreeDCircularProjectionGeometry::Pointer
ScanSeries::Geometry() const
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (const auto & scan : m_Scans)
    AppendProjections(geometry, scan->Geometry());
  return geometry;
}

std::array<double, 2>
ScanSeries::DetectorSpacing() const
{
  if (m_Scans.empty())
    Fail("ScanSeries: no scans");
  return m_Scans.front()->DetectorSpacing();
}

std::array<double, 2>
ScanSeries::DetectorOrigin() const
{
  if (m_Scans.empty())
    Fail("ScanSeries: no scans");
  return m_Scans.front()->DetectorOrigin();
}

void
ScanSeries::ToLineIntegrals(ProjectionsType * readings) const
{
  if (readings == nullptr)
    Fail("ScanSeries: no readings");
  const auto region = readings->GetBufferedRegion();
  const auto size = region.GetSize();
  if (size[2] != m_Files.size())
    Fail("ScanSeries: a stack of " + std::to_string(size[2]) + " projections; the scans have " +
         std::to_string(m_Files.size()));
  const std::size_t slice = static_cast<std::size_t>(size[0]) * size[1];
  std::size_t first = 0;
  for (std::size_t s = 0; s < m_Scans.size(); ++s)
  {
    // The scan's own projections of the stack, as an image of their own over the same memory.
    const std::size_t count = m_Scans[s]->ProjectionFiles().size();
    auto part = ProjectionsType::New();
    ProjectionsType::RegionType partRegion;
    partRegion.SetSize({ { size[0], size[1], count } });
    part->SetRegions(partRegion);
    part->SetSpacing(readings->GetSpacing());
    part->SetOrigin(readings->GetOrigin());
    part->SetDirection(readings->GetDirection());
    part->GetPixelContainer()->SetImportPointer(readings->GetBufferPointer() + first * slice, count * slice, false);
    const std::size_t logged = m_Scans[s]->Log().size();
    m_Scans[s]->ToLineIntegrals(part);
    this->CopyLog(s, logged);
    first += count;
  }
}

void
ScanSeries::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Scans: " << m_Scans.size() << "\n";
  os << indent << "ProjectionFiles: " << m_Files.size() << "\n";
}

} // namespace cbct
