#ifndef cbctAppSupport_h
#define cbctAppSupport_h

// What every command-line app shares: one-line error messages and exit codes, checks of option
// values that name the option, the value and what was expected, image reading and writing by file
// extension, and a wall clock.

#include "cbctBeadPhantom.h"
#include "cbctGeometricPhantom.h"
#include "cbctProgressBar.h"
#include "cbctSlicer.h"

#include <CLI/CLI.hpp>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkImageIOFactory.h>
#include <itkMacro.h>
#include <itkMultiThreaderBase.h>
#include <itksys/SystemTools.hxx>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <new>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef CBCT_VERSION
#  define CBCT_VERSION "unknown"
#endif

namespace cbct::apps
{

/** A user error: bad option values, missing files. Its message is printed as is. */
class Error : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/** Formats "OPTION is VALUE; expected EXPECTED" (the library's wording for bad parameters). */
template <typename T>
[[noreturn]] void
Bad(const std::string & option, const T & value, const std::string & expected)
{
  std::ostringstream message;
  message << option << " is " << value << "; expected " << expected;
  throw Error(message.str());
}

inline std::string
Quoted(const std::string & text)
{
  return "'" + text + "'";
}

/** `text` on one line: line breaks become "; ", runs of blanks one space. */
inline std::string
OneLine(const std::string & text)
{
  std::string out;
  bool blank = false;
  for (char c : text)
  {
    if (c == '\n' || c == '\r')
    {
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      if (!out.empty() && out.back() != ';' && out.back() != ':' && out.back() != '.')
        out += ';';
      blank = true;
    }
    else if (c == ' ' || c == '\t')
      blank = true;
    else
    {
      if (blank && !out.empty())
        out += ' ';
      blank = false;
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ';' || out.back() == ' '))
    out.pop_back();
  return out;
}

/** The first non-empty line of `text`. */
inline std::string
FirstLine(const std::string & text)
{
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
  {
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos)
      return line.substr(first);
  }
  return text;
}

/** An ITK exception's description without ITK's "ITK ERROR: " and "ClassName(0x...): " prefixes
 * (ITK 5.2 puts them in the description itself, wherever it occurs in a message). */
inline std::string
WithoutItkPrefix(const std::string & description)
{
  static const std::regex prefix("ITK ERROR: ([A-Za-z0-9_:<>, ]+\\(0x[0-9a-fA-F]+\\): )?");
  return std::regex_replace(description, prefix, "");
}

/** The name of this process's app ("cbct-fdk"), set by Run(): for warnings. */
inline std::string &
AppName()
{
  static std::string name = "cbct";
  return name;
}

/** Prints "NAME: warning: MESSAGE" on one line of stderr. */
inline void
PrintWarning(const std::string & message)
{
  EndProgressLine();
  std::cerr << AppName() << ": warning: " << OneLine(message) << std::endl;
}

/** Every file this process has read or will read (images with their data files, the geometry, a
 * phantom file): no output may replace one (cbctCheckedFiles.h). */
inline std::vector<std::string> &
InputFiles()
{
  static std::vector<std::string> files;
  return files;
}

inline void
RememberInput(const std::string & path)
{
  for (const std::string & known : InputFiles())
    if (known == path)
      return;
  InputFiles().push_back(path);
}

/** Prints "NAME: error: MESSAGE" on one line of stderr; returns the exit code 1. */
inline int
PrintError(const std::string & name, const std::string & message)
{
  EndProgressLine();
  std::cerr << name << ": error: " << OneLine(WithoutItkPrefix(message)) << std::endl;
  return 1;
}

/** Parses the command line and runs `body`. --help (and --version) print to stdout and give 0; a
 * parse error, a bad value, an ITK exception or running out of memory gives one line on stderr
 * and the exit code 1. */
/** Whether 3D Slicer runs this process: --processinformationaddress given (Slicer passes it to
 * shared-library modules), CBCT_PROGRESS=slicer, or SLICER_HOME set (Slicer's launcher sets it for
 * the executables it starts) while stdout is no terminal (Slicer reads it through a pipe). */
