// VarianScan: recognising and opening a scan (TrueBeam/ProBeam or OBI), the header values, the geometry
// from the projections' records, and the readings to line integrals.
#include "cbctVarianScanSupport.h"

#include "cbctLineIntegralSupport.h"
#include "cbctMissingAirScanError.h"

#include <itkImageFileReader.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{
using namespace varian;

bool
VarianScan::Recognizes(const std::string & path)
{
  const fs::path p(path);
  if (IsFile(p))
    return EndsWith(path, ".xim") || EndsWith(path, ".hnd") || EndsWith(path, ".hnc");
  if (!IsDirectory(p))
    return false;
  if (IsFile(p / "ProjectionInfo.xml") || (IsFile(p / "Scan.xml") && IsDirectory(p / "Acquisitions")))
    return true;
  return HasProjectionFiles(p, ".xim") || HasObiFiles(p) || (IsDirectory(p / "Scan0") && HasObiFiles(p / "Scan0"));
}

VarianScan::Pointer
VarianScan::Open(const std::string & path)
{
  return Open(path, Options());
}

VarianScan::Pointer
VarianScan::Open(const std::string & path, const Options & options)
{
  Pointer scan = new Self;
  scan->UnRegister(); // itkNewMacro's idiom without a factory: the smart pointer holds the one reference
  scan->m_Options = options;
  const fs::path p(path);
  if (!IsFile(p) && !IsDirectory(p))
    Fail(path + " does not exist");
  bool obi = false;
  if (IsFile(p))
  {
    if (EndsWith(path, ".hnd") || EndsWith(path, ".hnc"))
      obi = true;
    else if (!EndsWith(path, ".xim"))
      Fail(path + ": not a .xim, .hnd or .hnc file");
  }
  else if (IsFile(p / "ProjectionInfo.xml") || HasObiFiles(p) || (IsDirectory(p / "Scan0") && HasObiFiles(p / "Scan0")))
    obi = !(IsFile(p / "Scan.xml") && IsDirectory(p / "Acquisitions"));
  if (obi)
    scan->OpenObi(path, options);
  else
    scan->OpenTrueBeam(path, options);
  return scan;
}

double
VarianScan::Number(const itk::MetaDataDictionary & dictionary, const std::string & key, const std::string & file)
{
  double value = 0.;
  bool wrongType = false;
  if (LookUp(dictionary, key, value, wrongType))
    return value;
  if (wrongType)
    Fail(file + ": header field " + key + " is not a finite number");
  Fail(file + ": header field " + key + " is missing");
}

double
VarianScan::NumberOr(const itk::MetaDataDictionary & dictionary, const std::string & key, double fallback)
{
  double value = 0.;
  bool wrongType = false;
  return LookUp(dictionary, key, value, wrongType) ? value : fallback;
}

