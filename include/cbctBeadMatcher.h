#ifndef cbctBeadMatcher_h
#define cbctBeadMatcher_h

#include "ConeBeamCTExport.h"

#include <array>
#include <vector>

namespace cbct
{

/** \class BeadMatcher
 * \brief Tells which spot found in a projection is which bead of the phantom: the spots are matched
 * to the beads' predicted positions, shifted by an unknown amount.
 *
 * The predicted positions come from the nominal geometry; the unknown detector and source offsets,
 * a misplaced phantom and most of a wobble move the whole pattern on the detector, so the matcher
 * first looks for that shift: every pair (spot, bead) of the same size class proposes the shift
 * that lays the bead on the spot, and each proposal scores the beads that then have a spot of their
 * class within the gate. The best proposal must beat every other proposal (one that differs by more
 * than the gate) by at least one bead, else the projection is ambiguous and nothing is matched. An
 * affine map from predicted to found positions, fitted to the pairs and refitted after each round,
 * then absorbs small rotations and magnification errors, and each bead takes the nearest spot of its
 * class within the gate when that spot has no nearer bead.
 *
 * The bead phantom makes this unambiguous by design (cbct::BeadPhantom): a helix whose bead sizes
 * spell a code, so that the pattern shifted by one bead or one turn disagrees in its sizes. All
 * positions are in pixels; size classes are 0 (small), 1 (large) or -1 (unknown: matches both).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BeadMatcher
{
public:
  struct Point
  {
    double i = 0.;
    double j = 0.;
    int sizeClass = -1;
  };

  struct Pair
  {
    unsigned int spot = 0;
    unsigned int bead = 0;
  };

  struct Result
  {
    std::vector<Pair> pairs;   // sorted by bead
    unsigned int score = 0;    // beads the best shift laid on a spot
    unsigned int rivalScore = 0; // the best score of a shift more than the gate away
    bool ambiguous = false;    // no shift better than every other: nothing matched
    /** Predicted (i, j) -> found: i' = a0 i + a1 j + a2, j' = a3 i + a4 j + a5. */
    std::array<double, 6> map{ { 1., 0., 0., 0., 1., 0. } };
  };

  /** Matches `spots` to `predicted` (one per bead, in bead order); `gate` in pixels (> 0). */
  static Result
  Match(const std::vector<Point> & predicted, const std::vector<Point> & spots, double gate);
};

} // namespace cbct

#endif
