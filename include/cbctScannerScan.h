#ifndef cbctScannerScan_h
#define cbctScannerScan_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkImageIOBase.h>
#include <itkObject.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace cbct
{

/** \class ScannerScan
 * \brief A vendor's scan on disk (a folder or files), opened without reading its pixels: the
 * projection files in acquisition order, the geometry in RTK's convention, the detector grid, and
 * how the detector readings become line integrals.
 *
 * One subclass per vendor layout (VarianScan, ElektaXVIScan, NikonScan, BrukerScan, DicomCTPDScan), each with
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

  /** What was found, e.g. "Varian TrueBeam (XIM)", "Elekta XVI 5 (HIS + _Frames.xml)".
   *
   * These five getters return what the subclass's Open() stored with the protected setters below
   * (one implementation for every vendor); they stay virtual for scans that derive them from other
   * scans (ScanSeries) or compute them (tests). */
  virtual std::string
  Format() const
  {
    return m_Format;
  }
  /** The projection files, in the order of the geometry's projections (one file per projection). */
  virtual const std::vector<std::string> &
  ProjectionFiles() const
  {
    return m_ProjectionFiles;
  }
  /** The geometry in RTK's convention, one projection per file of ProjectionFiles(): a new copy at
   * each call, which the caller owns and may change without changing the scan. */
  virtual ThreeDCircularProjectionGeometry::Pointer
  Geometry() const
  {
    auto copy = ThreeDCircularProjectionGeometry::New();
    if (m_Geometry)
      AppendProjections(copy, m_Geometry);
    return copy;
  }
  /** Detector pixel spacing (u, v) and the position of pixel (0, 0), in mm, as the projections'
   * spacing and origin. */
  virtual std::array<double, 2>
  DetectorSpacing() const
  {
    return m_DetectorSpacing;
  }
  virtual std::array<double, 2>
  DetectorOrigin() const
  {
    return m_DetectorOrigin;
  }
  /** The ImageIO that reads this scan's projection files, or nullptr (the default): ITK's object factory
   * picks the reader. A format that another registered reader also claims names its own: ITK's
   * itk::GDCMImageIO (registered in every program built with ITK's ITKImageIO group, the apps among
   * them) reads any DICOM file, in its own orientation and rescaled, and would be asked first. */
  virtual itk::ImageIOBase::Pointer
  ProjectionImageIO() const
  {
    return nullptr;
  }

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

  /** What Open() found, for the getters above. */
  void
  SetFormat(const std::string & format)
  {
    m_Format = format;
  }
  void
  SetProjectionFiles(std::vector<std::string> files)
  {
    m_ProjectionFiles = std::move(files);
  }
  /** Keeps `geometry` itself (not a copy): Open() finishes it before anyone can ask for Geometry(). */
  void
  SetGeometry(ThreeDCircularProjectionGeometry * geometry)
  {
    m_Geometry = geometry;
  }
  void
  SetDetectorGrid(const std::array<double, 2> & spacing, const std::array<double, 2> & origin)
  {
    m_DetectorSpacing = spacing;
    m_DetectorOrigin = origin;
  }

  /** Appends each projection of `from` to `to`: by its RTK parameters, or by its matrix when it was
   * given as one (the parameters are exact; a matrix-only projection has none). The detector's
   * RadiusCylindricalDetector comes along into an empty `to`; a `to` of another detector throws. */
  static void
  AppendProjections(ThreeDCircularProjectionGeometry * to, const ThreeDCircularProjectionGeometry * from)
  {
    const double radius = from->GetRadiusCylindricalDetector();
    if (radius != to->GetRadiusCylindricalDetector())
    {
      if (to->GetNumberOfProjections() != 0)
        itkGenericExceptionMacro(<< "scans of different detectors in one geometry: RadiusCylindricalDetector "
                                 << to->GetRadiusCylindricalDetector() << " mm and " << radius
                                 << " mm (0: flat); expected one detector");
      to->SetRadiusCylindricalDetector(radius);
    }
    for (unsigned int k = 0; k < from->GetNumberOfProjections(); ++k)
    {
      if (from->HasParameters(k))
        to->AddProjectionInRadians(from->GetParameters(k));
      else
        to->AddProjection(from->GetMatrix(k));
    }
  }

private:
  std::string m_Format;
  std::vector<std::string> m_ProjectionFiles;
  ThreeDCircularProjectionGeometry::Pointer m_Geometry;
  std::array<double, 2> m_DetectorSpacing{ { 0., 0. } };
  std::array<double, 2> m_DetectorOrigin{ { 0., 0. } };
  mutable std::vector<std::string> m_Log;
};

} // namespace cbct

#endif
