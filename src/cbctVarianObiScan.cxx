// VarianScan, OBI: HND (or HNC) projections, each header's geometry in its own units.
#include "cbctVarianScanSupport.h"

#include "cbctInputChecks.h"

#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace cbct
{
using namespace varian;

VarianScan::ProjectionRecord
VarianScan::FromHndHeader(const itk::MetaDataDictionary & header,
                          const std::string & file,
                          const XmlSettings & projectionInfo)
{
  // The HND header's units, field by field (Varian's definition of the format is not public; the
  // fields are those RTK's HndImageIO and plastimatch's hnd_io read, the units what real OBI headers
  // hold and what the readers that use them assume):
  //   dSAD        cm: the source-to-isocenter distance, 100 on an OBI (the kV source arm's length).
  //   dSFD        cm: the source-to-imager distance, or Varian's mark for unknown (99999999; 0 in
  //               others: plastimatch's reader notes "Varian HND seems to give 0 for the SFD").
  //   dIDUPosVrt  cm: the imager's vertical position below the isocenter (negative: -50 puts it
  //               500 mm below, an SDD of 1500 mm), as XIM's KVDetectorVrt.
  //   dIDUPosLat  mm: the imager's lateral shift, sign kept: ProjectionInfo.xml gives the same shift as
  //               DetectorPosLat, which RTK's VarianObiGeometryReader adds (mm, sign as is) to
  //               CalibratedDetectorOffsetX for a half-fan scan. An OBI's half-fan shift is 148 mm, and
  //               real headers hold 148 (in cm that would put the 397 mm panel 1.48 m aside, missing
  //               the rotation axis); CBCTRecon's reader also takes it unscaled (and XIM's
  //               KVDetectorLat times 10).
  //   dIDUPosLng  mm, as dIDUPosLat (CBCTRecon's reader takes it unscaled too).
  //   dIDUResolutionX/Y  mm: the pixel pitch (0.388 on an OBI's PaxScan 4030CB; RTK's HndImageIO
  //               uses it as the image's spacing).
  // ProjectionInfo.xml's values are in mm and take precedence, as in RTK's reader.
  ProjectionRecord r;
  r.file = file;
  const double calibratedSad = KnownSetting(projectionInfo, "CalibratedSAD", "ProjectionInfo.xml");
  const double calibratedSid = KnownSetting(projectionInfo, "CalibratedSID", "ProjectionInfo.xml");
  std::string sidFrom, sddFrom;
  if (std::isfinite(calibratedSad))
  {
    r.sourceToIsocenterDistance = calibratedSad;
    sidFrom = "ProjectionInfo.xml CalibratedSAD " + NumberText(calibratedSad) + " mm";
  }
  else
  {
    const double sad = KnownNumber(header, "dSAD", file, "the source-to-isocenter distance in cm (100 on an OBI)");
    r.sourceToIsocenterDistance = 10. * sad;
    sidFrom = "10 x dSAD " + NumberText(sad) + " cm";
  }
  if (std::isfinite(calibratedSid))
  {
    r.sourceToDetectorDistance = calibratedSid;
    sddFrom = "ProjectionInfo.xml CalibratedSID " + NumberText(calibratedSid) + " mm";
  }
  else
  {
    const double vrt = KnownNumberOr(header, "dIDUPosVrt");
    const double sfd = KnownNumberOr(header, "dSFD");
    if (std::isfinite(vrt) && vrt != 0.)
    {
      r.sourceToDetectorDistance = r.sourceToIsocenterDistance + 10. * std::abs(vrt);
      sddFrom = "source-to-isocenter distance + 10 x |dIDUPosVrt|, dIDUPosVrt " + NumberText(vrt) + " cm";
    }
    else if (std::isfinite(sfd) && sfd > 0.)
    {
      r.sourceToDetectorDistance = 10. * sfd;
      sddFrom = "10 x dSFD " + NumberText(sfd) + " cm";
    }
    else
      Fail(file + ": no source-to-detector distance: header fields dIDUPosVrt is " + FieldText(header, "dIDUPosVrt") +
           " and dSFD is " + FieldText(header, "dSFD") +
           "; expected the imager's vertical position below the isocenter in cm (e.g. -50) or the source-to-imager "
           "distance in cm (or ProjectionInfo.xml's CalibratedSID in mm)");
  }
  r.vendorAngleDegrees = KnownNumber(header, "dCTProjectionAngle", file, "the projection angle in degrees");
  r.gantryAngleDegrees = r.vendorAngleDegrees;

  const double calibratedX = KnownSetting(projectionInfo, "CalibratedDetectorOffsetX", "ProjectionInfo.xml");
  const double calibratedY = KnownSetting(projectionInfo, "CalibratedDetectorOffsetY", "ProjectionInfo.xml");
  const std::string fanType = Lower(Setting(projectionInfo, "FanType"));
  double lateral = 0.;
  if (fanType.empty() || fanType == "halffan")
  {
    const double posLat = KnownSetting(projectionInfo, "DetectorPosLat", "ProjectionInfo.xml");
    lateral = (!fanType.empty() && std::isfinite(posLat))
                ? posLat
                : KnownNumber(header, "dIDUPosLat", file, "the imager's lateral shift in mm (e.g. 148 in a half fan)");
  }
  r.projectionOffsetX = (std::isfinite(calibratedX) ? calibratedX : 0.) + lateral;
  if (std::isfinite(calibratedY))
    r.projectionOffsetY = calibratedY;
  else
  {
    const double lng = KnownNumberOr(header, "dIDUPosLng");
    if (header.HasKey("dIDUPosLng") && !std::isfinite(lng))
      Fail(file + ": header field dIDUPosLng is " + FieldText(header, "dIDUPosLng") +
           "; expected the imager's longitudinal shift in mm");
    r.projectionOffsetY = std::isfinite(lng) ? lng : 0.;
  }
  r.normChamber = Number(header, "dCTNormChamber", file);
  r.kiloVolts = NumberOr(header, "dXRayKV", 0.);
  r.spacingU = KnownNumber(header, "dIDUResolutionX", file, "the pixel pitch in mm (0.388 on an OBI)");
  r.spacingV = KnownNumber(header, "dIDUResolutionY", file, "the pixel pitch in mm (0.388 on an OBI)");
  CheckPositive(file + ": dIDUResolutionX (mm)", r.spacingU);
  CheckPositive(file + ": dIDUResolutionY (mm)", r.spacingV);
  CheckVarianDistances(r, sidFrom, sddFrom);
  return r;
}

void
VarianScan::OpenObi(const std::string & path, const Options & options)
{
  const fs::path p = fs::absolute(fs::path(path));
  std::vector<std::string> files;
  fs::path root;
  if (IsFile(p))
  {
    files.push_back(p.string());
    root = FindUpwards(p.parent_path(), "ProjectionInfo.xml");
  }
  else
  {
    root = p;
    files = ObiFilesIn(p);
    if (files.empty() && IsDirectory(p / "Scan0"))
      files = ObiFilesIn(p / "Scan0");
    if (files.empty())
      Fail(p.string() + ": no Proj_*.hnd or Proj_*.hnc file (looked in the folder and in Scan0/)");
    if (!IsFile(p / "ProjectionInfo.xml"))
    {
      const fs::path up = FindUpwards(p, "ProjectionInfo.xml");
      if (!up.empty())
        root = up;
    }
  }
  XmlSettings settings;
  if (!root.empty() && IsFile(root / "ProjectionInfo.xml"))
  {
    settings = ReadXmlSettings((root / "ProjectionInfo.xml").string());
    AddToLog("Scan settings: " + (root / "ProjectionInfo.xml").string());
  }
  else
    AddToLog("Scan settings: no ProjectionInfo.xml found (every geometry field from the HND headers)");

  std::vector<ProjectionRecord> records;
  records.reserve(files.size());
  for (const auto & file : files)
  {
    const Header header = ReadHeader(file);
    if (header.columns == 0 || header.rows == 0)
      Fail(file + ": an HND image of " + std::to_string(header.columns) + " x " + std::to_string(header.rows) +
           " pixels; expected at least 1 x 1");
    ProjectionRecord record = FromHndHeader(header.dictionary, file, settings);
    record.columns = header.columns;
    record.rows = header.rows;
    records.push_back(record);
  }
  SetFormat(EndsWith(files.front(), ".hnc") ? "Varian OBI (HNC)" : "Varian OBI (HND)");
  UseRecords(records, false);
  FindAirScan(root.empty() ? p.parent_path().string() : root.string(), settings, false, options);
}

} // namespace cbct
