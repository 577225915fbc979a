#include "cbctBeadMatcher.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_svd.h>
#include <vnl/vnl_matrix.h>
#include <vnl/vnl_vector.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cbct
{

namespace
{
bool
Compatible(int a, int b)
{
  return a < 0 || b < 0 || a == b;
}

std::array<double, 2>
Apply(const std::array<double, 6> & map, const BeadMatcher::Point & p)
{
  return { { map[0] * p.i + map[1] * p.j + map[2], map[3] * p.i + map[4] * p.j + map[5] } };
}

/** The nearest spot of a compatible class to (i, j) within `gate`, or -1. */
int
NearestSpot(const std::vector<BeadMatcher::Point> & spots, double i, double j, int sizeClass, double gate)
{
  int nearest = -1;
  double best = gate * gate;
  for (std::size_t s = 0; s < spots.size(); ++s)
  {
    if (!Compatible(spots[s].sizeClass, sizeClass))
      continue;
    const double di = spots[s].i - i, dj = spots[s].j - j, d2 = di * di + dj * dj;
    if (d2 <= best)
    {
      best = d2;
      nearest = static_cast<int>(s);
    }
  }
  return nearest;
}

/** Pairs under `map`: each bead with its nearest compatible spot within the gate, kept when no
 * other bead lies nearer that spot (mutual nearest). */
std::vector<BeadMatcher::Pair>
PairsUnder(const std::array<double, 6> & map, const std::vector<BeadMatcher::Point> & predicted,
           const std::vector<BeadMatcher::Point> & spots, double gate)
{
  std::vector<std::array<double, 2>> mapped(predicted.size());
  for (std::size_t k = 0; k < predicted.size(); ++k)
    mapped[k] = Apply(map, predicted[k]);
  std::vector<BeadMatcher::Pair> pairs;
  for (std::size_t k = 0; k < predicted.size(); ++k)
  {
    const int s = NearestSpot(spots, mapped[k][0], mapped[k][1], predicted[k].sizeClass, gate);
    if (s < 0)
      continue;
    const double di = spots[s].i - mapped[k][0], dj = spots[s].j - mapped[k][1], d2 = di * di + dj * dj;
    bool nearest = true;
    for (std::size_t other = 0; other < predicted.size() && nearest; ++other)
    {
      if (other == k || !Compatible(spots[s].sizeClass, predicted[other].sizeClass))
        continue;
      const double oi = spots[s].i - mapped[other][0], oj = spots[s].j - mapped[other][1];
      nearest = oi * oi + oj * oj > d2;
    }
    if (nearest)
      pairs.push_back({ static_cast<unsigned int>(s), static_cast<unsigned int>(k) });
  }
  return pairs;
}

/** Least-squares affine map (or shift, with fewer than 6 pairs or collinear ones) of the pairs. */
std::array<double, 6>
FitMap(const std::vector<BeadMatcher::Pair> & pairs, const std::vector<BeadMatcher::Point> & predicted,
       const std::vector<BeadMatcher::Point> & spots)
{
  double mi = 0., mj = 0., si = 0., sj = 0.;
  for (const auto & p : pairs)
  {
    mi += predicted[p.bead].i;
    mj += predicted[p.bead].j;
    si += spots[p.spot].i;
    sj += spots[p.spot].j;
  }
  const double n = static_cast<double>(pairs.size());
  mi /= n;
  mj /= n;
  si /= n;
  sj /= n;
  std::array<double, 6> shift{ { 1., 0., si - mi, 0., 1., sj - mj } };
  if (pairs.size() < 6)
    return shift;
  vnl_matrix<double> a(static_cast<unsigned int>(pairs.size()), 3);
  vnl_vector<double> bi(a.rows()), bj(a.rows());
  for (unsigned int r = 0; r < a.rows(); ++r)
  {
    a(r, 0) = predicted[pairs[r].bead].i - mi;
    a(r, 1) = predicted[pairs[r].bead].j - mj;
    a(r, 2) = 1.;
    bi[r] = spots[pairs[r].spot].i - si;
    bj[r] = spots[pairs[r].spot].j - sj;
  }
  vnl_svd<double> svd(a);
  if (svd.sigma_min() < 1e-6 * svd.sigma_max()) // collinear predictions: keep the shift
    return shift;
  const vnl_vector<double> xi = svd.solve(bi), xj = svd.solve(bj);
  // i' - si = xi0 (i - mi) + xi1 (j - mj) + xi2.
  return { { xi[0], xi[1], si + xi[2] - xi[0] * mi - xi[1] * mj, xj[0], xj[1], sj + xj[2] - xj[0] * mi - xj[1] * mj } };
}
} // namespace

BeadMatcher::Result
BeadMatcher::Match(const std::vector<Point> & predicted, const std::vector<Point> & spots, double gate)
{
  CheckPositive("bead matching gate (pixels)", gate);
  for (const Point & p : predicted)
  {
    CheckFinite("predicted bead position (pixels)", p.i);
    CheckFinite("predicted bead position (pixels)", p.j);
  }
  Result result;
  if (predicted.empty() || spots.empty())
    return result;
  // Every compatible (spot, bead) pair proposes a shift; each is scored by the beads it lays on a spot.
  struct Proposal
  {
    double di, dj;
    unsigned int score;
  };
  std::vector<Proposal> proposals;
  for (const Point & spot : spots)
    for (const Point & bead : predicted)
    {
      if (!Compatible(spot.sizeClass, bead.sizeClass))
        continue;
      Proposal proposal{ spot.i - bead.i, spot.j - bead.j, 0 };
      for (const Point & other : predicted)
        if (NearestSpot(spots, other.i + proposal.di, other.j + proposal.dj, other.sizeClass, gate) >= 0)
          ++proposal.score;
      proposals.push_back(proposal);
    }
  if (proposals.empty())
    return result;
  const auto best = *std::max_element(proposals.begin(), proposals.end(),
                                      [](const Proposal & a, const Proposal & b) { return a.score < b.score; });
  result.score = best.score;
  for (const Proposal & p : proposals)
  {
    const double di = p.di - best.di, dj = p.dj - best.dj;
    if (di * di + dj * dj > gate * gate)
      result.rivalScore = std::max(result.rivalScore, p.score);
  }
  if (result.rivalScore >= result.score)
  {
    result.ambiguous = true;
    return result;
  }
  result.map = { { 1., 0., best.di, 0., 1., best.dj } };
  std::vector<Pair> pairs;
  for (int round = 0; round < 4; ++round)
  {
    pairs = PairsUnder(result.map, predicted, spots, gate);
    if (pairs.empty())
      break;
    result.map = FitMap(pairs, predicted, spots);
  }
  result.pairs = PairsUnder(result.map, predicted, spots, gate);
  return result;
}

} // namespace cbct
