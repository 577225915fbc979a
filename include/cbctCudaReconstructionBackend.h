#ifndef cbctCudaReconstructionBackend_h
#define cbctCudaReconstructionBackend_h

#include "cbctRunOnReconstructionBackend.h"
#include "cbctCudaFDKBackProjection.hcu" // LaunchFill
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaJoseph.hcu"            // LaunchSARTResidual, LaunchSARTUpdate
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaTotalVariationOperators.h"

#include <array>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaReconstructionBackend
 * \brief CpuReconstructionBackend on the GPU: the same calls on device buffers (CudaDeviceBuffer),
 * queued on the default stream; norms are summed in double in a fixed order (CudaSquaredNorm), so
 * a method gives the same bits on every run. The total-variation methods are templates over the
 * backend: their CUDA filters run exactly the CPU filters' steps here.
 * \ingroup ConeBeamCT
 */
class CudaReconstructionBackend
{
public:
  using Vector = CudaDeviceBuffer<float>;
  /** A subset of projections: its device copy (made by the projector pair) and its size. */
  struct Subset
  {
    CudaDeviceBuffer<unsigned int> * indices;
    int count;
  };

  /** The projector pair A for `projections` projections (may be null: volumes and TV only). */
  CudaReconstructionBackend(std::unique_ptr<CudaProjectorOperator> A, const TVGrid & grid, unsigned int projections)
    : m_A(std::move(A))
    , m_TV(grid)
    , m_Projections(projections)
  {}

  std::size_t
  Voxels() const
  {
    return m_TV.Voxels();
  }
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
    return { m_A->Subset(projections), static_cast<int>(projections.size()) };
  }
  static float *
  Data(Vector & v)
  {
    return v.Data();
  }
  static const float *
  Data(const Vector & v)
  {
    return v.Data();
  }

  void
  Upload(const float * host, Vector & v, std::size_t n) const
  {
    CudaUpload(v.Data(), host, n, "reconstruction input");
  }
  void
  Download(const Vector & v, float * host, std::size_t n) const
  {
    CudaDownload(host, v.Data(), n, "volume");
  }

  void
  Forward(const Vector & x, Vector & projections, const Subset & subset)
  {
    m_A->Forward(x.Data(), projections.Data(), subset.indices, subset.count);
  }
  void
  Back(const Vector & projections, Vector & x, const Subset & subset, bool add)
  {
    m_A->Back(projections.Data(), x.Data(), subset.indices, subset.count, add);
  }

  /** Waits until the device has done the work queued so far (stage timers call it). */
  void
  Synchronize() const
  {
    CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  void
  Fill(Vector & v, float value) const
  {
    CudaCheck(LaunchFill(v.Data(), v.Capacity(), value, nullptr), "LaunchFill");
  }
  void
  Copy(const Vector & from, Vector & to) const
  {
    CudaCheck(cudaMemcpyAsync(to.Data(), from.Data(), to.Capacity() * sizeof(float), cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync (copy)", to.Capacity() * sizeof(float));
  }
  void
  Axpy(double alpha, const Vector & x, Vector & y) const
  {
    CudaCheck(LaunchAxpy(alpha, x.Data(), y.Data(), Length(y), nullptr), "LaunchAxpy");
  }
  void
  Xpby(const Vector & x, double beta, Vector & y) const
  {
    CudaCheck(LaunchXpby(x.Data(), beta, y.Data(), Length(y), nullptr), "LaunchXpby");
  }
  void
  Scale(double alpha, Vector & y) const
  {
    CudaCheck(LaunchScale(alpha, y.Data(), Length(y), nullptr), "LaunchScale");
  }
  void
  ZeroNegatives(Vector & y) const
  {
    CudaCheck(LaunchZeroNegatives(y.Data(), Length(y), nullptr), "LaunchZeroNegatives");
  }
  void
  SubtractFrom(const Vector & x, Vector & y) const
  {
    CudaCheck(LaunchSubtractFrom(x.Data(), y.Data(), Length(y), nullptr), "LaunchSubtractFrom");
  }
  double
  SquaredNorm(const Vector & x)
  {
    return m_SquaredNorm(x.Data(), x.Capacity());
  }

  void
  SARTResidual(const Vector & measured, const Vector & rayLength, Vector & residual, const Subset & subset) const
  {
    CudaSARTLaunch step;
    step.measured = measured.Data();
    step.rayLength = rayLength.Data();
    step.residual = residual.Data();
    step.subset = subset.indices->Data();
    step.count = subset.count;
    step.pixelsPerProjection = static_cast<long long>(this->PixelsPerProjection());
    CudaCheck(LaunchSARTResidual(step, nullptr), "LaunchSARTResidual");
  }
  /** `forwardNext`: CudaProjectorOperator::SARTUpdate()'s promise that the next projector call is
   * the forward projection of x. */
  void
  SARTUpdate(Vector & x, const Vector & correction, const Vector & sensitivity, double lambda, bool positivity,
             bool forwardNext = false) const
  {
    CudaSARTLaunch step;
    step.volume = x.Data();
    step.correction = correction.Data();
    step.sensitivity = sensitivity.Data();
    step.voxels = Length(x);
    step.lambda = static_cast<float>(lambda);
    step.positivity = positivity ? 1 : 0;
    m_A->SARTUpdate(step, forwardNext);
  }

  const CudaTotalVariationOperators &
  TV() const
  {
    return m_TV;
  }

  /** CpuReconstructionBackend::Run() on the GPU, for the CUDA total-variation filters' GenerateData():
   * allocates `output` (its requested region; the initial volume is uploaded, not copied on the
   * host), sets a backend up on its grid with the projector pair makeOperator(output) for `count`
   * projections, uploads x = the initial volume and the measured projections, then runs
   * method(backend, x, measured, current, false); current() downloads x into the output (only for
   * observers and at the end). */
  template <typename TImage, typename TMakeOperator, typename TMethod>
  static void
  Run(const TImage * initial, const TImage * projections, TImage * output, unsigned int count, TMakeOperator && makeOperator,
      TMethod && method)
  {
    RunOnReconstructionBackend<CudaReconstructionBackend>(initial, projections, output, count, std::forward<TMakeOperator>(makeOperator),
                                      std::forward<TMethod>(method), false);
  }

private:
  static long long
  Length(const Vector & v)
  {
    return static_cast<long long>(v.Capacity());
  }

  std::unique_ptr<CudaProjectorOperator> m_A;
  CudaTotalVariationOperators m_TV;
  unsigned int m_Projections;
  CudaSquaredNorm m_SquaredNorm;
};

} // namespace cbct

#endif
