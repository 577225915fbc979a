#ifndef cbctDicomCTPDScan_h
#define cbctDicomCTPDScan_h

#include "cbctScannerScan.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class DicomCTPDScan
 * \brief A CT scan in the DICOM-CT-PD format (the AAPM/Mayo Clinic low-dose CT projection data of
 * TCIA's "LDCT-and-Projection-data"): one DICOM file per projection, a cylindrical (or flat) detector,
 * a helical or axial orbit, its geometry in each file's tags (DicomCTPDFile lists them with their
 * units and checks).
 *
 * \par Files
 * Open() takes a folder (every plain file in it that starts with a DICOM preamble; other files are
 * skipped and counted in the log, and each DICOM file must be a DICOM-CT-PD projection) or one file. The
 * projections are ordered by (0020,0013) InstanceNumber when every file has one (each number once),
 * else by file name. Every file must share the first's detector (rows, columns, element widths, shape,
 * ConstantRadialDistance, DetectorCentralElement, pixel layout) and SpectrumIndex (one spectrum of a
 * dual-energy scan at a time): a file that does not is refused, naming both files and the tag.
 *
 * \par The format's frame and RTK's
 * The format's cylindrical coordinates (rho, phi, z) are those of a left-handed frame fixed to the
 * patient: z along the rotation axis, from the table's foot towards the gantry; phi = 0 at 12 o'clock,
 * growing counterclockwise as seen from the table's foot looking into the gantry; x = -rho sin(phi),
 * y = rho cos(phi). Seen from the foot of the table with the detector at 6 o'clock, detector row 1 is
 * the farthest (the largest z) and column 1 the leftmost, so columns grow with phi. RTK's world is
 * right-handed; the reader takes
 *
 *     RTK x = format x (to the right seen from the table's foot), RTK y = format z (the rotation axis,
 *     towards the gantry), RTK z = format y (up, towards 12 o'clock)
 *
 * (a swap of two axes: the handedness changes, the patient is not mirrored). An axial slice of a
 * reconstruction is then a y-slice of the volume, x to the right and z up as seen from the table's foot.
 * Since RTK's source stands at SID (sin g, 0, cos g) for gantry angle g, the format's phi is RTK's -g.
 *
 * \par Geometry, per projection k (mm and radians; RTK's parameters)
 *  - GantryAngle = -phi0 (wrapped to [0, 2 pi)); the rotated frame's z' points from the isocentre to
 *    the detector's focal centre, its x' along growing columns.
 *  - The focal spot at (rho0 + drho, phi0 + dphi, z0 + dz): in the rotated frame at
 *    x' = -(rho0 + drho) sin(dphi), z' = (rho0 + drho) cos(dphi), y = z0 + dz. So SourceOffsetX = x',
 *    SourceToIsocenterDistance = z', SourceOffsetY = z0 + dz. Without a flying focal spot (dphi = drho =
 *    dz = 0) the source is the focal centre: SID = rho0, SourceOffsetX = 0.
 *  - The detector stays where the tags put it whatever the focal spot: SourceToDetectorDistance =
 *    SID - rho0 + d0 (the detector's touching line at z' = rho0 - d0), RadiusCylindricalDetector = d0
 *    (CYLINDRICAL: the cylinder about the focal centre, centred on the source when there is no flying
 *    focal spot, as helical FDK needs) or a flat panel (FLAT), the same d0 in every file.
 *  - u = (column - (N_columns + 1) / 2) * column width, v = ((N_rows + 1) / 2 - row) * row width
 *    (the detector grid centred on (0, 0)); the central element (c_column, c_row) must lie on x' = 0
 *    and at y = z0: ProjectionOffsetX = -(c_column - (N_columns + 1) / 2) * column width and
 *    ProjectionOffsetY = z0 + (c_row - (N_rows + 1) / 2) * row width. A row's height is thus
 *    z0 + (c_row - row) * row width, the format's definition.
 * The table's motion is the source's and the detector's along y, as RTK writes a helix (HelicalOrbit
 * recognises it from the geometry). With a flying focal spot the source leaves the focal centre, which
 * helical FDK does not weight (it refuses SourceOffsetX != 0 by name); the iterative methods take it.
 *
 * \par Line integrals
 * The stored values p become p * RescaleSlope + RescaleIntercept, each projection with its own file's
 * pair (LogFlag YES or absent: the values are line integrals already). Nothing is clamped: a negative
 * line integral is noise around air and is kept. PhotonStatistics (per column) are read by
 * PhotonStatistics(k) and do not enter the conversion; WaterAttenuation() gives the HU calibration.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DicomCTPDScan : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DicomCTPDScan);

  using Self = DicomCTPDScan;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(DicomCTPDScan, ScannerScan);

  /** A DICOM-CT-PD file, or a folder one of whose first three DICOM files (by name) is one. Never throws. */
  static bool
  Recognizes(const std::string & path);
  /** Reads every file's header (not its pixels) and builds the geometry; throws an itk::ExceptionObject
   * naming the file, the tag, the value and what was expected. */
  static Pointer
  Open(const std::string & path);

  void
  ToLineIntegrals(ProjectionsType * readings) const override;
  /** DicomCTPDImageIO: ITK's GDCMImageIO, registered in the apps, claims every DICOM file too. */
  itk::ImageIOBase::Pointer
  ProjectionImageIO() const override;

  /** The format's fields of projection k, as read (DicomCTPDFile's per-projection fields). */
  struct View
  {
    double focalCenterAngle = 0.;  // phi0, rad
    double focalCenterAxial = 0.;  // z0, mm
    double focalCenterRadius = 0.; // rho0, mm
    double sourceAngularShift = 0.; // dphi, rad
    double sourceAxialShift = 0.;   // dz, mm
    double sourceRadialShift = 0.;  // drho, mm
    double rescaleSlope = 1.;
    double rescaleIntercept = 0.;
  };
  const std::vector<View> &
  Views() const
  {
    return m_Views;
  }
  unsigned int
  DetectorRows() const
  {
    return m_Rows;
  }
  unsigned int
  DetectorColumns() const
  {
    return m_Columns;
  }
  /** (7031,1031) ConstantRadialDistance d0 (mm). */
  double
  ConstantRadialDistance() const
  {
    return m_ConstantRadialDistance;
  }
  /** (7029,100B) DetectorShape: CYLINDRICAL or FLAT. */
  const std::string &
  DetectorShape() const
  {
    return m_DetectorShape;
  }
  /** (7033,100E) FlyingFocalSpotMode ("" when absent). */
  const std::string &
  FlyingFocalSpotMode() const
  {
    return m_FlyingFocalSpotMode;
  }
  /** mu_water (mm^-1) of (7041,1001) or (0018,0061); 0 when the files do not say. */
  double
  WaterAttenuation() const
  {
    return m_WaterAttenuation;
  }
  /** (7033,1065) PhotonStatistics of projection k (read from its file; empty when absent). */
  std::vector<float>
  PhotonStatistics(unsigned int k) const;

protected:
  DicomCTPDScan() = default;
  ~DicomCTPDScan() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  std::vector<View> m_Views;
  unsigned int m_Rows = 0;
  unsigned int m_Columns = 0;
  double m_ConstantRadialDistance = 0.;
  std::string m_DetectorShape;
  std::string m_FlyingFocalSpotMode;
  double m_WaterAttenuation = 0.;
};

} // namespace cbct

#endif
