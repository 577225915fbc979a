#ifndef cbctCircularOrbitBeadFit_h
#define cbctCircularOrbitBeadFit_h

#include "cbctBeadObservation.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <array>
#include <string>
#include <vector>

namespace cbct
{

/** \class CircularOrbitBeadFit
 * \brief RTK's circular-orbit parameters from a bead phantom's projections: one SID, SDD, detector
 * and source offset, out-of-plane and in-plane angle for the whole scan, each view at its nominal
 * gantry angle, and where the phantom stands.
 *
 * The model of view k is ThreeDCircularProjectionGeometry::ComputeMatrix() at gantry angle
 * theta_k with the fitted parameters, applied to the beads moved by the phantom's placement:
 * x = Rz(c) Rx(a) Ry(b) x_phantom + (tx, 0, tz). The placement's height is not fitted: moving the
 * phantom along the rotation axis equals moving source and detector together (SourceOffsetY and
 * ProjectionOffsetY), so the world's origin is put at the phantom's centre height. Its rotation
 * about the axis (b) is fitted since the gantry angles are kept as given. Levenberg-Marquardt (vnl,
 * MINPACK's lmdif) minimises the reprojection error in pixels over every bead seen, the variables
 * scaled to 1 mm and 1 mrad; the uncertainty of each value is sqrt of the diagonal of
 * s^2 (J^T J)^-1, s^2 the residual variance (Noo et al. 2000 and Cho et al. 2005 solve the same
 * problem in closed form from the ellipses the beads trace; a least-squares fit uses every view and
 * bead and states its uncertainty).
 *
 * Which orbit parameters are fitted is chosen (the others keep their initial values). Source and
 * detector offsets are nearly interchangeable with the phantom's rotation (a source offset s moves
 * the rays as a rotation of s / SID less a detector tilt of s / SID): their uncertainties say how
 * well the data tell them apart.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CircularOrbitBeadFit
{
public:
  using Parameters = ThreeDCircularProjectionGeometry::Parameters;

  /** The orbit parameters, in RTK's order and names. */
  enum Parameter
  {
    SourceToIsocenterDistance,
    SourceToDetectorDistance,
    ProjectionOffsetX,
    ProjectionOffsetY,
    SourceOffsetX,
    SourceOffsetY,
    OutOfPlaneAngle,
    InPlaneAngle,
    NumberOfOrbitParameters
  };

  /** RTK's name of an orbit parameter (SourceToIsocenterDistance, ...). */
  static const char *
  Name(unsigned int parameter);

  /** The phantom's placement: rotations about x, y, z (radians) and shift along x and z (mm). */
  struct Placement
  {
    double angleX = 0.;
    double angleY = 0.;
    double angleZ = 0.;
    double shiftX = 0.;
    double shiftZ = 0.;

    /** Where the phantom point `x` stands in the world. */
    std::array<double, 3>
    Apply(const std::array<double, 3> & x) const;
  };

  struct Result
  {
    Parameters orbit;                                        // angles in radians; gantry angle unused
    std::array<double, NumberOfOrbitParameters> uncertainty{}; // 1 sigma, mm or radians; 0 when not fitted
    Placement placement;
    std::array<double, 5> placementUncertainty{};
    ReprojectionError error;    // pixels
    std::vector<double> errors; // pixels, per observation in the order given
    unsigned int iterations = 0;
  };

  /** Fits `orbit` (initial values; gantry angle ignored) and the placement (initially `placement`)
   * to `observations` of `beads` (phantom frame, mm) at `gantryAngles` (radians, per projection);
   * `fitted[p]` says whether orbit parameter p is fitted. Throws naming what is missing when there
   * are fewer observations than unknowns or the fit does not converge. */
  static Result
  Fit(const std::vector<std::array<double, 3>> & beads,
      const std::vector<BeadObservation> & observations,
      const std::vector<double> & gantryAngles,
      const Parameters & orbit,
      const Placement & placement,
      const std::array<bool, NumberOfOrbitParameters> & fitted,
      const DetectorPixels & pixels);

  /** (u, v) mm of phantom point `x` in the view at `gantryAngle` (radians). */
  static std::array<double, 2>
  Project(const Parameters & orbit, double gantryAngle, const Placement & placement, const std::array<double, 3> & x);
};

} // namespace cbct

#endif
