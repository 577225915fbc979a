#include "cbctColumnBackProjection.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#  define CBCT_HAVE_AVX2_PATH 1
#  include <immintrin.h>
#endif

namespace cbct
{

void
ColumnStack::Resize(int count, int columns, int rows, int column0, int row0)
{
  nx = columns;
  ny = rows;
  firstColumn = column0;
  firstRow = row0;
  stride = ny + RowsBefore + RowsAfter;
  projectionSize = static_cast<std::size_t>(nx + 2) * static_cast<std::size_t>(stride);
  const std::size_t size = static_cast<std::size_t>(count) * projectionSize;
  if (data.size() < size)
    data.resize(size);
}

void
ColumnStack::Fill(int k, const float * pixels)
{
  float * out = data.data() + static_cast<std::size_t>(k) * projectionSize;
  std::fill_n(out, stride, 0.f);                                          // column 0
  std::fill_n(out + static_cast<std::size_t>(nx + 1) * stride, stride, 0.f); // column nx + 1
  for (int c = 1; c <= nx; ++c)
  {
    float * column = out + static_cast<std::size_t>(c) * stride;
    std::fill_n(column, RowsBefore, 0.f);
    std::fill_n(column + RowsBefore + ny, RowsAfter, 0.f);
  }
  // Transposed in bands of 16 rows, so that the rows read stay in the L1 cache across the columns.
  constexpr int Band = 16;
  for (int j0 = 0; j0 < ny; j0 += Band)
  {
    const int j1 = std::min(ny, j0 + Band);
    for (int i = 0; i < nx; ++i)
    {
      float * column = out + static_cast<std::size_t>(i + 1) * stride + RowsBefore;
      for (int j = j0; j < j1; ++j)
        column[j] = pixels[static_cast<std::size_t>(j) * nx + i];
    }
  }
}

namespace
{
/** DetectorSample()'s rule at stack pixel (u, v), read from a ColumnStack projection; false (and
 * nothing to add) off the detector. */
bool
ColumnSample(const ColumnStack & s, const float * projection, float u, float v, float & sample)
{
  const float u0 = std::floor(u), v0 = std::floor(v);
  if (!(u0 >= static_cast<float>(s.firstColumn - 1) && u0 < static_cast<float>(s.firstColumn + s.nx) &&
        v0 >= static_cast<float>(s.firstRow - 1) && v0 < static_cast<float>(s.firstRow + s.ny)))
    return false;
  const int c = static_cast<int>(u0) - s.firstColumn + 1;
  const int r = static_cast<int>(v0) - s.firstRow + ColumnStack::RowsBefore;
  const float au = TextureFraction(u - u0), av = TextureFraction(v - v0);
  const float * left = projection + static_cast<std::size_t>(c) * s.stride + r;
  const float * right = left + s.stride;
  const float low = (1.f - au) * left[0] + au * right[0];
  const float high = (1.f - au) * left[1] + au * right[1];
  sample = (1.f - av) * low + av * high;
  return true;
}
} // namespace

void
AccumulateColumnsScalar(const ColumnLaunch & l)
{
  const ColumnStack & s = *l.stack;
  const float * projection = s.Projection(l.projection);
  const int rows = HeightPadded(l.height);
  for (int x = 0; x < l.width; ++x)
  {
    const int yEnd = l.yEnd ? std::min(l.yEnd[x], l.height) : l.height;
    for (int y = l.yBegin ? std::max(l.yBegin[x], 0) : 0; y < yEnd; ++y)
    {
      float hu, hv, hw;
      HomogeneousAt(l.matrix, static_cast<float>(l.x0 + x), static_cast<float>(l.y0 + y), l.z, hu, hv, hw);
      if (!(hw < 0.f))
        continue; // behind the source
      const float inv = 1.f / hw;
      float sample;
      if (!ColumnSample(s, projection, MulRn(hu, inv), MulRn(hv, inv), sample))
        continue; // off the detector
      l.sum[static_cast<std::size_t>(x) * rows + y] += l.distanceWeight ? sample * (inv * inv) : sample;
    }
  }
}

#ifdef CBCT_HAVE_AVX2_PATH
namespace
{
/** Element idx (0..15) of the 16 floats (c0, c1), lane by lane. */
__attribute__((target("avx2"))) inline __m256
Pick(__m256 c0, __m256 c1, __m256i idx)
{
  const __m256 upper = _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7)));
  return _mm256_blendv_ps(_mm256_permutevar8x32_ps(c0, idx), _mm256_permutevar8x32_ps(c1, idx), upper);
}

