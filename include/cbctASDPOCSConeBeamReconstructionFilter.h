#ifndef cbctASDPOCSConeBeamReconstructionFilter_h
#define cbctASDPOCSConeBeamReconstructionFilter_h

#include "cbctCpuReconstructionBackend.h"
#include "cbctIterativeReconstructionFilter.h"

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace cbct
{

/** \class ASDPOCSConeBeamReconstructionFilter
 * \brief ASD-POCS (adaptive steepest descent, projection onto convex sets; Sidky and Pan 2008) with
 * ordered subsets, as TIGRE's ASD_POCS / OS_ASD_POCS: total-variation-regularised reconstruction for
 * few views and limited angles.
 *
 * Input 0 is the initial volume (its grid is the output's), input 1 the projections. Each iteration
 *  1. makes one OS-SART pass over the subsets of NumberOfProjectionsPerSubset projections (as
 *     SARTConeBeamReconstructionFilter: x += lambda A_s^T [(p_s - A_s x) / A_s 1] / A_s^T 1, then
 *     x = max(x, 0) with EnforcePositivity, the default), and multiplies lambda by LambdaReduction;
 *     dp is how far that pass moved x (L2);
 *  2. takes NumberOfTVIterations steps down the TV gradient, x -= dtvg g / |g| with g
 *     = d TV_eps / d x (TotalVariationGradientImageFilter's); the first iteration sets the step
 *     dtvg = Alpha dp; dg is how far the steps moved x;
 *  3. when dg > RatioMax dp (the TV steps outweigh the data) and the data residual |A x - p| is
 *     above DataTolerance, multiplies dtvg by AlphaReduction.
 * DataTolerance 0 (the default) skips the residual's forward projection and always allows the
 * reduction. TIGRE's defaults: Alpha 0.002, AlphaReduction 0.95, RatioMax 0.95, 20 TV steps, lambda 1
 * reduced by 0.99. The exact adjoint is the default backprojector (SetBackProjector()); the
 * voxel-based one may be chosen, as for SART. GetTVStepSizes() holds dtvg as used by each iteration.
 * An itk::IterationEvent follows each iteration (GetCurrentIteration()); AbortGenerateDataOn() from
 * an observer stops after the current one. CudaASDPOCSConeBeamReconstructionFilter runs the same
 * steps on the GPU.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT ASDPOCSConeBeamReconstructionFilter : public IterativeReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ASDPOCSConeBeamReconstructionFilter);
  using Self = ASDPOCSConeBeamReconstructionFilter;
  using Superclass = IterativeReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(ASDPOCSConeBeamReconstructionFilter, IterativeReconstructionFilter);

  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  itkSetMacro(LambdaReduction, double);
  itkGetConstMacro(LambdaReduction, double);
  itkSetMacro(NumberOfProjectionsPerSubset, unsigned int);
  itkGetConstMacro(NumberOfProjectionsPerSubset, unsigned int);
  itkSetMacro(EnforcePositivity, bool);
  itkGetConstMacro(EnforcePositivity, bool);
  itkBooleanMacro(EnforcePositivity);
  itkSetMacro(Alpha, double);
  itkGetConstMacro(Alpha, double);
  itkSetMacro(AlphaReduction, double);
  itkGetConstMacro(AlphaReduction, double);
  itkSetMacro(RatioMax, double);
  itkGetConstMacro(RatioMax, double);
  itkSetMacro(NumberOfTVIterations, unsigned int);
  itkGetConstMacro(NumberOfTVIterations, unsigned int);
  /** eps of the smoothed TV whose gradient the TV steps follow (per mm). */
  itkSetMacro(Epsilon, double);
  itkGetConstMacro(Epsilon, double);
  itkSetMacro(DataTolerance, double);
  itkGetConstMacro(DataTolerance, double);

  /** The TV step dtvg each iteration used (index 0: the first). */
  const std::vector<double> &
  GetTVStepSizes() const
  {
    return m_TVStepSizes;
  }

  /** ASD-POCS's second part on `backend` (CPU or CUDA): `count` steps down the gradient g of TV_eps,
   * x -= step g / |g| (|g| in L2), stopping where g vanishes; `gradient` is scratch. Public so that
   * the steps can be checked alone, on either backend, from the same volume. */
  template <typename TBackend>
  static void
  TotalVariationSteps(TBackend & backend, typename TBackend::Vector & x, typename TBackend::Vector & gradient, double step,
                      unsigned int count, double epsilon)
  {
    for (unsigned int t = 0; t < count; ++t)
    {
      backend.TV().Derivative(TBackend::Data(x), TBackend::Data(gradient), epsilon);
      const double norm = std::sqrt(backend.SquaredNorm(gradient));
      if (!(norm > 0.))
        break;
      backend.Axpy(-step / norm, gradient, x);
    }
  }

protected:
  ASDPOCSConeBeamReconstructionFilter() = default;
  ~ASDPOCSConeBeamReconstructionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    auto check = [](const char * name, double value, bool ok, const char * expected) {
      if (!ok || !std::isfinite(value))
        ThrowBadParameter(name, value, expected);
    };
    check("ASD-POCS lambda", m_Lambda, m_Lambda > 0., "a finite relaxation factor > 0");
    check("ASD-POCS lambda reduction", m_LambdaReduction, m_LambdaReduction > 0. && m_LambdaReduction <= 1., "a factor in (0, 1]");
    check("ASD-POCS alpha", m_Alpha, m_Alpha >= 0., "a finite value >= 0 (the first TV step as a fraction of the data step)");
    check("ASD-POCS alpha reduction", m_AlphaReduction, m_AlphaReduction > 0. && m_AlphaReduction <= 1., "a factor in (0, 1]");
    check("ASD-POCS ratio", m_RatioMax, m_RatioMax > 0., "a finite value > 0 (the largest TV step relative to the data step)");
    check("total variation epsilon", m_Epsilon, m_Epsilon >= 0., "a finite value >= 0 (per mm)");
    check("ASD-POCS data tolerance", m_DataTolerance, m_DataTolerance >= 0., "a finite value >= 0 (0: no residual check)");
  }
  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    this->CheckProjectionsPerSubset(m_NumberOfProjectionsPerSubset);
  }

  void
  GenerateData() override
  {
    const TImage * projections = this->GetInput(1);
    CpuReconstructionBackend::Run(
      this->GetInput(0), projections, this->GetOutput(), this->GetGeometry()->GetNumberOfProjections(),
      [&](const TImage * output) { return this->MakeOperator(output, projections); },
      [this](auto &&... arguments) { this->Reconstruct(arguments...); });
  }

  /** The method on `backend` (CPU or CUDA), from x (the initial volume) and the measured projections;
   * `current()` puts x in the output, called before each IterationEvent when `always` or when the
   * filter has observers, and at the end. */
  template <typename TBackend>
  void
  Reconstruct(TBackend & backend, typename TBackend::Vector & x, const typename TBackend::Vector & measured,
              const std::function<void()> & current, bool always)
  {
    using Vector = typename TBackend::Vector;
    const std::size_t voxels = backend.Voxels(), pixels = backend.Pixels();
    const auto all = backend.MakeSubset(this->AllProjections());
    const auto subsetProjections = this->OrderedSubsets(m_NumberOfProjectionsPerSubset);
    std::vector<typename TBackend::Subset> subsets;
    for (const auto & s : subsetProjections)
      subsets.push_back(backend.MakeSubset(s));

    Vector onesVolume(voxels), onesProjections(pixels), rayLength(pixels), residual(pixels), correction(voxels), before(voxels),
      gradient(voxels), sensitivity(voxels);
    backend.Fill(onesVolume, 1.f);
    backend.Fill(onesProjections, 1.f);
    backend.Forward(onesVolume, rayLength, all);
    // Each subset's sensitivity A_s^T 1 is the same every iteration: kept when they fit in 1 GiB,
    // otherwise recomputed (one more backprojection per subset and iteration), as SART does.
    const bool keep = static_cast<double>(subsets.size()) * voxels * sizeof(float) <= double(1u << 30);
    std::vector<std::unique_ptr<Vector>> sensitivities(keep ? subsets.size() : 0);

    double lambda = m_Lambda, step = 0.;
    m_TVStepSizes.clear();
    const bool observed = always || this->HasObserver(itk::IterationEvent());
    unsigned int & k = this->m_CurrentIteration;
    for (k = 1; k <= this->GetNumberOfIterations() && !this->GetAbortGenerateData(); ++k)
    {
      // 1. One OS-SART pass (projection onto the data and positivity sets).
      backend.Copy(x, before);
      for (std::size_t s = 0; s < subsets.size(); ++s)
      {
        backend.Forward(x, residual, subsets[s]);
        backend.SARTResidual(measured, rayLength, residual, subsets[s]);
        backend.Back(residual, correction, subsets[s], false);
        Vector * weights = &sensitivity;
        if (keep)
        {
          if (!sensitivities[s])
          {
            sensitivities[s].reset(new Vector(voxels));
            backend.Back(onesProjections, *sensitivities[s], subsets[s], false);
          }
          weights = sensitivities[s].get();
        }
        else
          backend.Back(onesProjections, sensitivity, subsets[s], false);
        // Within the pass the next subset's forward projection follows at once (the TV steps come
        // after the last).
        backend.SARTUpdate(x, correction, *weights, lambda, m_EnforcePositivity, s + 1 < subsets.size());
      }
      lambda *= m_LambdaReduction;
      backend.Xpby(x, -1., before); // before = x - before: the data step
      const double dataStep = std::sqrt(backend.SquaredNorm(before));
      if (k == 1)
        step = m_Alpha * dataStep;
      m_TVStepSizes.push_back(step);

      // 2. Steepest descent on the total variation, normalised steps of `step`.
      backend.Copy(x, before);
      TotalVariationSteps(backend, x, gradient, step, m_NumberOfTVIterations, m_Epsilon);
      backend.Xpby(x, -1., before);
      const double tvStep = std::sqrt(backend.SquaredNorm(before));

      // 3. Adapt the TV step to the data step.
      double residualNorm = std::numeric_limits<double>::infinity();
      if (m_DataTolerance > 0.)
      {
        backend.Forward(x, residual, all);
        backend.SubtractFrom(measured, residual);
        residualNorm = std::sqrt(backend.SquaredNorm(residual));
      }
      if (tvStep > m_RatioMax * dataStep && residualNorm > m_DataTolerance)
        step *= m_AlphaReduction;

      if (observed)
        current();
      this->UpdateProgress(static_cast<float>(k) / this->GetNumberOfIterations());
      this->InvokeEvent(itk::IterationEvent());
    }
    this->FinishIterations();
    if (!observed || k == 0)
      current();
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Lambda: " << m_Lambda << " (reduction " << m_LambdaReduction << ")" << std::endl;
    os << indent << "NumberOfProjectionsPerSubset: " << m_NumberOfProjectionsPerSubset << std::endl;
    os << indent << "EnforcePositivity: " << m_EnforcePositivity << std::endl;
    os << indent << "Alpha: " << m_Alpha << " (reduction " << m_AlphaReduction << "), RatioMax: " << m_RatioMax << std::endl;
    os << indent << "NumberOfTVIterations: " << m_NumberOfTVIterations << ", Epsilon: " << m_Epsilon << std::endl;
    os << indent << "DataTolerance: " << m_DataTolerance << std::endl;
  }

  std::vector<double> m_TVStepSizes;

private:
  double m_Lambda = 1.;
  double m_LambdaReduction = 0.99;
  unsigned int m_NumberOfProjectionsPerSubset = 1;
  bool m_EnforcePositivity = true;
  double m_Alpha = 0.002;
  double m_AlphaReduction = 0.95;
  double m_RatioMax = 0.95;
  unsigned int m_NumberOfTVIterations = 20;
  double m_Epsilon = 1e-8;
  double m_DataTolerance = 0.;
};

} // namespace cbct

#endif
