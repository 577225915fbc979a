#ifndef cbctCpuReconstructionBackend_h
#define cbctCpuReconstructionBackend_h

#include "cbctRunOnReconstructionBackend.h"
#include "cbctProjectorOperator.h"
#include "cbctTotalVariationOperators.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CpuReconstructionBackend
 * \brief What the total-variation methods (ASD-POCS, ADMM-TV) are written against, on the CPU: float
 * vectors (volumes, projection stacks, the three volumes of a vector field), their elementwise
 * steps, norms in double, the projector pair and the TV operators. CudaReconstructionBackend offers
 * the same calls on device buffers, so each method is written once (a template over the backend)
 * and its CPU and CUDA filters run the same steps. The elementwise steps round as the CUDA kernels
 * do (products with double scalars in double, sums in float).
 * \ingroup ConeBeamCT
 */
class CpuReconstructionBackend
{
public:
  using Vector = std::vector<float>;
  using Subset = std::vector<unsigned int>;

  /** The projector pair A for `projections` projections (may be null: volumes and TV only). */
  CpuReconstructionBackend(std::unique_ptr<ProjectorOperator> A, const TVGrid & grid, unsigned int projections)
    : m_A(std::move(A))
    , m_TV(grid)
    , m_Projections(projections)
  {}

  std::size_t
  Voxels() const
  {
    return m_TV.Voxels();
  }
  /** Pixels of the whole projection stack. */
  std::size_t
  Pixels() const
  {
    return this->PixelsPerProjection() * m_Projections;
  }
  std::size_t
  PixelsPerProjection() const
  {
    return m_A ? m_A->PixelsPerProjection() : 0;
  }

  Subset
  MakeSubset(const std::vector<unsigned int> & projections)
  {
    return projections;
  }
  static float *
  Data(Vector & v)
  {
    return v.data();
  }
  static const float *
  Data(const Vector & v)
  {
    return v.data();
  }

  /** v = the n floats at `host`; and back. */
  void
  Upload(const float * host, Vector & v, std::size_t n) const
  {
    std::copy(host, host + n, v.begin());
  }
  /** Waits until the work queued so far is done (the CPU's calls return done: nothing to wait for);
   * stage timers call it. */
  void
  Synchronize() const
  {}
  void
  Download(const Vector & v, float * host, std::size_t n) const
  {
    std::copy(v.begin(), v.begin() + n, host);
  }

  /** projections[k] = A_k x for k in `subset`. */
  void
  Forward(const Vector & x, Vector & projections, const Subset & subset)
  {
    m_A->Forward(x.data(), projections.data(), subset, false);
  }
  /** x (+)= sum over k in `subset` of A_k^T projections[k]. */
  void
  Back(const Vector & projections, Vector & x, const Subset & subset, bool add)
  {
    m_A->Back(projections.data(), x.data(), subset, add);
  }

  void
  Fill(Vector & v, float value) const
  {
    std::fill(v.begin(), v.end(), value);
  }
  void
  Copy(const Vector & from, Vector & to) const
  {
    std::copy(from.begin(), from.end(), to.begin());
  }
  /** y += float(alpha x), the product in double. */
  void
  Axpy(double alpha, const Vector & x, Vector & y) const
  {
    Elementwise(y.size(), [&](std::size_t i) { y[i] = y[i] + static_cast<float>(alpha * x[i]); });
  }
  /** y = float(x + beta y), in double. */
  void
  Xpby(const Vector & x, double beta, Vector & y) const
  {
    Elementwise(y.size(), [&](std::size_t i) { y[i] = static_cast<float>(x[i] + beta * y[i]); });
  }
  /** y = float(alpha y), the product in double. */
  void
  Scale(double alpha, Vector & y) const
  {
    Elementwise(y.size(), [&](std::size_t i) { y[i] = static_cast<float>(alpha * y[i]); });
  }
  /** y = max(y, 0). */
  void
  ZeroNegatives(Vector & y) const
  {
    Elementwise(y.size(), [&](std::size_t i) { y[i] = std::max(y[i], 0.f); });
  }
  /** y = x - y. */
  void
  SubtractFrom(const Vector & x, Vector & y) const
  {
    Elementwise(y.size(), [&](std::size_t i) { y[i] = x[i] - y[i]; });
  }
  /** sum of squares, in double. */
  double
  SquaredNorm(const Vector & x) const
  {
    double sum = 0.;
    for (float value : x)
      sum += static_cast<double>(value) * value;
    return sum;
  }

  /** SART's residual for the projections of `subset`: r = rayLength > 0 ? (measured - r) / rayLength : 0. */
  void
  SARTResidual(const Vector & measured, const Vector & rayLength, Vector & residual, const Subset & subset) const
  {
    const std::size_t pixels = this->PixelsPerProjection();
    for (unsigned int k : subset)
      for (std::size_t p = k * pixels; p < (k + 1) * pixels; ++p)
        residual[p] = rayLength[p] > 0.f ? (measured[p] - residual[p]) / rayLength[p] : 0.f;
  }
  /** SART's update: x += lambda correction / sensitivity where sensitivity > 0, then x = max(x, 0)
   * with `positivity` (`forwardNext`: a hint for the GPU's projector, nothing to do here). */
  void
  SARTUpdate(Vector & x, const Vector & correction, const Vector & sensitivity, double lambda, bool positivity, bool forwardNext = false) const
  {
    (void)forwardNext;
    const float l = static_cast<float>(lambda);
    Elementwise(x.size(), [&](std::size_t v) {
      float value = x[v];
      if (sensitivity[v] > 0.f)
        value += l * correction[v] / sensitivity[v];
      x[v] = positivity && value < 0.f ? 0.f : value;
    });
  }

  /** The TV operators on this backend's volumes (and fields: pointers to their three components). */
  const TotalVariationOperators &
  TV() const
  {
    return m_TV;
  }

  /** What the CPU total-variation filters' GenerateData() share (CudaReconstructionBackend::Run() is
   * its GPU twin): allocates `output` (its requested region), sets a backend up on its grid with the
   * projector pair makeOperator(output) for `count` projections, x = the initial volume and the
   * measured projections, then runs method(backend, x, measured, current, true); current() puts x in
   * the output (a copy in memory: at every iteration). */
  template <typename TImage, typename TMakeOperator, typename TMethod>
  static void
  Run(const TImage * initial, const TImage * projections, TImage * output, unsigned int count, TMakeOperator && makeOperator,
      TMethod && method)
  {
    RunOnReconstructionBackend<CpuReconstructionBackend>(initial, projections, output, count, std::forward<TMakeOperator>(makeOperator),
                                      std::forward<TMethod>(method), true);
  }

private:
  template <typename F>
  static void
  Elementwise(std::size_t n, F && f)
  {
    for (std::size_t i = 0; i < n; ++i)
      f(i);
  }

  std::unique_ptr<ProjectorOperator> m_A;
  TotalVariationOperators m_TV;
  unsigned int m_Projections;
};

} // namespace cbct

#endif