/** AccumulateColumnsScalar() eight voxels along y at a time, lane for lane the same float operations
 * in the same order (products and sums rounded separately: this function's target is AVX2 alone
 * and the library is built with -ffp-contract=off). u, w and everything that follows from them are
 * computed in scalar once per column: m[1] = m[9] = 0, so HomogeneousAt() gives them the same value
 * at every y (but for the sign of a zero, which changes nothing below). A lane off the detector
 * keeps its sum untouched (a blend), as the reference skips it. */
__attribute__((target("avx2"))) void
AccumulateColumnsAvx2(const ColumnLaunch & l)
{
  const ColumnStack & s = *l.stack;
  const float * projection = s.Projection(l.projection);
  const float * m = l.matrix;
  const int rows = HeightPadded(l.height);
  const __m256 one = _mm256_set1_ps(1.f), scale = _mm256_set1_ps(256.f), half = _mm256_set1_ps(0.5f);
  const __m256 step = _mm256_set1_ps(1.f / 256.f);
  const __m256 m5 = _mm256_set1_ps(m[5]), m7 = _mm256_set1_ps(m[7]), vz = _mm256_set1_ps(MulRn(m[6], l.z));
  // On the detector: the reference's j >= -1 && j < ny on the floored row (an integer in float).
  const __m256 vLow = _mm256_set1_ps(static_cast<float>(s.firstRow - 1));
  const __m256 vHigh = _mm256_set1_ps(static_cast<float>(s.firstRow + s.ny));
  // Rows clamped to [firstRow - 2, firstRow + ny] (zeros beyond the data) before becoming integers:
  // in range of the layout whatever a voxel off the detector projects to.
  const __m256 clampLow = _mm256_set1_ps(static_cast<float>(s.firstRow - 2));
  const __m256 clampHigh = _mm256_set1_ps(static_cast<float>(s.firstRow + s.ny));
  const __m256 rowShift = _mm256_set1_ps(static_cast<float>(s.firstRow - ColumnStack::RowsBefore));
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), oneRow = _mm256_set1_epi32(1);
  const float columnLow = static_cast<float>(s.firstColumn - 1), columnHigh = static_cast<float>(s.firstColumn + s.nx);

  for (int x = 0; x < l.width; ++x)
  {
    if (l.yBegin && l.yEnd && l.yBegin[x] >= l.yEnd[x])
      continue; // no voxel of this column is needed
    const float fx = static_cast<float>(l.x0 + x);
    float hu, hv, hw;
    HomogeneousAt(m, fx, static_cast<float>(l.y0), l.z, hu, hv, hw);
    if (!(hw < 0.f))
      continue; // the whole column is behind the source
    const float inv = 1.f / hw;
    const float u = MulRn(hu, inv), u0 = std::floor(u);
    if (!(u0 >= columnLow && u0 < columnHigh))
      continue; // the whole column projects off the detector
    const float au = TextureFraction(u - u0);
    const __m256 auv = _mm256_set1_ps(au), buv = _mm256_set1_ps(1.f - au), invv = _mm256_set1_ps(inv);
    const __m256 weight = _mm256_set1_ps(inv * inv), mx = _mm256_set1_ps(MulRn(m[4], fx));
    const float * left = projection + static_cast<std::size_t>(static_cast<int>(u0) - s.firstColumn + 1) * s.stride;
    const float * right = left + s.stride;
    // v changes by dv pixels per voxel along y: eight voxels span at most 14 rows when |dv| < 1.9
    // (7 x 1.9 = 13.3, the float rounding of v far below the margin), so their rows and the rows
    // above lie in a window of 16 starting at the lowest (the first lane if v rises along y).
    const float dv = MulRn(m[5], inv);
    const bool window = std::abs(dv) < 1.9f;
    const bool rising = !(dv < 0.f);
    float * out = l.sum + static_cast<std::size_t>(x) * rows;
    const int gEnd = l.yEnd ? std::min(l.yEnd[x], rows) : rows;
    for (int g = l.yBegin ? std::max(l.yBegin[x], 0) / 8 * 8 : 0; g < gEnd; g += 8)
    {
      const __m256 fy = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(l.y0 + g), lanes));
      const __m256 hvy = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(mx, _mm256_mul_ps(m5, fy)), vz), m7);
      const __m256 v = _mm256_mul_ps(hvy, invv);
      const __m256 v0 = _mm256_floor_ps(v);
      const __m256 on = _mm256_and_ps(_mm256_cmp_ps(v0, vLow, _CMP_GE_OQ), _mm256_cmp_ps(v0, vHigh, _CMP_LT_OQ));
      if (_mm256_testz_ps(on, on))
        continue;
      const __m256 av = _mm256_mul_ps(_mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v, v0), scale), half)), step);
      const __m256i row =
        _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_min_ps(_mm256_max_ps(v0, clampLow), clampHigh), rowShift));
      __m256 low, high;
      if (window)
      {
        // Monotonic along y, so the lowest row is the first or the last lane's.
        const int base = rising ? _mm256_cvtsi256_si32(row) : _mm256_extract_epi32(row, 7);
        const __m256i idx = _mm256_sub_epi32(row, _mm256_set1_epi32(base));
        const __m256 c0 = _mm256_add_ps(_mm256_mul_ps(buv, _mm256_loadu_ps(left + base)),
                                        _mm256_mul_ps(auv, _mm256_loadu_ps(right + base)));
        const __m256 c1 = _mm256_add_ps(_mm256_mul_ps(buv, _mm256_loadu_ps(left + base + 8)),
                                        _mm256_mul_ps(auv, _mm256_loadu_ps(right + base + 8)));
        low = Pick(c0, c1, idx);
        high = Pick(c0, c1, _mm256_add_epi32(idx, oneRow));
      }
      else
      {
        const __m256i above = _mm256_add_epi32(row, oneRow);
        low = _mm256_add_ps(_mm256_mul_ps(buv, _mm256_i32gather_ps(left, row, 4)),
                            _mm256_mul_ps(auv, _mm256_i32gather_ps(right, row, 4)));
        high = _mm256_add_ps(_mm256_mul_ps(buv, _mm256_i32gather_ps(left, above, 4)),
                             _mm256_mul_ps(auv, _mm256_i32gather_ps(right, above, 4)));
      }
      __m256 sample = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(one, av), low), _mm256_mul_ps(av, high));
      if (l.distanceWeight)
        sample = _mm256_mul_ps(sample, weight);
      const __m256 before = _mm256_loadu_ps(out + g);
      _mm256_storeu_ps(out + g, _mm256_blendv_ps(before, _mm256_add_ps(before, sample), on));
    }
  }
}

