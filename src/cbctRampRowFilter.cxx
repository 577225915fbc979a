#include "cbctRampRowFilter.h"

#include "cbctInputChecks.h"

#include <cmath>
#include <cstddef>
#include <cstdlib>

namespace cbct
{

namespace
{
constexpr unsigned int L = RampRowFilter::Lanes;

/** Lanes doubles as one value (GCC's and Clang's vector extension): one AVX2 register in the AVX2
 * wrapper below, two SSE2 registers in the default one. */
typedef double Lane __attribute__((vector_size(L * sizeof(double))));
static_assert(sizeof(Lane) == L * sizeof(double), "a Lane holds the Lanes rows");

/** Lanes doubles at p as a Lane and back: memcpy compiles to one unaligned load or store. Macros
 * rather than functions taking or returning a Lane, whose ABI differs between the default and the
 * AVX2 target (GCC warns). */
#define CBCT_LOAD(v, p) Lane v; __builtin_memcpy(&v, (p), sizeof(Lane))
#define CBCT_STORE(p, v)                                                                           \
  do                                                                                               \
  {                                                                                                \
    const Lane stored = (v);                                                                       \
    __builtin_memcpy((p), &stored, sizeof(Lane));                                                  \
  } while (false)

/** The transforms for any instruction set: inlined into each target's wrapper below. */
inline __attribute__((always_inline)) void
FilterLanes(double * re, double * im, unsigned int n, const double * cosines, const double * sines, const double * gain)
{
  // Forward, decimation in frequency: (a, b) -> (a + b, (a - b) w), w = exp(-2 pi i j / len).
  for (unsigned int len = n, step = 1; len >= 2; len /= 2, step *= 2)
  {
    const unsigned int half = len / 2;
    for (unsigned int start = 0; start < n; start += len)
      for (unsigned int j = 0; j < half; ++j)
      {
        const double c = cosines[j * step], s = sines[j * step];
        const std::size_t a = std::size_t{ start + j } * L, b = std::size_t{ start + j + half } * L;
        CBCT_LOAD(ar, re + a);
        CBCT_LOAD(ai, im + a);
        CBCT_LOAD(br, re + b);
        CBCT_LOAD(bi, im + b);
        const Lane dr = ar - br, di = ai - bi;
        CBCT_STORE(re + a, ar + br);
        CBCT_STORE(im + a, ai + bi);
        CBCT_STORE(re + b, dr * c - di * s);
        CBCT_STORE(im + b, dr * s + di * c);
      }
  }
  // The response, in the bit-reversed order the forward transform leaves.
  for (unsigned int k = 0; k < n; ++k)
  {
    CBCT_LOAD(r, re + std::size_t{ k } * L);
    CBCT_LOAD(i, im + std::size_t{ k } * L);
    CBCT_STORE(re + std::size_t{ k } * L, r * gain[k]);
    CBCT_STORE(im + std::size_t{ k } * L, i * gain[k]);
  }
  // Inverse, decimation in time from bit-reversed order: (a, b) -> (a + b w*, a - b w*).
  for (unsigned int len = 2, step = n / 2; len <= n; len *= 2, step /= 2)
  {
    const unsigned int half = len / 2;
    for (unsigned int start = 0; start < n; start += len)
      for (unsigned int j = 0; j < half; ++j)
      {
        const double c = cosines[j * step], s = -sines[j * step];
        const std::size_t a = std::size_t{ start + j } * L, b = std::size_t{ start + j + half } * L;
        CBCT_LOAD(ar, re + a);
        CBCT_LOAD(ai, im + a);
        CBCT_LOAD(br, re + b);
        CBCT_LOAD(bi, im + b);
        const Lane tr = br * c - bi * s, ti = br * s + bi * c;
        CBCT_STORE(re + a, ar + tr);
        CBCT_STORE(im + a, ai + ti);
        CBCT_STORE(re + b, ar - tr);
        CBCT_STORE(im + b, ai - ti);
      }
  }
}

#undef CBCT_LOAD
#undef CBCT_STORE

void
FilterDefault(double * re, double * im, unsigned int n, const double * c, const double * s, const double * gain)
{
  FilterLanes(re, im, n, c, s, gain);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) void
FilterAvx2(double * re, double * im, unsigned int n, const double * c, const double * s, const double * gain)
{
  FilterLanes(re, im, n, c, s, gain);
}

bool
HasAvx2()
{
  static const bool has = __builtin_cpu_supports("avx2") && !std::getenv("CBCT_DISABLE_AVX2");
  return has;
}
#endif
} // namespace

bool
RampRowFilter::Supports(unsigned int length)
{
  return length >= 4 && (length & (length - 1)) == 0;
}

RampRowFilter::RampRowFilter(unsigned int length, const std::vector<double> & response)
  : m_Length(length)
{
  if (!Supports(length))
    ThrowBadParameter("ramp filter FFT length", length, "a power of two >= 4 (RampRowFilter)");
  if (response.size() < length / 2 + 1)
    ThrowBadParameter("ramp filter response size", response.size(), "length / 2 + 1 values");
  m_Cos.resize(length / 2);
  m_Sin.resize(length / 2);
  const double pi = std::acos(-1.);
  for (unsigned int k = 0; k < length / 2; ++k)
  {
    m_Cos[k] = std::cos(2. * pi * k / length);
    m_Sin[k] = -std::sin(2. * pi * k / length);
  }
  unsigned int bits = 0;
  while ((1u << bits) < length)
    ++bits;
  m_Gain.resize(length);
  for (unsigned int k = 0; k < length; ++k)
  {
    unsigned int f = 0;
    for (unsigned int b = 0; b < bits; ++b)
      f |= ((k >> b) & 1u) << (bits - 1 - b);
    m_Gain[k] = response[f <= length / 2 ? f : length - f];
  }
}

void
RampRowFilter::Filter(double * re, double * im) const
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (HasAvx2())
  {
    FilterAvx2(re, im, m_Length, m_Cos.data(), m_Sin.data(), m_Gain.data());
    return;
  }
#endif
  FilterDefault(re, im, m_Length, m_Cos.data(), m_Sin.data(), m_Gain.data());
}

} // namespace cbct
