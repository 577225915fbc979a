#include "cbctNikonScan.h"

#include "cbctLineIntegralSupport.h"

#include "cbctKeyValueFile.h"
#include "cbctMicroCTScanSupport.h"

#include <itkImageRegionIterator.h>
#include <itksys/SystemTools.hxx>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{
namespace
{

constexpr const char * Section = "XTekCT";
constexpr double Pi = 3.14159265358979323846;

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

std::string
Number(double value)
{
  std::ostringstream text;
  text << std::setprecision(10) << value;
  return text.str();
}

/** The .xtekct file of `path`: the path itself, or the one .xtekct file in the folder `path`. */
std::string
XtekctOf(const std::string & path)
{
  if (itksys::SystemTools::FileIsDirectory(path))
  {
    std::vector<std::string> found;
    for (const std::string & name : detail::FilesInFolder(path))
      if (detail::EndsWithNoCase(name, ".xtekct"))
        found.push_back(name);
    if (found.empty())
      Fail("folder " + path + " holds no .xtekct file; expected a Nikon X-Tek scan");
    if (found.size() > 1)
      Fail("folder " + path + " holds " + std::to_string(found.size()) + " .xtekct files (" + found[0] + ", " + found[1] +
           ", ...); name the one to open");
    return detail::JoinPath(path, found.front());
  }
  if (!itksys::SystemTools::FileExists(path, true))
    Fail(path + " does not exist");
  if (!detail::EndsWithNoCase(path, ".xtekct"))
    Fail(path + " is not a .xtekct file; expected a Nikon X-Tek scan description");
  return path;
}

/** Reads a table of angles: header lines, then one line per projection whose first two fields are
 * the projection number (1 to `count`) and its angle in degrees (fields separated by white space, ':'
 * or ','). Each projection must appear exactly once. */
std::vector<double>
ReadAngleTable(const std::string & path, std::size_t count)
{
  // One line per projection: a few tens of bytes each; anything much longer is not such a table.
  const std::size_t limit = 4096 + count * 128;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    Fail("angle file " + path + " cannot be opened for reading");
  file.seekg(0, std::ios::end);
  const std::streamoff length = file.tellg();
  if (length < 0 || static_cast<unsigned long long>(length) > limit)
    Fail("angle file " + path + " is " + std::to_string(length) + " bytes long; expected at most " + std::to_string(limit) +
         " for " + std::to_string(count) + " projections");
  file.seekg(0, std::ios::beg);
  std::string text(static_cast<std::size_t>(length), '\0');
  if (length > 0 && !file.read(&text[0], length))
    Fail("angle file " + path + " could not be read whole");
  if (text.find('\0') != std::string::npos)
    Fail("angle file " + path + " holds a NUL byte; expected a text table");

  const double unset = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> angles(count, unset);
  std::size_t listed = 0;
  bool inTable = false;
  std::istringstream lines(text);
  std::string line;
  std::size_t lineNumber = 0;
  while (std::getline(lines, line))
  {
    ++lineNumber;
    for (char & c : line)
      if (c == ':' || c == ',' || c == '\t' || c == '\r')
        c = ' ';
    std::istringstream fields(line);
    std::string first, second;
    if (!(fields >> first))
      continue; // blank
    fields >> second;
    long long projection = 0;
    double angle = 0.;
    const bool isRow = KeyValueFile::ParseInteger(first, projection) && KeyValueFile::ParseNumber(second, angle);
    if (!isRow)
    {
      if (inTable)
        Fail("angle file " + path + ": line " + std::to_string(lineNumber) + " ('" + line.substr(0, 60) +
             "') is not 'projection angle'; expected a projection number and an angle in degrees on every line after the header");
      continue; // header
    }
    inTable = true;
    if (projection < 1 || static_cast<unsigned long long>(projection) > count)
      Fail("angle file " + path + ": line " + std::to_string(lineNumber) + " gives projection " + std::to_string(projection) +
           "; expected a projection number from 1 to " + std::to_string(count) + " (Projections of the .xtekct file)");
    double & slot = angles[static_cast<std::size_t>(projection - 1)];
    if (!std::isnan(slot))
      Fail("angle file " + path + ": line " + std::to_string(lineNumber) + " gives projection " + std::to_string(projection) +
           " a second time; expected each projection once");
    slot = angle;
    ++listed;
  }
  if (listed != count)
  {
    std::size_t missing = 0;
    while (missing < count && !std::isnan(angles[missing]))
      ++missing;
    Fail("angle file " + path + " lists " + std::to_string(listed) + " projections; the .xtekct file has " +
         std::to_string(count) + " (projection " + std::to_string(missing + 1) + " is missing)");
  }
  return angles;
}

/** The one file in `folder` named `preferred`, else the one whose name ends with `suffix`; "" when
 * none. Several candidates and no preferred one: an error (which one would be a guess). */
std::string
FindAngleFile(const std::string & folder, const std::vector<std::string> & names, const std::string & preferred, const std::string & suffix)
{
  std::vector<std::string> found;
  for (const std::string & name : names)
  {
    if (name == preferred)
      return detail::JoinPath(folder, name);
    if (detail::EndsWithNoCase(name, suffix))
      found.push_back(name);
  }
  if (found.size() > 1)
    Fail("folder " + folder + " holds " + std::to_string(found.size()) + " files ending in " + suffix + " (" + found[0] + ", " +
         found[1] + ", ...) and none named " + preferred + "; expected one");
  return found.empty() ? std::string() : detail::JoinPath(folder, found.front());
}

} // namespace