void
VarianScan::UseRecords(const std::vector<ProjectionRecord> & records, bool xim)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  std::vector<std::string> files;
  std::vector<double> sids, sdds, offsetsX, offsetsY;
  const ProjectionRecord * first = nullptr;
  for (const auto & r : records)
  {
    if (!r.hasImage)
    {
      AddToLog("Projection " + r.file + " left out: its XIM holds no image (a dropped frame)");
      continue;
    }
    if (first == nullptr)
      first = &r;
    else if (r.columns != first->columns || r.rows != first->rows)
      Fail(r.file + ": " + std::to_string(r.columns) + " x " + std::to_string(r.rows) + " pixels, but " + first->file +
           " has " + std::to_string(first->columns) + " x " + std::to_string(first->rows));
    else if (std::abs(r.spacingU - first->spacingU) > 1e-6 * first->spacingU ||
             std::abs(r.spacingV - first->spacingV) > 1e-6 * first->spacingV)
      Fail(r.file + ": pixel size differs from " + first->file + "'s");
    geometry->AddProjection(r.sourceToIsocenterDistance, r.sourceToDetectorDistance, r.gantryAngleDegrees,
                            r.projectionOffsetX, r.projectionOffsetY);
    files.push_back(r.file);
    m_NormChambers.push_back(r.normChamber);
    m_VendorAngles.push_back(r.vendorAngleDegrees);
    sids.push_back(r.sourceToIsocenterDistance);
    sdds.push_back(r.sourceToDetectorDistance);
    offsetsX.push_back(r.projectionOffsetX);
    offsetsY.push_back(r.projectionOffsetY);
    if (r.normChamber <= 0. || !std::isfinite(r.normChamber))
      Fail(r.file + ": norm-chamber reading " + std::to_string(r.normChamber) + "; expected a value > 0");
  }
  if (first == nullptr)
    Fail("no projection with an image among " + std::to_string(records.size()) + " files");
  m_KiloVolts = first->kiloVolts;
  m_Size = { { first->columns, first->rows } };
  const std::array<double, 2> spacing{ { first->spacingU, first->spacingV } };
  SetDetectorGrid(spacing,
                  { { -0.5 * (first->columns - 1.) * first->spacingU, -0.5 * (first->rows - 1.) * first->spacingV } });
  SetGeometry(geometry);
  SetProjectionFiles(std::move(files));

  // The direction of rotation: the sign of the summed steps of the vendor's angle.
  double turned = 0.;
  for (std::size_t k = 1; k < m_VendorAngles.size(); ++k)
    turned += AngleDifference(m_VendorAngles[k - 1], m_VendorAngles[k]);
  m_Clockwise = turned >= 0.;

  std::ostringstream log;
  log << ProjectionFiles().size() << " projections of " << m_Size[0] << " x " << m_Size[1] << " pixels ("
      << fs::path(ProjectionFiles().front()).parent_path().string() << ")";
  AddToLog(log.str());
  log.str("");
  if (xim)
  {
    log << "Detector spacing (mm) = 10 * PixelWidth, 10 * PixelHeight (cm): " << spacing[0] << ", " << spacing[1]
        << "; grid centred on (0, 0)";
    AddToLog(log.str());
    AddToLog("SourceToIsocenterDistance (mm) = 10 * KVSourceVrt (cm) [Scan.xml SAD (mm) where absent or unknown]: " +
             Range(sids));
    AddToLog("SourceToDetectorDistance (mm) = 10 * (KVSourceVrt + |KVDetectorVrt|) (cm) [Scan.xml SID (mm) where "
             "absent or unknown]: " +
             Range(sdds));
    AddToLog("GantryAngle (deg) = 180 - KVSourceRtn (deg), RTK's conversion: KVSourceRtn " + Range(m_VendorAngles) +
             (m_Clockwise ? ", increasing (RTK angle decreasing)" : ", decreasing (RTK angle increasing)"));
    AddToLog("ProjectionOffsetX (mm) = 10 * KVDetectorLat (cm), the half-fan shift: " + Range(offsetsX));
    AddToLog("ProjectionOffsetY (mm) = 10 * KVDetectorLng (cm): " + Range(offsetsY));
  }
  else
  {
    log << "Detector spacing (mm) = dIDUResolutionX, dIDUResolutionY: " << spacing[0] << ", " << spacing[1]
        << "; grid centred on (0, 0)";
    AddToLog(log.str());
    AddToLog("SourceToIsocenterDistance (mm) = CalibratedSAD (mm) [10 * dSAD (cm) where absent]: " + Range(sids));
    AddToLog("SourceToDetectorDistance (mm) = CalibratedSID (mm) [where absent: SourceToIsocenterDistance + 10 * "
             "|dIDUPosVrt| (cm), else 10 * dSFD (cm); 99999999 is unknown]: " + Range(sdds));
    AddToLog("GantryAngle (deg) = dCTProjectionAngle (deg), as RTK: " + Range(m_VendorAngles) +
             (m_Clockwise ? ", increasing" : ", decreasing"));
    AddToLog("ProjectionOffsetX (mm) = CalibratedDetectorOffsetX + half-fan DetectorPosLat (mm) [dIDUPosLat (mm) "
             "where absent]: " +
             Range(offsetsX));
    AddToLog("ProjectionOffsetY (mm) = CalibratedDetectorOffsetY (mm) [dIDUPosLng (mm) where absent]: " +
             Range(offsetsY));
  }
  AddToLog("Norm chamber (" + std::string(xim ? "KVNormChamber" : "dCTNormChamber") + "): " + Range(m_NormChambers));
}

void
VarianScan::ToLineIntegrals(ProjectionsType * readings) const
{
  if (readings == nullptr)
    Fail("ToLineIntegrals: no readings");
  const auto size = readings->GetBufferedRegion().GetSize();
  if (size[0] != m_Size[0] || size[1] != m_Size[1] || size[2] != ProjectionFiles().size())
    Fail("ToLineIntegrals: a stack of " + std::to_string(size[0]) + " x " + std::to_string(size[1]) + " x " +
         std::to_string(size[2]) + "; the scan has " + std::to_string(ProjectionFiles().size()) + " projections of " +
         std::to_string(m_Size[0]) + " x " + std::to_string(m_Size[1]));
  if (m_AirFiles.empty())
  {
    if (!m_Options.airScanFallback)
      FailMissingAirScan(m_AirScanSought);
    const double i0 = NormaliseWithoutAir(readings, m_NormChambers, m_Options.fallbackI0);
    std::ostringstream line;
    line << "Line integrals = log(I0 / (reading * mean norm / norm)) with I0 " << i0
         << " (no air scan; readings below 1 count taken as 1)";
    AddToLog(line.str());
    return;
  }
  std::vector<AirFrame> air;
  for (std::size_t j = 0; j < m_AirFiles.size(); ++j)
  {
    auto reader = itk::ImageFileReader<AirImageType>::New();
    reader->SetFileName(m_AirFiles[j]);
    reader->Update();
    AirFrame frame;
    frame.image = reader->GetOutput();
    frame.normChamber = m_AirNormChambers[j];
    frame.angleDegrees = m_AirAngles[j];
    frame.file = m_AirFiles[j];
    air.push_back(frame);
  }
  const std::size_t clamped = NormaliseWithAir(readings, m_NormChambers, m_VendorAngles, air);
  AddToLog("Line integrals = -log(reading * airNorm / (air * norm)), air " +
           std::string(air.size() > 1 ? "interpolated in angle" : "one frame") + "; " + std::to_string(clamped) +
           " readings below 1 count taken as 1");
}

void
VarianScan::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Format: " << Format() << "\n";
  os << indent << "Projections: " << ProjectionFiles().size() << " of " << m_Size[0] << " x " << m_Size[1] << "\n";
  os << indent << "DetectorSpacing: " << DetectorSpacing()[0] << ", " << DetectorSpacing()[1] << "\n";
  os << indent << "AirScanFiles: " << m_AirFiles.size() << "\n";
}

} // namespace cbct
