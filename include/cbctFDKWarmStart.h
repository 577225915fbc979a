#ifndef cbctFDKWarmStart_h
#define cbctFDKWarmStart_h

#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <algorithm>
#include <cmath>

namespace cbct
{

/** \brief The initial volume of an iterative method from FDK ("warm start"): FDK of `projections`
 * (TFDK with its defaults: Ram-Lak, the weights the geometry asks for, helical FDK on a helix) on the
 * grid of `grid` (its pixels are not read), with negative and non-finite values set to 0.
 *
 * Why: a method that starts from zero spends its first iterations building the low frequencies that
 * FDK gives at once. ADMM-TV, whose conjugate gradient steps change x slowly, gains most: on 30 views
 * of Shepp-Logan, 10 iterations reach MAE 0.011 from FDK and 0.025 from zero
 * (docs/guide/choosing-a-method.md). SART and ASD-POCS do not gain: their projections onto each view
 * rebuild the volume within one pass, and FDK's streaks on few views are then what they keep.
 * Negative attenuation is not physical and the positivity constraints start from x >= 0.
 *
 * Throws what the FDK filter throws for a geometry FDK cannot reconstruct (a caller may then start
 * from zero).
 * \ingroup ConeBeamCT
 */
template <typename TFDK, typename TImage>
typename TImage::Pointer
FDKWarmStart(const TImage * projections, const ThreeDCircularProjectionGeometry * geometry, const TImage * grid)
{
  auto zero = TImage::New();
  zero->CopyInformation(grid);
  zero->SetRegions(grid->GetLargestPossibleRegion());
  zero->Allocate(true);
  auto fdk = TFDK::New();
  fdk->SetInput(0, zero);
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  typename TImage::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  float * v = volume->GetBufferPointer();
  const std::size_t n = volume->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < n; ++i)
    v[i] = std::isfinite(v[i]) ? std::max(v[i], 0.f) : 0.f;
  return volume;
}

} // namespace cbct

#endif
