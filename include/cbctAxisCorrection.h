#ifndef cbctAxisCorrection_h
#define cbctAxisCorrection_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class AxisCorrection
 * \brief A correction of where a circular scan's rotation axis stands: its offset along the
 * detector's u axis, the detector's roll about the beam and the axis' tilt toward the source, added
 * to every projection of a nominal geometry (what the geometry calibrations fit).
 *
 * \par The offset: what moved
 * `offset` moves the place where the rotation axis projects onto the detector by that many mm
 * along u (at the detector). Two physical causes give the same projected axis but not the same rays,
 * and OffsetModel says which one is written:
 *  - Stage (the default): the rotation stage stands off the line from the source perpendicular to
 *    the detector. This is the micro-CT case: source and detector are fixed to the cabinet and the
 *    object's turntable is placed (and drifts) by a few tens of micrometres. RTK's world turns with
 *    the axis, so source and detector both move by -offset / M in the rotating frame (M = SDD / SID,
 *    per projection): SourceOffsetX and ProjectionOffsetX change together, as RTK's own readers and
 *    cbct::NikonScan write an axis offset. The central ray stays perpendicular to the detector, so
 *    the cosine weights do not change.
 *  - Detector: the detector alone stands off its nominal place (a C-arm, or a radiotherapy CBCT
 *    whose imager arm is not where its encoder says): ProjectionOffsetX changes by -offset and the
 *    source stays.
 * For a point at depth z toward the source, the two differ on the detector by offset * z / (SID - z):
 * several pixels in a micro-CT whose object sits close to the source, so the model matters there;
 * both are exact for points on the axis.
 *
 * \par Roll and tilt
 * `roll` (radians) is added to InPlaneAngle: the detector turned about the principal ray, which
 * makes the projected axis lean across the detector's rows. `tilt` (radians) is added to
 * OutOfPlaneAngle: the source-detector plane tilted against the axis (the axis leaning toward the
 * source), which only cone-beam magnification reveals.
 *
 * Only projections given by RTK parameters can be corrected; a projection given as a bare matrix is
 * refused (bead calibrations give matrices directly).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT AxisCorrection
{
public:
  enum class OffsetModel
  {
    Stage,   ///< SourceOffsetX and ProjectionOffsetX both change (the rotation stage moved)
    Detector ///< ProjectionOffsetX alone changes (the detector moved)
  };

  double offset = 0.; ///< mm along u at the detector: where the rotation axis projects moves by this
  double roll = 0.;   ///< radians added to InPlaneAngle
  double tilt = 0.;   ///< radians added to OutOfPlaneAngle
  OffsetModel model = OffsetModel::Stage;

  /** The nominal geometry with this correction added to each projection (a new geometry). Throws when
   * a projection is a bare matrix or parallel beam, or when a value is not finite. */
  ThreeDCircularProjectionGeometry::Pointer
  Apply(const ThreeDCircularProjectionGeometry * nominal) const;

  /** Where the rotation axis' point at height y (mm, world) projects in projection k of `geometry`:
   * the detector's u coordinate (mm). */
  static double
  ProjectedAxisU(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, double y);
  /** The detector's v coordinate (mm) where the rotation axis' point at height y projects. */
  static double
  ProjectedAxisV(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, double y);

  /** The correction (of the given model and tilt, `base` giving both) whose geometry puts the rotation
   * axis' points at heights `heights` (mm) onto the detector's u coordinates `targets` (mm) in
   * projection 0, in the weighted least-squares sense (weights > 0). With `fitRoll` false the roll
   * stays `base.roll` and only the offset is fitted; otherwise at least two distinct heights are
   * needed. Gauss-Newton on the exact projection (a few iterations: the map is nearly linear). */
  static AxisCorrection
  FitToAxisPoints(const ThreeDCircularProjectionGeometry * nominal,
                  const AxisCorrection & base,
                  const std::vector<double> & heights,
                  const std::vector<double> & targets,
                  const std::vector<double> & weights,
                  bool fitRoll);

  /** "stage" or "detector". */
  static std::string
  ModelName(OffsetModel model);
};

} // namespace cbct

#endif