inline bool
RunBySlicer(const std::string & processInformationAddress)
{
  if (!processInformationAddress.empty())
    return true;
  const char * style = std::getenv("CBCT_PROGRESS");
  if (style != nullptr)
    return std::string(style) == "slicer";
  return std::getenv("SLICER_HOME") != nullptr && isatty(STDOUT_FILENO) == 0;
}

/** Parses the command line and runs `body`. --help (and --version) print to stdout and give 0;
 * --xml prints the Slicer Execution Model description (cbctSlicer.h) and gives 0; a parse error,
 * a bad value, an ITK exception or running out of memory gives one line on stderr and the exit
 * code 1. After a successful `body`, --returnparameterfile FILE receives the values set with
 * SetSlicerReturnValue(). */
inline int
Run(CLI::App & app, int argc, char ** argv, const std::function<int()> & body)
{
  const std::string name = app.get_name();
  AppName() = name;
  // Slicer's protocol options: hidden from --help (group "") and from the XML description.
  std::string returnParameterFile, processInformationAddress;
  bool xml = false;
  app.add_flag("--xml", xml, "Print the 3D Slicer Execution Model description")->group("");
  app.add_option("--returnparameterfile", returnParameterFile, "File for Slicer's output parameters")->group("");
  app.add_option("--processinformationaddress", processInformationAddress, "Slicer's process information")->group("");
  // The spellings the description advertises (--new_spacing beside --new-spacing), before --xml and --help.
  AddUnderscoreAliases(app);
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--xml") // before parsing: required options are not needed
    {
      try
      {
        std::cout << SlicerXml(app, CBCT_VERSION);
      }
      catch (const std::exception & e)
      {
        return PrintError(name, e.what());
      }
      return 0;
    }
  try
  {
    app.parse(argc, argv);
  }
  catch (const CLI::Success & e) // --help, --version
  {
    return app.exit(e);
  }
  catch (const CLI::ParseError & e)
  {
    return PrintError(name, std::string(e.what()) + " (see " + name + " --help)");
  }
  if (RunBySlicer(processInformationAddress))
    CurrentProgressStyle() = ProgressStyle::Slicer;
  try
  {
    if (!returnParameterFile.empty())
    {
      std::string directory = itksys::SystemTools::GetFilenamePath(returnParameterFile);
      if (!itksys::SystemTools::FileIsDirectory(directory.empty() ? "." : directory))
        Bad("--returnparameterfile", Quoted(returnParameterFile), "a file in an existing directory");
    }
    const int status = body();
    if (status == 0 && !returnParameterFile.empty() && !WriteSlicerReturnParameters(returnParameterFile))
      throw Error("--returnparameterfile " + returnParameterFile + ": could not write the file");
    return status;
  }
  catch (const Error & e)
  {
    return PrintError(name, e.what());
  }
  catch (const itk::ExceptionObject & e)
  {
    return PrintError(name, e.GetDescription());
  }
  catch (const std::bad_alloc &)
  {
    return PrintError(name, "out of memory (try a smaller volume or more --divisions)");
  }
  catch (const std::exception & e)
  {
    return PrintError(name, e.what());
  }
  catch (...)
  {
    return PrintError(name, "unknown exception");
  }
}

/** A Slicer parameter of `type` (image, file, directory, ...) on `channel` in `group`. */
inline SlicerParameter
SlicerIo(const std::string & type, const std::string & channel, const std::string & group, const std::string & extensions = "")
{
  SlicerParameter p;
  p.type = type;
  p.channel = channel;
  p.group = group;
  p.fileExtensions = extensions;
  if (type == "image")
    p.imageType = "scalar";
  return p;
}