/** AccumulateColumnsAvx2() sixteen voxels at a time with AVX-512: the same operations lane for lane
 * (-ffp-contract=off keeps the products and sums apart although the target has FMA), a window of 32
 * rows for the sixteen voxels and their rows above (15 x 1.9 = 28.5), one two-register permute per
 * pick, and masked loads and stores instead of blends. A last group of eight (HeightPadded() is a
 * multiple of eight) leaves its upper lanes out of the loads and stores. */
__attribute__((target("avx512f"))) void
AccumulateColumnsAvx512(const ColumnLaunch & l)
{
  const ColumnStack & s = *l.stack;
  const float * projection = s.Projection(l.projection);
  const float * m = l.matrix;
  const int rows = HeightPadded(l.height);
  constexpr int Floor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m512 one = _mm512_set1_ps(1.f), scale = _mm512_set1_ps(256.f), half = _mm512_set1_ps(0.5f);
  const __m512 step = _mm512_set1_ps(1.f / 256.f);
  const __m512 m5 = _mm512_set1_ps(m[5]), m7 = _mm512_set1_ps(m[7]), vz = _mm512_set1_ps(MulRn(m[6], l.z));
  const __m512 vLow = _mm512_set1_ps(static_cast<float>(s.firstRow - 1));
  const __m512 vHigh = _mm512_set1_ps(static_cast<float>(s.firstRow + s.ny));
  const __m512 clampLow = _mm512_set1_ps(static_cast<float>(s.firstRow - 2));
  const __m512 clampHigh = _mm512_set1_ps(static_cast<float>(s.firstRow + s.ny));
  const __m512 rowShift = _mm512_set1_ps(static_cast<float>(s.firstRow - ColumnStack::RowsBefore));
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i oneRow = _mm512_set1_epi32(1);
  const float columnLow = static_cast<float>(s.firstColumn - 1), columnHigh = static_cast<float>(s.firstColumn + s.nx);

  for (int x = 0; x < l.width; ++x)
  {
    if (l.yBegin && l.yEnd && l.yBegin[x] >= l.yEnd[x])
      continue; // no voxel of this column is needed
    const float fx = static_cast<float>(l.x0 + x);
    float hu, hv, hw;
    HomogeneousAt(m, fx, static_cast<float>(l.y0), l.z, hu, hv, hw);
    if (!(hw < 0.f))
      continue;
    const float inv = 1.f / hw;
    const float u = MulRn(hu, inv), u0 = std::floor(u);
    if (!(u0 >= columnLow && u0 < columnHigh))
      continue;
    const float au = TextureFraction(u - u0);
    const __m512 auv = _mm512_set1_ps(au), buv = _mm512_set1_ps(1.f - au), invv = _mm512_set1_ps(inv);
    const __m512 weight = _mm512_set1_ps(inv * inv), mx = _mm512_set1_ps(MulRn(m[4], fx));
    const float * left = projection + static_cast<std::size_t>(static_cast<int>(u0) - s.firstColumn + 1) * s.stride;
    const float * right = left + s.stride;
    const float dv = MulRn(m[5], inv);
    const bool window = std::abs(dv) < 1.9f;
    const bool rising = !(dv < 0.f);
    float * out = l.sum + static_cast<std::size_t>(x) * rows;
    const int gEnd = l.yEnd ? std::min(l.yEnd[x], rows) : rows;
    for (int g = l.yBegin ? std::max(l.yBegin[x], 0) / 8 * 8 : 0; g < gEnd; g += 16)
    {
      const __mmask16 valid = rows - g >= 16 ? 0xFFFF : 0x00FF;
      const __m512 fy = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32(l.y0 + g), lanes));
      const __m512 hvy = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(mx, _mm512_mul_ps(m5, fy)), vz), m7);
      const __m512 v = _mm512_mul_ps(hvy, invv);
      const __m512 v0 = _mm512_roundscale_ps(v, Floor);
      const __mmask16 on =
        _mm512_cmp_ps_mask(v0, vLow, _CMP_GE_OQ) & _mm512_cmp_ps_mask(v0, vHigh, _CMP_LT_OQ) & valid;
      if (!on)
        continue;
      const __m512 av =
        _mm512_mul_ps(_mm512_roundscale_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(v, v0), scale), half), Floor), step);
      const __m512i row =
        _mm512_cvttps_epi32(_mm512_sub_ps(_mm512_min_ps(_mm512_max_ps(v0, clampLow), clampHigh), rowShift));
      __m512 low, high;
      if (window)
      {
        const int base = rising ? _mm_cvtsi128_si32(_mm512_castsi512_si128(row))
                                : _mm_extract_epi32(_mm512_extracti32x4_epi32(row, 3), 3);
        const __m512i idx = _mm512_sub_epi32(row, _mm512_set1_epi32(base));
        const __m512 c0 = _mm512_add_ps(_mm512_mul_ps(buv, _mm512_loadu_ps(left + base)),
                                        _mm512_mul_ps(auv, _mm512_loadu_ps(right + base)));
        const __m512 c1 = _mm512_add_ps(_mm512_mul_ps(buv, _mm512_loadu_ps(left + base + 16)),
                                        _mm512_mul_ps(auv, _mm512_loadu_ps(right + base + 16)));
        low = _mm512_permutex2var_ps(c0, idx, c1);
        high = _mm512_permutex2var_ps(c0, _mm512_add_epi32(idx, oneRow), c1);
      }
      else
      {
        const __m512i above = _mm512_add_epi32(row, oneRow);
        low = _mm512_add_ps(_mm512_mul_ps(buv, _mm512_i32gather_ps(row, left, 4)),
                            _mm512_mul_ps(auv, _mm512_i32gather_ps(row, right, 4)));
        high = _mm512_add_ps(_mm512_mul_ps(buv, _mm512_i32gather_ps(above, left, 4)),
                             _mm512_mul_ps(auv, _mm512_i32gather_ps(above, right, 4)));
      }
      __m512 sample = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(one, av), low), _mm512_mul_ps(av, high));
      if (l.distanceWeight)
        sample = _mm512_mul_ps(sample, weight);
      const __m512 before = _mm512_maskz_loadu_ps(valid, out + g);
      _mm512_mask_storeu_ps(out + g, on, _mm512_add_ps(before, sample));
    }
  }
}

