#include "cbctJosephGatherCells.h"

#include <algorithm>
#include <cmath>
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
  // The union of the cells' candidate boxes: a cell's centre maps to the pixel (h0 / h2, h1 / h2),
  // linear-fractional in (rb, rc) with h2 > 0 (a non-exhaustive plan), so its extremes over the slice
  // are at the four corner cells; each cell's box is within halfU, halfV of its centre's pixel. One
  // pixel more on each side covers the float rounding of the centres (about 1e-6 of a pixel index):
  // pixels beyond a cell's own box fail its exact test anyway.
  float uLow = 1e30f, uHigh = -1e30f, vLow = 1e30f, vHigh = -1e30f;
  for (int corner = 0; corner < 4; ++corner)
  {
    float h[3];
    JosephGatherCentre(*l.plan, l.rs, (corner & 1) ? l.nb - 1 : -1, (corner & 2) ? l.nc - 1 : -1, h);
    const float u = h[0] / h[2], v = h[1] / h[2];
    uLow = std::min(uLow, u);
    uHigh = std::max(uHigh, u);
    vLow = std::min(vLow, v);
    vHigh = std::max(vHigh, v);
  }
  if (!(uLow == uLow) || !(uHigh == uHigh) || !(vLow == vLow) || !(vHigh == vHigh))
  {
    JosephGatherSliceCellsScalar(l);
    return;
  }
  auto clip = [](float x, int lo, int hi) {
    return x < static_cast<float>(lo) ? lo : (x > static_cast<float>(hi) ? hi : static_cast<int>(x));
  };
  const int I0 = clip(std::floor(uLow - l.plan->halfU) - 1.f, l.columnLo, l.columnHi + 1);
  const int I1 = clip(std::ceil(uHigh + l.plan->halfU) + 1.f, l.columnLo - 1, l.columnHi);
  const int J0 = clip(std::floor(vLow - l.plan->halfV) - 1.f, l.rowLo, l.rowHi + 1);
  const int J1 = clip(std::ceil(vHigh + l.plan->halfV) + 1.f, l.rowLo - 1, l.rowHi);
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
