#include "cbctJosephForwardRow.h"

#include <climits>
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
/** The four voxels of eight samples and their weights into the eight lanes' double sums, corner by
 * corner in JosephVisit()'s order. A corner that the reference skips (outside the volume, or a lane
 * with no sample in this slice) is read as 0 (masked gather): its product is +-0, and adding it leaves
 * the sum as it is (a sum that starts at +0 and adds finite products is never -0). */
__attribute__((target("avx2"))) inline void
AddCorner(__m256d & sumLo, __m256d & sumHi, __m256 w, const float * slice, __m256i index, __m256i mask)
{
  const __m256 v = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), slice, index, _mm256_castsi256_ps(mask), 4);
  sumLo = _mm256_add_pd(sumLo, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(w)), _mm256_cvtps_pd(_mm256_castps256_ps128(v))));
  sumHi = _mm256_add_pd(sumHi, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1))));
}

/** Eight rays of one dominant axis (lines[q] set up where valid[q]), pixel n of the launch onwards:
 * lane q walks ray q's slices with JosephSample()'s float operations (products and sums rounded
 * separately, IEEE floor, the texture unit's 8-bit fractions). The slices walked are the union of the
 * rays' ranges; a lane outside its own range adds nothing. */
__attribute__((target("avx2"))) void
EightRays(const JosephRowLaunch & l, int n, const JosephLine lines[8], const bool valid[8], int reference)
{
  const JosephLine & r = lines[reference];
  const int * size = l.size;
  const long long stride[3] = { 1, size[0], static_cast<long long>(size[0]) * size[1] };
  const int nb = size[r.b], nc = size[r.c];
  alignas(32) float b0[8], kb[8], c0[8], kc[8], step[8];
  alignas(32) int first[8], last[8];
  int sMin = INT_MAX, sMax = INT_MIN;
  for (int q = 0; q < 8; ++q)
  {
    if (valid[q])
    {
      b0[q] = lines[q].b0;
      kb[q] = lines[q].kb;
      c0[q] = lines[q].c0;
      kc[q] = lines[q].kc;
      step[q] = lines[q].step;
      first[q] = lines[q].first;
      last[q] = lines[q].last;
      sMin = lines[q].first < sMin ? lines[q].first : sMin;
      sMax = lines[q].last > sMax ? lines[q].last : sMax;
    }
    else
    {
      b0[q] = kb[q] = c0[q] = kc[q] = step[q] = 0.f;
      first[q] = INT_MAX;
      last[q] = INT_MIN;
    }
  }
  const __m256 vb0 = _mm256_load_ps(b0), vkb = _mm256_load_ps(kb), vc0 = _mm256_load_ps(c0), vkc = _mm256_load_ps(kc);
  const __m256 vstep = _mm256_load_ps(step);
  const __m256i vfirst = _mm256_load_si256(reinterpret_cast<const __m256i *>(first));
  const __m256i vlast = _mm256_load_si256(reinterpret_cast<const __m256i *>(last));
  // JosephSample()'s bounds on the floored sample, as float constants.
  const __m256 bLow = _mm256_set1_ps(static_cast<float>(r.sb - 1)), bHigh = _mm256_set1_ps(static_cast<float>(r.sb + nb));
  const __m256 cLow = _mm256_set1_ps(static_cast<float>(r.sc - 1)), cHigh = _mm256_set1_ps(static_cast<float>(r.sc + nc));
  const __m256i sb = _mm256_set1_epi32(r.sb), sc = _mm256_set1_epi32(r.sc);
  const __m256i minusOne = _mm256_set1_epi32(-1), nbLast = _mm256_set1_epi32(nb - 1), ncLast = _mm256_set1_epi32(nc - 1);
  const __m256i strideB = _mm256_set1_epi32(static_cast<int>(stride[r.b])), strideC = _mm256_set1_epi32(static_cast<int>(stride[r.c]));
  const __m256i allOnes = _mm256_set1_epi32(-1);
  const __m256 one = _mm256_set1_ps(1.f), scale = _mm256_set1_ps(256.f), half = _mm256_set1_ps(0.5f), unit = _mm256_set1_ps(1.f / 256.f);
  __m256d sumLo = _mm256_setzero_pd(), sumHi = _mm256_setzero_pd();
  for (int s = sMin; s <= sMax; ++s)
  {
    const __m256i vs = _mm256_set1_epi32(s);
    const __m256i live = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpgt_epi32(vfirst, vs), _mm256_cmpgt_epi32(vs, vlast)), allOnes);
    const __m256 fs = _mm256_set1_ps(static_cast<float>(s));
    const __m256 pb = _mm256_add_ps(vb0, _mm256_mul_ps(fs, vkb));
    const __m256 pc = _mm256_add_ps(vc0, _mm256_mul_ps(fs, vkc));
    const __m256 fb = _mm256_floor_ps(pb), fc = _mm256_floor_ps(pc);
    const __m256 inside = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(fb, bLow, _CMP_GE_OQ), _mm256_cmp_ps(fc, cLow, _CMP_GE_OQ)),
                                        _mm256_and_ps(_mm256_cmp_ps(fb, bHigh, _CMP_LT_OQ), _mm256_cmp_ps(fc, cHigh, _CMP_LT_OQ)));
    const __m256i sample = _mm256_and_si256(live, _mm256_castps_si256(inside));
    if (_mm256_testz_si256(sample, sample))
      continue;
    const __m256i ib = _mm256_sub_epi32(_mm256_cvttps_epi32(fb), sb), ic = _mm256_sub_epi32(_mm256_cvttps_epi32(fc), sc);
    const __m256 wb = _mm256_mul_ps(_mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(pb, fb), scale), half)), unit);
    const __m256 wc = _mm256_mul_ps(_mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(pc, fc), scale), half)), unit);
    const __m256 vb = _mm256_sub_ps(one, wb), vc = _mm256_sub_ps(one, wc);
    // Corner masks: the lower neighbour along b exists when ib >= 0, the upper when ib + 1 < nb
    // (ib is in [-1, nb) for a sample inside); likewise along c.
    const __m256i bLower = _mm256_cmpgt_epi32(ib, minusOne), bUpper = _mm256_cmpgt_epi32(nbLast, ib);
    const __m256i cLower = _mm256_and_si256(sample, _mm256_cmpgt_epi32(ic, minusOne));
    const __m256i cUpper = _mm256_and_si256(sample, _mm256_cmpgt_epi32(ncLast, ic));
    const __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(ib, strideB), _mm256_mullo_epi32(ic, strideC));
    const float * slice = l.volume + static_cast<long long>(s - r.sa) * stride[r.a];
    AddCorner(sumLo, sumHi, _mm256_mul_ps(_mm256_mul_ps(vb, vc), vstep), slice, index, _mm256_and_si256(bLower, cLower));
    AddCorner(sumLo, sumHi, _mm256_mul_ps(_mm256_mul_ps(wb, vc), vstep), slice, _mm256_add_epi32(index, strideB),
              _mm256_and_si256(bUpper, cLower));
    AddCorner(sumLo, sumHi, _mm256_mul_ps(_mm256_mul_ps(vb, wc), vstep), slice, _mm256_add_epi32(index, strideC),
              _mm256_and_si256(bLower, cUpper));
    AddCorner(sumLo, sumHi, _mm256_mul_ps(_mm256_mul_ps(wb, wc), vstep), slice,
              _mm256_add_epi32(index, _mm256_add_epi32(strideB, strideC)), _mm256_and_si256(bUpper, cUpper));
  }
  alignas(32) double sum[8];
  _mm256_store_pd(sum, sumLo);
  _mm256_store_pd(sum + 4, sumHi);
  for (int q = 0; q < 8; ++q)
  {
    float & p = l.out[n + q];
    p = static_cast<float>(l.add ? p + sum[q] : sum[q]);
  }
}

