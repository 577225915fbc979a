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
 * the open end of a short scan) would weight them wrongly: the frame would get about 1/N of its
 * density. Each cluster (a run of projections that are neighbours in the whole scan) stands for its
 * share of the angle: the arc between the midpoints to the neighbouring clusters in source azimuth
 * (AngularShares, summed over the cluster); only the open end of a short scan (the whole scan's
 * largest gap, when over three times its median step) is not covered: an edge projection reaches half
 * a median step past the arc's end, as in the 3D FDK. Within a cluster that share is spread over the
 * projections in proportion to their own angular steps in the whole scan (ClusterWeights), evenly for
 * a regular scan. So a frame of a regular full scan gets weights that sum to 2 pi and FDK's constant
 * holds for it, a frame that is the whole regular scan gets exactly
 * ThreeDCircularProjectionGeometry::GetAngularGaps(), and every projection of a cluster counts the
 * same: the frame is the average of the object over the cluster's phases. (Weighting each projection
 * by the arc to its neighbours in the frame instead gives a cluster's two end projections, the
 * farthest from the frame's phase, most of its weight: a sphere moving 24 mm was then placed 2.8 mm
 * from its extreme position instead of the window's 1.2 mm average.) With gating weights g
 * (triangular), the weights are that weight x g, scaled so that they still sum to the same total (the
 * frame keeps the scan's total angle; with g = 1 nothing changes).
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
   * among the projections of `subset` alone: the arc between the midpoints to its neighbours in source
   * azimuth (the open end of a short scan excepted, as described above); the result follows `subset`'s
   * order. */
  static std::vector<double>
  AngularShares(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset);

  /** The angular weight (radians) of each projection of `subset` as a frame uses it: each cluster of
   * projections that are neighbours in the whole scan keeps its share of the angle (the sum of its
   * projections' AngularShares), spread over its projections in proportion to their own angular steps
   * in the whole scan (GetAngularGaps()). The frames' weights (before gating weights). Follows
   * `subset`'s order. */
  static std::vector<double>
  ClusterWeights(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & subset);

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
