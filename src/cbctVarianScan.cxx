#include "cbctVarianScan.h"

#include "cbctLineIntegralSupport.h"

#include "cbctInputChecks.h"
#include "cbctMissingAirScanError.h"

#include <expat.h>
#include <itkImageFileReader.h>
#include <itkImageIOFactory.h>
#include <itkImageRegionIterator.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <limits>
#include <sstream>

namespace fs = std::filesystem;

namespace cbct
{

namespace
{

std::string
Lower(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool
EndsWith(const std::string & text, const std::string & tail)
{
  return text.size() >= tail.size() && Lower(text.substr(text.size() - tail.size())) == Lower(tail);
}

bool
StartsWith(const std::string & text, const std::string & head)
{
  return text.size() >= head.size() && Lower(text.substr(0, head.size())) == Lower(head);
}

bool
IsDirectory(const fs::path & path)
{
  std::error_code error;
  return fs::is_directory(path, error);
}

bool
IsFile(const fs::path & path)
{
  std::error_code error;
  return fs::is_regular_file(path, error);
}

/** Orders names by the numbers in them (Proj_9 before Proj_10), then as text. */
bool
NaturalLess(const std::string & a, const std::string & b)
{
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size())
  {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j])))
    {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
        ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
        ++je;
      std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size())
        return na.size() < nb.size();
      if (na != nb)
        return na < nb;
      i = ie;
      j = je;
      continue;
    }
    const char ca = static_cast<char>(std::tolower(static_cast<unsigned char>(a[i])));
    const char cb = static_cast<char>(std::tolower(static_cast<unsigned char>(b[j])));
    if (ca != cb)
      return ca < cb;
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j)
    return a.size() - i < b.size() - j;
  return a < b;
}

/** The Proj_*.<extension> files directly in `folder`, in the order of their numbers. */
std::vector<std::string>
ProjectionFilesIn(const fs::path & folder, const std::string & extension)
{
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
  {
    const std::string name = it->path().filename().string();
    if (StartsWith(name, "Proj_") && EndsWith(name, extension) && IsFile(it->path()))
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end(), [](const std::string & a, const std::string & b) {
    return NaturalLess(fs::path(a).filename().string(), fs::path(b).filename().string());
  });
  return files;
}

bool
HasProjectionFiles(const fs::path & folder, const std::string & extension);

/** An OBI scan's files in `folder`: Proj_*.hnd, or where there are none Proj_*.hnc (the same header,
 * uncompressed 16-bit pixels). */
std::vector<std::string>
ObiFilesIn(const fs::path & folder)
{
  auto files = ProjectionFilesIn(folder, ".hnd");
  return files.empty() ? ProjectionFilesIn(folder, ".hnc") : files;
}

bool
HasObiFiles(const fs::path & folder)
{
  return HasProjectionFiles(folder, ".hnd") || HasProjectionFiles(folder, ".hnc");
}

bool
HasProjectionFiles(const fs::path & folder, const std::string & extension)
{
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
  {
    const std::string name = it->path().filename().string();
    if (StartsWith(name, "Proj_") && EndsWith(name, extension))
      return true;
  }
  return false;
}

/** The folder among `start` and its three parents holding `name` (a file or folder); empty if none. */
fs::path
FindUpwards(const fs::path & start, const std::string & name)
{
  fs::path folder = fs::absolute(start);
  for (int level = 0; level < 4 && !folder.empty(); ++level)
  {
    std::error_code error;
    if (fs::exists(folder / name, error))
      return folder;
    if (folder == folder.parent_path())
      break;
    folder = folder.parent_path();
  }
  return fs::path();
}

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< "VarianScan: " << message);
}

/** The readings cannot become line integrals: no air scan where `sought` says it was looked for. The
 * message says what is missing; the front ends say how their users ask for the fallback. */
[[noreturn]] void
FailMissingAirScan(const std::string & sought)
{
  throw MissingAirScanError(__FILE__, __LINE__,
                            "VarianScan: no air scan: looked for " + sought +
                              "; line integrals need the air scan the projections were taken with, or a constant I0",
                            ITK_LOCATION);
}

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

/** A setting as a number; NaN when absent. Throws when present but not a number. */
double
SettingNumber(const VarianScan::XmlSettings & settings, const std::string & key, const std::string & file)
{
  const auto it = settings.find(key);
  if (it == settings.end() || it->second.empty())
    return std::numeric_limits<double>::quiet_NaN();
  const char * begin = it->second.c_str();
  char * end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || *end != '\0' || !std::isfinite(value))
    Fail(file + ": <" + key + "> is \"" + it->second + "\"; expected a finite number");
  return value;
}

