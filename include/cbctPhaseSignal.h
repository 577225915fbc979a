#ifndef cbctPhaseSignal_h
#define cbctPhaseSignal_h

#include "ConeBeamCTExport.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cbct
{

/** \class PhaseSignal
 * \brief The respiratory phase of each projection: RTK's signal file, checks, and the weights that
 * link a projection to the frames of a 4D sequence.
 *
 * A phase file holds one value in [0, 1) per line, one line per projection in projection order
 * (RTK's `--signal` file; blank lines and text after '#' are ignored). 0 and 1 are the same point of
 * the breathing cycle. A 4D sequence of N frames has frame f centred at phase f / N (RTK's convention).
 *
 * Every value is checked where it enters: a phase file or an array with a NaN, an infinity, a value
 * outside [0, 1), text that is not a number or the wrong number of values is refused with an
 * itk::ExceptionObject naming the source, the line (or index), the value and what was expected.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT PhaseSignal
{
public:
  /** Reads a phase file. `expectedCount` > 0: it must hold exactly that many values (the number of
   * projections). */
  static std::vector<double>
  Read(const std::string & path, std::size_t expectedCount = 0);

  /** Writes one value per line (17 significant digits, so that Read gives back the same doubles),
   * atomically: the file appears only when complete. The values are checked first. */
  static void
  Write(const std::string & path, const std::vector<double> & phases);

  /** The checks of Read on values already in memory; `what` names their source in the message
   * (e.g. "the phases array"). `expectedCount` 0: any non-zero count. */
  static void
  Check(const std::vector<double> & phases, std::size_t expectedCount, const std::string & what);

  /** A projection's two neighbouring frames and its linear interpolation weights between them. */
  struct FrameLink
  {
    unsigned int lower = 0;
    unsigned int upper = 0;
    double lowerWeight = 1.;
    double upperWeight = 0.;
  };

  /** RTK's interpolation weights (its PhasesToInterpolationWeights): with x = phase * N, the
   * projection belongs to frame floor(x) with weight 1 - frac(x) and to the next frame (cyclically,
   * frame N - 1 is followed by frame 0) with weight frac(x). Used by the 4D forward model: a
   * projection sees the frames around its phase, mixed linearly. `numberOfFrames` must be >= 1. */
  static std::vector<FrameLink>
  InterpolationWeights(const std::vector<double> & phases, unsigned int numberOfFrames);

  /** The frame whose centre f / N is nearest to `phase` on the cycle (ties to the lower frame): the
   * projection's frame when each projection is given to one frame only. */
  static unsigned int
  NearestFrame(double phase, unsigned int numberOfFrames);

  /** Distance from `a` to `b` along the cycle, in [0, 0.5]. */
  static double
  CyclicDistance(double a, double b);
};

} // namespace cbct

#endif
