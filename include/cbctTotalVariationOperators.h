#ifndef cbctTotalVariationOperators_h
#define cbctTotalVariationOperators_h

#include "cbctTotalVariation.hcu"
#include "cbctWorkerErrors.h"

#include <itkImageBase.h>

#include <cmath>
#include <cstddef>

namespace cbct
{

/** The TV grid of an image (its size and 1 / spacing). */
inline TVGrid
MakeTVGrid(const itk::ImageBase<3> * image)
{
  TVGrid grid;
  for (unsigned int d = 0; d < 3; ++d)
  {
    grid.size[d] = static_cast<int>(image->GetLargestPossibleRegion().GetSize(d));
    grid.inverseSpacing[d] = static_cast<float>(1. / image->GetSpacing()[d]);
  }
  return grid;
}

/** \class TotalVariationOperators
 * \brief The operators of total-variation methods on whole, contiguous volumes (cbctTotalVariation.hcu)
 * on the CPU's threads: the gradient D and divergence div = -D^T, the derivative of the smoothed TV,
 * Chambolle's dual step and ADMM's shrinkage. CudaTotalVariationOperators is the GPU twin, with the
 * same calls on device buffers. Vector fields are three volumes.
 * \ingroup ConeBeamCT
 */
class TotalVariationOperators
{
public:
  explicit TotalVariationOperators(const TVGrid & grid)
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

  /** g = d TV_eps / d x (TVDerivative()). */
  void
  Derivative(const float * x, float * g, double epsilon) const
  {
    const float epsilon2 = static_cast<float>(epsilon * epsilon);
    this->ForEachVoxel([&](int X, int Y, int Z, long long v) { g[v] = TVDerivative(x, m_Grid, epsilon2, X, Y, Z); });
  }

  /** p = D x. */
  void
  Gradient(const float * x, float * const p[3]) const
  {
    this->ForEachVoxel([&](int X, int Y, int Z, long long v) {
      float d[3];
      TVForwardDifferences(x, m_Grid, X, Y, Z, d);
      p[0][v] = d[0];
      p[1][v] = d[1];
      p[2][v] = d[2];
    });
  }

  /** out = scale div p + offsetScale offset (offset may be null: then out = scale div p). */
  void
  Divergence(const float * const p[3], float * out, float scale, const float * offset = nullptr, float offsetScale = 0.f) const
  {
    this->ForEachVoxel([&](int X, int Y, int Z, long long v) {
      out[v] = TVScaledDivergence(p[0], p[1], p[2], m_Grid, X, Y, Z, scale, offset, offsetScale);
    });
  }

  /** Chambolle's step on the dual field: w = D z, p = (p + tau w) / (1 + tau |w|). */
  void
  ChambolleStep(const float * z, float * const p[3], float tau) const
  {
    this->ForEachVoxel([&](int X, int Y, int Z, long long) { TVChambolleStep(z, p[0], p[1], p[2], m_Grid, tau, X, Y, Z); });
  }

  /** ADMM's shrinkage with q = D x: w = q - d, g = w shrunk by t (TVShrink()), d = g - w. */
  void
  ShrinkStep(const float * const q[3], float * const g[3], float * const d[3], float t) const
  {
    this->ForEachVoxel([&](int, int, int, long long v) { TVShrinkStep(q, g, d, t, v); });
  }

  /** TV_eps(x) = sum sqrt(eps^2 + |D x|^2), in double (objectives and tests). */
  double
  Value(const float * x, double epsilon = 0.) const
  {
    double sum = 0.;
    for (int Z = 0; Z < m_Grid.size[2]; ++Z)
      for (int Y = 0; Y < m_Grid.size[1]; ++Y)
        for (int X = 0; X < m_Grid.size[0]; ++X)
        {
          float d[3];
          TVForwardDifferences(x, m_Grid, X, Y, Z, d);
          sum += std::sqrt(epsilon * epsilon + double(d[0]) * d[0] + double(d[1]) * d[1] + double(d[2]) * d[2]);
        }
    return sum;
  }

private:
  /** f(X, Y, Z, offset) for every voxel, slices along z spread over ITK's thread pool. */
  template <typename F>
  void
  ForEachVoxel(F && f) const
  {
    ParallelizeArray(
      0, m_Grid.size[2],
      [&](itk::SizeValueType z) {
        const int Z = static_cast<int>(z);
        for (int Y = 0; Y < m_Grid.size[1]; ++Y)
          for (int X = 0; X < m_Grid.size[0]; ++X)
            f(X, Y, Z, TVOffset(m_Grid, X, Y, Z));
      });
  }

  TVGrid m_Grid;
};

} // namespace cbct

#endif
