#ifndef cbctProjectionMatrixBeadFit_h
#define cbctProjectionMatrixBeadFit_h

#include "cbctBeadObservation.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class ProjectionMatrixBeadFit
 * \brief The 3x4 projection matrix of one view from known 3D bead centres and where they were seen
 * on the detector: for orbits that are not circular (C-arms, wobbling gantries).
 *
 * 1. Direct linear transformation (Hartley & Zisserman, Multiple View Geometry, algorithm 4.2):
 *    the points normalised (centroid at the origin, mean distance sqrt(3) in 3D and sqrt(2) on the
 *    detector), the matrix the right singular vector of the smallest singular value of the 2N x 12
 *    system, then de-normalised. Needs 6 beads or more, not all in one plane.
 * 2. Levenberg-Marquardt (vnl, MINPACK's lmdif) on the reprojection error in pixels, over the 11
 *    directions orthogonal to the matrix (its scale is free).
 *
 * The matrix maps the phantom's frame (mm) to detector mm, as ThreeDCircularProjectionGeometry's
 * matrices do; it is normalised there. Bad input (fewer than 6 beads, beads in one plane or on one
 * line, a fit that does not converge) throws naming the view.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ProjectionMatrixBeadFit
{
public:
  using MatrixType = ThreeDCircularProjectionGeometry::MatrixType;

  struct Result
  {
    MatrixType matrix;
    ReprojectionError error;    // pixels, against the spots
    std::vector<double> errors; // pixels, per point in the order given
    unsigned int iterations = 0;
  };

  /** Fits the matrix mapping `points` (mm) onto `detector` (u, v mm) of view `view` (named in errors). */
  static Result
  Fit(const std::vector<std::array<double, 3>> & points,
      const std::vector<std::array<double, 2>> & detector,
      const DetectorPixels & pixels,
      const std::string & view);

  /** (u, v) of the world point `x` under `matrix`. */
  static std::array<double, 2>
  Project(const MatrixType & matrix, const std::array<double, 3> & x);
};

} // namespace cbct

#endif
