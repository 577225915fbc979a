#ifndef cbctCudaTotalVariationOperators_h
#define cbctCudaTotalVariationOperators_h

#include "cbctCudaCheck.h"
#include "cbctCudaTotalVariation.hcu"

#include <cstddef>

namespace cbct
{

/** \class CudaTotalVariationOperators
 * \brief TotalVariationOperators on the GPU: the same calls on device volumes (the default stream),
 * one thread per voxel with the same per-voxel math (cbctTotalVariation.hcu).
 * \ingroup ConeBeamCT
 */
class CudaTotalVariationOperators
{
public:
  explicit CudaTotalVariationOperators(const TVGrid & grid)
    : m_Grid(grid)
  {}

  std::size_t
  Voxels() const
  {
    return static_cast<std::size_t>(m_Grid.size[0]) * m_Grid.size[1] * m_Grid.size[2];
  }
  const TVGrid &
  Grid() const
  {
    return m_Grid;
  }

  void
  Derivative(const float * x, float * g, double epsilon) const
  {
    CudaCheck(LaunchTVDerivative(x, g, m_Grid, static_cast<float>(epsilon * epsilon), nullptr), "LaunchTVDerivative");
  }
  void
  Gradient(const float * x, float * const p[3]) const
  {
    CudaCheck(LaunchTVGradient(x, p[0], p[1], p[2], m_Grid, nullptr), "LaunchTVGradient");
  }
  void
  Divergence(const float * const p[3], float * out, float scale, const float * offset = nullptr, float offsetScale = 0.f) const
  {
    CudaCheck(LaunchTVDivergence(p[0], p[1], p[2], out, m_Grid, scale, offset, offsetScale, nullptr), "LaunchTVDivergence");
  }
  void
  ChambolleStep(const float * z, float * const p[3], float tau) const
  {
    CudaCheck(LaunchChambolleStep(z, p[0], p[1], p[2], m_Grid, tau, nullptr), "LaunchChambolleStep");
  }
  void
  ShrinkStep(const float * const q[3], float * const g[3], float * const d[3], float t) const
  {
    CudaShrinkLaunch launch;
    for (int c = 0; c < 3; ++c)
    {
      launch.q[c] = q[c];
      launch.g[c] = g[c];
      launch.d[c] = d[c];
    }
    launch.voxels = static_cast<long long>(this->Voxels());
    launch.threshold = t;
    CudaCheck(LaunchTVShrinkStep(launch, nullptr), "LaunchTVShrinkStep");
  }

private:
  TVGrid m_Grid;
};

} // namespace cbct

#endif
