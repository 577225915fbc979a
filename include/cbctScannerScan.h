#ifndef cbctScannerScan_h
#define cbctScannerScan_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkObject.h>

#include <array>
#include <string>
#include <vector>

namespace cbct
{

/** \class ScannerScan
 * \brief A vendor's scan on disk (a folder or files), opened without reading its pixels: the
 * projection files in acquisition order, the geometry in RTK's convention, the detector grid, and
 * how the detector readings become line integrals.
 *
 * One subclass per vendor layout (VarianScan, ElektaXVIScan, NikonScan, BrukerScan), each with
 *   static bool Recognizes(const std::string & path);   // cheap: names and a few bytes
 *   static Pointer Open(const std::string & path);       // headers and geometry files, no pixels
 * Open() throws itk::ExceptionObject with a one-line message naming the file and what is wrong
 * (a missing calibration file names the file it looked for). ScanImporter picks the subclass that
 * recognizes a path, reads the projection files through ITK's object factory (the vendor ImageIOs
 * are registered there), stacks them (one slice per projection) and calls ToLineIntegrals().
 *
 * Conventions: the detector grid is centred on the projection's (0, 0) mm unless the vendor's files
 * say otherwise; lateral shifts (e.g. Varian's half-fan KVDetectorLat) go into the geometry's
 * ProjectionOffsetX, never into the image origin, so one grid serves every projection.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ScannerScan : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ScannerScan);

  using Self = ScannerScan;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(ScannerScan, itk::Object);

  /** Detector readings as read from the files (any integer type converted to float), or line
   * integrals after ToLineIntegrals(): u, v, projection index. */
  using ProjectionsType = itk::Image<float, 3>;

  /** What was found, e.g. "Varian TrueBeam (XIM)", "Elekta XVI 5 (HIS + _Frames.xml)". */
  virtual std::string
  Format() const = 0;
  /** The projection files, in the order of the geometry's projections (one file per projection). */
  virtual const std::vector<std::string> &
  ProjectionFiles() const = 0;
  /** The geometry in RTK's convention, one projection per file of ProjectionFiles(). */
  virtual ThreeDCircularProjectionGeometry::Pointer
  Geometry() const = 0;
  /** Detector pixel spacing (u, v) and the position of pixel (0, 0), in mm, as the projections'
   * spacing and origin. */
  virtual std::array<double, 2>
  DetectorSpacing() const = 0;
  virtual std::array<double, 2>
  DetectorOrigin() const = 0;
  /** Turns the stacked readings into line integrals in place (air/flood normalisation, dark
   * subtraction, -log), appending one line per step to Log(). Values that cannot be converted
   * (reading <= 0 after dark subtraction) are clamped as the subclass documents, never NaN. */
  virtual void
  ToLineIntegrals(ProjectionsType * readings) const = 0;

  /** Every conversion made and every vendor field used, in order, one line each (for --verbose
   * and the import summary). */
  const std::vector<std::string> &
  Log() const
  {
    return m_Log;
  }

protected:
  ScannerScan() = default;
  ~ScannerScan() override = default;
  void
  AddToLog(const std::string & line) const
  {
    m_Log.push_back(line);
  }

private:
  mutable std::vector<std::string> m_Log;
};

} // namespace cbct

#endif
