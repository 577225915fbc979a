#ifndef cbctScanSeries_h
#define cbctScanSeries_h

#include "ConeBeamCTExport.h"
#include "cbctScannerScan.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class ScanSeries
 * \brief Several scans of one detector read as one: their projection files one after the other, their
 * geometries concatenated, each scan's readings converted by its own reader.
 *
 * For `cbct-import Proj_0.xim Proj_1.xim ...` (each lone XIM file is a scan of one projection with its
 * own geometry) or several acquisitions of one patient. Every scan must have the first's detector
 * grid (spacing and origin, to 1e-6 of a pixel): AddScan() refuses another, naming both. The file
 * sizes are checked when the stack is read (ScanImporter). ToLineIntegrals() hands each scan its own
 * projections of the stack (a view of them, no copy), so that per-projection calibration (norm
 * chambers, air frames by angle) stays with the scan it belongs to. The log holds each scan's lines,
 * each prefixed by the scan's name. It overrides ScannerScan's getters (its setters are not used here):
 * each answer is made from the scans, and DetectorSpacing() and DetectorOrigin() throw while there are none.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ScanSeries : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ScanSeries);

  using Self = ScanSeries;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkNewMacro(Self);
  itkTypeMacro(ScanSeries, ScannerScan);

  /** Appends `scan` (its name, e.g. its path, prefixes its log lines). Throws itk::ExceptionObject
   * when its detector grid is not the first scan's. */
  void
  AddScan(ScannerScan * scan, const std::string & name);

  std::size_t
  GetNumberOfScans() const
  {
    return m_Scans.size();
  }

  /** "3 scans: Varian TrueBeam/ProBeam (XIM)" (or the formats, when they differ). */
  std::string
  Format() const override;
  const std::vector<std::string> &
  ProjectionFiles() const override
  {
    return m_Files;
  }
  ThreeDCircularProjectionGeometry::Pointer
  Geometry() const override;
  /** The first scan's. */
  itk::ImageIOBase::Pointer
  ProjectionImageIO() const override
  {
    return m_Scans.empty() ? nullptr : m_Scans.front()->ProjectionImageIO();
  }
  std::array<double, 2>
  DetectorSpacing() const override;
  std::array<double, 2>
  DetectorOrigin() const override;
  /** Each scan's ToLineIntegrals() on its own projections of `readings`. */
  void
  ToLineIntegrals(ProjectionsType * readings) const override;

protected:
  ScanSeries() = default;
  ~ScanSeries() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  /** Appends the lines of scan `s`'s log from `from` on, prefixed by its name. */
  void
  CopyLog(std::size_t s, std::size_t from) const;

  std::vector<ScannerScan::Pointer> m_Scans;
  std::vector<std::string> m_Names;
  std::vector<std::string> m_Files;
};

} // namespace cbct

#endif
