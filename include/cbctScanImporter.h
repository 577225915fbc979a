#ifndef cbctScanImporter_h
#define cbctScanImporter_h

#include "ConeBeamCTExport.h"
#include "cbctScannerScan.h"

#include <itkImage.h>
#include <itkImageIOBase.h>

#include <functional>
#include <string>
#include <vector>

namespace cbct
{

/** \class ScanImporter
 * \brief Opens a vendor's scan (a folder or a file) with the ScannerScan subclass that recognises
 * it, and reads its projection files into one stack: line integrals for reconstruction, or the
 * detector readings exactly as stored.
 *
 * \par Detection
 * Open() asks each vendor of Vendors() in turn whether it recognises the path (its static
 * Recognizes(): names and a few bytes) and opens the scan with the first that does. The order is
 * from the most specific file names to the most generic one, so that a folder holding the files of
 * several vendors is read as the one whose marks are the least likely by chance:
 *   1. varian  Varian TrueBeam/ProBeam/Halcyon (Scan.xml + XIM) and OBI (ProjectionInfo.xml + HND)
 *   2. elekta  Elekta XVI (_Frames.xml or FRAME.DBF/IMAGE.DBF + HIS)
 *   3. nikon   Nikon/X-Tek (.xtekct + TIFF)
 *   4. dicomctpd DICOM-CT-PD (AAPM/Mayo CT projection data: DICOM files with its private tags)
 *   5. bruker  Bruker SkyScan (.log + TIFF): a .log file is the most generic mark, hence last
 * A vendor appears in the table once its reader is part of the library. Open(path, format) skips
 * the detection: the named vendor opens the path, and its own message says what is missing. When
 * no vendor recognises the path, the error lists what each one looked for.
 *
 * \par Reading
 * ReadLineIntegrals() and ReadRaw() read ProjectionFiles() through ITK's object factory (the vendor
 * ImageIOs are registered there, so a file is opened by whatever ImageIO reads it), several files
 * at a time (itk::MultiThreaderBase), each straight into its slice of the stack. Every file must be
 * one 2D image (or a 3D one of one slice) of one component, of the first file's size; a file
 * another size is refused naming both files and sizes. Files of a format that
 * cbct::ImageFileContents measures (MetaImage, NRRD, TIFF, ...) are checked complete first, since
 * some of ITK's readers fill a file cut short with zeros. The stack is (u, v, projection index), with
 * DetectorSpacing() and DetectorOrigin() on the detector axes and spacing 1, origin 0 on the third,
 * identity direction; the files' own spacing and origin are not used (the scan's are the vendor's
 * calibrated ones). ReadLineIntegrals() then calls the scan's ToLineIntegrals().
 * CheckDetectorReachesAxis() refuses a scan whose detector lies wholly beside the rotation axis: the
 * front ends (cbct-import, Python's read_scan) call it on every scan they return.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ScanImporter
{
public:
  using ProjectionsType = ScannerScan::ProjectionsType;

  /** Choices passed to the vendor that opens the scan; each vendor uses those that apply to it and
   * ignores the others. */
  struct Options
  {
    /** Varian (TrueBeam, OBI): without an air scan under Calibrations/, normalise with a constant I0
     * instead of failing (VarianScan::Options::airScanFallback; logged). */
    bool airScanFallback = false;
    /** That I0 (counts at the scan's mean norm-chamber reading); 0: the stack's brightest reading. */
    double fallbackI0 = 0.;
    /** Only the readings as stored will be read (ReadRaw()): calibration files that only line
     * integrals need (Varian's air scan) are looked for and logged but not required. */
    bool readingsOnly = false;
  };

  /** One vendor's scan reader: a name for --format, what it reads (for messages), what its
   * Recognizes() looks for (for the error when nothing matches), and its two static functions. */
  struct Vendor
  {
    std::string name;        // "varian", as --format spells it
    std::string description; // "Varian TrueBeam/ProBeam (Scan.xml + XIM) and OBI (ProjectionInfo.xml + HND)"
    std::string looksFor;    // "a folder with Scan.xml or ProjectionInfo.xml, or .xim/.hnd files"
    std::function<bool(const std::string &)> recognizes;
    std::function<ScannerScan::Pointer(const std::string &)> open;
    /** Opens with Options; when empty, `open` is used (the vendor has no choices). */
    std::function<ScannerScan::Pointer(const std::string &, const Options &)> openWithOptions;
  };

  /** The vendors the library reads, in the order of detection. */
  static const std::vector<Vendor> &
  Vendors();