std::string
Setting(const VarianScan::XmlSettings & settings, const std::string & key)
{
  const auto it = settings.find(key);
  return it == settings.end() ? std::string() : it->second;
}

// ---- Headers through ITK's factory ----

struct Header
{
  itk::MetaDataDictionary dictionary;
  unsigned int columns = 0;
  unsigned int rows = 0;
};

/** Whether `file` is a XIM that declares no pixels (width or height 0): TrueBeam may close an
 * acquisition with such a frame (RTK's XIM reader gives it angle 6000 and its geometry reader skips
 * it); the XIM reader refuses it, so it is recognised here from its first 20 bytes (identifier
 * "VMS.XI", int32 version, width, height, little-endian). */
bool
XimDeclaresNoPixels(const std::string & file)
{
  std::ifstream in(file, std::ios::binary);
  unsigned char bytes[20] = {};
  if (!in.read(reinterpret_cast<char *>(bytes), sizeof(bytes)))
    return false;
  if (std::string(reinterpret_cast<const char *>(bytes), 6) != "VMS.XI")
    return false;
  const auto int32At = [&](int at) {
    return static_cast<std::int32_t>(std::uint32_t(bytes[at]) | std::uint32_t(bytes[at + 1]) << 8 |
                                     std::uint32_t(bytes[at + 2]) << 16 | std::uint32_t(bytes[at + 3]) << 24);
  };
  return int32At(12) == 0 || int32At(16) == 0;
}

Header
ReadHeader(const std::string & file)
{
  itk::ImageIOBase::Pointer io = itk::ImageIOFactory::CreateImageIO(file.c_str(), itk::IOFileModeEnum::ReadMode);
  if (io.IsNull())
    Fail(file + ": no ImageIO reads this file (are the XIM/HND readers registered with ITK's factory?)");
  io->SetFileName(file);
  io->ReadImageInformation();
  Header header;
  header.dictionary = io->GetMetaDataDictionary();
  if (io->GetNumberOfDimensions() >= 2)
  {
    header.columns = static_cast<unsigned int>(io->GetDimensions(0));
    header.rows = static_cast<unsigned int>(io->GetDimensions(1));
  }
  return header;
}

template <typename T>
bool
TryNumber(const itk::MetaDataObjectBase * object, double & value)
{
  const auto * typed = dynamic_cast<const itk::MetaDataObject<T> *>(object);
  if (typed == nullptr)
    return false;
  value = static_cast<double>(typed->GetMetaDataObjectValue());
  return true;
}

bool
LookUp(const itk::MetaDataDictionary & dictionary, const std::string & key, double & value, bool & wrongType)
{
  wrongType = false;
  if (!dictionary.HasKey(key))
    return false;
  const itk::MetaDataObjectBase * object = dictionary.Get(key);
  if (TryNumber<double>(object, value) || TryNumber<float>(object, value) || TryNumber<int>(object, value) ||
      TryNumber<unsigned int>(object, value) || TryNumber<long>(object, value) ||
      TryNumber<unsigned long>(object, value) || TryNumber<long long>(object, value) ||
      TryNumber<unsigned long long>(object, value) || TryNumber<short>(object, value) ||
      TryNumber<unsigned short>(object, value))
    return std::isfinite(value) || (wrongType = true, false);
  if (const auto * text = dynamic_cast<const itk::MetaDataObject<std::string> *>(object))
  {
    const std::string s = Trimmed(text->GetMetaDataObjectValue());
    char * end = nullptr;
    value = std::strtod(s.c_str(), &end);
    if (!s.empty() && end != s.c_str() && *end == '\0' && std::isfinite(value))
      return true;
  }
  wrongType = true;
  return false;
}

std::string
NumberText(double value)
{
  std::ostringstream text;
  text << std::setprecision(12) << value;
  return text.str();
}

/** Varian writes 99999999 in a header field it has no value for (an OBI's dSFD; other readers treat a
 * dIDUResolutionX of 99999999 the same way). A magnitude of 1e6 or more (10 km in cm) is taken as that
 * mark, never as a value, and so is a value that is not finite. */
bool
IsUnknownMark(double value)
{
  return !std::isfinite(value) || std::abs(value) >= 1e6;
}

/** A header field's value as the messages quote it: "missing", "not a finite number", "99999999
 * (Varian's mark for unknown)" or the number. */
std::string
FieldText(const itk::MetaDataDictionary & dictionary, const std::string & key)
{
  if (!dictionary.HasKey(key))
    return "missing";
  double value = 0.;
  bool wrongType = false;
  if (!LookUp(dictionary, key, value, wrongType))
    return "not a finite number";
  return NumberText(value) + (IsUnknownMark(value) ? " (Varian's mark for unknown)" : "");
}

