#ifndef cbctLineIntegralSupport_h
#define cbctLineIntegralSupport_h

// What the vendor scan readers' ToLineIntegrals() share: the stack converted projection by projection
// on ITK's threads, and a float logarithm that the compiler vectorises. Private to the library (src/).
//
// Why: a scan of 600 projections of 1024 x 768 is 472 million readings; one std::log (double) each on
// one thread took 2.2 s of a 2.5 s import (Varian, 2-core machine), the decoding of the files 0.4 s.

#include <itkImage.h>
#include "cbctWorkerErrors.h"

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cbct::detail
{

/** Calls `convert(k, slice, pixels)` for every projection k of `readings` (slice: its `pixels`
 * values, converted in place), several projections at a time on ITK's threads (cbct::ParallelizeArray,
 * the global default number of threads: an exception of any call is rethrown here). Returns what
 * each call returned (e.g. how many readings it clamped), in projection order, so that counts are the
 * same whatever the threads. */
template <typename TConvert>
auto
ConvertEachProjection(itk::Image<float, 3> * readings, TConvert && convert)
  -> std::vector<decltype(convert(std::size_t(0), static_cast<float *>(nullptr), std::size_t(0)))>
{
  using Result = decltype(convert(std::size_t(0), static_cast<float *>(nullptr), std::size_t(0)));
  const auto size = readings->GetBufferedRegion().GetSize();
  const std::size_t pixels = static_cast<std::size_t>(size[0]) * size[1];
  std::vector<Result> results(size[2]);
  float * buffer = readings->GetBufferPointer();
  ParallelizeArray(
    0,
    size[2],
    [&](itk::SizeValueType k) { results[k] = convert(static_cast<std::size_t>(k), buffer + k * pixels, pixels); });
  return results;
}

/** ln(x) for a positive normal float x (FLT_MIN <= x <= FLT_MAX), within about 1 ulp of the exact
 * value, with no branch and no call, so that a loop over pixels vectorises. For 0 and subnormal x the
 * result is finite (about -88 to -104, not the exact value), for +inf ln(FLT_MAX); NaN gives garbage:
 * callers pass q = ToNormalRange(a) / b with b >= 1 (or another positive floor), never NaN.
 *
 * x = 2^e m with m in [2/3, 4/3) (the exponent taken from the bits), and
 * ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m - 1) / (m + 1), |s| <= 1/7: the terms up to
 * s^9/9 leave a relative error below 4e-10 (measured against std::log over every float in [0.5, 2) and 2e7 others: at most 1.1 ulp). e ln 2 is added as e ln2_hi + e ln2_lo, ln2_hi having 9
 * significant bits (so e ln2_hi is exact for any exponent of a float). */
inline float
FastLog(float x)
{
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  // The exponent that puts the mantissa in [2/3, 4/3): 0x3f2aaaab is the bits of 2/3.
  const std::int32_t e = static_cast<std::int32_t>(bits - 0x3f2aaaabu) >> 23;
  const std::uint32_t mantissaBits = bits - (static_cast<std::uint32_t>(e) << 23);
  float m;
  std::memcpy(&m, &mantissaBits, sizeof m);
  const float f = m - 1.f; // exact: m is within a factor 2 of 1
  const float s = f / (2.f + f);
  const float s2 = s * s;
  // 2 s = f - s f, so ln m = f - s (f - R) with R = 2 (s^2/3 + s^4/5 + ...): f exact, and the rounding
  // of the correction s (f - R), a seventh of f at most, hardly shows.
  const float r = s2 * (2.f / 3.f + s2 * (2.f / 5.f + s2 * (2.f / 7.f + s2 * (2.f / 9.f))));
  const float lnM = f - s * (f - r);
  const float ef = static_cast<float>(e);
  constexpr float ln2Hi = 0.693359375f;       // 355 / 512
  constexpr float ln2Lo = -2.12194440e-4f;    // ln 2 - ln2Hi
  return (ef * ln2Lo + lnM) + ef * ln2Hi;
}

/** `x` clamped to [FLT_MIN, FLT_MAX] (NaN to FLT_MIN). Clamp the numerator of a quotient q = a / b
 * (b >= 1, or some positive floor) this way: q is then finite and >= 0, and FastLog(q) finite. (Written
 * as two selects that the compiler turns into maxps/minps; clamping q itself kept GCC 12 from
 * vectorising the loop.) */
inline float
ToNormalRange(float x)
{
  x = x > FLT_MIN ? x : FLT_MIN;
  return x < FLT_MAX ? x : FLT_MAX;
}

} // namespace cbct::detail

#endif
