// cbct-import: reads a vendor's scan (Varian, Elekta, Nikon, Bruker, DICOM-CT-PD: a folder or files) and writes its
// projections, as line integrals or as the raw readings, and its geometry in RTK's XML.
#include "cbctAppSupport.h"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctScanImporter.h"
#include "cbctScanOption.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <itkByteSwapper.h>
#include <itkImageFileWriter.h>
#include <itksys/Directory.hxx>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>

namespace
{
using namespace cbct::apps;

struct Options
{
  std::vector<std::string> inputs;
  std::string output;
  std::string geometry;
  std::string format;
  bool raw = false;
  bool verbose = false;
  int threads = 0;
};

constexpr double DegreesPerRadian = 180. / 3.14159265358979323846;

/** The vendor names of --format, as "varian, elekta, ...". */
std::string
FormatNames()
{
  std::string names;
  for (const auto & vendor : cbct::ScanImporter::Vendors())
    names += (names.empty() ? "" : ", ") + vendor.name;
  return names.empty() ? std::string("none: this build reads no vendor's scans") : names;
}

/** Every file under `directory` (sub-folders included, a few levels deep): none may be replaced by an
 * output (a scan folder holds calibration and geometry files beside its projections). */
void
AddFilesUnder(const std::string & directory, std::vector<InputOption> & inputs, int depth = 0)
{
  itksys::Directory listing;
  if (depth > 4 || !listing.Load(directory))
    return;
  for (unsigned long i = 0; i < listing.GetNumberOfFiles(); ++i)
  {
    const std::string name = listing.GetFile(i);
    if (name == "." || name == "..")
      continue;
    const std::string path = directory + "/" + name;
    if (itksys::SystemTools::FileIsDirectory(path))
      AddFilesUnder(path, inputs, depth + 1);
    else
      inputs.push_back({ "INPUT", path, false });
  }
}

/** Checks the options before any scan is opened. */
void
Validate(Options & o)
{
  ApplyThreads(o.threads);
  if (o.inputs.empty())
    throw Error("INPUT is required: give a scan folder or file (cbct-import INPUT -o projections.mha -g geometry.xml)");
  for (const std::string & input : o.inputs)
    if (input.empty() || !itksys::SystemTools::FileExists(input))
      Bad("INPUT", Quoted(input), "an existing scan folder or file");
  if (!o.format.empty())
  {
    bool known = false;
    for (const auto & vendor : cbct::ScanImporter::Vendors())
      known = known || vendor.name == itksys::SystemTools::LowerCase(o.format);
    if (!known)
      Bad("--format", Quoted(o.format), "one of " + FormatNames());
  }
  ScanImporterOptions("INPUT"); // --air-fallback-i0's value
  if (ScanImportSettings().calibrate && o.raw)
    throw Error("--calibrate with --raw: the calibration needs line integrals; import without --raw");
  CheckImageOutput("--output", o.output);
  CheckOutputDirectory("--geometry", o.geometry);
}

/** Refuses outputs that are one of the scan's files (its projections, or any file of its folder). */
void
CheckOutputs(const Options & o, const cbct::ScannerScan * scan)
{
  std::vector<InputOption> inputs;
  for (const std::string & input : o.inputs)
  {
    if (itksys::SystemTools::FileIsDirectory(input))
      AddFilesUnder(input, inputs);
    else
      inputs.push_back({ "INPUT", input, false });
  }
  for (const std::string & file : scan->ProjectionFiles())
    inputs.push_back({ "INPUT", file, false });
  CheckOutputsAreNotInputs({ { "--output", o.output }, { "--geometry", o.geometry } }, inputs);
}

std::string
Fixed(double value, int digits = 1)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

/** What was found: the format, the projections and the angles they cover, the distances, the
 * detector, half fan or not; every number as the geometry written holds it. */
void
PrintSummary(const cbct::ScannerScan * scan, const itk::ImageBase<3> * stack, const std::string & input)
{
  const auto geometry = scan->Geometry();
  const unsigned int count = geometry->GetNumberOfProjections();
  std::cout << "cbct-import: " << scan->Format() << " from " << input << std::endl;

  // Angles: first and last gantry angle, the arc the source covers, and the way it turns (the sum of
  // the steps between successive source azimuths, each taken the short way round).
  const double pi = 3.14159265358979323846;
  double turned = 0.;
  for (unsigned int k = 1; k < count; ++k)
  {
    double step = geometry->GetSourceAzimuth(k) - geometry->GetSourceAzimuth(k - 1);
    step = std::remainder(step, 2. * pi);
    turned += step;
  }
  std::cout << "cbct-import: " << count << " projection" << (count == 1 ? "" : "s") << ", gantry angles "
            << Fixed(geometry->GetGantryAngle(0) * DegreesPerRadian) << " to "
            << Fixed(geometry->GetGantryAngle(count - 1) * DegreesPerRadian) << " deg, arc "
            << Fixed(geometry->GetAngularRange() * DegreesPerRadian) << " deg";
  if (count > 1)
    std::cout << ", " << (turned >= 0. ? "increasing" : "decreasing") << " angles (turned "
              << Fixed(turned * DegreesPerRadian) << " deg in all)";
  std::cout << std::endl;

  // The distances, as written in the geometry (their range where they vary).
  double sidMin = std::numeric_limits<double>::infinity(), sidMax = -sidMin, sddMin = sidMin, sddMax = -sidMin;
  for (unsigned int k = 0; k < count; ++k)
    if (geometry->HasParameters(k))
    {
      const auto & p = geometry->GetParameters(k);
      sidMin = std::min(sidMin, p.sourceToIsocenterDistance);
      sidMax = std::max(sidMax, p.sourceToIsocenterDistance);
      sddMin = std::min(sddMin, p.sourceToDetectorDistance);
      sddMax = std::max(sddMax, p.sourceToDetectorDistance);
    }
  const auto range = [](double lo, double hi) { return hi - lo < 0.05 ? Fixed(lo) : Fixed(lo) + " to " + Fixed(hi); };
  if (sidMin <= sidMax)
    std::cout << "cbct-import: source to isocenter " << range(sidMin, sidMax) << " mm, source to detector "
              << range(sddMin, sddMax) << " mm" << std::endl;

  const auto size = stack->GetLargestPossibleRegion().GetSize();
  const auto spacing = stack->GetSpacing();
  const auto origin = stack->GetOrigin();
  std::cout << "cbct-import: detector " << size[0] << " x " << size[1] << " pixels of " << spacing[0] << " x "
            << spacing[1] << " mm (" << Fixed(size[0] * spacing[0]) << " x " << Fixed(size[1] * spacing[1])
            << " mm), first pixel at (" << Fixed(origin[0], 3) << ", " << Fixed(origin[1], 3) << ") mm" << std::endl;

  // Half fan: the rotation axis seen near one edge of the detector (its reach at the axis on each side,
  // from the projection offsets, distances and the detector's extent: DisplacedDetectorCoverage).
  const cbct::DisplacedDetectorCoverage coverage(geometry, stack, std::numeric_limits<double>::infinity());
  const double near = std::min(coverage.Negative(), coverage.Positive());
  const double far = std::max(coverage.Negative(), coverage.Positive());
  double offsetMin = std::numeric_limits<double>::infinity(), offsetMax = -offsetMin;
  for (unsigned int k = 0; k < count; ++k)
    if (geometry->HasParameters(k))
    {
      offsetMin = std::min(offsetMin, geometry->GetParameters(k).projectionOffsetX);
      offsetMax = std::max(offsetMax, geometry->GetParameters(k).projectionOffsetX);
    }
  std::string offsets;
  if (offsetMin <= offsetMax)
    offsets = ", projection offset X " +
              (offsetMax - offsetMin < 0.05 ? Fixed(offsetMin) : Fixed(offsetMin) + " to " + Fixed(offsetMax)) +
              " mm against a detector half-width of " + Fixed(size[0] * spacing[0] / 2.) + " mm";
  const bool halfFan = near < 0.5 * far;
  std::cout << "cbct-import: " << (halfFan ? "half fan (offset detector)" : "full fan") << ": the detector reaches "
            << Fixed(near) << " mm and " << Fixed(far) << " mm from the rotation axis on its two sides (at the axis)"
            << offsets << std::endl;
}

/** Writes an image into the AtomicOutput `output`'s temporary place and checks it complete. */
template <typename TImage>
void
WriteTemporaryImage(const TImage * image, const std::string & temporary)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(temporary);
  writer->SetInput(image);
  writer->Update();
  cbct::ImageFileContents::Inspect(temporary).CheckComplete();
}

