#ifndef cbctHelicalOrbit_h
#define cbctHelicalOrbit_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class HelicalOrbit
 * \brief Whether a geometry's source travels along the rotation axis as it turns (a helix), and how.
 *
 * Decided from the geometry alone, as RTK writes a helical scan (the source and the detector moved
 * along the rotation axis y per projection: SourceOffsetY = ProjectionOffsetY = the table position;
 * bare matrices work as well): the source's position along y is fitted, by least squares, as a
 * straight line in its azimuth about the axis unwrapped along the projections in their order,
 *
 *     y_k ~ y_0 + FeedPerTurn() * lambda_k / (2 pi),    lambda_k = the azimuth turned since projection 0.
 *
 * The orbit is helical when that line explains the motion (R^2 >= MinimumLinearity(): a table moving
 * at constant speed) and moves the source by at least MinimumTravel() of the source's mean distance
 * from the axis over the scan (10 mm at SID 1000). A circular scan, a C-arm whose source sags or wobbles
 * by a few mm, and per-projection source offsets that come and go (the FDK geometry cases) are not
 * helical. The projections must be in acquisition order (the unwrapping follows them).
 *
 * Methods written for a single circle (FDK's weights: redundancy, Parker, displaced detector; 4D FDK)
 * call RequireCircular(), which refuses a helical orbit with its feed and turns instead of summing
 * every turn with a circle's weights (silent garbage: a mean error of 1 per voxel on Shepp-Logan).
 * Iterative methods use each projection's matrix and reconstruct helical scans as they are.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HelicalOrbit
{
public:
  /** The orbit of `geometry` (empty, parallel or cone beam; never throws for a valid geometry). */
  static HelicalOrbit
  Of(const ThreeDCircularProjectionGeometry * geometry);

  /** Throws an itk::ExceptionObject naming `method`, the feed per turn and the turns when the orbit of
   * `geometry` is helical; `instead` says what to use (e.g. "SART, CGLS or OSEM"). */
  static void
  RequireCircular(const ThreeDCircularProjectionGeometry * geometry, const std::string & method, const std::string & instead);

  /** The least share of the source's distance from the axis it must travel along the axis. */
  static constexpr double
  MinimumTravel()
  {
    return 0.01;
  }
  /** The least share of the variance of the source's axial position the straight line must explain. */
  static constexpr double
  MinimumLinearity()
  {
    return 0.9;
  }

  bool
  IsHelical() const
  {
    return m_Helical;
  }
  /** The fitted travel of the source along +y per turn of 2 pi of azimuth, in the direction the
   * projections turn (mm; negative: the source moves towards -y). RTK's helical pitch. */
  double
  FeedPerTurn() const
  {
    return m_FeedPerTurn;
  }
  /** The azimuth the projections turn through, in turns of 2 pi (>= 0). */
  double
  Turns() const
  {
    return m_Turns;
  }
  /** The fitted travel along y over the whole scan (mm, >= 0). */
  double
  AxialTravel() const
  {
    return m_AxialTravel;
  }
  /** The share of the axial motion's variance the straight line explains (1: a perfect helix; 0 when
   * the source does not move along the axis). */
  double
  Linearity() const
  {
    return m_Linearity;
  }
  /** +1 when the source azimuth increases along the projections, -1 when it decreases. */
  int
  RotationSense() const
  {
    return m_RotationSense;
  }
  /** The source's azimuth turned since projection 0, per projection (radians, signed as the rotation). */
  const std::vector<double> &
  UnwrappedAzimuths() const
  {
    return m_Azimuths;
  }
  /** The source's positions along the rotation axis (y, mm), per projection. */
  const std::vector<double> &
  AxialPositions() const
  {
    return m_AxialPositions;
  }

  /** "a helical orbit: 12.5 mm per turn over 3.2 turns, source y from -20 to 20 mm" (or a circle's
   * description). */
  std::string
  Describe() const;

private:
  bool m_Helical = false;
  double m_FeedPerTurn = 0.;
  double m_Turns = 0.;
  double m_AxialTravel = 0.;
  double m_Linearity = 0.;
  int m_RotationSense = 1;
  std::vector<double> m_Azimuths;
  std::vector<double> m_AxialPositions;
};

} // namespace cbct

#endif
