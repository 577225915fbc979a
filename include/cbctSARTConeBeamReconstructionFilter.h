#ifndef cbctSARTConeBeamReconstructionFilter_h
#define cbctSARTConeBeamReconstructionFilter_h

#include "cbctIterativeReconstructionFilter.h"

namespace cbct
{

/** \class SARTConeBeamReconstructionFilter
 * \brief SART, OS-SART and SIRT with the chosen projector pair (Joseph's by default, see
 * WholeImageProjectionFilter).
 *
 * Input 0 is the initial volume (its grid is the output's), input 1 the projections. Each
 * iteration visits the subsets of NumberOfProjectionsPerSubset projections (subset s holds
 * projections s, s + S, s + 2S, ... so each spans the whole arc) and updates
 *   x += lambda * A_s^T [ (p_s - A_s x) / A_s 1 ] / A_s^T 1
 * where A_s 1 is each ray's length through the volume and A_s^T 1 each voxel's sensitivity; rays
 * and voxels where these are zero are left alone. One projection per subset is SART, all of them
 * SIRT (NumberOfProjectionsPerSubset = 0 means all). With EnforcePositivity negative voxels are set
 * to 0 after each update. SetBackProjector(BackProjectorKind::VoxelBased) puts the voxel-based
 * backprojector in place of A^T (in both places), as RTK and TIGRE do; much faster on the GPU.
 * An itk::IterationEvent follows each iteration (GetCurrentIteration());
 * AbortGenerateDataOn() from an observer stops after the current one.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT SARTConeBeamReconstructionFilter : public IterativeReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SARTConeBeamReconstructionFilter);
  using Self = SARTConeBeamReconstructionFilter;
  using Superclass = IterativeReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(SARTConeBeamReconstructionFilter, IterativeReconstructionFilter);
  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  itkSetMacro(NumberOfProjectionsPerSubset, unsigned int);
  itkGetConstMacro(NumberOfProjectionsPerSubset, unsigned int);
  itkSetMacro(EnforcePositivity, bool);
  itkGetConstMacro(EnforcePositivity, bool);
  itkBooleanMacro(EnforcePositivity);

protected:
  SARTConeBeamReconstructionFilter() = default;
  ~SARTConeBeamReconstructionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (!(m_Lambda > 0.) || !std::isfinite(m_Lambda))
      ThrowBadParameter("relaxation lambda", m_Lambda, "a finite value > 0");
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
    TImage * output = this->AllocateOutputFromInput0();
    const std::unique_ptr<ProjectorOperator> A = this->MakeSharedOperator(output, projections, this->GetSlabReduction());
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const auto subsetProjections = this->Subsets();
    const auto subsets = static_cast<unsigned int>(subsetProjections.size());

    const std::size_t pixels = A->PixelsPerProjection() * count, voxels = A->Voxels();
    std::vector<float> ones(voxels, 1.f), rayLength(pixels), residual(pixels), onesProjections(pixels, 1.f);
    std::vector<float> correction(voxels), sensitivity(voxels);
    // Each subset's voxel sensitivity A_s^T 1 is the same every iteration: keep them when they fit in
    // 1 GiB, otherwise recompute (one more backprojection per subset and iteration).
    const bool keepSensitivities = static_cast<double>(subsets) * voxels * sizeof(float) <= double(1u << 30);
    std::vector<std::vector<float>> sensitivities(keepSensitivities ? subsets : 0);
    const float * measured = projections->GetBufferPointer();
    float * x = output->GetBufferPointer();
    A->Forward(ones.data(), rayLength.data(), this->AllProjections(), false);

    for (this->m_CurrentIteration = 1; this->m_CurrentIteration <= this->GetNumberOfIterations() && !this->StopIterating(this->GetSlabReduction());
         ++this->m_CurrentIteration)
    {
      for (unsigned int s = 0; s < subsets; ++s)
      {
        const auto & subset = subsetProjections[s];
        A->Forward(x, residual.data(), subset, false);
        for (unsigned int k : subset)
        {
          const std::size_t first = static_cast<std::size_t>(k) * A->PixelsPerProjection();
          for (std::size_t p = first; p < first + A->PixelsPerProjection(); ++p)
            residual[p] = rayLength[p] > 0.f ? (measured[p] - residual[p]) / rayLength[p] : 0.f;
        }
        A->Back(residual.data(), correction.data(), subset, false);
        if (!keepSensitivities)
          A->Back(onesProjections.data(), sensitivity.data(), subset, false);
        else if (sensitivities[s].empty())
        {
          sensitivities[s].resize(voxels);
          A->Back(onesProjections.data(), sensitivities[s].data(), subset, false);
        }
        const std::vector<float> & weights = keepSensitivities ? sensitivities[s] : sensitivity;
        for (std::size_t v = 0; v < voxels; ++v)
        {
          if (weights[v] > 0.f)
            x[v] += static_cast<float>(m_Lambda) * correction[v] / weights[v];
          if (m_EnforcePositivity && x[v] < 0.f)
            x[v] = 0.f;
        }
      }
      this->UpdateProgress(static_cast<float>(this->m_CurrentIteration) / this->GetNumberOfIterations());
      this->InvokeEvent(itk::IterationEvent());
    }
    this->FinishIterations();
  }

  /** Subsets of projection indices: subset s holds s, s + S, s + 2S, ... */
  std::vector<std::vector<unsigned int>>
  Subsets() const
  {
    return this->OrderedSubsets(m_NumberOfProjectionsPerSubset);
  }

private:
  double m_Lambda = 0.3;
  unsigned int m_NumberOfProjectionsPerSubset = 1;
  bool m_EnforcePositivity = false;

};

} // namespace cbct

#endif
