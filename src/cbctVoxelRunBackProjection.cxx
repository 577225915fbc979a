#include "cbctVoxelRunBackProjection.h"

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
/** Pixels at `index` where the lane is live and the neighbour's column and row lie on the detector;
 * 0 elsewhere (those lanes are not read). */
__attribute__((target("avx2"))) inline __m256
Fetch(const float * projection, __m256i index, __m256i live, __m256i columnOk, __m256i rowOk)
{
  const __m256i mask = _mm256_and_si256(live, _mm256_and_si256(columnOk, rowOk));
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), projection, index, _mm256_castsi256_ps(mask), 4);
}

/** AccumulateVoxelRunScalar() for eight voxels along x at a time, lane for lane the same float
 * operations in the same order: products and sums rounded separately (no FMA: this function's
 * target is AVX2 alone and the library is built with -ffp-contract=off), IEEE division and floor,
 * the texture unit's 8-bit fraction, and zero outside the detector through masked gathers. A lane
 * that the reference loop skips keeps its sum untouched (a blend, not an addition of zero, so even
 * the sign of a zero sum is the same). */
__attribute__((target("avx2"))) void
AccumulateAvx2(const VoxelRunLaunch<float> & l)
{
  const float * m = l.matrix;
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.f);
  const __m256 m0 = _mm256_set1_ps(m[0]), m4 = _mm256_set1_ps(m[4]), m8 = _mm256_set1_ps(m[8]);
  const __m256 m2 = _mm256_set1_ps(m[2]), m6 = _mm256_set1_ps(m[6]), m10 = _mm256_set1_ps(m[10]);
  // The y, z and constant terms are the same in every lane: the scalar products, broadcast.
  const __m256 uy = _mm256_set1_ps(MulRn(m[1], l.y)), uz = _mm256_set1_ps(MulRn(m[2], l.z)), u1 = _mm256_set1_ps(m[3]);
  const __m256 vy = _mm256_set1_ps(MulRn(m[5], l.y)), vz = _mm256_set1_ps(MulRn(m[6], l.z)), v1 = _mm256_set1_ps(m[7]);
  const __m256 wy = _mm256_set1_ps(MulRn(m[9], l.y)), wz = _mm256_set1_ps(MulRn(m[10], l.z)), w1 = _mm256_set1_ps(m[11]);
  const __m256 scale = _mm256_set1_ps(256.f), half = _mm256_set1_ps(0.5f), step = _mm256_set1_ps(1.f / 256.f);
  // Off the detector (the reference's i < -1 || i >= nx on the pixel index), tested on the floored
  // coordinate, which is an integer in float: exact, and safe where the index would overflow an int.
  const __m256 uLow = _mm256_set1_ps(static_cast<float>(l.firstColumn - 1));
  const __m256 uHigh = _mm256_set1_ps(static_cast<float>(l.firstColumn + l.nx));
  const __m256 vLow = _mm256_set1_ps(static_cast<float>(l.firstRow - 1));
  const __m256 vHigh = _mm256_set1_ps(static_cast<float>(l.firstRow + l.ny));
  const __m256i firstColumn = _mm256_set1_epi32(l.firstColumn), firstRow = _mm256_set1_epi32(l.firstRow);
  const __m256i nx = _mm256_set1_epi32(l.nx), ny = _mm256_set1_epi32(l.ny);
  const __m256i minusOne = _mm256_set1_epi32(-1), lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i nxMinusOne = _mm256_set1_epi32(l.nx - 1), nyMinusOne = _mm256_set1_epi32(l.ny - 1);
  const __m256i nxPlusOne = _mm256_set1_epi32(l.nx + 1);

  int x = 0;
  for (; x + 8 <= l.width; x += 8)
  {
    const __m256 fx = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(l.x0 + x), lanes));
    __m256 hu = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m0, fx), uy), uz), u1);
    __m256 hv = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m4, fx), vy), vz), v1);
    __m256 hw = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(m8, fx), wy), wz), w1);
    for (int r = 0; r < BackProjectionRun; ++r, hu = _mm256_add_ps(hu, m2), hv = _mm256_add_ps(hv, m6), hw = _mm256_add_ps(hw, m10))
    {
      if (r < l.rFirst || r >= l.rEnd)
        continue;
      const __m256 inFront = _mm256_cmp_ps(hw, zero, _CMP_LT_OQ); // false for NaN, as !(hw < 0) skips it
      if (_mm256_testz_ps(inFront, inFront))
        continue;
      const __m256 inv = _mm256_div_ps(one, hw);
      const __m256 u = _mm256_mul_ps(hu, inv), v = _mm256_mul_ps(hv, inv);
      const __m256 u0 = _mm256_floor_ps(u), v0 = _mm256_floor_ps(v);
      const __m256 onDetector =
        _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(u0, uLow, _CMP_GE_OQ), _mm256_cmp_ps(u0, uHigh, _CMP_LT_OQ)),
                      _mm256_and_ps(_mm256_cmp_ps(v0, vLow, _CMP_GE_OQ), _mm256_cmp_ps(v0, vHigh, _CMP_LT_OQ)));
      const __m256 live = _mm256_and_ps(inFront, onDetector);
      // Pixel indices relative to the data; only meaningful (and only used) where `live`.
      const __m256i i = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_and_ps(u0, live)), firstColumn);
      const __m256i j = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_and_ps(v0, live)), firstRow);
      const __m256 au = _mm256_mul_ps(_mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(u, u0), scale), half)), step);
      const __m256 av = _mm256_mul_ps(_mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v, v0), scale), half)), step);
      // The four neighbours, each read where it lies on the detector (i and j are in [-1, n-1]).
      const __m256i left = _mm256_cmpgt_epi32(i, minusOne), right = _mm256_cmpgt_epi32(nxMinusOne, i);
      const __m256i below = _mm256_cmpgt_epi32(j, minusOne), above = _mm256_cmpgt_epi32(nyMinusOne, j);
      const __m256i liveMask = _mm256_castps_si256(live);
      const __m256i base = _mm256_add_epi32(_mm256_mullo_epi32(j, nx), i);
      const __m256 f00 = Fetch(l.projection, base, liveMask, left, below);
      const __m256 f10 = Fetch(l.projection, _mm256_add_epi32(base, _mm256_set1_epi32(1)), liveMask, right, below);
      const __m256 f01 = Fetch(l.projection, _mm256_add_epi32(base, nx), liveMask, left, above);
      const __m256 f11 = Fetch(l.projection, _mm256_add_epi32(base, nxPlusOne), liveMask, right, above);
      const __m256 bu = _mm256_sub_ps(one, au), bv = _mm256_sub_ps(one, av);
      const __m256 low = _mm256_add_ps(_mm256_mul_ps(bu, f00), _mm256_mul_ps(au, f10));
      const __m256 high = _mm256_add_ps(_mm256_mul_ps(bu, f01), _mm256_mul_ps(au, f11));
      // Lanes off the detector sample 0, as the reference returns before interpolating (their
      // fractions may be NaN).
      __m256 sample = _mm256_and_ps(_mm256_add_ps(_mm256_mul_ps(bv, low), _mm256_mul_ps(av, high)), live);
      if (l.distanceWeight)
        sample = _mm256_mul_ps(sample, _mm256_mul_ps(inv, inv));
      float * row = l.sum + r * l.width + x;
      const __m256 before = _mm256_loadu_ps(row);
      _mm256_storeu_ps(row, _mm256_blendv_ps(before, _mm256_add_ps(before, sample), inFront));
    }
  }
  AccumulateVoxelRunScalar(l, x); // the last width % 8 voxels
}

/** AVX2 when the processor has it, unless CBCT_DISABLE_AVX2 is set (to time the reference loop, or
 * to rule the vector path out when chasing a difference). */
bool
HasAvx2()
{
  static const bool has = __builtin_cpu_supports("avx2") && !std::getenv("CBCT_DISABLE_AVX2");
  return has;
}
} // namespace
#endif

void
AccumulateVoxelRun(const VoxelRunLaunch<float> & launch)
{
#ifdef CBCT_HAVE_AVX2_PATH
  if (HasAvx2())
  {
    AccumulateAvx2(launch);
    return;
  }
#endif
  AccumulateVoxelRunScalar(launch);
}

bool
VoxelRunUsesAvx2()
{
#ifdef CBCT_HAVE_AVX2_PATH
  return HasAvx2();
#else
  return false;
#endif
}

} // namespace cbct
