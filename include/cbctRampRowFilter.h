#ifndef cbctRampRowFilter_h
#define cbctRampRowFilter_h

#include "ConeBeamCTExport.h"

#include <vector>

namespace cbct
{

/** \class RampRowFilter
 * \brief The CPU ramp filter's FFTs for padded lengths that are powers of two: Lanes complex rows
 * at a time (each the pair of two real rows, real and imaginary parts), filtered by a real, even
 * response in double precision.
 *
 * Forward radix-2 decimation in frequency (its output in bit-reversed order), the product with
 * the response (stored in that order), and an inverse radix-2 decimation in time that takes the
 * bit-reversed order back to the natural one: no reordering pass. The rows are interleaved (lane
 * fastest), so every butterfly is the same operation on Lanes rows, vectorised with AVX2 where the
 * processor has it. A real, even response keeps the real and imaginary parts apart, so the two
 * rows of a pair are filtered independently. Equals vnl's FFT to double rounding (1e-15 of a row).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT RampRowFilter
{
public:
  /** Complex rows per Filter() call. */
  static constexpr unsigned int Lanes = 4;

  /** Whether `length` is a power of two of at least 4 (else the caller uses another FFT). */
  static bool
  Supports(unsigned int length);

  /** `response[f]`, f = 0 .. length / 2: the filter's gain at frequency f (and length - f), with the
   * inverse transform's 1 / length included, as RampFilterResponse() gives it. */
  RampRowFilter(unsigned int length, const std::vector<double> & response);

  unsigned int
  GetLength() const
  {
    return m_Length;
  }

  /** Filters in place `re` and `im`, each length x Lanes doubles, element (n, lane) at n * Lanes + lane. */
  void
  Filter(double * re, double * im) const;

private:
  unsigned int m_Length = 0;
  std::vector<double> m_Cos, m_Sin; ///< exp(-2 pi i k / length) for k < length / 2
  std::vector<double> m_Gain;       ///< the response in bit-reversed order of frequencies
};

} // namespace cbct

#endif
