#ifndef cbctFourDOperations_h
#define cbctFourDOperations_h

#include "cbctWorkerErrors.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cbct
{

/** \class FourDOperations
 * \brief The steps of 4D ROOSTER that the reconstruction backends do not have, on the CPU: one
 * frame's share of a projection stack (the 4D projection model's interpolation weights), positivity,
 * the motion mask and total variation along time. CudaFourDOperations offers the same calls on
 * device buffers with the same float arithmetic (cbctCudaFourDROOSTER.hcu), so that
 * FourDROOSTERConeBeamReconstructionFilter::Reconstruct() is written once for both.
 *
 * A 4D volume is a std::vector of frames, each a backend vector of Voxels() floats.
 * \ingroup ConeBeamCT
 */
class FourDOperations
{
public:
  using Vector = std::vector<float>;

  /** `frameWeights[f][k]`: the weight of frame f in projection k (0 where k does not see f). */
  FourDOperations(std::vector<std::vector<float>> frameWeights, std::size_t pixelsPerProjection, std::size_t voxels)
    : m_Weights(std::move(frameWeights))
    , m_PixelsPerProjection(pixelsPerProjection)
    , m_Voxels(voxels)
  {}

  /** `count` frames of Voxels() floats. */
  std::vector<Vector>
  MakeFrames(unsigned int count) const
  {
    return std::vector<Vector>(count, Vector(m_Voxels));
  }

  /** For each projection k with w = weight of `frame` in k non-zero: out_k = w in_k (+ out_k when
   * `add`); projections of weight 0 are left alone. */
  void
  WeightFrame(unsigned int frame, const Vector & in, Vector & out, bool add) const
  {
    const std::vector<float> & weights = m_Weights[frame];
    const std::size_t pixels = m_PixelsPerProjection;
    ParallelizeArray(
      0, weights.size(),
      [&](itk::SizeValueType k) {
        const float w = weights[k];
        if (w == 0.f)
          return;
        for (std::size_t i = k * pixels; i < (k + 1) * pixels; ++i)
        {
          const float value = w * in[i];
          out[i] = add ? out[i] + value : value;
        }
      });
  }

  /** v = max(v, 0) (a NaN stays NaN). */
  void
  ClampNonNegative(Vector & v) const
  {
    for (float & value : v)
      if (value < 0.f)
        value = 0.f;
  }

  /** RTK's AverageOutOfROI: where mask == 0, every frame's voxel becomes the frames' mean (summed in
   * frame order in float, divided by the count). */
  void
  AverageOutsideMask(std::vector<Vector> & frames, const Vector & mask) const
  {
    const auto count = static_cast<float>(frames.size());
    for (std::size_t v = 0; v < m_Voxels; ++v)
    {
      if (mask[v] != 0.f)
        continue;
      float sum = 0.f;
      for (const Vector & frame : frames)
        sum = sum + frame[v];
      const float mean = sum / count;
      for (Vector & frame : frames)
        frame[v] = mean;
    }
  }

  /** Total-variation denoising of each voxel's time series, the frames cyclic (the last is followed
   * by the first): the u minimising 1/2 sum_t (u_t - f_t)^2 + lambda sum_t |u_{t+1} - u_t|, by
   * `iterations` steps of Chambolle's projection algorithm (as DenoiseTotalVariation() in space;
   * tau = 1/4, the bound of the cyclic difference's norm). With fewer than two frames there is no
   * time to regularise: nothing changes. */
  void
  TemporalTotalVariation(std::vector<Vector> & frames, double lambda, unsigned int iterations)
  {
    const std::size_t count = frames.size();
    if (count < 2 || iterations == 0)
      return;
    m_Dual.assign(count * m_Voxels, 0.f);
    const float scale = static_cast<float>(-1. / lambda), l = static_cast<float>(lambda), tau = 0.25f;
    const std::size_t voxels = m_Voxels;
    float * dual = m_Dual.data();
    std::vector<float *> f(count);
    for (std::size_t t = 0; t < count; ++t)
      f[t] = frames[t].data();
    ParallelizeArray(
      0, voxels,
      [&](itk::SizeValueType v) {
        float * p = dual + v;
        for (unsigned int n = 0; n < iterations; ++n)
        {
          const float z0 = (p[0] - p[(count - 1) * voxels]) + scale * f[0][v];
          float z = z0;
          for (std::size_t t = 0; t < count; ++t)
          {
            const std::size_t next = t + 1 == count ? 0 : t + 1;
            const float old = p[t * voxels];
            const float zNext = next == 0 ? z0 : (p[next * voxels] - old) + scale * f[next][v];
            const float g = zNext - z;
            p[t * voxels] = (old + tau * g) / (1.f + tau * std::fabs(g));
            z = zNext;
          }
        }
        float previous = p[(count - 1) * voxels];
        for (std::size_t t = 0; t < count; ++t)
        {
          const float current = p[t * voxels];
          f[t][v] = f[t][v] - l * (current - previous);
          previous = current;
        }
      });
  }

private:
  std::vector<std::vector<float>> m_Weights;
  std::size_t m_PixelsPerProjection;
  std::size_t m_Voxels;
  Vector m_Dual;
};

} // namespace cbct

#endif