bool
NikonScan::Recognizes(const std::string & path)
{
  try
  {
    if (itksys::SystemTools::FileIsDirectory(path))
    {
      for (const std::string & name : detail::FilesInFolder(path))
        if (detail::EndsWithNoCase(name, ".xtekct"))
          return true;
      return false;
    }
    return detail::EndsWithNoCase(path, ".xtekct") && itksys::SystemTools::FileExists(path, true);
  }
  catch (const itk::ExceptionObject &)
  {
    return false;
  }
}

NikonScan::Pointer
NikonScan::Open(const std::string & path)
{
  Pointer scan = new NikonScan;
  scan->UnRegister();
  scan->SetFormat("Nikon X-Tek (.xtekct + TIFF)");
  const std::string xtekct = XtekctOf(path);
  scan->m_Xtekct = xtekct;
  const KeyValueFile ini = KeyValueFile::Read(xtekct);
  if (!ini.HasSection(Section))
    Fail(xtekct + " has no [XTekCT] section; expected a Nikon X-Tek scan description");
  scan->AddToLog("Nikon X-Tek scan " + xtekct);

  if (const auto units = ini.Find(Section, "Units"))
  {
    if (detail::LowerCase(*units) != "mm")
      ini.ThrowBadValue(Section, "Units", *units, "mm (the only unit this reader converts)");
  }

  const auto projections = static_cast<std::size_t>(ini.Integer(Section, "Projections", 1, 1000000));
  const auto columns = static_cast<unsigned long>(ini.Integer(Section, "DetectorPixelsX", 1, 100000));
  const auto rows = static_cast<unsigned long>(ini.Integer(Section, "DetectorPixelsY", 1, 100000));
  scan->m_Pixels = { columns, rows };
  const double pixelX = ini.Number(Section, "DetectorPixelSizeX");
  const double pixelY = ini.Number(Section, "DetectorPixelSizeY");
  if (!(pixelX > 0.))
    ini.ThrowBadValue(Section, "DetectorPixelSizeX", Number(pixelX), "a pixel size > 0 (mm)");
  if (!(pixelY > 0.))
    ini.ThrowBadValue(Section, "DetectorPixelSizeY", Number(pixelY), "a pixel size > 0 (mm)");
  scan->SetDetectorGrid({ pixelX, pixelY }, { -0.5 * (columns - 1.) * pixelX, -0.5 * (rows - 1.) * pixelY });
  scan->AddToLog("detector: DetectorPixelsX x DetectorPixelsY = " + std::to_string(columns) + " x " + std::to_string(rows) +
                 " pixels of DetectorPixelSizeX x DetectorPixelSizeY = " + Number(pixelX) + " x " + Number(pixelY) +
                 " mm, centred on (0, 0)");

  const double sid = ini.Number(Section, "SrcToObject");
  const double sdd = ini.Number(Section, "SrcToDetector");
  if (!(sid > 0.))
    ini.ThrowBadValue(Section, "SrcToObject", Number(sid), "a distance > 0 (mm)");
  if (!(sdd > sid))
    ini.ThrowBadValue(Section, "SrcToDetector", Number(sdd), "a distance > SrcToObject = " + Number(sid) + " (mm)");
  scan->AddToLog("SourceToIsocenterDistance = SrcToObject = " + Number(sid) + " mm; SourceToDetectorDistance = SrcToDetector = " +
                 Number(sdd) + " mm");

  scan->m_WhiteLevel = ini.Number(Section, "WhiteLevel");
  if (!(scan->m_WhiteLevel > 0.))
    ini.ThrowBadValue(Section, "WhiteLevel", Number(scan->m_WhiteLevel), "the open-beam reading, > 0");

  // The axis: its offset Delta along u in the object plane, its roll and tilt.
  const double magnification = sdd / sid;
  double delta = 0.;
  const auto objectOffsetX = ini.OptionalNumber(Section, "ObjectOffsetX");
  const double corTop = ini.Number(Section, "CentreOfRotationTop", 0.);
  const double corBottom = ini.Number(Section, "CentreOfRotationBottom", 0.);
  if (objectOffsetX)
  {
    delta = *objectOffsetX;
    scan->AddToLog("axis offset Delta = ObjectOffsetX = " + Number(delta) + " mm along u");
  }
  else
  {
    delta = 0.5 * (corTop + corBottom) / magnification;
    scan->AddToLog("axis offset Delta = (CentreOfRotationTop + CentreOfRotationBottom) / 2 * SrcToObject / SrcToDetector = (" +
                   Number(corTop) + " + " + Number(corBottom) + ") / 2 / " + Number(magnification) + " = " + Number(delta) +
                   " mm along u");
  }
  double roll = 0.;
  if (const auto objectRoll = ini.OptionalNumber(Section, "ObjectRoll"))
  {
    if (!(std::abs(*objectRoll) < 45.))
      ini.ThrowBadValue(Section, "ObjectRoll", Number(*objectRoll), "a roll of the axis between -45 and 45 degrees");
    roll = *objectRoll * Pi / 180.;
    scan->AddToLog("axis roll = ObjectRoll = " + Number(*objectRoll) + " deg");
  }
  else if (corTop != corBottom)
  {
    roll = -std::atan2(corTop - corBottom, rows * pixelY);
    if (!(std::abs(roll) < Pi / 4.))
      ini.ThrowBadValue(Section, "CentreOfRotationTop", Number(corTop),
                        "a centre of rotation within a 45 degree roll of CentreOfRotationBottom = " + Number(corBottom) +
                          " over the detector's height " + Number(rows * pixelY) + " mm");
    scan->AddToLog("axis roll = -atan2(CentreOfRotationTop - CentreOfRotationBottom, DetectorPixelsY * DetectorPixelSizeY) = " +
                   Number(roll * 180. / Pi) + " deg");
  }
  const double objectTilt = ini.Number(Section, "ObjectTilt", 0.);
  if (!(std::abs(objectTilt) < 45.))
    ini.ThrowBadValue(Section, "ObjectTilt", Number(objectTilt), "a tilt of the axis between -45 and 45 degrees");
  const double tilt = -objectTilt * Pi / 180.;
  const double inPlane = std::atan2(std::sin(roll), std::cos(tilt) * std::cos(roll)) * 180. / Pi;
  const double outOfPlane = std::asin(std::sin(tilt) * std::cos(roll)) * 180. / Pi;
  if (roll != 0. || tilt != 0.)
    scan->AddToLog("InPlaneAngle = atan2(sin roll, cos tilt cos roll) = " + Number(inPlane) +
                   " deg, OutOfPlaneAngle = asin(sin tilt cos roll) = " + Number(outOfPlane) + " deg (tilt = -ObjectTilt = " +
                   Number(-objectTilt) + " deg)");

  const double detectorOffsetX = ini.Number(Section, "DetectorOffsetX", 0.);
  const double detectorOffsetY = ini.Number(Section, "DetectorOffsetY", 0.);
  const double sourceOffsetX = -delta;
  const double projectionOffsetX = detectorOffsetX - delta;
  const double projectionOffsetY = detectorOffsetY;
  scan->AddToLog("SourceOffsetX = -Delta = " + Number(sourceOffsetX) + " mm; ProjectionOffsetX = DetectorOffsetX - Delta = " +
                 Number(detectorOffsetX) + " - " + Number(delta) + " = " + Number(projectionOffsetX) +
                 " mm; ProjectionOffsetY = DetectorOffsetY = " + Number(projectionOffsetY) + " mm");
  if (ini.Has(Section, "ObjectOffsetY"))
    scan->AddToLog("ObjectOffsetY not used: a shift along the axis only moves the volume");

  // The projection files.
  const std::string name = ini.String(Section, "Name");
  // InputSeparator may be given empty: the number follows the name directly.
  const std::string separator = ini.Find(Section, "InputSeparator", true).value_or("_");
  std::string folder = itksys::SystemTools::GetFilenamePath(xtekct);
  if (const auto inputFolder = ini.Find(Section, "InputFolderName"))
  {
    const std::string candidate = detail::JoinPath(folder, *inputFolder);
    if (itksys::SystemTools::FileIsDirectory(candidate))
      folder = candidate;
    else
      scan->AddToLog("InputFolderName '" + *inputFolder + "' is no folder beside the .xtekct file: projections read from " +
                     (folder.empty() ? std::string(".") : folder));
  }
  scan->SetProjectionFiles(
    detail::NumberedTiffFiles(folder, name + separator, 1, static_cast<unsigned long>(projections), xtekct));
  scan->AddToLog("projections: " + std::to_string(projections) + " files " + scan->ProjectionFiles().front() + " ... " +
                 scan->ProjectionFiles().back() + " (Name, InputSeparator, Projections)");

  // The angles.
  const std::string xtekctFolder = itksys::SystemTools::GetFilenamePath(xtekct);
  const std::vector<std::string> names = detail::FilesInFolder(xtekctFolder.empty() ? std::string(".") : xtekctFolder);
  const std::string ctdata = FindAngleFile(xtekctFolder, names, "_ctdata.txt", "_ctdata.txt");
  const std::string ang = ctdata.empty() ? FindAngleFile(xtekctFolder, names, name + ".ang", ".ang") : std::string();
  if (!ctdata.empty())
  {
    scan->m_StageAngles = ReadAngleTable(ctdata, projections);
    scan->AddToLog("stage angles: the second column of " + ctdata);
  }
  else if (!ang.empty())
  {
    scan->m_StageAngles = ReadAngleTable(ang, projections);
    scan->AddToLog("stage angles: the second column of " + ang);
  }
  else
  {
    const double initial = ini.Number(Section, "InitialAngle", 0.);
    const double step = ini.Number(Section, "AngularStep");
    scan->m_StageAngles.resize(projections);
    for (std::size_t k = 0; k < projections; ++k)
      scan->m_StageAngles[k] = initial + static_cast<double>(k) * step;
    scan->AddToLog("stage angles: InitialAngle + k * AngularStep = " + Number(initial) + " + k * " + Number(step) +
                   " deg (no _ctdata.txt or .ang file)");
  }
  scan->AddToLog("GantryAngle = 180 - stage angle (the object turns; the gantry turns the other way about y)");

  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (std::size_t k = 0; k < projections; ++k)
    geometry->AddProjection(sid,
                            sdd,
                            180. - scan->m_StageAngles[k],
                            projectionOffsetX,
                            projectionOffsetY,
                            outOfPlane,
                            inPlane,
                            sourceOffsetX,
                            0.);
  scan->SetGeometry(geometry);
  scan->AddToLog("line integrals: -log(reading / WhiteLevel), WhiteLevel = " + Number(scan->m_WhiteLevel));
  return scan;
}

