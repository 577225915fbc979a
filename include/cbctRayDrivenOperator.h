#ifndef cbctRayDrivenOperator_h
#define cbctRayDrivenOperator_h

#include "cbctProjectorOperator.h"
#include "cbctWorkerErrors.h"

#include <itkImage.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace cbct
{

/** \class RayDrivenOperator
 * \brief The system matrix A of a ray-driven projector over whole buffers: Forward() computes A x
 * for chosen projections, Back() computes A^T y, its exact transpose (same samples, same weights).
 *
 * TProjector describes one projection's rays: Visit(i, j, f) calls f(offset, weight) for every voxel
 * a pixel's ray samples (JosephProjector, RayCastProjector). Volumes and projection stacks are
 * whole, contiguous float buffers laid out as the images given to the constructor (the volume is
 * not streamed: iterative methods need all of it). Work is spread over ITK's thread pool: Forward()
 * by detector row, Back() by projection into one partial volume per work unit, summed in a fixed
 * order so results do not depend on scheduling.
 * \ingroup ConeBeamCT
 */
template <typename TImage, typename TProjector>
class RayDrivenOperator : public ProjectorOperator
{
public:
  /** `makeProjector(k)` describes projection k's rays. */
  RayDrivenOperator(const TImage * volume, const TImage * projections, std::function<TProjector(unsigned int)> makeProjector)
    : m_MakeProjector(std::move(makeProjector))
  {
    const auto & size = projections->GetLargestPossibleRegion().GetSize();
    m_Columns = size[0];
    m_Rows = size[1];
    m_First[0] = projections->GetLargestPossibleRegion().GetIndex(0);
    m_First[1] = projections->GetLargestPossibleRegion().GetIndex(1);
    m_Voxels = volume->GetLargestPossibleRegion().GetNumberOfPixels();
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return m_Columns * m_Rows;
  }
  std::size_t
  Voxels() const override
  {
    return m_Voxels;
  }

  /** projections[k] (+)= A_k volume for each k of `subset` (overwrites when `add` is false). */
  void
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const override
  {
    // Row by row over the pool, not projection by projection: a SART subset is one projection.
    std::vector<TProjector> rays;
    rays.reserve(subset.size());
    for (unsigned int k : subset)
      rays.push_back(m_MakeProjector(k));
    ParallelizeArray(
      0, subset.size() * m_Rows,
      [&](itk::SizeValueType unit) {
        const std::size_t n = unit / m_Rows, j = unit % m_Rows;
        const TProjector & ray = rays[n];
        float * out = projections + static_cast<std::size_t>(subset[n]) * PixelsPerProjection() + j * m_Columns;
        for (std::size_t i = 0; i < m_Columns; ++i)
        {
          double sum = 0.;
          ray.Visit(static_cast<double>(m_First[0] + static_cast<long>(i)), static_cast<double>(m_First[1] + static_cast<long>(j)),
                    [&](long long offset, double w) { sum += w * volume[offset]; });
          float & p = out[i];
          p = static_cast<float>(add ? p + sum : sum);
        }
      });
  }

  /** volume (+)= sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const override
  {
    const std::size_t units = std::max<std::size_t>(1, std::min<std::size_t>(subset.size(), itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads()));
    std::vector<std::vector<double>> partial(units, std::vector<double>(m_Voxels, 0.));
    ParallelizeArray(
      0, units,
      [&](itk::SizeValueType unit) {
        std::vector<double> & acc = partial[unit];
        for (std::size_t n = unit; n < subset.size(); n += units)
        {
          const unsigned int k = subset[n];
          const TProjector ray = m_MakeProjector(k);
          const float * in = projections + static_cast<std::size_t>(k) * PixelsPerProjection();
          for (std::size_t j = 0; j < m_Rows; ++j)
            for (std::size_t i = 0; i < m_Columns; ++i)
            {
              const double value = in[j * m_Columns + i];
              if (value == 0.)
                continue;
              ray.Visit(static_cast<double>(m_First[0] + static_cast<long>(i)), static_cast<double>(m_First[1] + static_cast<long>(j)),
                        [&](long long offset, double w) { acc[offset] += w * value; });
            }
        }
      });
    for (std::size_t v = 0; v < m_Voxels; ++v)
    {
      double sum = 0.;
      for (std::size_t unit = 0; unit < units; ++unit)
        sum += partial[unit][v];
      volume[v] = static_cast<float>(add ? volume[v] + sum : sum);
    }
  }

private:
  std::function<TProjector(unsigned int)> m_MakeProjector;
  std::size_t m_Columns = 0, m_Rows = 0, m_Voxels = 0;
  long m_First[2] = { 0, 0 };
};

} // namespace cbct

#endif
