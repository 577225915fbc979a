#include "cbctScanImporter.h"

#include "cbctBrukerScan.h"
#include "cbctDetectorAxisMiss.h"
#include "cbctDicomCTPDScan.h"
#include "cbctElektaXVIScan.h"
#include "cbctImageFileContents.h"
#include "cbctMissingAirScanError.h"
#include "cbctNikonScan.h"
#include "cbctScanSeries.h"
#include "cbctScannerImageIOFactories.h"
#include "cbctVarianScan.h"
#include "cbctWorkerErrors.h"

#include <itkImageIOFactory.h>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>

namespace cbct
{
namespace
{

[[noreturn]] void
Fail(const std::string & message)
{
  itkGenericExceptionMacro(<< message);
}

/** An exception's description without ITK's "ITK ERROR: " and "ClassName(0x...): " prefixes, which
 * ITK 5.2 puts in the description itself (a message passed on would carry them twice). */
std::string
Description(const itk::ExceptionObject & e)
{
  static const std::regex prefix("ITK ERROR: ([A-Za-z0-9_:<>, ]+\\(0x[0-9a-fA-F]+\\): )?");
  return std::regex_replace(std::string(e.GetDescription()), prefix, "");
}

std::string
Lower(std::string text)
{
  for (char & c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/** The ImageIO that reads `file`, its header read. The ImageIO class of `like` (the first file's) is
 * tried first: asking the factory tries every registered ImageIO's CanReadFile() in turn, which costs
 * more than reading a small header. */
itk::ImageIOBase::Pointer
OpenImageIO(const std::string & file, const itk::ImageIOBase * like)
{
  itk::ImageIOBase::Pointer io;
  if (like != nullptr)
  {
    itk::LightObject::Pointer another = like->CreateAnother();
    auto * candidate = dynamic_cast<itk::ImageIOBase *>(another.GetPointer());
    if (candidate != nullptr && candidate->CanReadFile(file.c_str()))
      io = candidate;
  }
  if (io.IsNull())
    io = itk::ImageIOFactory::CreateImageIO(file.c_str(), itk::IOFileModeEnum::ReadMode);
  if (io.IsNull())
  {
    if (!itksys::SystemTools::FileExists(file, true))
      Fail("projection file " + file + " does not exist");
    Fail("projection file " + file + ": no ImageIO reads it (its format is none that ITK or ConeBeamCT reads)");
  }
  io->SetFileName(file);
  io->ReadImageInformation();
  return io;
}

/** The detector size of an ImageIO's image: one 2D image, or a 3D image of one slice, of one component. */
std::array<itk::SizeValueType, 2>
DetectorSize(const itk::ImageIOBase * io, const std::string & file)
{
  const unsigned int dimensions = io->GetNumberOfDimensions();
  const bool oneSlice = dimensions == 2 || (dimensions == 3 && io->GetDimensions(2) == 1);
  if (!oneSlice || io->GetNumberOfComponents() != 1)
  {
    std::ostringstream what;
    what << "projection file " << file << " holds ";
    for (unsigned int d = 0; d < dimensions; ++d)
      what << (d > 0 ? " x " : "") << io->GetDimensions(d);
    what << " pixels of " << io->GetNumberOfComponents()
         << " component(s); expected one projection: a 2D image (or a 3D image of one slice) of one value per pixel";
    Fail(what.str());
  }
  return { io->GetDimensions(0), io->GetDimensions(1) };
}

template <typename TIn, typename TOut>
void
ConvertPixels(const void * from, std::size_t count, TOut * to)
{
  const auto * in = static_cast<const TIn *>(from);
  for (std::size_t i = 0; i < count; ++i)
    to[i] = static_cast<TOut>(in[i]);
}

/** Converts `count` values of `type` to TOut. */
template <typename TOut>
void
ConvertPixels(itk::IOComponentEnum type, const void * from, std::size_t count, TOut * to, const std::string & file)
{
  using C = itk::IOComponentEnum;
  switch (type)
  {
    case C::UCHAR:
      return ConvertPixels<unsigned char>(from, count, to);
    case C::CHAR:
      return ConvertPixels<signed char>(from, count, to);
    case C::USHORT:
      return ConvertPixels<unsigned short>(from, count, to);
    case C::SHORT:
      return ConvertPixels<short>(from, count, to);
    case C::UINT:
      return ConvertPixels<unsigned int>(from, count, to);
    case C::INT:
      return ConvertPixels<int>(from, count, to);
    case C::ULONG:
      return ConvertPixels<unsigned long>(from, count, to);
    case C::LONG:
      return ConvertPixels<long>(from, count, to);
    case C::ULONGLONG:
      return ConvertPixels<unsigned long long>(from, count, to);
    case C::LONGLONG:
      return ConvertPixels<long long>(from, count, to);
    case C::FLOAT:
      return ConvertPixels<float>(from, count, to);
    case C::DOUBLE:
      return ConvertPixels<double>(from, count, to);
    default:
      Fail("projection file " + file + " holds pixels of type " + itk::ImageIOBase::GetComponentTypeAsString(type) +
           "; expected integers or floating-point values");
  }
}

/** Reads every projection file of `scan` into one stack of TPixel (see ScanImporter). With
 * `sameType`, every file must hold TPixel (the raw readings, kept as stored). */
template <typename TPixel>
typename itk::Image<TPixel, 3>::Pointer
ReadStack(const ScannerScan * scan,
          const itk::ImageIOBase * firstIO,
          bool measured,
          bool sameType,
          const std::function<TPixel *(const itk::Image<TPixel, 3> *)> * provide = nullptr)
{
  using ImageType = itk::Image<TPixel, 3>;
  const std::vector<std::string> & files = scan->ProjectionFiles();
  const auto size = DetectorSize(firstIO, files.front());
  const std::size_t slicePixels = static_cast<std::size_t>(size[0]) * size[1];
  const itk::IOComponentEnum stackType = itk::ImageIOBase::MapPixelType<TPixel>::CType;

  auto stack = ImageType::New();
  typename ImageType::RegionType region;
  region.SetSize({ { size[0], size[1], files.size() } });
  stack->SetRegions(region);
  const auto spacing = scan->DetectorSpacing();
  const auto origin = scan->DetectorOrigin();
  typename ImageType::SpacingType stackSpacing;
  typename ImageType::PointType stackOrigin;
  for (unsigned int d = 0; d < 2; ++d)
  {
    stackSpacing[d] = spacing[d];
    stackOrigin[d] = origin[d];
  }
  stackSpacing[2] = 1.;
  stackOrigin[2] = 0.;
  stack->SetSpacing(stackSpacing);
  stack->SetOrigin(stackOrigin);
  if (provide != nullptr && *provide)
  {
    // The caller's memory (e.g. the output file mapped), which outlives the stack.
    TPixel * provided = (*provide)(stack.GetPointer());
    if (provided == nullptr)
      Fail("ScanImporter: no memory provided for the stack of " + std::to_string(files.size()) + " projections");
    stack->GetPixelContainer()->SetImportPointer(provided, region.GetNumberOfPixels(), false);
  }
  else
    stack->Allocate();
  TPixel * buffer = stack->GetBufferPointer();

  std::mutex errorMutex;
  std::size_t errorIndex = files.size();
  std::string errorMessage;
  auto readOne = [&](itk::SizeValueType p) {
    const std::string & file = files[p];
    try
    {
      if (measured && p > 0) // the first file: checked by FirstFile()
        ImageFileContents::InspectAndCheck(file);
      itk::ImageIOBase::Pointer io = OpenImageIO(file, firstIO);
      const auto fileSize = DetectorSize(io, file);
      if (fileSize != size)
      {
        std::ostringstream what;
        what << "projection file " << file << " has " << fileSize[0] << " x " << fileSize[1] << " pixels; the first, "
             << files.front() << ", has " << size[0] << " x " << size[1]
             << ": every projection of a scan must have the same size";
        Fail(what.str());
      }
      const itk::IOComponentEnum type = io->GetComponentType();
      if (sameType && type != stackType)
        Fail("projection file " + file + " holds " + itk::ImageIOBase::GetComponentTypeAsString(type) + " pixels; the first, " +
             files.front() + ", holds " + itk::ImageIOBase::GetComponentTypeAsString(stackType) +
             ": raw readings are kept in their type, so every file must have the same one");
      itk::ImageIORegion ioRegion(io->GetNumberOfDimensions());
      for (unsigned int d = 0; d < io->GetNumberOfDimensions(); ++d)
      {
        ioRegion.SetIndex(d, 0);
        ioRegion.SetSize(d, io->GetDimensions(d));
      }
      io->SetIORegion(ioRegion);
      TPixel * slice = buffer + p * slicePixels;
      if (type == stackType)
        io->Read(slice);
      else
      {
        // One buffer per thread for all its files: a fresh one per file (megabytes, from mmap) would
        // cost its page faults every time, as much as the decoding itself.
        static thread_local std::vector<char> pixels;
        pixels.resize(static_cast<std::size_t>(io->GetImageSizeInBytes()));
        io->Read(pixels.data());
        ConvertPixels(type, pixels.data(), slicePixels, slice, file);
      }
    }
    catch (const std::exception & e)
    {
      std::string message = e.what();
      if (const auto * itkError = dynamic_cast<const itk::ExceptionObject *>(&e))
        message = Description(*itkError);
      if (message.find(file) == std::string::npos)
        message = "projection file " + file + ": " + message;
      const std::lock_guard<std::mutex> lock(errorMutex);
      if (p < errorIndex) // the first file in order, whatever the threads' order
      {
        errorIndex = p;
        errorMessage = message;
      }
    }
  };
  ParallelizeArray(0, files.size(), readOne);
  if (errorIndex < files.size())
    Fail(errorMessage);
  return stack;
}

/** The first projection file's ImageIO and whether its format is one ImageFileContents measures. */
itk::ImageIOBase::Pointer
FirstFile(const ScannerScan * scan, bool & measured)
{
  RegisterScannerImageIOFactories();
  if (scan == nullptr)
    Fail("ScanImporter: no scan");
  const std::vector<std::string> & files = scan->ProjectionFiles();
  if (files.empty())
    Fail("ScanImporter: the scan (" + scan->Format() + ") lists no projection files");
  itk::ImageIOBase::Pointer io;
  try
  {
    // The scan's own reader first, where it names one (another registered reader may claim its files).
    const itk::ImageIOBase::Pointer own = scan->ProjectionImageIO();
    io = OpenImageIO(files.front(), own.GetPointer());
    measured = ImageFileContents::InspectAndCheck(files.front()).Measured();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::string message = Description(e);
    Fail(message.find(files.front()) == std::string::npos ? "projection file " + files.front() + ": " + message : message);
  }
  return io;
}

/** Checks that a scan opened by a vendor's reader can be read: one geometry projection per file, a
 * detector grid of finite positive spacing and finite origin. */
void
CheckScan(const ScannerScan * scan, const std::string & vendor, const std::string & path)
{
  if (scan == nullptr)
    Fail(vendor + " scan " + path + ": the reader opened nothing");
  const std::size_t files = scan->ProjectionFiles().size();
  if (files == 0)
    Fail(vendor + " scan " + path + ": no projection files found");
  const auto geometry = scan->Geometry();
  const std::size_t projections = geometry ? geometry->GetNumberOfProjections() : 0;
  if (projections != files)
    Fail(vendor + " scan " + path + ": " + std::to_string(files) + " projection files but " + std::to_string(projections) +
         " projections in its geometry; expected one per file");
  const auto spacing = scan->DetectorSpacing();
  const auto origin = scan->DetectorOrigin();
  for (unsigned int d = 0; d < 2; ++d)
    if (!std::isfinite(spacing[d]) || !(spacing[d] > 0.) || !std::isfinite(origin[d]))
    {
      std::ostringstream what;
      what << vendor << " scan " << path << ": detector pixel spacing " << spacing[0] << " x " << spacing[1]
           << " mm at (" << origin[0] << ", " << origin[1] << ") mm; expected finite spacings > 0 and a finite origin";
      Fail(what.str());
    }
  // Distances a scanner can have, whatever the vendor: a field read in the wrong unit or a placeholder
  // for "unknown" (Varian's 99999999) taken as a distance gives a geometry no scanner has, which must
  // never be written. 10 m is far beyond any cone-beam scanner (clinical arms about 1.5 m, the largest
  // industrial CT a few metres).
  constexpr double mostDistance = 10000.;
  for (unsigned int k = 0; k < projections; ++k)
  {
    if (!geometry->HasParameters(k))
      continue;
    const auto & p = geometry->GetParameters(k);
    const double sid = p.sourceToIsocenterDistance;
    const double sdd = p.sourceToDetectorDistance;
    const double values[] = { sid, sdd, p.projectionOffsetX, p.projectionOffsetY, p.sourceOffsetX, p.sourceOffsetY };
    bool finite = true;
    for (double v : values)
      finite = finite && std::isfinite(v);
    if (!finite || !(sid > 0.) || sid > mostDistance || !(sdd == 0. || (sdd > sid && sdd <= mostDistance)))
    {
      std::ostringstream what;
      what << vendor << " scan " << path << ": projection " << k << " (" << scan->ProjectionFiles()[k]
           << ") has source-to-isocenter distance " << sid << " mm, source-to-detector distance " << sdd
           << " mm, detector offset (" << p.projectionOffsetX << ", " << p.projectionOffsetY << ") mm, source offset ("
           << p.sourceOffsetX << ", " << p.sourceOffsetY
           << ") mm; expected finite values, a source-to-isocenter distance > 0 and a source-to-detector distance "
              "larger (or 0: parallel beam), both at most "
           << mostDistance << " mm: the reader took a field in another unit or a placeholder as a distance";
      Fail(what.str());
    }
  }
}

} // namespace

const std::vector<ScanImporter::Vendor> &
ScanImporter::Vendors()
{
  // In the order of detection (see the class documentation); each vendor's entry joins the table
  // when its reader is part of the library.
  static const std::vector<Vendor> vendors{
    { "varian",
      "Varian TrueBeam/ProBeam/Halcyon (Scan.xml + XIM) and OBI (ProjectionInfo.xml + HND)",
      "a folder with Scan.xml, ProjectionInfo.xml or Proj_*.xim / Proj_*.hnd files, or one .xim / .hnd file",
      [](const std::string & path) { return VarianScan::Recognizes(path); },
      [](const std::string & path) -> ScannerScan::Pointer { return VarianScan::Open(path).GetPointer(); },
      [](const std::string & path, const Options & options) -> ScannerScan::Pointer {
        VarianScan::Options varian;
        varian.airScanFallback = options.airScanFallback;
        varian.fallbackI0 = options.fallbackI0;
        varian.readingsOnly = options.readingsOnly;
        return VarianScan::Open(path, varian).GetPointer();
      } },
    { "elekta",
      "Elekta XVI (_Frames.xml or IMAGE.DBF/FRAME.DBF + HIS)",
      "a folder with .his files and _Frames.xml, or a folder img_* with .his files and IMAGE.DBF/FRAME.DBF in it or "
      "up to three folders above, or a _Frames.xml file",
      [](const std::string & path) { return ElektaXVIScan::Recognizes(path); },
      [](const std::string & path) -> ScannerScan::Pointer { return ElektaXVIScan::Open(path).GetPointer(); } },
    { "nikon",
      "Nikon/X-Tek micro-CT (.xtekct + TIFF, angles from _ctdata.txt or .ang)",
      "a .xtekct file, or a folder holding one",
      [](const std::string & path) { return NikonScan::Recognizes(path); },
      [](const std::string & path) -> ScannerScan::Pointer { return NikonScan::Open(path).GetPointer(); } },
    { "dicomctpd",
      "DICOM-CT-PD CT projection data (AAPM/Mayo low-dose CT, TCIA LDCT-and-Projection-data: one DICOM file per "
      "projection)",
      "a DICOM file holding (7029,1010) NumberofDetectorRows and (7031,1001) DetectorFocalCenterAngularPosition, or "
      "a folder one of whose first three DICOM files is one",
      [](const std::string & path) { return DicomCTPDScan::Recognizes(path); },
      [](const std::string & path) -> ScannerScan::Pointer { return DicomCTPDScan::Open(path).GetPointer(); } },
    { "bruker",
      "Bruker SkyScan micro-CT (.log + TIFF, flat and dark fields)",
      "a .log file whose start holds [System] and [Acquisition], or a folder holding one",
      [](const std::string & path) { return BrukerScan::Recognizes(path); },
      [](const std::string & path) -> ScannerScan::Pointer { return BrukerScan::Open(path).GetPointer(); } },
  };
  return vendors;
}

ScannerScan::Pointer
ScanImporter::Open(const std::string & path, const std::string & format)
{
  return Open(path, format, Vendors(), Options());
}

ScannerScan::Pointer
ScanImporter::Open(const std::string & path, const std::string & format, const Options & options)
{
  return Open(path, format, Vendors(), options);
}

ScannerScan::Pointer
ScanImporter::Open(const std::vector<std::string> & paths, const std::string & format)
{
  return Open(paths, format, Options());
}

ScannerScan::Pointer
ScanImporter::Open(const std::vector<std::string> & paths, const std::string & format, const Options & options)
{
  if (paths.empty())
    Fail("no scan path given; expected one or more scan folders or files");
  if (paths.size() == 1)
    return Open(paths.front(), format, options);
  auto series = ScanSeries::New();
  for (const std::string & path : paths)
    series->AddScan(Open(path, format, options), path);
  return series.GetPointer();
}

ScannerScan::Pointer
ScanImporter::Open(const std::string & path, const std::string & format, const std::vector<Vendor> & vendors)
{
  return Open(path, format, vendors, Options());
}

ScannerScan::Pointer
ScanImporter::Open(const std::string & path,
                   const std::string & format,
                   const std::vector<Vendor> & vendors,
                   const Options & options)
{
  // The readers open the projection files' headers through ITK's object factory, as ReadRaw() and
  // ReadLineIntegrals() their pixels: the vendor ImageIOs must be there (they are, unless a program
  // unregistered every factory).
  RegisterScannerImageIOFactories();
  if (path.empty())
    Fail("scan path is empty; expected a scan folder or file");
  if (!itksys::SystemTools::FileExists(path))
    Fail("scan " + path + " does not exist; expected a scan folder or file");
  const Vendor * chosen = nullptr;
  if (!format.empty())
  {
    const std::string name = Lower(format);
    for (const Vendor & vendor : vendors)
      if (vendor.name == name)
        chosen = &vendor;
    if (chosen == nullptr)
    {
      std::string names;
      for (const Vendor & vendor : vendors)
        names += (names.empty() ? "" : ", ") + vendor.name;
      Fail("scan format '" + format + "' is none this build reads; expected one of: " +
           (names.empty() ? std::string("(none: no vendor reader is built in)") : names));
    }
  }
  else
  {
    for (const Vendor & vendor : vendors)
      if (vendor.recognizes && vendor.recognizes(path))
      {
        chosen = &vendor;
        break;
      }
    if (chosen == nullptr)
    {
      std::string looked;
      for (const Vendor & vendor : vendors)
        looked += "; " + vendor.name + " (" + vendor.description + "): " + vendor.looksFor;
      Fail("no scanner scan recognised in " + path + ". Looked for" +
           (looked.empty() ? std::string(" nothing: no vendor reader is built in") : looked.substr(1)) +
           (vendors.empty() ? std::string() : ". A format given by name skips the detection, and its reader says what is missing"));
    }
  }
  ScannerScan::Pointer scan;
  try
  {
    scan = chosen->openWithOptions ? chosen->openWithOptions(path, options) : chosen->open(path);
  }
  catch (MissingAirScanError & e)
  {
    // Kept a MissingAirScanError: the apps and the Python binding add how their users ask for the
    // fallback (ScanImporter does not know their words).
    e.SetDescription(chosen->name + ": " + Description(e));
    throw;
  }
  catch (const itk::ExceptionObject & e)
  {
    Fail(chosen->name + ": " + Description(e));
  }
  CheckScan(scan.GetPointer(), chosen->name, path);
  return scan;
}

ScanImporter::ProjectionsType::Pointer
ScanImporter::ReadLineIntegrals(const ScannerScan * scan)
{
  return ReadLineIntegrals(scan, StackMemory());
}

ScanImporter::ProjectionsType::Pointer
ScanImporter::ReadLineIntegrals(const ScannerScan * scan, const StackMemory & memory)
{
  bool measured = false;
  const itk::ImageIOBase::Pointer first = FirstFile(scan, measured);
  ProjectionsType::Pointer stack = ReadStack<float>(scan, first, measured, false, &memory);
  scan->ToLineIntegrals(stack);
  return stack;
}

ScanImporter::RawProjections
ScanImporter::ReadRaw(const ScannerScan * scan)
{
  bool measured = false;
  const itk::ImageIOBase::Pointer first = FirstFile(scan, measured);
  RawProjections raw;
  raw.componentType = first->GetComponentType();
  using C = itk::IOComponentEnum;
  switch (raw.componentType)
  {
    case C::UCHAR:
      raw.image = ReadStack<unsigned char>(scan, first, measured, true);
      break;
    case C::CHAR:
      raw.image = ReadStack<signed char>(scan, first, measured, true);
      break;
    case C::USHORT:
      raw.image = ReadStack<unsigned short>(scan, first, measured, true);
      break;
    case C::SHORT:
      raw.image = ReadStack<short>(scan, first, measured, true);
      break;
    case C::UINT:
      raw.image = ReadStack<unsigned int>(scan, first, measured, true);
      break;
    case C::INT:
      raw.image = ReadStack<int>(scan, first, measured, true);
      break;
    case C::ULONG:
      raw.image = ReadStack<unsigned long>(scan, first, measured, true);
      break;
    case C::LONG:
      raw.image = ReadStack<long>(scan, first, measured, true);
      break;
    case C::ULONGLONG:
      raw.image = ReadStack<unsigned long long>(scan, first, measured, true);
      break;
    case C::LONGLONG:
      raw.image = ReadStack<long long>(scan, first, measured, true);
      break;
    case C::FLOAT:
      raw.image = ReadStack<float>(scan, first, measured, true);
      break;
    case C::DOUBLE:
      raw.image = ReadStack<double>(scan, first, measured, true);
      break;
    default:
      Fail("projection file " + scan->ProjectionFiles().front() + " holds pixels of type " +
           itk::ImageIOBase::GetComponentTypeAsString(raw.componentType) + "; expected integers or floating-point values");
  }
  return raw;
}

void
ScanImporter::CheckDetectorReachesAxis(const ScannerScan * scan, const itk::ImageBase<3> * stack)
{
  if (scan == nullptr || stack == nullptr)
    Fail("ScanImporter::CheckDetectorReachesAxis: no scan or no stack");
  const std::optional<DetectorAxisMiss> miss = DetectorAxisMiss::Find(scan->Geometry(), stack);
  if (!miss)
    return;
  Fail(scan->Format() + " scan: the detector misses the rotation axis: " + miss->Describe() +
       "; no scanner takes such projections: the reader likely took a detector shift in another unit or a placeholder "
       "(see the geometry's ProjectionOffsetX and the reader's log)");
}

} // namespace cbct
