#ifndef cbctThreeDCircularProjectionGeometry_h
#define cbctThreeDCircularProjectionGeometry_h

#include "ConeBeamCTExport.h"

#include <itkMatrix.h>
#include <itkObject.h>
#include <itkObjectFactory.h>
#include <itkPoint.h>
#include <itkVector.h>

#include <string>
#include <vector>

namespace cbct
{

/** \class ThreeDCircularProjectionGeometry
 * \brief Per-projection cone-beam geometry: RTK's circular parameters, or any 3x4 matrix.
 *
 * The convention is RTK's (and IEC 61217's), so that RTK geometry files and results are
 * interchangeable. The world is in mm; the gantry rotates about the world y axis.
 *
 * \verbatim
 *                     y (rotation axis)
 *                     ^
 *                     |          detector (u to the right, v up, in mm)
 *                     |        +-------+
 *          source     |        |   ^ v |
 *            *--------o------->|   +-> u      at gantry angle 0 the source is at z = +SID and the
 *         z = +SID   / isocenter      |        detector plane at z = SID - SDD, normal to z;
 *                   /          +-------+       u is parallel to +x, v to +y.
 *                  z
 *   gantry angle g: the source moves from +z towards +x (S = SID * (sin g, 0, cos g)),
 *   i.e. clockwise seen from the isocenter looking along -y, as in IEC 61217.
 * \endverbatim
 *
 * Per projection, the 3x4 matrix maps homogeneous world coordinates (mm) to homogeneous detector
 * coordinates (mm):  M = T(sx-px, sy-py) * Mag(SDD, SID) * T(-sx, -sy, 0) * Rz(-inplane) Rx(-outofplane) Ry(-gantry)
 * with Mag = [[-SDD,0,0,0],[0,-SDD,0,0],[0,0,1,-SID]]. The third homogeneous coordinate of a point
 * is minus its distance from the source along the principal ray, which FDK uses for its distance
 * weight. A projection given only as a matrix is normalised to that form (unit third row, positive
 * determinant), and the quantities FDK needs (source position, distances, principal point, gantry
 * angle) are derived from it.
 *
 * Parallel beam follows RTK's convention: a projection whose SourceToDetectorDistance is 0 is
 * parallel. Its rays run along -Rz (Rz the rotated z axis, pointing from the rotation axis towards
 * the source's side), and its matrix is M = T(sx-px, sy-py) * P * T(-sx, -sy, 0) * R with
 * P = [[1,0,0,0],[0,1,0,0],[0,0,0,1]]: u and v are the rotated x and y less the detector offsets (the
 * source offsets cancel) and the homogeneous coordinate is 1 everywhere. The source is at infinity;
 * GetSourcePosition() gives RTK's point at SID on the source's side and, as in RTK's SPECT projector,
 * the detector plane lies at SID on the other side of the rotation axis (SPECT's radius of rotation:
 * the distance the collimator blur grows with). A geometry is all parallel or all cone beam. A
 * parallel projection is given by RTK parameters; a bare matrix must be projective (cone beam).
 *
 * A cylindrical detector (RTK's RadiusCylindricalDetector, one radius R for the whole geometry; 0 is a
 * flat panel) is the flat panel bent about an axis parallel to its v axis: in the rotated frame the
 * cylinder's axis is the line x = 0, z = SID - SDD + R, so the cylinder touches the flat panel along
 * x = 0 (the detector's u = -ProjectionOffsetX, whatever the offsets). A detector coordinate u is then
 * the arc length from that line less ProjectionOffsetX, and v the height as on the flat panel:
 *
 * \verbatim
 *      rotated frame, seen along y          pixel (u, v) is at  x = R sin(a),
 *                 source (sx, SID)                              z = SID - SDD + R (1 - cos(a)),
 *                    *                                          y = v + ProjectionOffsetY,
 *                   /|\                              with a = (u + ProjectionOffsetX) / R.
 *                  / | \
 *         ________/__|__\________  flat panel z = SID - SDD (touches the cylinder at x = 0)
 *          `-._      |      _.-'   cylinder of radius R about (x = 0, z = SID - SDD + R)
 *               `-.._|_..-'
 * \endverbatim
 *
 * With R = SDD and SourceOffsetX = 0 the cylinder's axis passes through the source and its columns are
 * equiangular (a third-generation CT scanner's detector), which FDK needs. The matrices stay the flat
 * panel's: FlatFromCylindrical() and CylindricalFromFlat() convert between the two detectors' coordinates
 * of one ray, and GetDetectorPoint() gives the point on the cylinder. A cylinder needs each projection's
 * RTK parameters (a bare matrix does not say where the cylinder is), a cone beam, and the source inside
 * the cylinder (SourceOffsetX^2 + (SDD - R)^2 < R^2: every ray from it meets the detector once).
 *
 * Angles are given in degrees to AddProjection() and stored in radians, wrapped to [0, 2*pi).
 * Every input is checked: a non-finite value, a SID <= 0, a SDD < 0, a singular matrix, or parallel
 * and cone-beam projections in one geometry throw an itk::ExceptionObject naming the parameter and
 * the value.
 *
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ThreeDCircularProjectionGeometry : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ThreeDCircularProjectionGeometry);

  using Self = ThreeDCircularProjectionGeometry;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(ThreeDCircularProjectionGeometry, itk::Object);

  using MatrixType = itk::Matrix<double, 3, 4>;
  using PointType = itk::Point<double, 3>;
  using VectorType = itk::Vector<double, 3>;

  /** RTK's nine parameters of one projection; angles in radians, distances in mm. */
  struct Parameters
  {
    double sourceToIsocenterDistance = 0.;
    double sourceToDetectorDistance = 0.;
    double gantryAngle = 0.;
    double projectionOffsetX = 0.;
    double projectionOffsetY = 0.;
    double outOfPlaneAngle = 0.;
    double inPlaneAngle = 0.;
    double sourceOffsetX = 0.;
    double sourceOffsetY = 0.;
  };

