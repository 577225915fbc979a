#include "cbctVarianScanSupport.h"

#include "cbctInputChecks.h"
#include "cbctMissingAirScanError.h"

#include <itkImageIOFactory.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct::varian
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

} // namespace cbct::varian