__attribute__((target("avx2"))) void
ForwardRowAvx2(const JosephRowLaunch & l)
{
  const long long voxels = static_cast<long long>(l.size[0]) * l.size[1] * l.size[2];
  if (voxels >= (1LL << 31))
  {
    JosephForwardRowScalar(l); // the gathers' indices are 32-bit
    return;
  }
  int n = 0;
  for (; n + 8 <= l.columns; n += 8)
  {
    JosephLine lines[8];
    bool valid[8];
    int reference = -1;
    bool mixed = false;
    for (int q = 0; q < 8; ++q)
    {
      valid[q] = JosephSetup(*l.ray, l.size, static_cast<double>(l.firstColumn + n + q), static_cast<double>(l.row), lines[q]);
      if (valid[q])
      {
        if (reference < 0)
          reference = q;
        else if (lines[q].a != lines[reference].a)
          mixed = true;
      }
    }
    if (reference < 0)
    {
      for (int q = 0; q < 8; ++q) // no ray meets the volume: sums of nothing
      {
        float & p = l.out[n + q];
        p = static_cast<float>(l.add ? p + 0. : 0.);
      }
    }
    else if (mixed)
    {
      JosephRowLaunch eight = l; // rays of different axes walk different slices: one by one
      eight.columns = n + 8;
      JosephForwardRowScalar(eight, n);
    }
    else
      EightRays(l, n, lines, valid, reference);
  }
  JosephForwardRowScalar(l, n); // the last columns % 8 pixels
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
JosephForwardRow(const JosephRowLaunch & launch)
{
#ifdef CBCT_HAVE_AVX2_PATH
  if (HasAvx2())
  {
    ForwardRowAvx2(launch);
    return;
  }
#endif
  JosephForwardRowScalar(launch);
}

bool
JosephForwardRowUsesAvx2()
{
#ifdef CBCT_HAVE_AVX2_PATH
  return HasAvx2();
#else
  return false;
#endif
}

} // namespace cbct
