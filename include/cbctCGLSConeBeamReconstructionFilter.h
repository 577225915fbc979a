#ifndef cbctCGLSConeBeamReconstructionFilter_h
#define cbctCGLSConeBeamReconstructionFilter_h

#include "cbctIterativeReconstructionFilter.h"

#include <cmath>
#include <vector>

namespace cbct
{

/** \class CGLSConeBeamReconstructionFilter
 * \brief CGLS: conjugate gradients on the normal equations A^T A x = A^T p, with the chosen projector
 * pair (A and its exact adjoint A^T).
 *
 * Input 0 is the initial volume x0 (its grid is the output's), input 1 the projections p. With
 * r = p - A x, s = A^T r, d = s, each iteration computes
 *   q = A d,  alpha = |s|^2 / |q|^2,  x += alpha d,  r -= alpha q,
 *   s' = A^T r,  d = s' + (|s'|^2 / |s|^2) d.
 * The residual norm |p - A x| of each iteration is recorded (GetResidualNorms(); CGLS makes it
 * decrease monotonically in exact arithmetic) after the update. When A^T r or A d vanishes the
 * solution is reached: the remaining iterations leave x unchanged and record the same residual.
 * An itk::IterationEvent follows each iteration (GetCurrentIteration()); AbortGenerateDataOn() from
 * an observer stops after the current one. Few iterations act as regularization: CGLS fits noise
 * as it goes on.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CGLSConeBeamReconstructionFilter : public IterativeReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CGLSConeBeamReconstructionFilter);
  using Self = CGLSConeBeamReconstructionFilter;
  using Superclass = IterativeReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CGLSConeBeamReconstructionFilter, IterativeReconstructionFilter);


  /** |p - A x| after each iteration done so far (index 0: after the first). */
  const std::vector<double> &
  GetResidualNorms() const
  {
    return m_ResidualNorms;
  }
  /** |p - A x0| of the initial volume. */
  itkGetConstMacro(InitialResidualNorm, double);

protected:
  CGLSConeBeamReconstructionFilter() = default;
  ~CGLSConeBeamReconstructionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    this->CheckAdjointBackProjector("CGLS");
  }
  void
  GenerateData() override
  {
    const TImage * projections = this->GetInput(1);
    TImage * output = this->AllocateOutputFromInput0();

    const ThreeDCircularProjectionGeometry * geometry = this->GetGeometry();
    const std::unique_ptr<ProjectorOperator> A = this->MakeSharedOperator(output, projections, this->GetSlabReduction());
    const unsigned int count = geometry->GetNumberOfProjections();
    const std::vector<unsigned int> all = this->AllProjections();
    const std::size_t pixels = A->PixelsPerProjection() * count, voxels = A->Voxels();
    const float * p = projections->GetBufferPointer();
    float * x = output->GetBufferPointer();
    std::vector<float> r(pixels), q(pixels), s(voxels), d(voxels);

    auto squaredNorm = [](const std::vector<float> & v) {
      double sum = 0.;
      for (float value : v)
        sum += static_cast<double>(value) * value;
      return sum;
    };
    A->Forward(x, r.data(), all, false);
    for (std::size_t i = 0; i < pixels; ++i)
      r[i] = p[i] - r[i];
    m_InitialResidualNorm = std::sqrt(squaredNorm(r));
    A->Back(r.data(), s.data(), all, false);
    d = s;
    double gamma = this->SumOverSlabs(this->GetSlabReduction(), squaredNorm(s)); // s is a volume: each slab holds part of it

    m_ResidualNorms.clear();
    double residual = m_InitialResidualNorm;
    for (this->m_CurrentIteration = 1; this->m_CurrentIteration <= this->GetNumberOfIterations() && !this->StopIterating(this->GetSlabReduction());
         ++this->m_CurrentIteration)
    {
      if (gamma > 0.)
      {
        A->Forward(d.data(), q.data(), all, false);
        const double qq = squaredNorm(q);
        if (qq > 0.)
        {
          const double alpha = gamma / qq;
          for (std::size_t v = 0; v < voxels; ++v)
            x[v] += static_cast<float>(alpha * d[v]);
          for (std::size_t i = 0; i < pixels; ++i)
            r[i] -= static_cast<float>(alpha * q[i]);
          residual = std::sqrt(squaredNorm(r));
          A->Back(r.data(), s.data(), all, false);
          const double gammaNext = this->SumOverSlabs(this->GetSlabReduction(), squaredNorm(s));
          const double beta = gammaNext / gamma;
          for (std::size_t v = 0; v < voxels; ++v)
            d[v] = static_cast<float>(s[v] + beta * d[v]);
          gamma = gammaNext;
        }
        else
          gamma = 0.;
      }
      m_ResidualNorms.push_back(residual);
      this->UpdateProgress(static_cast<float>(this->m_CurrentIteration) / this->GetNumberOfIterations());
      this->InvokeEvent(itk::IterationEvent());
    }
    this->FinishIterations();
  }

  // Set by GenerateData() (also the CUDA twin's).
  double m_InitialResidualNorm = 0.;
  std::vector<double> m_ResidualNorms;
};

} // namespace cbct

#endif