/** A MetaImage file (.mha) of the line-integral stack, mapped in memory: its header written first, its
 * pixels then filled in place as the scan is read (ScanImporter::StackMemory). Writing the finished
 * 1.9 GB stack of 600 projections of 1024 x 768 with write() cost 1.3 to 5 s on the 2-core machine (the
 * kernel copying it into the page cache), more than reading the scan; mapped, the stack's pages are
 * the file's. The room is reserved first (posix_fallocate), so that a full disk is an error here and
 * never a SIGBUS while the pixels are written. */
class MappedMetaImage
{
public:
  explicit MappedMetaImage(std::string path)
    : m_Path(std::move(path))
  {}
  ~MappedMetaImage() { Unmap(); }
  MappedMetaImage(const MappedMetaImage &) = delete;
  MappedMetaImage &
  operator=(const MappedMetaImage &) = delete;

  /** Writes the header of `stack` (size, spacing, origin; float, uncompressed, identity direction) and
   * maps room for its pixels; returns where they go. */
  float *
  Map(const itk::ImageBase<3> * stack)
  {
    const auto size = stack->GetLargestPossibleRegion().GetSize();
    const auto spacing = stack->GetSpacing();
    const auto origin = stack->GetOrigin();
    std::ostringstream header;
    header << std::setprecision(std::numeric_limits<double>::max_digits10);
    header << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = "
           << (itk::ByteSwapper<float>::SystemIsBigEndian() ? "True" : "False")
           << "\nCompressedData = False\nTransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = " << origin[0] << " "
           << origin[1] << " " << origin[2] << "\nElementSpacing = " << spacing[0] << " " << spacing[1] << " "
           << spacing[2] << "\nDimSize = " << size[0] << " " << size[1] << " " << size[2]
           << "\nElementType = MET_FLOAT\nCenterOfRotation =";
    // The pixels start on a 64-byte boundary of the mapping (the pointer must at least be aligned for
    // float): spaces before CenterOfRotation's values, which a reader skips.
    const std::string tail = " 0 0 0\nElementDataFile = LOCAL\n";
    std::string text = header.str();
    text += std::string((64 - (text.size() + tail.size()) % 64) % 64, ' ') + tail;
    m_HeaderBytes = text.size();
    m_Bytes = m_HeaderBytes + sizeof(float) * size[0] * size[1] * size[2];

    m_File = open(m_Path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (m_File < 0)
      Fail("cannot create it", errno);
    for (std::size_t done = 0; done < text.size();)
    {
      const ssize_t n = write(m_File, text.data() + done, text.size() - done);
      if (n <= 0)
        Fail("cannot write its header", n < 0 ? errno : ENOSPC);
      done += static_cast<std::size_t>(n);
    }
    const int reserved = posix_fallocate(m_File, 0, static_cast<off_t>(m_Bytes));
    if (reserved != 0)
      Fail("cannot reserve " + std::to_string(m_Bytes) + " bytes for it", reserved);
    void * mapped = mmap(nullptr, m_Bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_File, 0);
    if (mapped == MAP_FAILED)
      Fail("cannot map " + std::to_string(m_Bytes) + " bytes of it in memory", errno);
    m_Mapped = static_cast<char *>(mapped);
    return reinterpret_cast<float *>(m_Mapped + m_HeaderBytes);
  }

  /** Unmaps the file (its pages stay in the page cache, written out by AtomicOutput::Commit()). */
  void
  Unmap()
  {
    if (m_Mapped != nullptr)
      munmap(m_Mapped, m_Bytes);
    m_Mapped = nullptr;
    if (m_File >= 0)
      close(m_File);
    m_File = -1;
  }

private:
  [[noreturn]] void
  Fail(const std::string & what, int error)
  {
    Unmap();
    itkGenericExceptionMacro(<< m_Path << ": " << what << " (" << std::strerror(error) << ")");
  }

  std::string m_Path;
  int m_File = -1;
  char * m_Mapped = nullptr;
  std::size_t m_HeaderBytes = 0;
  std::size_t m_Bytes = 0;
};

/** Whether the line integrals go to `output` through MappedMetaImage: a .mha file. */
bool
MappedOutput(const std::string & output)
{
  const std::string extension = itksys::SystemTools::LowerCase(itksys::SystemTools::GetFilenameLastExtension(output));
  return extension == ".mha";
}

/** The inputs as the messages name them: the path, or "the first path (and N more)". */
std::string
InputsText(const Options & o)
{
  return o.inputs.front() +
         (o.inputs.size() > 1 ? " (and " + std::to_string(o.inputs.size() - 1) + " more)" : std::string());
}

int
Import(Options & o)
{
  Validate(o);
  Stopwatch clock;
  cbct::ScannerScan::Pointer scan;
  // --raw: the readings as stored, which need none of the calibration files that line integrals need
  // (Varian's air scan).
  cbct::ScanImporter::Options importOptions = ScanImporterOptions("INPUT");
  importOptions.readingsOnly = o.raw;
  const std::string rawWayOut = "; or --raw for the readings as stored, which need no air scan";
  try
  {
    scan = cbct::ScanImporter::Open(o.inputs, o.format, importOptions);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("INPUT " + InputsText(o) + ": " + ScanErrorText(e, rawWayOut) +
                (o.format.empty() && dynamic_cast<const cbct::MissingAirScanError *>(&e) == nullptr
                   ? " (--format: one of " + FormatNames() + ")"
                   : ""));
  }
  CheckOutputs(o, scan);
  const double openSeconds = clock.Seconds();

  clock.Restart();
  // Line integrals to a .mha: read straight into the output file's temporary place, mapped in memory.
  std::unique_ptr<cbct::AtomicOutput> mappedOutput;
  std::unique_ptr<MappedMetaImage> mapped;
  cbct::ScanImporter::StackMemory memory;
  if (!o.raw && MappedOutput(o.output))
  {
    try
    {
      mappedOutput = std::make_unique<cbct::AtomicOutput>(o.output);
      mappedOutput->SetProtectedFiles(InputFiles());
    }
    catch (const itk::ExceptionObject & e)
    {
      throw Error("--output " + o.output + ": " + OneLine(WithoutItkPrefix(e.GetDescription())));
    }
    mapped = std::make_unique<MappedMetaImage>(mappedOutput->TemporaryPath());
    memory = [&mapped](const cbct::ScannerScan::ProjectionsType * stack) { return mapped->Map(stack); };
  }
  cbct::ScannerScan::ProjectionsType::Pointer lineIntegrals;
  cbct::ScanImporter::RawProjections raw;
  try
  {
    if (o.raw)
      raw = cbct::ScanImporter::ReadRaw(scan);
    else
      lineIntegrals = cbct::ScanImporter::ReadLineIntegrals(scan, memory);
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("INPUT " + InputsText(o) + ": " + ScanErrorText(e, rawWayOut));
  }
  const double readSeconds = clock.Seconds();
  const itk::ImageBase<3> * stack = o.raw ? raw.image.GetPointer() : lineIntegrals.GetPointer();
  try
  {
    cbct::ScanImporter::CheckDetectorReachesAxis(scan, stack); // a geometry no scanner has is never written
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("INPUT " + InputsText(o) + ": " + WithoutItkPrefix(e.GetDescription()));
  }
  if (!o.raw)
  {
    const NonFiniteValues nonFinite = FindNonFinite(lineIntegrals.GetPointer());
    if (nonFinite.Count() > 0)
      throw Error("INPUT " + InputsText(o) + ": the line integrals of the " + scan->Format() + " reader hold " +
                  nonFinite.Describe("pixel (u, v, projection)") + "; expected finite values (use --raw to see the readings)");
  }

  PrintSummary(scan, stack, InputsText(o));
  if (o.verbose)
    for (const std::string & line : scan->Log())
      std::cout << "cbct-import: log: " << line << std::endl;
  // The geometry written: the scan's, or with --calibrate the one found from its line integrals (read
  // before a mapped output is unmapped: its pixels are the stack's).
  cbct::ThreeDCircularProjectionGeometry::Pointer scanGeometry = scan->Geometry();
  if (ScanImportSettings().calibrate)
    scanGeometry = CalibratedGeometry(scanGeometry, lineIntegrals, "INPUT " + InputsText(o), o.verbose ? &std::cout : nullptr);

  // Both outputs written beside their places, then moved into place together: a failure leaves neither.
  clock.Restart();
  try
  {
    std::unique_ptr<cbct::AtomicOutput> written;
    if (mapped)
    {
      mapped->Unmap(); // the stack's pixels are the file's: nothing left to write (nor to read: unmapped)
      cbct::ImageFileContents::Inspect(mappedOutput->TemporaryPath()).CheckComplete();
    }
    else
    {
      written = std::make_unique<cbct::AtomicOutput>(o.output);
      written->SetProtectedFiles(InputFiles());
      if (o.raw)
        cbct::ScanImporter::VisitRaw(raw, [&](auto * image) { WriteTemporaryImage(image, written->TemporaryPath()); });
      else
        WriteTemporaryImage(lineIntegrals.GetPointer(), written->TemporaryPath());
    }
    cbct::AtomicOutput & projections = mapped ? *mappedOutput : *written;
    cbct::AtomicOutput geometry(o.geometry);
    geometry.SetProtectedFiles(InputFiles());
    auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
    writer->SetFilename(geometry.TemporaryPath());
    // The writer keeps a plain pointer: the geometry (a new object for several scans) must outlive it.
    writer->SetObject(scanGeometry);
    writer->WriteFile();
    projections.Commit();
    geometry.Commit();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw Error("--output " + o.output + " and --geometry " + o.geometry + ": could not write the files (" +
                OneLine(WithoutItkPrefix(e.GetDescription())) + ")");
  }
  const double writeSeconds = clock.Seconds();
  const auto count = stack->GetLargestPossibleRegion().GetSize(2);
  std::cout << "cbct-import: wrote " << o.output << " ("
            << (o.raw ? "raw readings, " + itk::ImageIOBase::GetComponentTypeAsString(raw.componentType)
                      : std::string("line integrals, float"))
            << ") and " << o.geometry << std::endl;
  if (o.verbose)
    std::cout << "cbct-import: opened in " << FormatSeconds(openSeconds) << ", read " << count << " projections in "
              << FormatSeconds(readSeconds) << " (" << Fixed(count / std::max(readSeconds, 1e-9), 0)
              << " per second), wrote in " << FormatSeconds(writeSeconds) << std::endl;
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Reads a scanner's scan (Varian TrueBeam/ProBeam XIM + Scan.xml or OBI HND + ProjectionInfo.xml, Elekta "
                "XVI HIS + _Frames.xml or FRAME.DBF, Nikon .xtekct + TIFF, Bruker SkyScan .log + TIFF, DICOM-CT-PD CT "
                "projection data such as the AAPM/Mayo low-dose CT scans: a folder or a file, the vendor detected from its contents or forced with --format) and writes its projections as "
                "line integrals (the vendor's air, flood and dark calibration applied; --raw: the readings as stored, in "
                "their integer type) and its geometry as RTK's XML (--calibrate: the rotation axis found from the "
                "projections). Prints what it found: the format, the projections, the angles covered, the detector, "
                "half fan or not; --verbose adds every conversion made.",
                "cbct-import" };
  app.add_option("input,--input", o.inputs,
                 "The scan: its folder, or its file (e.g. a .xtekct, a _Frames.xml, a lone .xim); several are read as one "
                 "scan, one after the other (e.g. lone .xim files), and must share one detector grid");
  app.add_option("-o,--output", o.output, "Output projections (.mha, .nrrd, .nii, .tif, ...)")->required();
  app.add_option("-g,--geometry", o.geometry, "Output geometry file (RTK ThreeDCircularGeometry XML)")->required();
  app.add_flag("--raw", o.raw,
               "Write the detector readings as stored, in their integer type, instead of line integrals (they need no "
               "air scan or other calibration file: a lone XIM or HND file is read as it is)");
  app.add_option("--format", o.format, "Read the scan as this vendor's (skips the detection): " + FormatNames());
  app.add_flag("-v,--verbose", o.verbose, "Print every conversion made and every vendor field used, and the times");
  AddScanImportOptions(app);
  AddCalibrateOption(app);
  AddCommonOptions(app, o.threads);
  std::map<std::string, SlicerParameter> slicer{
    { "--input", SlicerIo("directory", "input", "Input") },
    { "--output", SlicerIo("image", "output", "Output") },
    { "--geometry", SlicerIo("file", "output", "Output", ".xml") },
    { "--raw", SlicerIn("Output") },
    { "--format", SlicerIn("Input") },
    { "--verbose", SlicerIn("Advanced") },
  };
  DescribeForSlicer("CBCT Import Scanner Data", slicer);
  return Run(app, argc, argv, [&] { return Import(o); });
}