/** A header field's value; NaN when it is absent, not a number, or Varian's mark for unknown. */
double
KnownNumberOr(const itk::MetaDataDictionary & dictionary, const std::string & key)
{
  double value = 0.;
  bool wrongType = false;
  if (LookUp(dictionary, key, value, wrongType) && !IsUnknownMark(value))
    return value;
  return std::numeric_limits<double>::quiet_NaN();
}

/** A header field's value; throws naming the file, the field, its value and what was `expected`
 * when it is absent, not a number, or Varian's mark for unknown. */
double
KnownNumber(const itk::MetaDataDictionary & dictionary,
            const std::string & key,
            const std::string & file,
            const std::string & expected)
{
  const double value = KnownNumberOr(dictionary, key);
  if (!std::isfinite(value))
    Fail(file + ": header field " + key + " is " + FieldText(dictionary, key) + "; expected " + expected);
  return value;
}

/** A setting as a number: NaN when absent or Varian's mark for unknown; throws when not a number. */
double
KnownSetting(const VarianScan::XmlSettings & settings, const std::string & key, const std::string & file)
{
  const double value = SettingNumber(settings, key, file);
  return IsUnknownMark(value) ? std::numeric_limits<double>::quiet_NaN() : value;
}

/** A Varian kV imaging arm (OBI, TrueBeam, ProBeam, Halcyon) holds the source about 1000 mm from the
 * isocenter and the panel some 500 mm beyond it (well within 1500 mm). A distance outside these bounds is a field read
 * in another unit (100 cm taken as mm: 100 mm; 1000 mm taken as cm: 10 m) or a placeholder, never a
 * scan: refused, naming the fields it came from. */
constexpr double LeastSourceToIsocenter = 500.;
constexpr double MostSourceToIsocenter = 2000.;
constexpr double MostDetectorBeyondIsocenter = 1500.;

void
CheckVarianDistances(const VarianScan::ProjectionRecord & r, const std::string & sidFrom, const std::string & sddFrom)
{
  const double sid = r.sourceToIsocenterDistance;
  const double sdd = r.sourceToDetectorDistance;
  if (!(sid >= LeastSourceToIsocenter && sid <= MostSourceToIsocenter))
    Fail(r.file + ": source-to-isocenter distance " + NumberText(sid) + " mm (" + sidFrom + "); expected " +
         NumberText(LeastSourceToIsocenter) + " to " + NumberText(MostSourceToIsocenter) +
         " mm: a Varian kV source stands about 1000 mm from the isocenter (a field in another unit, or a "
         "placeholder?)");
  if (!(sdd > sid && sdd <= sid + MostDetectorBeyondIsocenter))
    Fail(r.file + ": source-to-detector distance " + NumberText(sdd) + " mm (" + sddFrom +
         "); expected more than the source-to-isocenter distance " + NumberText(sid) + " mm and at most " +
         NumberText(MostDetectorBeyondIsocenter) +
         " mm more: a Varian kV panel stands well within that of the isocenter (a field in another unit, or a "
         "placeholder?)");
}

std::string
Range(const std::vector<double> & values)
{
  std::ostringstream out;
  if (values.empty())
    return "none";
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo == *hi)
    out << *lo;
  else
    out << *lo << " .. " << *hi;
  return out.str();
}

/** Signed smallest difference b - a of two angles in degrees, in (-180, 180]. */
double
AngleDifference(double a, double b)
{
  double d = std::fmod(b - a, 360.);
  if (d > 180.)
    d -= 360.;
  if (d <= -180.)
    d += 360.;
  return d;
}

double
Wrap360(double degrees)
{
  double w = std::fmod(degrees, 360.);
  return w < 0. ? w + 360. : w;
}

struct AirFolderName
{
  double kiloVolts = 0.; // 0: not in the name
  std::string fan;       // "full", "half" or empty
  bool bowtie = false;
};

AirFolderName
ParseAirFolder(const std::string & name)
{
  AirFolderName parsed;
  std::stringstream tokens(name);
  std::string token;
  while (std::getline(tokens, token, '-'))
  {
    const std::string t = Lower(token);
    if (t == "full" || t == "half")
      parsed.fan = t;
    else if (t == "bowtie")
      parsed.bowtie = true;
    else if (t.size() > 2 && EndsWith(t, "kv") && std::isdigit(static_cast<unsigned char>(t[0])))
      parsed.kiloVolts = std::atof(t.c_str());
  }
  return parsed;
}

} // namespace

// ---------------------------------------------------------------------------------------------

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

// ---- Conversions ----

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

// ---- Opening ----

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

// ---- Line integrals ----

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
