#ifndef cbctADMMTotalVariationWeights_h
#define cbctADMMTotalVariationWeights_h

#include "cbctThreeDCircularProjectionGeometry.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cbct
{

/** \brief ADMM-TV's Alpha and Beta chosen from the problem's scales, for a first run without tuning.
 *
 * ADMMTotalVariationConeBeamReconstructionFilter minimises |A x - p|^2 + Alpha TV(x) and couples
 * x to its gradient field with weight Beta. Fixed numbers cannot suit every scan: with Joseph's
 * projector A grows with the voxel size s (path lengths in mm), the gradient D (per mm) shrinks
 * with it, so the Beta that balances A^T A and Beta D^T D changes as s^4 when the detector is
 * sampled as finely as the voxels; and the soft threshold Alpha / (2 Beta) acts on gradients,
 * attenuation per mm, which scale with the attenuation and with 1 / s. Measured on a 30-view
 * Shepp-Logan scan (10 iterations of 3 CG steps): Alpha 100, Beta 300 gave MAE 0.026 on 64^3 voxels
 * of 2 mm and 0.048 on the same scan scaled to 1 mm voxels, where Alpha 12.5, Beta 62.5 gave 0.029
 * (docs/guide/choosing-a-method.md).
 *
 * So Beta = BetaFactor x lambdaA / lambdaD, with lambdaA an estimate of A^T A's largest
 * eigenvalue, the row sum of a central voxel: views x (rays through a voxel per view) x (path in the
 * voxel) x (path through the volume) = n (s M / du) (s M / dv) s (N s), M = SDD / SID the
 * magnification (1 for parallel beam), N the mean number of voxels along an axis; and lambdaD =
 * 4 sum_d 1 / s_d^2, D^T D's largest eigenvalue. Alpha = 2 Beta x ThresholdFactor x mu / s, mu the
 * typical attenuation, the 99.9th percentile of the projections (line integrals) over the
 * volume's width N s. The two factors were chosen on that scan with 5 CG steps (0.1 and 0.2: Alpha
 * 104, Beta 576 on the 2 mm grid, MAE 0.017; Alpha 100, Beta 500 measured 0.0165, Alpha 100, Beta
 * 300 0.0169, Alpha 50, Beta 500 0.018, Alpha 150, Beta 300 0.020, 0.2 and 0.1 0.019).
 * \ingroup ConeBeamCT
 */
struct ADMMTotalVariationWeights
{
  double alpha = 0.;
  double beta = 0.;
  double operatorScale = 0.;    ///< lambdaA / lambdaD
  double attenuationScale = 0.; ///< mu, per mm

  static constexpr double BetaFactor = 0.1;
  static constexpr double ThresholdFactor = 0.2;

  /** From the geometry, the detector's pixel spacing (du, dv) in mm, the projections (`count` line
   * integrals; non-finite values ignored), the volume's size and spacing (mm). */
  static ADMMTotalVariationWeights
  Automatic(const ThreeDCircularProjectionGeometry * geometry, double du, double dv, const float * projections,
            std::size_t count, const unsigned long volumeSize[3], const double volumeSpacing[3])
  {
    ADMMTotalVariationWeights w;
    const unsigned int n = geometry->GetNumberOfProjections();
    double magnification = 0.;
    for (unsigned int k = 0; k < n; ++k)
    {
      const double sid = geometry->GetSourceToIsocenterDistance(k), sdd = geometry->GetSourceToDetectorDistance(k);
      magnification += sdd > 0. && sid > 0. ? sdd / sid : 1.; // parallel beam (SDD 0): 1
    }
    magnification = n > 0 ? magnification / n : 1.;
    const double s = (volumeSpacing[0] + volumeSpacing[1] + volumeSpacing[2]) / 3.;
    const double voxels = (static_cast<double>(volumeSize[0]) + volumeSize[1] + volumeSize[2]) / 3.;
    const double lambdaA = n * (s * magnification / du) * (s * magnification / dv) * s * (voxels * s);
    double lambdaD = 0.;
    for (unsigned int d = 0; d < 3; ++d)
      lambdaD += 4. / (volumeSpacing[d] * volumeSpacing[d]);
    w.operatorScale = lambdaA / lambdaD;
    w.beta = BetaFactor * w.operatorScale;

    // The 99.9th percentile of the line integrals, from at most about 4 million of them.
    const std::size_t stride = std::max<std::size_t>(1, count / 4000000);
    std::vector<float> samples;
    samples.reserve(count / stride + 1);
    for (std::size_t i = 0; i < count; i += stride)
      if (std::isfinite(projections[i]))
        samples.push_back(projections[i]);
    double high = 0.;
    if (!samples.empty())
    {
      const auto k = static_cast<std::size_t>(0.999 * static_cast<double>(samples.size() - 1));
      std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(k), samples.end());
      high = samples[k];
    }
    w.attenuationScale = std::max(high, 0.) / (voxels * s);
    w.alpha = 2. * w.beta * ThresholdFactor * w.attenuationScale / s;
    if (!(w.alpha > 0.) || !std::isfinite(w.alpha)) // no attenuation at all: no regularisation to scale
      w.alpha = 0.;
    if (!(w.beta > 0.) || !std::isfinite(w.beta))
      w.beta = 1.;
    return w;
  }
};

} // namespace cbct

#endif
