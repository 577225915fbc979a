#ifndef cbctOrbitWobble_h
#define cbctOrbitWobble_h

#include "cbctThreeDCircularProjectionGeometry.h"

#include <cstdint>

namespace cbct
{

/** \class OrbitWobble
 * \brief A wobbling orbit, as a C-arm's or a worn gantry's: each projection of a geometry given by
 * RTK parameters moved by its own random amount, drawn from a seed.
 *
 * Per projection, the source moves by a uniform amount in [-sourceMm, sourceMm] along each of its
 * three axes (SourceToIsocenterDistance, SourceOffsetX, SourceOffsetY) and the detector moves with
 * it (the same SourceToDetectorDistance; ProjectionOffsetX and ProjectionOffsetY change as the
 * source offsets: the C-arm moves as a whole), and the gantry, out-of-plane and in-plane angles turn by a uniform
 * amount in [-angleDegrees, angleDegrees]. The draws come from std::mt19937's own output
 * (whose sequence the C++ standard fixes), not from a library's distribution, so that a seed gives
 * the same orbit on every machine. The geometry returned is given by RTK parameters, one set per
 * projection.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT OrbitWobble
{
public:
  /** `geometry` (cone beam, RTK parameters in every projection) with each projection wobbled;
   * throws naming a bad value. */
  static ThreeDCircularProjectionGeometry::Pointer
  Apply(const ThreeDCircularProjectionGeometry * geometry, double sourceMm, double angleDegrees, std::uint32_t seed);
};

} // namespace cbct

#endif
