#ifndef cbctEmissionOperator_h
#define cbctEmissionOperator_h

#include "cbctEmissionLattice.h"
#include "cbctProjectorOperator.h"
#include "cbctWorkerErrors.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cbct
{

/** \class EmissionOperator
 * \brief The emission projector pair on the CPU's threads (the twin of CudaEmissionOperator): A maps
 * an activity volume to its attenuated, collimator-blurred projections by compositing each view's
 * slices back to front (cbctEmission.hcu, EmissionLattice), A^T is its exact transpose, compositing
 * front to back. Forward() works view by view, each in its own lattice buffer; Back() gives each
 * work unit its own partial volume (double), summed in a fixed order, so results do not depend on
 * scheduling. Memory per thread: one view's lattice (slices x detector pixels floats) and, for Back(),
 * one volume of doubles. The transmissions exp(-mu l) of the lattice cells, which every call needs
 * again, are kept for as many views as fit TransmissionCacheBytes (256 MiB) and computed afresh for
 * the others.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class EmissionOperator : public ProjectorOperator
{
public:
  /** `attenuation`: mu per mm on any grid, or null; it must outlive the operator. Throws for a
   * negative or non-finite mu, or a bad blur. */
  EmissionOperator(const TImage * activity, const TImage * projections, const ThreeDCircularProjectionGeometry * geometry,
                   const TImage * attenuation, const CollimatorBlur & blur)
    : m_Lattice(activity, attenuation, projections, geometry, blur)
  {
    if (attenuation != nullptr)
    {
      EmissionLattice::CheckAttenuation(attenuation);
      m_Attenuation = attenuation->GetBufferPointer();
      // Which views keep their transmissions: the first ones that fit the cache.
      m_Transmissions.resize(geometry->GetNumberOfProjections());
      std::size_t bytes = 0;
      for (unsigned int k = 0; k < m_Transmissions.size(); ++k)
      {
        bytes += m_Lattice.Cells(k) * sizeof(float);
        m_Transmissions[k].cached = bytes <= TransmissionCacheBytes;
      }
    }
  }

  /** Bytes of transmissions the operator keeps between calls. */
  static constexpr std::size_t TransmissionCacheBytes = std::size_t(256) << 20;

  const EmissionLattice &
  Lattice() const
  {
    return m_Lattice;
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return static_cast<std::size_t>(m_Lattice.Columns()) * m_Lattice.Rows();
  }
  std::size_t
  Voxels() const override
  {
    const int * n = m_Lattice.ActivitySize();
    return static_cast<std::size_t>(n[0]) * n[1] * n[2];
  }

  /** projections[k] (+)= A_k volume for each k of `subset` (overwrites when `add` is false). */
  void
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const override
  {
    ParallelizeArray(
      0, subset.size(),
      [&](itk::SizeValueType n) {
        const unsigned int k = subset[n];
        const EmissionView & v = m_Lattice.Views()[k];
        std::vector<float> cells(m_Lattice.Cells(k), 0.f);
        this->Splat(v, volume, cells.data());
        std::vector<float> plane(this->PixelsPerProjection()), scratch;
        this->Composite(v, cells.data(), this->Transmissions(k, scratch), plane.data());
        float * out = projections + static_cast<std::size_t>(k) * this->PixelsPerProjection();
        for (std::size_t p = 0; p < plane.size(); ++p)
          out[p] = add ? out[p] + plane[p] : plane[p];
      });
  }

  /** volume (+)= sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const override
  {
    const std::size_t voxels = this->Voxels();
    const std::size_t units =
      std::max<std::size_t>(1, std::min<std::size_t>(subset.size(), itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads()));
    std::vector<std::vector<double>> partial(units, std::vector<double>(voxels, 0.));
    ParallelizeArray(
      0, units,
      [&](itk::SizeValueType unit) {
        for (std::size_t n = unit; n < subset.size(); n += units)
        {
          const unsigned int k = subset[n];
          const EmissionView & v = m_Lattice.Views()[k];
          std::vector<float> cells(m_Lattice.Cells(k)), scratch;
          this->CompositeTransposed(v, projections + static_cast<std::size_t>(k) * this->PixelsPerProjection(),
                                    this->Transmissions(k, scratch), cells.data());
          this->Gather(v, cells.data(), partial[unit].data());
        }
      });
    for (std::size_t x = 0; x < voxels; ++x)
    {
      double sum = 0.;
      for (std::size_t unit = 0; unit < units; ++unit)
        sum += partial[unit][x];
      volume[x] = static_cast<float>(add ? volume[x] + sum : sum);
    }
  }

private:
  /** cells += S volume: each voxel's activity into the lattice cells around it. */
  void
  Splat(const EmissionView & v, const float * volume, float * cells) const
  {
    const int * n = m_Lattice.ActivitySize();
    const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
    std::size_t x = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i, ++x)
        {
          const float a = volume[x];
          if (a != 0.f)
            EmissionVisitCells(v, columns, rows, static_cast<float>(i), static_cast<float>(j), static_cast<float>(k),
                               [&](long long cell, float w) { cells[cell] = AddRn(cells[cell], MulRn(w, a)); });
        }
  }

  /** volume += S^T cells (in double; each voxel's sum over its cells in float, as the GPU). */
  void
  Gather(const EmissionView & v, const float * cells, double * volume) const
  {
    const int * n = m_Lattice.ActivitySize();
    const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
    std::size_t x = 0;
    for (int k = 0; k < n[2]; ++k)
      for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i, ++x)
        {
          float sum = 0.f;
          EmissionVisitCells(v, columns, rows, static_cast<float>(i), static_cast<float>(j), static_cast<float>(k),
                             [&](long long cell, float w) { sum = AddRn(sum, MulRn(w, cells[cell])); });
          volume[x] += sum;
        }
  }

  /** plane = G(plane), separable: along u into `scratch`, then along v back. */
  void
  Blur(const EmissionBlurStep & step, float * plane, float * scratch) const
  {
    if (step.radiusU == 0 && step.radiusV == 0)
      return;
    const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
    const float * taps = m_Lattice.Taps().data();
    for (int j = 0; j < rows; ++j)
      for (int i = 0; i < columns; ++i)
        scratch[j * columns + i] = EmissionBlurAt(plane + j * columns, 1, columns, i, taps + step.firstU, step.radiusU);
    for (int j = 0; j < rows; ++j)
      for (int i = 0; i < columns; ++i)
        plane[j * columns + i] = EmissionBlurAt(scratch + i, columns, rows, j, taps + step.firstV, step.radiusV);
  }

  /** The transmissions of view k's cells (slice after slice), kept when the cache holds the view:
   * into `scratch` otherwise; null without an attenuation map (every transmission is 1). Each view is
   * worked on by one thread at a time, so filling its cache entry needs no lock. */
  const float *
  Transmissions(unsigned int k, std::vector<float> & scratch) const
  {
    if (m_Attenuation == nullptr)
      return nullptr;
    Transmission & entry = m_Transmissions[k];
    std::vector<float> & values = entry.cached ? entry.values : scratch;
    if (!entry.cached || values.empty())
    {
      const EmissionView & v = m_Lattice.Views()[k];
      const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
      values.resize(m_Lattice.Cells(k));
      std::size_t c = 0;
      for (int s = 0; s < v.slices; ++s)
        for (int j = 0; j < rows; ++j)
          for (int i = 0; i < columns; ++i, ++c)
            values[c] = EmissionTransmission(v, m_Attenuation, m_Lattice.AttenuationSize(), i, j, s);
    }
    return values.data();
  }

  /** out = the view's projection of its lattice `cells`, whose transmissions are `transmissions`
   * (null: 1): back to front, B = G_s(B) T_s + H_s. */
  void
  Composite(const EmissionView & v, const float * cells, const float * transmissions, float * out) const
  {
    const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
    const std::size_t plane = static_cast<std::size_t>(columns) * rows;
    std::fill(out, out + plane, 0.f);
    std::vector<float> scratch(plane);
    const EmissionBlurStep * steps = m_Lattice.BlurSteps().data() + v.blurFirst;
    for (int s = v.slices - 1; s >= 0; --s)
    {
      if (s + 1 < v.slices)
        this->Blur(steps[s], out, scratch.data());
      const float * l = cells + static_cast<std::size_t>(s) * plane;
      const float * transmission = transmissions ? transmissions + static_cast<std::size_t>(s) * plane : nullptr;
      for (int j = 0; j < rows; ++j)
        for (int i = 0; i < columns; ++i)
        {
          float length;
          const float scale = EmissionScale(v, i, j, s, length);
          const float t = transmission ? transmission[j * columns + i] : 1.f;
          float & b = out[j * columns + i];
          b = AddRn(MulRn(b, t), MulRn(MulRn(l[j * columns + i], scale), sqrtf(t)));
        }
    }
    if (v.slices > 0)
      this->Blur(steps[v.slices - 1], out, scratch.data());
  }

  /** cells = the transpose of Composite() applied to the projection `in`: front to back. */
  void
  CompositeTransposed(const EmissionView & v, const float * in, const float * transmissions, float * cells) const
  {
    const int columns = m_Lattice.Columns(), rows = m_Lattice.Rows();
    const std::size_t plane = static_cast<std::size_t>(columns) * rows;
    if (v.slices == 0)
      return;
    std::vector<float> a(in, in + plane), scratch(plane);
    const EmissionBlurStep * steps = m_Lattice.BlurSteps().data() + v.blurFirst;
    this->Blur(steps[v.slices - 1], a.data(), scratch.data());
    for (int s = 0; s < v.slices; ++s)
    {
      float * y = cells + static_cast<std::size_t>(s) * plane;
      const float * transmission = transmissions ? transmissions + static_cast<std::size_t>(s) * plane : nullptr;
      for (int j = 0; j < rows; ++j)
        for (int i = 0; i < columns; ++i)
        {
          float length;
          const float scale = EmissionScale(v, i, j, s, length);
          const float t = transmission ? transmission[j * columns + i] : 1.f;
          float & b = a[j * columns + i];
          y[j * columns + i] = MulRn(MulRn(b, scale), sqrtf(t));
          b = MulRn(b, t);
        }
      if (s + 1 < v.slices)
        this->Blur(steps[s], a.data(), scratch.data());
    }
  }

  struct Transmission
  {
    bool cached = false;
    std::vector<float> values;
  };

  EmissionLattice m_Lattice;
  const float * m_Attenuation = nullptr;
  mutable std::vector<Transmission> m_Transmissions;
};

} // namespace cbct

#endif
