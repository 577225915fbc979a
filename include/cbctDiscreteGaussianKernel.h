#ifndef cbctDiscreteGaussianKernel_h
#define cbctDiscreteGaussianKernel_h

#include "ConeBeamCTExport.h"

#include <vector>

namespace cbct
{

/** Lindeberg's discrete Gaussian of `variance` (in samples^2): T(n) = exp(-t) I_n(t), the kernel whose
 * variance is exactly t and whose convolutions add variances exactly (T(t1) * T(t2) = T(t1 + t2)), so
 * that a blur applied in small increments accumulates to exactly the Gaussian of the total variance.
 * A sampled Gaussian has neither property for variances below about one sample^2. Returns the taps
 * T(0), T(1), ..., T(R) of the symmetric kernel, cut where a tap falls below 1e-6 of the centre's and
 * scaled to sum to 1 (so counts are kept; the variance is then exact to 3e-4 of itself, the cost of a
 * blur step is 2R + 1 taps per axis); variance 0 gives {1}. The modified Bessel functions come from
 * Miller's backward recurrence normalised by sum_n T(n) = 1. Throws for a negative or non-finite
 * variance. */
ConeBeamCT_EXPORT std::vector<double>
DiscreteGaussianKernel(double variance);

} // namespace cbct

#endif