/** A Slicer parameter of the derived type in `group`, constrained to [minimum, maximum] by `step`. */
inline SlicerParameter
SlicerRange(const std::string & group, const std::string & minimum, const std::string & maximum, const std::string & step,
            const std::string & type = "")
{
  SlicerParameter p;
  p.type = type;
  p.group = group;
  p.minimum = minimum;
  p.maximum = maximum;
  p.step = step;
  return p;
}

/** A Slicer parameter in `group`, of `type` when given (else derived from the option). */
inline SlicerParameter
SlicerIn(const std::string & group, const std::string & type = "", const std::vector<std::string> & elements = {})
{
  SlicerParameter p;
  p.type = type;
  p.group = group;
  p.elements = elements;
  return p;
}

/** Adds --version and the shared --threads option to `app`. */
inline void
AddCommonOptions(CLI::App & app, int & threads)
{
  app.set_version_flag("--version", std::string(app.get_name()) + " (ConeBeamCT " CBCT_VERSION ")");
  app.add_option("--threads", threads, "Number of CPU threads (default: all cores)");
  SlicerParameter p;
  p.group = "Advanced";
  p.minimum = "0";
  p.maximum = "1024";
  p.step = "1";
  p.defaultValue = "0";
  SlicerModule().parameters["--threads"] = p;
}

inline void
ApplyThreads(int threads)
{
  if (threads < 0)
    Bad("--threads", threads, "an integer >= 1");
  if (threads > 0)
    itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(threads);
}

/** Splits "a,b,c" into numbers; `counts` lists the accepted numbers of values. */
inline std::vector<double>
ParseNumbers(const std::string & option, const std::string & text, const std::vector<std::size_t> & counts, const std::string & expected)
{
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
  {
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    const std::string trimmed = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    char * end = nullptr;
    const double value = std::strtod(trimmed.c_str(), &end);
    if (trimmed.empty() || end == nullptr || *end != '\0')
      Bad(option, Quoted(text), expected);
    values.push_back(value);
  }
  if (!text.empty() && text.back() == ',')
    Bad(option, Quoted(text), expected);
  bool countOk = false;
  for (std::size_t n : counts)
    countOk = countOk || values.size() == n;
  if (!countOk)
    Bad(option, Quoted(text), expected);
  return values;
}

/** "N" or "N1,N2[,N3]" as `dimension` positive integers (a single value is repeated). */
inline std::vector<unsigned int>
ParseSizes(const std::string & option, const std::string & text, unsigned int dimension)
{
  const std::string expected = dimension == 2 ? "an integer N >= 1 or U,V" : "an integer N >= 1 or X,Y,Z";
  const auto values = ParseNumbers(option, text, { 1, dimension }, expected);
  std::vector<unsigned int> sizes;
  for (unsigned int d = 0; d < dimension; ++d)
  {
    const double v = values[values.size() == 1 ? 0 : d];
    if (!(v >= 1.) || v != std::floor(v) || v > 1e6)
      Bad(option, Quoted(text), expected + " (integers from 1 to 1000000)");
    sizes.push_back(static_cast<unsigned int>(v));
  }
  return sizes;
}

/** "s" or "s1,s2[,s3]" as `dimension` finite values > 0. */
inline std::vector<double>
ParsePositives(const std::string & option, const std::string & text, unsigned int dimension)
{
  const std::string expected = dimension == 2 ? "a value > 0 in mm, or U,V" : "a value > 0 in mm, or X,Y,Z";
  const auto values = ParseNumbers(option, text, { 1, dimension }, expected);
  std::vector<double> out;
  for (unsigned int d = 0; d < dimension; ++d)
  {
    const double v = values[values.size() == 1 ? 0 : d];
    if (!std::isfinite(v) || !(v > 0.))
      Bad(option, Quoted(text), expected);
    out.push_back(v);
  }
  return out;
}

/** Exactly `dimension` finite values. */
inline std::vector<double>
ParsePoint(const std::string & option, const std::string & text, unsigned int dimension)
{
  const std::string expected = dimension == 2 ? "U,V in mm" : "X,Y,Z in mm";
  const auto values = ParseNumbers(option, text, { dimension }, expected);
  for (double v : values)
    if (!std::isfinite(v))
      Bad(option, Quoted(text), expected + " (finite values)");
  return values;
}

