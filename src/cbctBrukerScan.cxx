#include "cbctBrukerScan.h"

#include "cbctLineIntegralSupport.h"

#include "cbctImageFileContents.h"
#include "cbctKeyValueFile.h"
#include "cbctMicroCTScanSupport.h"

#include <itkImageFileReader.h>
#include <itkImageRegionConstIterator.h>
#include <itkImageRegionIterator.h>
#include <itkTIFFImageIO.h>
#include <itksys/SystemTools.hxx>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace cbct
{
namespace
{

constexpr const char * System = "System";
constexpr const char * Acquisition = "Acquisition";
constexpr const char * Reconstruction = "Reconstruction";

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

/** Whether the first 4 kB of `file` hold both "[System]" and "[Acquisition]" (any case). */
bool
LooksLikeSkyScanLog(const std::string & file)
{
  if (!detail::EndsWithNoCase(file, ".log") || !itksys::SystemTools::FileExists(file, true))
    return false;
  std::ifstream in(file, std::ios::binary);
  std::string head(4096, '\0');
  in.read(&head[0], static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  head = detail::LowerCase(head);
  return head.find("[system]") != std::string::npos && head.find("[acquisition]") != std::string::npos;
}

std::string
LogOf(const std::string & path)
{
  if (itksys::SystemTools::FileIsDirectory(path))
  {
    std::vector<std::string> found;
    for (const std::string & name : detail::FilesInFolder(path))
      if (LooksLikeSkyScanLog(detail::JoinPath(path, name)))
        found.push_back(name);
    if (found.empty())
      Fail("folder " + path + " holds no SkyScan .log file (one with [System] and [Acquisition] sections)");
    if (found.size() > 1)
      Fail("folder " + path + " holds " + std::to_string(found.size()) + " SkyScan .log files (" + found[0] + ", " + found[1] +
           ", ...); name the one to open");
    return detail::JoinPath(path, found.front());
  }
  if (!itksys::SystemTools::FileExists(path, true))
    Fail(path + " does not exist");
  if (!LooksLikeSkyScanLog(path))
    Fail(path + " is not a SkyScan .log file; expected a .log file with [System] and [Acquisition] sections");
  return path;
}

/** The file of `names` (in `folder`) equal, without regard to case, to one of `candidates`; "". */
std::string
FindCalibration(const std::string & folder, const std::vector<std::string> & names, const std::vector<std::string> & candidates)
{
  for (const std::string & candidate : candidates)
    for (const std::string & name : names)
      if (detail::LowerCase(name) == detail::LowerCase(candidate))
        return detail::JoinPath(folder, name);
  return std::string();
}

using FieldType = itk::Image<float, 2>;

/** A flat or dark field: one 2D TIFF image of `columns` x `rows`, read with ITK's TIFFImageIO after
 * the file is checked complete. */
FieldType::Pointer
ReadField(const std::string & file, unsigned long columns, unsigned long rows, const std::string & what)
{
  FieldType::Pointer field;
  try
  {
    ImageFileContents::InspectAndCheck(file);
    auto reader = itk::ImageFileReader<FieldType>::New();
    reader->SetImageIO(itk::TIFFImageIO::New());
    reader->SetFileName(file);
    reader->Update();
    field = reader->GetOutput();
  }
  catch (const itk::ExceptionObject & e)
  {
    Fail(what + " " + file + " cannot be read: " + e.GetDescription());
  }
  const auto size = field->GetBufferedRegion().GetSize();
  if (size[0] != columns || size[1] != rows)
    Fail(what + " " + file + " is " + std::to_string(size[0]) + " x " + std::to_string(size[1]) +
         " pixels; expected the projections' " + std::to_string(columns) + " x " + std::to_string(rows) +
         " (Number of Columns x Number of Rows)");
  return field;
}

} // namespace

bool
BrukerScan::Recognizes(const std::string & path)
{
  try
  {
    if (itksys::SystemTools::FileIsDirectory(path))
    {
      for (const std::string & name : detail::FilesInFolder(path))
        if (LooksLikeSkyScanLog(detail::JoinPath(path, name)))
          return true;
      return false;
    }
    return LooksLikeSkyScanLog(path);
  }
  catch (const itk::ExceptionObject &)
  {
    return false;
  }
}

BrukerScan::Pointer
BrukerScan::Open(const std::string & path)
{
  Pointer scan = new BrukerScan;
  scan->UnRegister();
  scan->SetFormat("Bruker SkyScan (.log + TIFF)");
  const std::string logFile = LogOf(path);
  scan->m_LogFile = logFile;
  const KeyValueFile log = KeyValueFile::Read(logFile);
  scan->AddToLog("Bruker SkyScan scan " + logFile);

  if (const auto connected = log.OptionalNumber(Acquisition, "Number of connected scans"))
    if (*connected > 1.)
      log.ThrowBadValue(Acquisition, "Number of connected scans", Number(*connected),
                        "1: scans connected along the axis are not read by this reader");

  const auto count = static_cast<std::size_t>(log.Integer(Acquisition, "Number of Files", 1, 1000000));
  const auto columns = static_cast<unsigned long>(log.Integer(Acquisition, "Number of Columns", 1, 100000));
  const auto rows = static_cast<unsigned long>(log.Integer(Acquisition, "Number of Rows", 1, 100000));
  scan->m_Pixels = { columns, rows };

  const double sid = log.Number(Acquisition, "Object to Source (mm)");
  const double sdd = log.Number(Acquisition, "Camera to Source (mm)");
  if (!(sid > 0.))
    log.ThrowBadValue(Acquisition, "Object to Source (mm)", Number(sid), "a distance > 0 (mm)");
  if (!(sdd > sid))
    log.ThrowBadValue(Acquisition, "Camera to Source (mm)", Number(sdd), "a distance > Object to Source = " + Number(sid) + " (mm)");
  scan->AddToLog("SourceToIsocenterDistance = Object to Source = " + Number(sid) +
                 " mm; SourceToDetectorDistance = Camera to Source = " + Number(sdd) + " mm");

  // The detector pixel.
  long long binU = 1, binV = 1;
  if (const auto binning = log.Find(Acquisition, "Camera binning"))
  {
    const auto x = detail::LowerCase(*binning).find('x');
    if (x == std::string::npos || !KeyValueFile::ParseInteger(binning->substr(0, x), binU) ||
        !KeyValueFile::ParseInteger(binning->substr(x + 1), binV) || binU < 1 || binU > 64 || binV < 1 || binV > 64)
      log.ThrowBadValue(Acquisition, "Camera binning", *binning, "'AxB' with A and B from 1 to 64, e.g. 2x2");
  }
  double pixelU = 0., pixelV = 0.;
  if (const auto camera = log.OptionalNumber(System, "Camera Pixel Size (um)"))
  {
    if (!(*camera > 0.))
      log.ThrowBadValue(System, "Camera Pixel Size (um)", Number(*camera), "a pixel size > 0 (um)");
    pixelU = *camera / 1000. * static_cast<double>(binU);
    pixelV = *camera / 1000. * static_cast<double>(binV);
    scan->AddToLog("detector pixel = Camera Pixel Size (um) / 1000 * Camera binning = " + Number(*camera) + " / 1000 * " +
                   std::to_string(binU) + "x" + std::to_string(binV) + " = " + Number(pixelU) + " x " + Number(pixelV) + " mm");
  }
  else if (const auto image = log.OptionalNumber(Acquisition, "Image Pixel Size (um)"))
  {
    if (!(*image > 0.))
      log.ThrowBadValue(Acquisition, "Image Pixel Size (um)", Number(*image), "a pixel size > 0 (um)");
    pixelU = pixelV = *image / 1000. * sdd / sid;
    scan->AddToLog("detector pixel = Image Pixel Size (um) / 1000 * Camera to Source / Object to Source = " + Number(*image) +
                   " / 1000 * " + Number(sdd / sid) + " = " + Number(pixelU) + " mm (no [System] Camera Pixel Size (um))");
  }
  else
    Fail(logFile + ": neither [System] Camera Pixel Size (um) nor [Acquisition] Image Pixel Size (um) is given; expected one "
                   "of them for the detector's pixel size");
  for (const char * key : { "CameraXYRatio", "Camera X/Y Ratio" })
    if (const auto ratio = log.Find(System, key))
      scan->AddToLog(std::string(key) + " = " + *ratio + ": logged, not applied (square pixels assumed)");
  scan->SetDetectorGrid({ pixelU, pixelV }, { -0.5 * (columns - 1.) * pixelU, -0.5 * (rows - 1.) * pixelV });
  scan->AddToLog("detector: Number of Columns x Number of Rows = " + std::to_string(columns) + " x " + std::to_string(rows) +
                 " pixels, centred on (0, 0)");

  // Vertical offset from the optical axis.
  double opticalAxis = 0.5 * (rows - 1.);
  if (const auto line = log.OptionalNumber(Acquisition, "Optical Axis (line)"))
  {
    if (*line < -static_cast<double>(rows) || *line > 2. * rows)
      log.ThrowBadValue(Acquisition, "Optical Axis (line)", Number(*line),
                        "a detector row near the detector's " + std::to_string(rows) + " rows");
    opticalAxis = *line;
  }
  else
    scan->AddToLog("no Optical Axis (line): the middle row assumed");
  const double projectionOffsetY = (0.5 * (rows - 1.) - opticalAxis) * pixelV;
  scan->AddToLog("ProjectionOffsetY = ((Number of Rows - 1) / 2 - Optical Axis (line)) * pixel = (" + Number(0.5 * (rows - 1.)) +
                 " - " + Number(opticalAxis) + ") * " + Number(pixelV) + " = " + Number(projectionOffsetY) + " mm");
  if (const auto postalignment = log.Find(Reconstruction, "Postalignment"))
    scan->AddToLog("[Reconstruction] Postalignment = " + *postalignment + ": logged, not applied");

  // Angles.
  const double step = log.Number(Acquisition, "Rotation Step (deg)");
  if (!(step > 0.) || step > 360.)
    log.ThrowBadValue(Acquisition, "Rotation Step (deg)", Number(step), "a step > 0 and <= 360 degrees");
  double sense = 1.;
  if (const auto direction = log.Find(Acquisition, "Rotation Direction"))
  {
    const std::string d = detail::LowerCase(*direction);
    if (d == "cw")
      sense = -1.;
    else if (d != "cc" && d != "ccw")
      log.ThrowBadValue(Acquisition, "Rotation Direction", *direction, "CC or CW");
    scan->AddToLog("GantryAngle = " + std::string(sense > 0. ? "+" : "-") + "k * Rotation Step = " +
                   (sense > 0. ? "" : "-") + "k * " + Number(step) + " deg (Rotation Direction " + *direction + ")");
  }
  else
    scan->AddToLog("GantryAngle = k * Rotation Step = k * " + Number(step) + " deg (no Rotation Direction: CC assumed)");
  for (const char * key : { "Use 360 Rotation", "Flat Field Correction" })
    if (const auto value = log.Find(Acquisition, key))
      scan->AddToLog(std::string(key) + " = " + *value);

  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (std::size_t k = 0; k < count; ++k)
    geometry->AddProjection(sid, sdd, sense * static_cast<double>(k) * step, 0., projectionOffsetY);
  scan->SetGeometry(geometry);

  // Files.
  const std::string prefix = log.String(Acquisition, "Filename Prefix");
  const std::string folder = itksys::SystemTools::GetFilenamePath(logFile);
  scan->SetProjectionFiles(detail::NumberedTiffFiles(folder, prefix, 0, static_cast<unsigned long>(count), logFile));
  scan->AddToLog("projections: " + std::to_string(count) + " files " + scan->ProjectionFiles().front() + " ... " +
                 scan->ProjectionFiles().back() + " (Filename Prefix, Number of Files)");
  const std::vector<std::string> names = detail::FilesInFolder(folder.empty() ? std::string(".") : folder);
  std::vector<std::string> flats, darks;
  for (const char * extension : { ".tif", ".tiff" })
  {
    flats.push_back(prefix + "flat" + extension);
    flats.push_back(prefix + "_flat" + extension);
    darks.push_back(prefix + "dark" + extension);
    darks.push_back(prefix + "_dark" + extension);
  }
  scan->m_FlatFile = FindCalibration(folder, names, flats);
  scan->m_DarkFile = FindCalibration(folder, names, darks);

  const double bits = log.Number(Acquisition, "Depth (bits)", 16.);
  if (!(bits >= 1. && bits <= 32.) || bits != std::floor(bits))
    log.ThrowBadValue(Acquisition, "Depth (bits)", Number(bits), "an integer from 1 to 32");
  scan->m_FullScale = std::ldexp(1., static_cast<int>(bits)) - 1.;
  scan->AddToLog(scan->m_FlatFile.empty() ? "flat field: none found; 2^Depth (bits) - 1 = " + Number(scan->m_FullScale) + " used"
                                          : "flat field: " + scan->m_FlatFile);
  scan->AddToLog(scan->m_DarkFile.empty() ? std::string("dark field: none found; 0 used") : "dark field: " + scan->m_DarkFile);
  return scan;
}

void
BrukerScan::ToLineIntegrals(ProjectionsType * readings) const
{
  detail::CheckReadingsShape(readings, m_Pixels[0], m_Pixels[1], ProjectionFiles().size(), m_LogFile + " (Number of Columns, Number of Rows, Number of Files)");
  FieldType::Pointer flat, dark;
  if (!m_FlatFile.empty())
    flat = ReadField(m_FlatFile, m_Pixels[0], m_Pixels[1], "flat field");
  if (!m_DarkFile.empty())
    dark = ReadField(m_DarkFile, m_Pixels[0], m_Pixels[1], "dark field");

  const std::size_t slice = static_cast<std::size_t>(m_Pixels[0]) * m_Pixels[1];
  const float * flatPixels = flat ? flat->GetBufferPointer() : nullptr;
  const float * darkPixels = dark ? dark->GetBufferPointer() : nullptr;
  // Per detector pixel, once: D and F - D (0 where F - D <= 0 or not finite: no open-beam signal there,
  // nothing to measure against, the line integral is 0).
  std::vector<float> darks(slice), opens(slice);
  std::size_t deadPixels = 0;
  for (std::size_t i = 0; i < slice; ++i)
  {
    const double d = darkPixels ? darkPixels[i] : 0.;
    const double open = (flatPixels ? flatPixels[i] : m_FullScale) - d;
    const bool live = open > 0. && std::isfinite(open);
    darks[i] = static_cast<float>(d);
    opens[i] = live ? static_cast<float>(open) : 0.f;
    deadPixels += !live;
  }
  const std::size_t deadFlat = deadPixels * ProjectionFiles().size();
  // p = ln((F - D) / (R - D)), several projections at a time, each pixel without a branch so that the
  // loop vectorises (detail::FastLog: within about 1 ulp of ln).
  const float smallest = static_cast<float>(SmallestReading);
  std::size_t clamped = 0;
  for (const std::size_t n : detail::ConvertEachProjection(
         readings, [&](std::size_t, float * values, std::size_t count) -> std::size_t {
           unsigned int below = 0;
           for (std::size_t i = 0; i < count; ++i)
           {
             const float open = opens[i];
             float signal = values[i] - darks[i];
             const bool ok = signal > 0.f && signal <= FLT_MAX;
             below += static_cast<unsigned int>(!ok) * static_cast<unsigned int>(open > 0.f); // dead pixels: not counted
             signal = ok ? signal : smallest;
             const float p = detail::FastLog(detail::ToNormalRange(open) / signal);
             values[i] = open > 0.f ? p : 0.f;
           }
           return below;
         }))
    clamped += n;
  AddToLog(std::string("line integrals = -log((reading - dark) / (flat - dark)), flat = ") +
           (flat ? m_FlatFile : "2^Depth (bits) - 1 = " + Number(m_FullScale)) + ", dark = " + (dark ? m_DarkFile : "0") + "; " +
           std::to_string(clamped) + " readings - dark <= 0 or not finite clamped to " + Number(SmallestReading) + "; " +
           std::to_string(deadFlat) + " pixels with flat - dark <= 0 set to 0");
}

void
BrukerScan::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "LogFile: " << m_LogFile << std::endl;
  os << indent << "Projections: " << ProjectionFiles().size() << std::endl;
  os << indent << "FlatFile: " << (m_FlatFile.empty() ? "(none)" : m_FlatFile) << std::endl;
  os << indent << "DarkFile: " << (m_DarkFile.empty() ? "(none)" : m_DarkFile) << std::endl;
  os << indent << "DetectorSpacing: " << DetectorSpacing()[0] << " x " << DetectorSpacing()[1] << " mm" << std::endl;
}

} // namespace cbct
