#ifndef cbctFourDGating_h
#define cbctFourDGating_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class FourDGating
 * \brief Which projections each frame of a respiratory-correlated (4D) FDK reconstructs from, and
 * with which angular weight.
 *
 * Frame f of N is centred at phase f / N (RTK's convention). A projection of phase p is at the
 * cyclic distance d = CyclicDistance(p, f / N) from frame f's centre; the gating window (a fraction
 * of the breathing cycle, width w) decides:
 * - the default (w = 0 or w = 1/N, rectangular): each projection goes to its nearest frame only
 *   (PhaseSignal::NearestFrame), so each projection is backprojected once over all frames;
 * - rectangular, other w: every projection with d <= w / 2, gating weight 1 (a wider window shares
 *   projections between neighbouring frames: less streaking, more motion blur);
 * - triangular (default w = 2/N): every projection with d < w / 2, gating weight 1 - 2 d / w.
 *
 * Angular weights: a frame's projections come in clusters (one per breathing cycle), so the
 * geometry's own angular gaps (which replace a gap over three times the median by the median, for
 * the open end of a short scan) would weight them wrongly. Here each selected projection stands for
 * the arc between the midpoints to its neighbours in source azimuth among the frame's own
 * projections; only the open end of a short scan (the whole scan's largest gap, when over three times
 * its median step) is not covered: an edge projection reaches half a median step past the arc's end,
 * as in the 3D FDK. So a frame of a regular full scan gets shares that sum to 2 pi and FDK's constant
 * holds for it, and a frame that is the whole regular scan gets exactly
 * ThreeDCircularProjectionGeometry::GetAngularGaps(). With gating weights g (triangular), the weights
 * are share x g, scaled so that they still sum to the shares' sum (the frame keeps the scan's total
 * angle; with g = 1 nothing changes).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT FourDGating
{
public:
  enum class WindowShape
  {
    Rectangular,
    Triangular
  };

  /** One frame: the projections it uses (increasing index) and each one's weight (radians: the
   * angle it stands for in FDK's integral, gating weight included). */
  struct Frame
  {
    std::vector<unsigned int> projections;
    std::vector<double> weights;
  };

  /** The frames of a 4D FDK. `phases`: one per projection of `geometry`, in [0, 1) (checked as
   * PhaseSignal::Check does); `numberOfFrames` >= 1; `window`: width as a fraction of the cycle in
   * [0, 1], 0 for the shape's default (1/N rectangular, 2/N triangular). Throws, naming the frame
   * and its phase, when a frame gets no projection (too many frames or too narrow a window for the
   * signal). */
  static std::vector<Frame>
  SelectFrames(const ThreeDCircularProjectionGeometry * geometry,
               const std::vector<double> & phases,
               unsigned int numberOfFrames,
               double window = 0.,
               WindowShape shape = WindowShape::Rectangular);

  /** The angular share (radians) of each projection of `subset` (indices into `geometry`, any order)
   * among the projections of `subset` alone, as described above; the result follows `subset`'s order. */
  static std::vector<double>
  AngularShares(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset);

  /** A geometry holding projections `subset` of `geometry`, in that order (RTK parameters where
   * given, else the matrices). */
  static ThreeDCircularProjectionGeometry::Pointer
  SubGeometry(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset);

  /** "rectangular" or "triangular" (the command line's and Python's spelling); anything else throws
   * naming the value. */
  static WindowShape
  ParseWindowShape(const std::string & name);
  static std::string
  WindowShapeName(WindowShape shape);
};

} // namespace cbct

#endif