inline void
CheckFinite(const std::string & option, double value, const std::string & expected = "a finite number")
{
  if (!std::isfinite(value))
    Bad(option, value, expected);
}

inline void
CheckPositive(const std::string & option, double value, const std::string & expected = "a value > 0 in mm")
{
  if (!std::isfinite(value) || !(value > 0.))
    Bad(option, value, expected);
}

/** Rejects a path that is not an existing, readable file. */
inline void
CheckReadableFile(const std::string & option, const std::string & path, const std::string & what = "file")
{
  if (path.empty())
    Bad(option, "empty", "the path of an existing " + what);
  if (!itksys::SystemTools::FileExists(path))
    Bad(option, Quoted(path), "an existing " + what + " (no such file)");
  if (itksys::SystemTools::FileIsDirectory(path))
    Bad(option, Quoted(path), "an existing " + what + " (this is a directory)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    Bad(option, Quoted(path), "a readable " + what + " (" + std::strerror(errno) + ")");
}

/** Rejects an output path whose directory does not exist. */
inline void
CheckOutputDirectory(const std::string & option, const std::string & path)
{
  if (path.empty())
    Bad(option, "empty", "an output file name");
  std::string directory = itksys::SystemTools::GetFilenamePath(path);
  if (directory.empty())
    directory = ".";
  if (!itksys::SystemTools::FileIsDirectory(directory))
    Bad(option, Quoted(path), "a file in an existing directory (" + directory + " is not one)");
}

/** Rejects an output image path whose extension names no format ITK can write. */
inline void
CheckImageOutput(const std::string & option, const std::string & path)
{
  CheckOutputDirectory(option, path);
  if (itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::IOFileModeEnum::WriteMode).IsNull())
    Bad(option, Quoted(path), "an image file name whose extension names a format (.mha, .nrrd, .nii, .nii.gz, .tif, ...)");
}

// ReadImage() and WriteImage(): cbctCheckedFiles.h (included at the end of this file).

/** "shepplogan" (scaled by `scaleMm`), "beads" (the helix bead phantom of cbctBeadPhantom.h, in mm)
 * or the path of a phantom text file (ellipsoids, cylinders and beads: see cbctGeometricPhantom.h). */
inline GeometricPhantom::Pointer
MakePhantom(const std::string & option, const std::string & value, double scaleMm)
{
  auto phantom = GeometricPhantom::New();
  std::string name = value;
  for (char & c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "shepplogan" || name == "shepp-logan" || name == "shepp_logan")
  {
    CheckPositive("--phantom-scale", scaleMm);
    phantom->SetToSheppLogan(scaleMm);
    return phantom;
  }
  if (name == "beads")
  {
    const auto beads = BeadPhantom::New(); // held: a temporary's solids would not outlive the loop's start
    for (const auto & solid : beads->GetPhantom()->GetEllipsoids())
      phantom->AddEllipsoid(solid);
    return phantom;
  }
  CheckReadableFile(option, value, "phantom file of ellipsoids, cylinders and beads (or 'shepplogan', 'beads')");
  RememberInput(value);
  phantom->ReadFromFile(value);
  return phantom;
}

/** Seconds as "0.123 s" or "12.3 s". */
inline std::string
FormatSeconds(double seconds)
{
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(seconds < 10. ? 3 : 1);
  out << seconds << " s";
  return out.str();
}

/** Wall-clock seconds since construction or the last Restart(). */
class Stopwatch
{
public:
  double
  Seconds() const
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_Start).count();
  }
  void
  Restart()
  {
    m_Start = std::chrono::steady_clock::now();
  }

private:
  std::chrono::steady_clock::time_point m_Start = std::chrono::steady_clock::now();
};

} // namespace cbct::apps

#include "cbctCheckedFiles.h"

#endif
