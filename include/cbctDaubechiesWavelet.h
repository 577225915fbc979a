#ifndef cbctDaubechiesWavelet_h
#define cbctDaubechiesWavelet_h

#include "ConeBeamCTExport.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cbct
{

/** \class DaubechiesWavelet
 * \brief Daubechies' orthogonal wavelets db1 (Haar) to db10 and one level of their discrete wavelet
 * transform along a strided line, with the conventions of PyWavelets (which TomoPy's stripe filters
 * use): the same filter names and coefficients, half-sample symmetric extension ("symmetric" mode),
 * n samples giving floor((n + L - 1) / 2) coefficients of each band for a filter of L taps.
 *
 * The coefficients are the minimum-phase spectral factors of Daubechies' polynomial (Ten Lectures on
 * Wavelets, 1992, section 6.1), computed once at 50 digits and rounded to double; the tests check
 * their defining properties (sum sqrt(2), orthonormal to their even shifts, N vanishing moments) and
 * perfect reconstruction.
 *
 * Analysis: low[o] = sum_j h[j] x[2o + 1 - j], high[o] = sum_j g[j] x[2o + 1 - j], o = 0 .. count - 1,
 * with x mirrored about its ends (x[-1 - i] = x[i], x[n + i] = x[n - 1 - i], repeated for signals
 * shorter than the filter). Synthesis is the transpose, which for an orthogonal wavelet is the
 * inverse: the n samples come back to rounding.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DaubechiesWavelet
{
public:
  /** "haar" or "db1" .. "db10"; anything else throws naming `parameter`, the value and the known names. */
  explicit DaubechiesWavelet(const std::string & name, const std::string & parameter = "wavelet");

  static bool
  IsKnown(const std::string & name);
  /** "haar, db1, db2, ..., db10". */
  static std::string
  KnownNames();

  const std::string &
  GetName() const
  {
    return m_Name;
  }
  /** Taps of each filter (2 N for dbN). */
  unsigned int
  GetLength() const
  {
    return static_cast<unsigned int>(m_LowPass.size());
  }
  /** The decomposition filters (PyWavelets' dec_lo and dec_hi). */
  const std::vector<double> &
  GetLowPass() const
  {
    return m_LowPass;
  }
  const std::vector<double> &
  GetHighPass() const
  {
    return m_HighPass;
  }

  /** Coefficients of each band for `samples` samples: floor((samples + L - 1) / 2). */
  std::size_t
  CoefficientCount(std::size_t samples) const
  {
    return (samples + m_LowPass.size() - 1) / 2;
  }

  /** One level of analysis of `samples` values x[i * stride] into low[o * outStride] and
   * high[o * outStride], o < CoefficientCount(samples). */
  void
  Analyze(const double * x, std::size_t samples, std::ptrdiff_t stride, double * low, double * high,
          std::ptrdiff_t outStride) const;

  /** The inverse of Analyze(): `samples` values x[i * stride] from `count` coefficients of each band
   * (`samples` at most 2 count - L + 2; a level's approximation may have one value more than the
   * level above needs, as in PyWavelets, and is cropped). */
  void
  Synthesize(const double * low, const double * high, std::size_t count, std::ptrdiff_t inStride, double * x,
             std::size_t samples, std::ptrdiff_t stride) const;

  /** Index into a signal of `samples` values mirrored about its ends, for any integer `i`. */
  static std::size_t
  SymmetricIndex(long long i, std::size_t samples)
  {
    const long long period = 2 * static_cast<long long>(samples);
    long long m = i % period;
    if (m < 0)
      m += period;
    return static_cast<std::size_t>(m < static_cast<long long>(samples) ? m : period - 1 - m);
  }

private:
  std::string m_Name;
  std::vector<double> m_LowPass;
  std::vector<double> m_HighPass;
};

} // namespace cbct

#endif
