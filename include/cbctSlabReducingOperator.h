#ifndef cbctSlabReducingOperator_h
#define cbctSlabReducingOperator_h

#include "cbctProjectorOperator.h"
#include "cbctSlabReduction.h"

#include <algorithm>
#include <memory>

namespace cbct
{

/** \class SlabReducingOperator
 * \brief A projector pair made for one slab of a volume, whose forward projections are summed over
 * the slabs of every participant (SlabReduction): A x of the whole volume. The backprojection stays
 * the slab's own (A^T y restricted to the slab is exactly the slab's share of the whole A^T y).
 *
 * Exact when the partial projections of the slabs add up to the whole one: Joseph's samples do
 * (every sample is the bilinear combination of the same voxels wherever the volume is cut); the ray
 * caster's do not (its samples start where the ray enters the volume), and the filters refuse it.
 * \ingroup ConeBeamCT
 */
class SlabReducingOperator : public ProjectorOperator
{
public:
  SlabReducingOperator(std::unique_ptr<ProjectorOperator> slab, SlabReduction * reduction)
    : m_Slab(std::move(slab))
    , m_Reduction(reduction)
  {}

  std::size_t
  PixelsPerProjection() const override
  {
    return m_Slab->PixelsPerProjection();
  }
  std::size_t
  Voxels() const override
  {
    return m_Slab->Voxels();
  }

  void
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const override
  {
    if (subset.empty())
      return;
    // The slab's partial projections (in place, or beside them when they are added to), packed and
    // summed over the participants in one call, then unpacked.
    const std::size_t pixels = this->PixelsPerProjection();
    float * partial = projections;
    if (add)
    {
      m_Scratch.resize(std::max(m_Scratch.size(), pixels * (1 + *std::max_element(subset.begin(), subset.end()))));
      partial = m_Scratch.data();
    }
    m_Slab->Forward(volume, partial, subset, false);
    m_Packed.resize(subset.size() * pixels);
    for (std::size_t n = 0; n < subset.size(); ++n)
      std::copy_n(partial + subset[n] * pixels, pixels, m_Packed.data() + n * pixels);
    m_Reduction->SumProjections(m_Packed.data(), m_Packed.size());
    for (std::size_t n = 0; n < subset.size(); ++n)
    {
      float * out = projections + subset[n] * pixels;
      const float * sum = m_Packed.data() + n * pixels;
      for (std::size_t i = 0; i < pixels; ++i)
        out[i] = add ? out[i] + sum[i] : sum[i];
    }
  }

  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const override
  {
    m_Slab->Back(projections, volume, subset, add);
  }

private:
  std::unique_ptr<ProjectorOperator> m_Slab;
  SlabReduction * m_Reduction;
  mutable std::vector<float> m_Packed;
  mutable std::vector<float> m_Scratch;
};

} // namespace cbct

#endif