  /** The scan at `path` (a folder or a file), opened by the first of Vendors() that recognises it,
   * or by the vendor named `format` (case does not matter). Throws itk::ExceptionObject when the path
   * does not exist, when `format` names no vendor (the message lists the names), when no vendor
   * recognises the path (the message lists what each looked for), and when the vendor's Open() fails
   * (its message, prefixed by the vendor's name; a MissingAirScanError stays one, so that the caller
   * can say how to ask for the fallback). Also checks that the scan is consistent: as many geometry
   * projections as files, a positive finite detector spacing, and distances a scanner can have
   * (finite, source-to-isocenter > 0, source-to-detector more than that or 0 for a parallel beam, both
   * below 10 m). */
  static ScannerScan::Pointer
  Open(const std::string & path, const std::string & format = "");
  /** The same, the vendor given `options`. */
  static ScannerScan::Pointer
  Open(const std::string & path, const std::string & format, const Options & options);
  /** Several scans read as one (ScanSeries: files and geometries one after the other, each scan's
   * readings converted by its own reader), e.g. lone XIM files; each path is opened as Open(path,
   * format) opens it, and must have the first's detector grid. One path: Open(path, format). */
  static ScannerScan::Pointer
  Open(const std::vector<std::string> & paths, const std::string & format = "");
  static ScannerScan::Pointer
  Open(const std::vector<std::string> & paths, const std::string & format, const Options & options);
  /** Open() over another table of vendors (tests; a program adding its own reader). */
  static ScannerScan::Pointer
  Open(const std::string & path, const std::string & format, const std::vector<Vendor> & vendors);
  static ScannerScan::Pointer
  Open(const std::string & path,
       const std::string & format,
       const std::vector<Vendor> & vendors,
       const Options & options);

  /** The projection files read as float, stacked, and converted to line integrals by the scan. */
  static ProjectionsType::Pointer
  ReadLineIntegrals(const ScannerScan * scan);
  /** Where the stack's pixels go: called once the stack's size, spacing and origin are set (nothing
   * read yet), it returns room for its pixels that outlives the stack, e.g. an output file mapped in
   * memory, so that the stack is written as it is read (cbct-import: copying 1.9 GB into a file costs
   * more than reading a scan). Empty: the stack allocates its own. */
  using StackMemory = std::function<float *(const ProjectionsType * stack)>;
  static ProjectionsType::Pointer
  ReadLineIntegrals(const ScannerScan * scan, const StackMemory & memory);

  /** The stacked readings in the files' own pixel type (all files must share it): an
   * itk::Image<T, 3> for the component type `componentType`. */
  struct RawProjections
  {
    itk::ImageBase<3>::Pointer image;
    itk::IOComponentEnum componentType = itk::IOComponentEnum::UNKNOWNCOMPONENTTYPE;
  };
  static RawProjections
  ReadRaw(const ScannerScan * scan);

  /** Throws when the detector of `stack` (its layout: size, spacing, origin; no pixel is read) misses
   * the rotation axis in some projection of the scan's geometry (DetectorAxisMiss: both outer edges on
   * one side, by more than a pixel). No scanner takes such projections: a reader that gives them took
   * a detector shift in another unit or a placeholder, and its geometry must not be used. */
  static void
  CheckDetectorReachesAxis(const ScannerScan * scan, const itk::ImageBase<3> * stack);

  /** Calls `function(image)` with RawProjections' image as the itk::Image<T, 3> * of its component
   * type (the types ITK's ImageIOs read: 8 to 64-bit integers, float, double). */
  template <typename TFunction>
  static void
  VisitRaw(const RawProjections & raw, TFunction && function)
  {
    switch (raw.componentType)
    {
      case itk::IOComponentEnum::UCHAR:
        function(Cast<unsigned char>(raw));
        return;
      case itk::IOComponentEnum::CHAR:
        function(Cast<signed char>(raw));
        return;
      case itk::IOComponentEnum::USHORT:
        function(Cast<unsigned short>(raw));
        return;
      case itk::IOComponentEnum::SHORT:
        function(Cast<short>(raw));
        return;
      case itk::IOComponentEnum::UINT:
        function(Cast<unsigned int>(raw));
        return;
      case itk::IOComponentEnum::INT:
        function(Cast<int>(raw));
        return;
      case itk::IOComponentEnum::ULONG:
        function(Cast<unsigned long>(raw));
        return;
      case itk::IOComponentEnum::LONG:
        function(Cast<long>(raw));
        return;
      case itk::IOComponentEnum::ULONGLONG:
        function(Cast<unsigned long long>(raw));
        return;
      case itk::IOComponentEnum::LONGLONG:
        function(Cast<long long>(raw));
        return;
      case itk::IOComponentEnum::FLOAT:
        function(Cast<float>(raw));
        return;
      case itk::IOComponentEnum::DOUBLE:
        function(Cast<double>(raw));
        return;
      default:
        itkGenericExceptionMacro(<< "ScanImporter: raw projections of component type "
                                 << itk::ImageIOBase::GetComponentTypeAsString(raw.componentType)
                                 << "; expected an integer or floating-point type");
    }
  }

private:
  template <typename T>
  static itk::Image<T, 3> *
  Cast(const RawProjections & raw)
  {
    auto * image = dynamic_cast<itk::Image<T, 3> *>(raw.image.GetPointer());
    if (image == nullptr)
      itkGenericExceptionMacro(<< "ScanImporter: raw projections are not an image of "
                               << itk::ImageIOBase::GetComponentTypeAsString(raw.componentType));
    return image;
  }
};

} // namespace cbct

#endif