bool
HasAvx2()
{
  static const bool has = __builtin_cpu_supports("avx2") && !std::getenv("CBCT_DISABLE_AVX2");
  return has;
}
bool
HasAvx512()
{
  static const bool has = HasAvx2() && __builtin_cpu_supports("avx512f") && !std::getenv("CBCT_DISABLE_AVX512");
  return has;
}
} // namespace
#endif

bool
AccumulateColumnsWith(ColumnInstructions instructions, const ColumnLaunch & launch)
{
  switch (instructions)
  {
    case ColumnInstructions::Reference:
      AccumulateColumnsScalar(launch);
      return true;
#ifdef CBCT_HAVE_AVX2_PATH
    case ColumnInstructions::Avx2:
      if (!HasAvx2())
        return false;
      AccumulateColumnsAvx2(launch);
      return true;
    case ColumnInstructions::Avx512:
      if (!HasAvx512())
        return false;
      AccumulateColumnsAvx512(launch);
      return true;
#endif
    default:
      return false;
  }
}

ColumnInstructions
ColumnInstructionsInUse()
{
#ifdef CBCT_HAVE_AVX2_PATH
  if (HasAvx512())
    return ColumnInstructions::Avx512;
  if (HasAvx2())
    return ColumnInstructions::Avx2;
#endif
  return ColumnInstructions::Reference;
}

void
AccumulateColumns(const ColumnLaunch & launch)
{
  static const ColumnInstructions best = ColumnInstructionsInUse();
  AccumulateColumnsWith(best, launch);
}

} // namespace cbct
