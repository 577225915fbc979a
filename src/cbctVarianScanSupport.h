#ifndef cbctVarianScanSupport_h
#define cbctVarianScanSupport_h

/* What VarianScan's source files share (cbctVarianScan.cxx: opening and the geometry;
 * cbctVarianTrueBeamScan.cxx: TrueBeam/ProBeam XIM scans; cbctVarianObiScan.cxx: OBI HND scans;
 * cbctVarianAirScan.cxx: the air scan and the line integrals): finding the projection files, reading
 * headers and settings with Varian's mark for "unknown", and the checks every format's geometry goes
 * through. Internal to the library: not installed. */

#include "cbctVarianScan.h"

#include <itkMetaDataDictionary.h>

#include <filesystem>
#include <string>
#include <vector>

namespace cbct::varian
{
namespace fs = std::filesystem;

std::string
Lower(std::string text);

bool
EndsWith(const std::string & text, const std::string & tail);

bool
StartsWith(const std::string & text, const std::string & head);

bool
IsDirectory(const fs::path & path);

bool
IsFile(const fs::path & path);

/** Orders names by the numbers in them (Proj_9 before Proj_10), then as text. */
bool
NaturalLess(const std::string & a, const std::string & b);

/** The Proj_*.<extension> files directly in `folder`, in the order of their numbers. */
std::vector<std::string>
ProjectionFilesIn(const fs::path & folder, const std::string & extension);

/** An OBI scan's files in `folder`: Proj_*.hnd, or where there are none Proj_*.hnc (the same header,
 * uncompressed 16-bit pixels). */
std::vector<std::string>
ObiFilesIn(const fs::path & folder);

bool
HasObiFiles(const fs::path & folder);

bool
HasProjectionFiles(const fs::path & folder, const std::string & extension);

/** The folder among `start` and its three parents holding `name` (a file or folder); empty if none. */
fs::path
FindUpwards(const fs::path & start, const std::string & name);

[[noreturn]] void
Fail(const std::string & message);

/** The readings cannot become line integrals: no air scan where `sought` says it was looked for. The
 * message says what is missing; the front ends say how their users ask for the fallback. */
[[noreturn]] void
FailMissingAirScan(const std::string & sought);

/** A setting as a number; NaN when absent. Throws when present but not a number. */
double
SettingNumber(const VarianScan::XmlSettings & settings, const std::string & key, const std::string & file);

std::string
Setting(const VarianScan::XmlSettings & settings, const std::string & key);

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
XimDeclaresNoPixels(const std::string & file);

Header
ReadHeader(const std::string & file);

bool
LookUp(const itk::MetaDataDictionary & dictionary, const std::string & key, double & value, bool & wrongType);

std::string
NumberText(double value);

/** Varian writes 99999999 in a header field it has no value for (an OBI's dSFD; other readers treat a
 * dIDUResolutionX of 99999999 the same way). A magnitude of 1e6 or more (10 km in cm) is taken as that
 * mark, never as a value, and so is a value that is not finite. */
bool
IsUnknownMark(double value);

/** A header field's value as the messages quote it: "missing", "not a finite number", "99999999
 * (Varian's mark for unknown)" or the number. */
std::string
FieldText(const itk::MetaDataDictionary & dictionary, const std::string & key);

/** A header field's value; NaN when it is absent, not a number, or Varian's mark for unknown. */
double
KnownNumberOr(const itk::MetaDataDictionary & dictionary, const std::string & key);

/** A header field's value; throws naming the file, the field, its value and what was `expected`
 * when it is absent, not a number, or Varian's mark for unknown. */
double
KnownNumber(const itk::MetaDataDictionary & dictionary,
            const std::string & key,
            const std::string & file,
            const std::string & expected);

/** A setting as a number: NaN when absent or Varian's mark for unknown; throws when not a number. */
double
KnownSetting(const VarianScan::XmlSettings & settings, const std::string & key, const std::string & file);

/** A Varian kV imaging arm (OBI, TrueBeam, ProBeam, Halcyon) holds the source about 1000 mm from the
 * isocenter and the panel some 500 mm beyond it (well within 1500 mm). A distance outside these bounds is a field read
 * in another unit (100 cm taken as mm: 100 mm; 1000 mm taken as cm: 10 m) or a placeholder, never a
 * scan: refused, naming the fields it came from. */
inline constexpr double LeastSourceToIsocenter = 500.;
inline constexpr double MostSourceToIsocenter = 2000.;
inline constexpr double MostDetectorBeyondIsocenter = 1500.;

void
CheckVarianDistances(const VarianScan::ProjectionRecord & r, const std::string & sidFrom, const std::string & sddFrom);

std::string
Range(const std::vector<double> & values);

/** Signed smallest difference b - a of two angles in degrees, in (-180, 180]. */
double
AngleDifference(double a, double b);

double
Wrap360(double degrees);

struct AirFolderName
{
  double kiloVolts = 0.; // 0: not in the name
  std::string fan;       // "full", "half" or empty
  bool bowtie = false;
};

AirFolderName
ParseAirFolder(const std::string & name);

} // namespace cbct::varian

#endif