  /** Adds a projection from RTK's parameters; angles in degrees, distances in mm. */
  void
  AddProjection(double sid,
                double sdd,
                double gantryAngleDegrees,
                double projectionOffsetX = 0.,
                double projectionOffsetY = 0.,
                double outOfPlaneAngleDegrees = 0.,
                double inPlaneAngleDegrees = 0.,
                double sourceOffsetX = 0.,
                double sourceOffsetY = 0.);

  /** The same with angles in radians. */
  void
  AddProjectionInRadians(const Parameters & parameters);

  /** Adds a projection given only by its 3x4 world-to-detector matrix (non-circular orbits,
   * calibrated C-arms). The matrix may have any scale and sign; it is normalised. */
  void
  AddProjection(const MatrixType & matrix);

  /** A new geometry of the projections `indices` of this one, in that order, each given as here (RTK
   * parameters or a bare matrix), with the same detector (RadiusCylindricalDetector). */
  Pointer
  Subset(const std::vector<unsigned int> & indices) const;

  /** Removes every projection (the detector's radius stays). */
  void
  Clear();

  /** RTK's RadiusCylindricalDetector (mm): 0 (the default) for a flat panel, else the radius of the
   * cylindrical detector. Throws, naming the projection, when a projection cannot have it (see the
   * class's description); projections added later are checked against it. */
  void
  SetRadiusCylindricalDetector(double radius);
  double
  GetRadiusCylindricalDetector() const
  {
    return m_RadiusCylindricalDetector;
  }
  bool
  IsCylindrical() const
  {
    return m_RadiusCylindricalDetector != 0.;
  }

  /** Whether projection k's detector is a cylinder whose axis passes through the source (R = SDD and
   * SourceOffsetX = 0, within 1e-9 of SDD): its columns are then equiangular about the source. */
  bool
  IsCylinderCentredOnSource(unsigned int k) const;

  /** For a cylindrical detector, the flat panel's coordinates (mm) of the ray of projection k through
   * the cylinder's point (u, v); false when that ray does not reach the flat panel's plane (it leaves
   * the source at 90 degrees or more from the principal ray). For a flat panel, (u, v) unchanged. */
  bool
  FlatFromCylindrical(unsigned int k, double u, double v, double & flatU, double & flatV) const;

  /** The converse: the cylinder's coordinates (mm) of the ray through the flat panel's point (flatU,
   * flatV). For a flat panel, unchanged. */
  void
  CylindricalFromFlat(unsigned int k, double flatU, double flatV, double & u, double & v) const;

  unsigned int
  GetNumberOfProjections() const
  {
    return static_cast<unsigned int>(m_Projections.size());
  }

  /** The normalised world (mm) to detector (mm) matrix of projection k. */
  const MatrixType &
  GetMatrix(unsigned int k) const;

  /** Whether projection k was given by RTK parameters (true) or as a bare matrix (false). */
  bool
  HasParameters(unsigned int k) const;

  /** RTK parameters of projection k; throws when it was given as a matrix. */
  const Parameters &
  GetParameters(unsigned int k) const;

