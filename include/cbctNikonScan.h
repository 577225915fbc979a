#ifndef cbctNikonScan_h
#define cbctNikonScan_h

#include "cbctScannerScan.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class NikonScan
 * \brief A Nikon (X-Tek) micro-CT scan: a .xtekct file with TIFF projections, and the angles of
 * _ctdata.txt or a .ang file when present.
 *
 * \par Files
 * Open() takes the .xtekct file or the folder holding it (one .xtekct there). Its [XTekCT] section
 * names the projections: `Name` + `InputSeparator` ("_" when absent; it may be given empty) + the projection number from 1,
 * four digits or more (`Name_0001.tif`, ...), in the folder `InputFolderName` relative to the .xtekct
 * file when that folder exists, else the .xtekct file's own folder. Every file must exist.
 *
 * \par Geometry
 * The source and detector stand still and the object turns about a vertical axis; RTK's gantry turns
 * about the world y axis. The conversion follows CIL's NikonDataReader (its panel origin top-right,
 * angles -InitialAngle - k * AngularStep + 180 degrees as the object's turn) written in RTK's frame:
 * u is the image's column direction (columns as stored, left to right), v its row direction (rows
 * from the top of the image down, so the world's y axis points down the scanner's axis), and the
 * world turns with the object. Fields (mm and degrees unless said):
 *   - Units: "mm" (the only unit accepted; absent means mm).
 *   - SrcToObject -> SourceToIsocenterDistance; SrcToDetector -> SourceToDetectorDistance
 *     (0 < SrcToObject < SrcToDetector).
 *   - Stage angle phi_k: from _ctdata.txt beside the .xtekct file (or the one file there ending in
 *     _ctdata.txt: header lines, three as Nikon writes them, then "projection angle ..." per line,
 *     whitespace-separated), else from `Name`.ang (or the one .ang file there: a header line, then
 *     "projection: angle" or "projection<TAB>angle"); every projection number from 1 to Projections
 *     exactly once, in any order; else InitialAngle + (k - 1) * AngularStep for projection k. The
 *     files' angles are taken as stage angles as they are (InitialAngle is not added).
 *     GantryAngle = 180 - phi_k: Nikon's stage turns the object clockwise seen from above as phi
 *     grows, which is the gantry turning the other way about y (which points down); the 180 degrees
 *     keep CIL's orientation of the volume.
 *   - Object offset Delta (object plane, mm, along u): ObjectOffsetX, else the mean of
 *     CentreOfRotationTop and CentreOfRotationBottom (detector plane) times SrcToObject / SrcToDetector.
 *     The axis stands Delta along u from the source's perpendicular, so the source and detector sit
 *     -Delta from the axis: SourceOffsetX = -Delta, and ProjectionOffsetX = DetectorOffsetX - Delta.
 *   - DetectorOffsetX, DetectorOffsetY: the detector's shift along u and v ->
 *     ProjectionOffsetX (+ DetectorOffsetX, above) and ProjectionOffsetY = DetectorOffsetY.
 *   - Roll rho (about the beam): ObjectRoll, else -atan2(CentreOfRotationTop - CentreOfRotationBottom,
 *     DetectorPixelsY * DetectorPixelSizeY); tilt tau (about the horizontal axis across the beam):
 *     -ObjectTilt. The axis' direction (sin rho, cos tau cos rho, -sin tau cos rho) in (u, v, beam
 *     towards source) becomes InPlaneAngle = atan2(sin rho, cos tau cos rho) and
 *     OutOfPlaneAngle = asin(sin tau cos rho).
 *   - ObjectOffsetY (along the axis) only moves the volume: not used.
 * The detector grid: DetectorPixelSizeX, DetectorPixelSizeY as spacing, centred on (0, 0)
 * (origin -(DetectorPixelsX - 1) / 2 * DetectorPixelSizeX, the same along v).
 *
 * \par Line integrals
 * WhiteLevel is the open-beam reading I0: line integral = -log(reading / WhiteLevel). A reading <= 0
 * (or not finite) is below one count: it is clamped to half a count, 0.5, and the number of clamped
 * readings is logged. Readings above WhiteLevel give negative line integrals, kept (noise).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT NikonScan : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(NikonScan);

  using Self = NikonScan;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(NikonScan, ScannerScan);

  /** A .xtekct file, or a folder holding at least one. */
  static bool
  Recognizes(const std::string & path);
  /** Reads the .xtekct file (and the angle file); checks that every projection file exists. */
  static Pointer
  Open(const std::string & path);

  void
  ToLineIntegrals(ProjectionsType * readings) const override;

  /** The .xtekct file read. */
  const std::string &
  XtekctFile() const
  {
    return m_Xtekct;
  }
  /** WhiteLevel: the reading of the open beam. */
  double
  WhiteLevel() const
  {
    return m_WhiteLevel;
  }
  /** The stage angle of each projection (degrees), as read or computed. */
  const std::vector<double> &
  StageAngles() const
  {
    return m_StageAngles;
  }
  /** What a reading <= 0 or not finite becomes before the logarithm: half a count. */
  static constexpr double SmallestReading = 0.5;

protected:
  NikonScan() = default;
  ~NikonScan() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  std::string m_Xtekct;
  std::vector<double> m_StageAngles;
  std::array<unsigned long, 2> m_Pixels{ { 0, 0 } };
  double m_WhiteLevel = 1.;
};

} // namespace cbct

#endif
