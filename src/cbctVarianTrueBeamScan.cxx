// VarianScan, TrueBeam and ProBeam: XIM projections, their properties and the scan's XML settings
// (Scan.xml), read through expat.
#include "cbctVarianScanSupport.h"

#include "cbctInputChecks.h"

#include <expat.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace cbct
{
using namespace varian;

namespace
{

// ---- XML: the leaf elements of a Varian settings file, through expat (as the geometry reader) ----

struct XmlContext
{
  XML_Parser parser = nullptr;
  VarianScan::XmlSettings settings;
  std::vector<bool> hasChild; // per open element
  std::string text;
};

std::string
LocalName(const XML_Char * name)
{
  std::string n(name);
  const auto colon = n.rfind(':');
  return colon == std::string::npos ? n : n.substr(colon + 1);
}

extern "C" void
OnXmlStart(void * data, const XML_Char *, const XML_Char **)
{
  auto * context = static_cast<XmlContext *>(data);
  if (!context->hasChild.empty())
    context->hasChild.back() = true;
  context->hasChild.push_back(false);
  context->text.clear();
}

extern "C" void
OnXmlEnd(void * data, const XML_Char * name)
{
  auto * context = static_cast<XmlContext *>(data);
  const bool leaf = !context->hasChild.empty() && !context->hasChild.back();
  if (!context->hasChild.empty())
    context->hasChild.pop_back();
  if (leaf)
    context->settings.emplace(LocalName(name), Trimmed(context->text)); // keeps the first occurrence
  context->text.clear();
}

extern "C" void
OnXmlText(void * data, const XML_Char * text, int length)
{
  auto * context = static_cast<XmlContext *>(data);
  if (context->text.size() < (1u << 20)) // a leaf's value is short; do not grow without bound
    context->text.append(text, static_cast<std::size_t>(length));
}

} // namespace

VarianScan::ProjectionRecord
VarianScan::FromXimProperties(const itk::MetaDataDictionary & properties,
                              const std::string & file,
                              const XmlSettings & scanXml)
{
  // The XIM properties are in cm and degrees (TrueBeam's files: KVSourceVrt 100 for the kV source at
  // 1000 mm; CBCTRecon's reader scales them by 10 as here). Scan.xml's SAD and SID are in mm (RTK's
  // VarianProBeamGeometryReader uses them as they are).
  ProjectionRecord r;
  r.file = file;
  // KVSourceVrt: the kV source's distance from the isocenter (cm); KVDetectorVrt: the panel's
  // vertical position below the isocenter (cm, negative).
  const double sourceVrt = KnownNumberOr(properties, "KVSourceVrt");
  const double detectorVrt = KnownNumberOr(properties, "KVDetectorVrt");
  std::string sidFrom, sddFrom;
  if (std::isfinite(sourceVrt))
  {
    r.sourceToIsocenterDistance = 10. * sourceVrt;
    sidFrom = "10 x KVSourceVrt " + NumberText(sourceVrt) + " cm";
  }
  else
  {
    const double sad = KnownSetting(scanXml, "SAD", "Scan.xml");
    if (!std::isfinite(sad))
      Fail(file + ": header field KVSourceVrt is " + FieldText(properties, "KVSourceVrt") +
           " (and no Scan.xml SAD to use instead); expected the kV source's distance from the isocenter in cm");
    r.sourceToIsocenterDistance = sad;
    sidFrom = "Scan.xml SAD " + NumberText(sad) + " mm";
  }
  if (std::isfinite(sourceVrt) && std::isfinite(detectorVrt) && detectorVrt != 0.)
  {
    r.sourceToDetectorDistance = 10. * (sourceVrt + std::abs(detectorVrt));
    sddFrom = "10 x (KVSourceVrt + |KVDetectorVrt|), KVDetectorVrt " + NumberText(detectorVrt) + " cm";
  }
  else
  {
    const double sid = KnownSetting(scanXml, "SID", "Scan.xml");
    if (!std::isfinite(sid))
      Fail(file + ": header field KVDetectorVrt is " + FieldText(properties, "KVDetectorVrt") +
           " (and no Scan.xml SID to use instead); expected the kV panel's vertical position below the isocenter "
           "in cm (e.g. -50)");
    r.sourceToDetectorDistance = sid;
    sddFrom = "Scan.xml SID " + NumberText(sid) + " mm";
  }
  r.vendorAngleDegrees = KnownNumber(properties, "KVSourceRtn", file, "the kV source's angle in degrees");
  r.gantryAngleDegrees = 180. - r.vendorAngleDegrees;
  r.projectionOffsetX = 10. * KnownNumber(properties, "KVDetectorLat", file, "the kV panel's lateral shift in cm");
  const double lng = KnownNumberOr(properties, "KVDetectorLng");
  if (properties.HasKey("KVDetectorLng") && !std::isfinite(lng))
    Fail(file + ": header field KVDetectorLng is " + FieldText(properties, "KVDetectorLng") +
         "; expected the kV panel's longitudinal shift in cm");
  r.projectionOffsetY = std::isfinite(lng) ? 10. * lng : 0.;
  r.normChamber = Number(properties, "KVNormChamber", file);
  r.kiloVolts = NumberOr(properties, "KVKiloVolts", 0.);
  r.spacingU = 10. * KnownNumber(properties, "PixelWidth", file, "the pixel width in cm");
  r.spacingV = 10. * KnownNumber(properties, "PixelHeight", file, "the pixel height in cm");
  CheckPositive(file + ": 10 * PixelWidth (mm)", r.spacingU);
  CheckPositive(file + ": 10 * PixelHeight (mm)", r.spacingV);
  CheckVarianDistances(r, sidFrom, sddFrom);
  return r;
}

VarianScan::XmlSettings
VarianScan::ReadXmlSettings(const std::string & file)
{
  std::ifstream in(file, std::ios::binary);
  if (!in)
    Fail(file + ": cannot be opened");
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (content.size() > (64u << 20))
    Fail(file + ": " + std::to_string(content.size()) +
         " bytes; a Varian settings file is far smaller (64 MiB at most)");
  XmlContext context;
  context.parser = XML_ParserCreate(nullptr);
  if (context.parser == nullptr)
    Fail(file + ": cannot create an XML parser");
  XML_SetUserData(context.parser, &context);
  XML_SetElementHandler(context.parser, OnXmlStart, OnXmlEnd);
  XML_SetCharacterDataHandler(context.parser, OnXmlText);
  const auto status = XML_Parse(context.parser, content.data(), static_cast<int>(content.size()), XML_TRUE);
  std::string error;
  if (status != XML_STATUS_OK)
  {
    std::ostringstream message;
    message << file << ": not well-formed XML (" << XML_ErrorString(XML_GetErrorCode(context.parser)) << " at line "
            << XML_GetCurrentLineNumber(context.parser) << ")";
    error = message.str();
  }
  XML_ParserFree(context.parser);
  if (!error.empty())
    Fail(error);
  return context.settings;
}

void
VarianScan::OpenTrueBeam(const std::string & path, const Options & options)
{
  const fs::path p = fs::absolute(fs::path(path));
  std::vector<std::string> files;
  fs::path root; // the folder holding Scan.xml / Calibrations
  if (IsFile(p))
  {
    files.push_back(p.string());
    root = FindUpwards(p.parent_path(), "Calibrations");
    if (root.empty())
      root = FindUpwards(p.parent_path(), "Scan.xml");
    if (root.empty())
      root = p.parent_path(); // none above either: the air scan is said to be missing from the file's folder
  }
  else if (IsDirectory(p / "Acquisitions"))
  {
    root = p;
    std::size_t most = 0;
    std::vector<std::string> ignored;
    std::vector<fs::path> acquisitions;
    std::error_code error;
    for (fs::directory_iterator it(p / "Acquisitions", error), end; !error && it != end; it.increment(error))
      if (IsDirectory(it->path()))
        acquisitions.push_back(it->path());
    std::sort(acquisitions.begin(), acquisitions.end());
    for (const auto & acquisition : acquisitions)
    {
      auto inside = ProjectionFilesIn(acquisition, ".xim");
      if (inside.size() > most)
      {
        if (!files.empty())
          ignored.push_back(fs::path(files.front()).parent_path().string());
        most = inside.size();
        files = inside;
      }
      else if (!inside.empty())
        ignored.push_back(acquisition.string());
    }
    if (files.empty())
      Fail((p / "Acquisitions").string() + ": no Proj_*.xim file in any acquisition folder");
    for (const auto & folder : ignored)
      AddToLog("Acquisition folder " + folder + " ignored: " + fs::path(files.front()).parent_path().string() +
               " has more projections");
  }
  else
  {
    files = ProjectionFilesIn(p, ".xim");
    if (files.empty())
      Fail(p.string() + ": no Scan.xml + Acquisitions/, and no Proj_*.xim file");
    root = FindUpwards(p, "Scan.xml");
    if (root.empty())
      root = FindUpwards(p, "Calibrations");
    if (root.empty())
      root = p;
  }

  XmlSettings settings;
  if (!root.empty() && IsFile(root / "Scan.xml"))
  {
    settings = ReadXmlSettings((root / "Scan.xml").string());
    AddToLog("Scan settings: " + (root / "Scan.xml").string());
  }
  else
    AddToLog("Scan settings: no Scan.xml found (every geometry field from the XIM headers)");

  std::vector<ProjectionRecord> records;
  records.reserve(files.size());
  for (const auto & file : files)
  {
    const bool noPixels = XimDeclaresNoPixels(file);
    const Header header = noPixels ? Header() : ReadHeader(file);
    if (header.columns == 0 || header.rows == 0)
    {
      ProjectionRecord empty;
      empty.file = file;
      empty.hasImage = false;
      records.push_back(empty);
      continue;
    }
    ProjectionRecord record = FromXimProperties(header.dictionary, file, settings);
    record.columns = header.columns;
    record.rows = header.rows;
    records.push_back(record);
  }
  SetFormat("Varian TrueBeam/ProBeam (XIM)");
  UseRecords(records, true);
  FindAirScan(root.string(), settings, true, options);
}

} // namespace cbct
