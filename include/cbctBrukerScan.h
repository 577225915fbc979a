#ifndef cbctBrukerScan_h
#define cbctBrukerScan_h

#include "cbctScannerScan.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class BrukerScan
 * \brief A Bruker SkyScan micro-CT scan: a .log file ([System], [Acquisition], [Reconstruction])
 * with TIFF projections `prefix0000.tif`, ..., and flat and dark fields when present.
 *
 * \par Files
 * Open() takes the .log file or the folder holding it (one SkyScan acquisition log there: a .log
 * file with [System] and [Acquisition] sections). [Acquisition] `Filename Prefix` + the projection
 * number from 0, four digits or more, + .tif, for `Number of Files` projections, in the .log file's
 * folder. Flat and dark fields are looked for beside them as `prefix` + "flat" / "_flat" and
 * `prefix` + "dark" / "_dark" (.tif or .tiff, any case): the names this reader accepts, not a
 * documented SkyScan convention; SkyScan's own projections are usually flat-field corrected already
 * ("Flat Field Correction=ON"), and then the fallback below is the right conversion.
 *
 * \par Geometry (mm and degrees)
 * As for NikonScan, u is the image's column direction and v its row direction (down the axis).
 *   - [Acquisition] Object to Source (mm) -> SourceToIsocenterDistance; Camera to Source (mm) ->
 *     SourceToDetectorDistance (0 < SID < SDD).
 *   - Detector pixel: [System] Camera Pixel Size (um) / 1000 times [Acquisition] Camera binning
 *     ("AxB": A along u, B along v; 1x1 when absent); without a camera pixel size, Image Pixel Size
 *     (um) / 1000 * SDD / SID (the object-plane pixel magnified to the detector). CameraXYRatio is
 *     logged, not applied (as TIGRE's loader does).
 *   - GantryAngle = s * k * Rotation Step (deg) for file k = 0, 1, ...: s = +1 for Rotation
 *     Direction "CC" (the object turning counter-clockwise seen from above turns by -angle about y,
 *     which points down: the gantry's +angle), -1 for "CW"; CC when absent (logged). Every file is a
 *     projection (TIGRE's loader drops the last one; here its angle is simply k * step).
 *   - Optical Axis (line): the detector row (0 at the top) that the source's perpendicular meets:
 *     ProjectionOffsetY = ((Number of Rows - 1) / 2 - line) * pixel height; the middle row when absent.
 *   - No lateral offset: ProjectionOffsetX = SourceOffsetX = 0 ([Reconstruction] Postalignment, a
 *     centre-of-rotation shift found at reconstruction, is logged, not applied).
 *   - Number of connected scans > 1 (several scans stacked along the axis) is refused.
 * The detector grid is Number of Columns x Number of Rows pixels, centred on (0, 0).
 *
 * \par Line integrals
 * With a flat field F and a dark field D (either may be absent: D = 0; F = the largest reading of
 * [Acquisition] Depth (bits), 2^bits - 1, 16 bits when absent): line integral =
 * -log((reading - D) / (F - D)). A pixel whose F - D <= 0 (a dead pixel of the flat) gets 0; a
 * reading - D <= 0 (or not finite) is clamped to half a count, 0.5. Both counts are logged.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BrukerScan : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BrukerScan);

  using Self = BrukerScan;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(BrukerScan, ScannerScan);

  /** A .log file whose first 4 kB hold [System] and [Acquisition], or a folder holding one. */
  static bool
  Recognizes(const std::string & path);
  /** Reads the .log file; checks that every projection file exists and finds the flat and dark fields. */
  static Pointer
  Open(const std::string & path);

  void
  ToLineIntegrals(ProjectionsType * readings) const override;

  const std::string &
  LogFile() const
  {
    return m_LogFile;
  }
  /** The flat and dark field files found ("" when absent). */
  const std::string &
  FlatFile() const
  {
    return m_FlatFile;
  }
  const std::string &
  DarkFile() const
  {
    return m_DarkFile;
  }
  /** The flat-field value used without a flat field: 2^Depth (bits) - 1. */
  double
  FullScale() const
  {
    return m_FullScale;
  }
  /** What a reading - dark <= 0 or not finite becomes before the logarithm: half a count. */
  static constexpr double SmallestReading = 0.5;

protected:
  BrukerScan() = default;
  ~BrukerScan() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  std::string m_LogFile;
  std::string m_FlatFile;
  std::string m_DarkFile;
  std::array<unsigned long, 2> m_Pixels{ { 0, 0 } };
  double m_FullScale = 65535.;
};

} // namespace cbct

#endif