  /** Whether projection k is parallel beam (SourceToDetectorDistance 0; then every projection is). */
  bool
  IsParallel(unsigned int k) const;

  /** Throws, naming `method`, when the geometry is parallel beam: for methods written for diverging
   * rays only (FDK). */
  void
  RequireConeBeam(const std::string & method) const;

  /** Throws, naming `method`, when the detector is cylindrical: for code that maps rays through the flat
   * panel's matrices only. */
  void
  RequireFlatPanel(const std::string & method) const;

  /** Source position in world coordinates (mm); for a parallel projection RTK's point at SID on the
   * source's side of the rotation axis (the source itself is at infinity). */
  PointType
  GetSourcePosition(unsigned int k) const;

  /** Unit vector along which the rays of projection k travel: from the source towards the detector
   * along the principal ray (cone beam), or the direction of every ray (parallel beam). */
  VectorType
  GetRayDirection(unsigned int k) const;

  /** The world point (mm) of detector coordinates (u, v) (mm) of projection k, on the detector: the
   * plane at SDD from the source (cone beam), or at SID beyond the rotation axis (parallel beam), or the
   * cylinder (a cylindrical detector). */
  PointType
  GetDetectorPoint(unsigned int k, double u, double v) const;

  /** Gantry angle in radians in [0, 2pi): given, or for a matrix the source's azimuth about y. */
  double
  GetGantryAngle(unsigned int k) const;

  /** The source's azimuth about the rotation axis, atan2(x, z) of its position, in [0, 2pi): the
   * gantry angle plus atan(SourceOffsetX / SID) for RTK parameters without tilts. Redundancy and the
   * angular integration of FDK run over it, since with a source offset the source, not the gantry,
   * sweeps the rays. */
  double
  GetSourceAzimuth(unsigned int k) const;

  /** Distance of the source from the rotation axis (the world's y axis), in mm. */
  double
  GetSourceRadius(unsigned int k) const;

  /** Distance from the source to the world origin along the principal ray (mm). */
  double
  GetSourceToIsocenterDistance(unsigned int k) const;

  /** Distance from the source to the detector plane (mm); 0 for a parallel projection. */
  double
  GetSourceToDetectorDistance(unsigned int k) const;

  /** Detector coordinates (mm) of the foot of the perpendicular from the source: the point where
   * the cosine weight is 1. For RTK parameters this is (sourceOffsetX - projectionOffsetX, ...). */
  double
  GetPrincipalPointU(unsigned int k) const;
  double
  GetPrincipalPointV(unsigned int k) const;

  /** Angular span each projection stands for (radians): half the gaps to its neighbours in
   * source azimuth. A gap larger than three times the median (the open end of a short scan) is
   * replaced by the median, so the first and last projections are not over-weighted. */
  std::vector<double>
  GetAngularGaps() const;

  /** Angular range covered, from the first to the last projection along increasing source azimuth
   * (radians), and the azimuth where it starts. A full scan covers nearly 2pi. */
  double
  GetAngularRange() const;
  double
  GetAngularRangeStart() const;

  /** Wraps an angle in radians into [0, 2pi). */
  static double
  WrapAngle(double radians);

  /** Builds the matrix RTK builds from parameters (radians). */
  static MatrixType
  ComputeMatrix(const Parameters & parameters);

protected:
  ThreeDCircularProjectionGeometry() = default;
  ~ThreeDCircularProjectionGeometry() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  struct Projection
  {
    bool hasParameters = false;
    bool parallel = false;
    Parameters parameters;
    MatrixType matrix;
    PointType source;
    VectorType direction; // unit: along the rays (parallel) or the principal ray (cone beam)
    double gantryAngle = 0.;
    double azimuth = 0.;
    double sid = 0.;
    double sdd = 0.;
    double principalU = 0.;
    double principalV = 0.;
  };

  void
  CheckIndex(unsigned int k) const;

  /** Every projection's source azimuth, in projection order. */
  std::vector<double>
  Azimuths() const;

  /** Throws when projection k cannot have a cylindrical detector of `radius` (see the class's description). */
  void
  CheckCylinder(unsigned int k, double radius) const;

  /** Fills the derived quantities from the (normalised) matrix of a cone-beam projection. */
  static void
  DeriveFromMatrix(Projection & projection);

  /** Fills the derived quantities of a parallel projection from its parameters and matrix. */
  static void
  DeriveParallel(Projection & projection);

  std::vector<Projection> m_Projections;
  double m_RadiusCylindricalDetector = 0.;
};

} // namespace cbct

#endif
