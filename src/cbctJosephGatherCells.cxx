#include "cbctJosephGatherCells.h"

#include <algorithm>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#  define CBCT_HAVE_AVX2_PATH 1
#  include <immintrin.h>
#endif

namespace cbct
{

#ifdef CBCT_HAVE_AVX2_PATH
namespace
{
/** JosephGatherSliceCellsScalar() turned around: instead of testing each cell's box of candidate
 * pixels, every pixel of the union of those boxes is tested once, eight at a time, and each hit's
 * four products are added to the cell its sample lies in (floor of the sample: the cell whose exact
 * test, cb <= pb < cb + 1, it passes). The pixels are walked row by row and along each row, as each
 * cell's candidates are, so each cell adds its hits in the reference's order and its sums are the
 * reference's bit for bit. The weights are JosephCellWeights()'s float operations lane by lane. */
__attribute__((target("avx2"))) void
SliceCellsAvx2(const JosephGatherSliceLaunch & l)
{
  const int cellsB = l.nb + 1, cellsC = l.nc + 1;
  std::fill(l.cells, l.cells + static_cast<std::size_t>(cellsB) * cellsC * 4, 0.);
  int I0 = l.columnHi + 1, I1 = l.columnLo - 1, J0 = l.rowHi + 1, J1 = l.rowLo - 1;
  for (int rc = -1; rc < l.nc; ++rc)
    for (int rb = -1; rb < l.nb; ++rb)
    {
      float h[3];
      JosephGatherCentre(*l.plan, l.rs, rb, rc, h);
      int i0, i1, j0, j1;
      JosephGatherCandidates(*l.plan, h[0], h[1], h[2], l.columnLo, l.columnHi, l.rowLo, l.rowHi, i0, i1, j0, j1);
      if (i0 > i1 || j0 > j1)
        continue;
      I0 = std::min(I0, i0);
      I1 = std::max(I1, i1);
      J0 = std::min(J0, j0);
      J1 = std::max(J1, j1);
    }
  if (I0 > I1 || J0 > J1)
    return;
  // Cells cb in [fromB - 1, fromB + nb), cc likewise: a sample whose floor is outside is no cell's.
  const int firstB = l.fromB - 1, firstC = l.fromC - 1;
  const __m256 bLow = _mm256_set1_ps(static_cast<float>(firstB)), bHigh = _mm256_set1_ps(static_cast<float>(l.fromB + l.nb));
  const __m256 cLow = _mm256_set1_ps(static_cast<float>(firstC)), cHigh = _mm256_set1_ps(static_cast<float>(l.fromC + l.nc));
  const __m256i cellFirst = _mm256_set1_epi32(firstC * cellsB + firstB), rowCells = _mm256_set1_epi32(cellsB);
  const __m256 fs = _mm256_set1_ps(static_cast<float>(l.s));
  const __m256i axis = _mm256_set1_epi32(l.a), lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 one = _mm256_set1_ps(1.f), scale = _mm256_set1_ps(256.f), half = _mm256_set1_ps(0.5f), unit = _mm256_set1_ps(1.f / 256.f);
  alignas(32) float w0[8], w1[8], w2[8], w3[8], value[8];
  alignas(32) int cell[8];
  for (int j = J0; j <= J1; ++j)
  {
    const std::size_t row = static_cast<std::size_t>(j - l.rowLo) * l.columns - l.columnLo;
    for (int i = I0; i <= I1; i += 8)
    {
      const std::size_t p = row + i;
      const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(I1 - i + 1), lanes);
      const __m256i ours = _mm256_and_si256(live, _mm256_cmpeq_epi32(_mm256_maskload_epi32(l.axis + p, live), axis));
      if (_mm256_testz_si256(ours, ours))
        continue;
      const __m256 pb = _mm256_add_ps(_mm256_maskload_ps(l.b0 + p, ours), _mm256_mul_ps(fs, _mm256_maskload_ps(l.kb + p, ours)));
      const __m256 pc = _mm256_add_ps(_mm256_maskload_ps(l.c0 + p, ours), _mm256_mul_ps(fs, _mm256_maskload_ps(l.kc + p, ours)));
      const __m256 fb = _mm256_floor_ps(pb), fc = _mm256_floor_ps(pc);
      const __m256 inside = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(fb, bLow, _CMP_GE_OQ), _mm256_cmp_ps(fb, bHigh, _CMP_LT_OQ)),
                                          _mm256_and_ps(_mm256_cmp_ps(fc, cLow, _CMP_GE_OQ), _mm256_cmp_ps(fc, cHigh, _CMP_LT_OQ)));
      int hits = _mm256_movemask_ps(_mm256_and_ps(_mm256_castsi256_ps(ours), inside));
      if (!hits)
        continue;
      const __m256 wb = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(pb, fb), scale), half))), unit);
      const __m256 wc = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(pc, fc), scale), half))), unit);
      const __m256 vb = _mm256_sub_ps(one, wb), vc = _mm256_sub_ps(one, wc);
      const __m256 step = _mm256_maskload_ps(l.step + p, ours);
      _mm256_store_ps(w0, _mm256_mul_ps(_mm256_mul_ps(vb, vc), step));
      _mm256_store_ps(w1, _mm256_mul_ps(_mm256_mul_ps(wb, vc), step));
      _mm256_store_ps(w2, _mm256_mul_ps(_mm256_mul_ps(vb, wc), step));
      _mm256_store_ps(w3, _mm256_mul_ps(_mm256_mul_ps(wb, wc), step));
      _mm256_store_ps(value, _mm256_maskload_ps(l.values + p, ours));
      // The cell of each lane, (cc - firstC) (nb + 1) + cb - firstB, from the floors (integers in float).
      _mm256_store_si256(reinterpret_cast<__m256i *>(cell),
                         _mm256_sub_epi32(_mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(fc), rowCells), _mm256_cvttps_epi32(fb)),
                                          cellFirst));
      for (; hits; hits &= hits - 1) // lanes in order: pixels along the row
      {
        const int q = __builtin_ctz(hits);
        double * S = l.cells + static_cast<std::size_t>(cell[q]) * 4;
        const double v = value[q];
        S[0] += static_cast<double>(w0[q]) * v;
        S[1] += static_cast<double>(w1[q]) * v;
        S[2] += static_cast<double>(w2[q]) * v;
        S[3] += static_cast<double>(w3[q]) * v;
      }
    }
  }
}

/** AVX2 when the processor has it, unless CBCT_DISABLE_AVX2 is set. */
bool
HasAvx2()
{
  static const bool has = __builtin_cpu_supports("avx2") && !std::getenv("CBCT_DISABLE_AVX2");
  return has;
}
} // namespace
#endif

void
JosephGatherSliceCells(const JosephGatherSliceLaunch & launch)
{
#ifdef CBCT_HAVE_AVX2_PATH
  if (HasAvx2())
  {
    SliceCellsAvx2(launch);
    return;
  }
#endif
  JosephGatherSliceCellsScalar(launch);
}

bool
JosephGatherSliceCellsUsesAvx2()
{
#ifdef CBCT_HAVE_AVX2_PATH
  return HasAvx2();
#else
  return false;
#endif
}

} // namespace cbct