void
NikonScan::ToLineIntegrals(ProjectionsType * readings) const
{
  detail::CheckReadingsShape(readings, m_Pixels[0], m_Pixels[1], ProjectionFiles().size(), m_Xtekct + " (DetectorPixelsX, DetectorPixelsY, Projections)");
  // p = ln(WhiteLevel / reading), several projections at a time, each pixel without a branch so that
  // the loop vectorises (detail::FastLog: within about 1 ulp of ln).
  const float white = detail::ToNormalRange(static_cast<float>(m_WhiteLevel));
  const float smallest = static_cast<float>(SmallestReading);
  std::size_t clamped = 0;
  for (const std::size_t n : detail::ConvertEachProjection(
         readings, [&](std::size_t, float * slice, std::size_t count) -> std::size_t {
           unsigned int below = 0;
           for (std::size_t i = 0; i < count; ++i)
           {
             float reading = slice[i];
             const bool ok = reading > 0.f && reading <= FLT_MAX; // below one count (or no value): half a count
             below += !ok;
             reading = ok ? reading : smallest;
             slice[i] = detail::FastLog(white / reading);
           }
           return below;
         }))
    clamped += n;
  AddToLog("line integrals = log(WhiteLevel) - log(reading), WhiteLevel = " + Number(m_WhiteLevel) + "; " +
           std::to_string(clamped) + " readings <= 0 or not finite clamped to " + Number(SmallestReading));
}

void
NikonScan::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Xtekct: " << m_Xtekct << std::endl;
  os << indent << "Projections: " << ProjectionFiles().size() << std::endl;
  os << indent << "DetectorSpacing: " << DetectorSpacing()[0] << " x " << DetectorSpacing()[1] << " mm" << std::endl;
  os << indent << "WhiteLevel: " << m_WhiteLevel << std::endl;
}

} // namespace cbct
