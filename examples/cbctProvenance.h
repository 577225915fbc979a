#ifndef cbctProvenance_h
#define cbctProvenance_h

// Provenance: what made an app's output volume (the app, the method, the geometry and every option's
// value, defaults included), kept in the image's metadata dictionary. MetaImage (.mha, .mhd) and NRRD
// headers keep such entries ("ConeBeamCT_Method = SART"), other formats drop them; cbct-compare
// --report shows them beside the metrics. The entries hold no output path, no --verbose, --threads or
// --gpus: they change neither the volume nor how it was made, and an MPI run writes the same header
// as one process (test/apps/mpi_end_to_end.sh compares the two files bit for bit).

#include "cbctThreeDCircularProjectionGeometry.h"

#include <CLI/CLI.hpp>
#include <itkImageIOBase.h>
#include <itkImageIOFactory.h>
#include <itkMetaDataDictionary.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace cbct::apps
{

/** The dictionary keys, in the order a report shows them. */
inline const std::vector<std::string> &
ProvenanceKeys()
{
  static const std::vector<std::string> keys{ "ConeBeamCT_App", "ConeBeamCT_Method", "ConeBeamCT_Geometry",
                                              "ConeBeamCT_Options" };
  return keys;
}

/** This process's provenance entries (key, value); empty unless the app set some, and then
 * WriteImage() adds them to every image it writes. */
inline std::vector<std::pair<std::string, std::string>> &
Provenance()
{
  static std::vector<std::pair<std::string, std::string>> entries;
  return entries;
}

/** Sets (or replaces) one entry; the value is kept on one line (a header line each). */
inline void
SetProvenance(const std::string & key, std::string value)
{
  std::replace(value.begin(), value.end(), '\n', ' ');
  std::replace(value.begin(), value.end(), '\r', ' ');
  for (auto & entry : Provenance())
    if (entry.first == key)
    {
      entry.second = value;
      return;
    }
  Provenance().emplace_back(key, value);
}

/** Every option of `app` with the value it ran with: given on the command line or its default
 * ("--lambda 0.3 --nprojpersubset 1 --positivity"); flags only when given. Left out: outputs and
 * what changes only how the run goes (--output, --verbose, --threads, --gpus, --time-limit, help,
 * version, Slicer's protocol). */
inline std::string
DescribeOptions(const CLI::App & app)
{
  static const std::vector<std::string> skipped{ "--help", "--version", "--xml", "--returnparameterfile",
                                                 "--processinformationaddress", "--output", "--verbose",
                                                 "--threads", "--gpus", "--time-limit" };
  std::ostringstream text;
  const char * separator = "";
  for (const CLI::Option * option : app.get_options())
  {
    const std::string name = option->get_name(false, false);
    if (name.empty() || std::find(skipped.begin(), skipped.end(), name) != skipped.end())
      continue;
    const bool flag = option->get_expected_max() == 0;
    std::vector<std::string> values;
    if (option->count() > 0)
      values = option->results();
    else if (flag || option->get_default_str().empty())
      continue; // a flag not given, or an option without a default
    else
      values = { option->get_default_str() };
    if (flag) // its name says it
      values.clear();
    text << separator << name;
    for (const std::string & value : values)
    {
      const bool quote = value.empty() || value.find_first_of(" \t'\"") != std::string::npos;
      text << " " << (quote ? "'" + value + "'" : value);
    }
    separator = " ";
  }
  return text.str();
}

/** "30 projections, gantry 0 to 348 degrees, SID 1000 mm, SDD 1500 mm, from FILE" (a range "SID 900 to
 * 1000 mm" where the distances vary). */
inline std::string
DescribeGeometryForProvenance(const cbct::ThreeDCircularProjectionGeometry * geometry, const std::string & source)
{
  std::ostringstream text;
  const unsigned int n = geometry->GetNumberOfProjections();
  text << n << " projection" << (n == 1 ? "" : "s");
  if (n > 0)
  {
    constexpr double degrees = 180. / 3.14159265358979323846;
    double first = geometry->GetGantryAngle(0) * degrees, last = first;
    double sidMin = geometry->GetSourceToIsocenterDistance(0), sidMax = sidMin;
    double sddMin = geometry->GetSourceToDetectorDistance(0), sddMax = sddMin;
    for (unsigned int k = 1; k < n; ++k)
    {
      last = geometry->GetGantryAngle(k) * degrees;
      sidMin = std::min(sidMin, geometry->GetSourceToIsocenterDistance(k));
      sidMax = std::max(sidMax, geometry->GetSourceToIsocenterDistance(k));
      sddMin = std::min(sddMin, geometry->GetSourceToDetectorDistance(k));
      sddMax = std::max(sddMax, geometry->GetSourceToDetectorDistance(k));
    }
    text << std::setprecision(6) << ", gantry " << first << " to " << last << " degrees, SID " << sidMin;
    if (sidMax > sidMin)
      text << " to " << sidMax;
    text << " mm, SDD " << sddMin;
    if (sddMax > sddMin)
      text << " to " << sddMax;
    text << " mm" << (sddMin == 0. ? " (parallel beam)" : "");
  }
  if (!source.empty())
    text << ", from " << source;
  return text.str();
}

/** `dictionary` with this process's provenance entries added (they replace entries of the same key). */
inline itk::MetaDataDictionary
WithProvenance(const itk::MetaDataDictionary & dictionary)
{
  itk::MetaDataDictionary out = dictionary;
  for (const auto & [key, value] : Provenance())
    itk::EncapsulateMetaData<std::string>(out, key, value);
  return out;
}

/** The provenance entries of an image file's header, in ProvenanceKeys()'s order (those present);
 * empty when the file has none or its format keeps none. */
inline std::vector<std::pair<std::string, std::string>>
ReadProvenance(const std::string & path)
{
  std::vector<std::pair<std::string, std::string>> entries;
  itk::ImageIOBase::Pointer io = itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::IOFileModeEnum::ReadMode);
  if (io.IsNull())
    return entries;
  io->SetFileName(path);
  io->ReadImageInformation();
  const itk::MetaDataDictionary & dictionary = io->GetMetaDataDictionary();
  for (const std::string & key : ProvenanceKeys())
  {
    std::string value;
    if (itk::ExposeMetaData<std::string>(dictionary, key, value))
      entries.emplace_back(key, value);
  }
  return entries;
}

} // namespace cbct::apps

#endif
