#ifndef cbctOSEMConeBeamReconstructionFilter_h
#define cbctOSEMConeBeamReconstructionFilter_h

#include "cbctIterativeReconstructionFilter.h"

#include <algorithm>
#include <exception>

#include <cmath>
#include <sstream>
#include <vector>

namespace cbct
{

/** \class OSEMConeBeamReconstructionFilter
 * \brief OSEM (ordered-subsets expectation maximization) with the chosen projector pair; MLEM when one
 * subset holds all projections.
 *
 * Input 0 is the initial volume (its grid is the output's), input 1 the projections. Each iteration
 * visits the subsets of NumberOfProjectionsPerSubset projections (subset s holds projections
 * s, s + S, s + 2S, ...; 0 means all projections, i.e. MLEM) and updates, voxel by voxel,
 *   x <- x * A_s^T ( p_s / A_s x ) / A_s^T 1.
 * Rays where A_s x is 0 contribute nothing; voxels where A_s^T 1 is 0 (seen by no ray of the subset)
 * are left alone. The update is multiplicative, so the iterates stay non-negative and a voxel that
 * is 0 stays 0:
 * - the projections must be non-negative (an error names the first negative value and its pixel);
 * - the initial volume must be positive everywhere (an error names the first voxel that is not), except
 *   that an initial volume that is 0 everywhere means "no initial guess" and starts from 1 everywhere.
 * An itk::IterationEvent follows each iteration (GetCurrentIteration()); AbortGenerateDataOn() from
 * an observer stops after the current one.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT OSEMConeBeamReconstructionFilter : public IterativeReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(OSEMConeBeamReconstructionFilter);
  using Self = OSEMConeBeamReconstructionFilter;
  using Superclass = IterativeReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(OSEMConeBeamReconstructionFilter, IterativeReconstructionFilter);

  itkSetMacro(NumberOfProjectionsPerSubset, unsigned int);
  itkGetConstMacro(NumberOfProjectionsPerSubset, unsigned int);

protected:
  OSEMConeBeamReconstructionFilter() = default;
  ~OSEMConeBeamReconstructionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
  }
  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    this->CheckProjectionsPerSubset(m_NumberOfProjectionsPerSubset);
  }

  /** Throws for the first negative or non-finite projection value, naming its pixel. */
  static void
  CheckProjections(const TImage * projections)
  {
    const auto & region = projections->GetBufferedRegion();
    const float * p = projections->GetBufferPointer();
    const std::size_t n = region.GetNumberOfPixels();
    for (std::size_t i = 0; i < n; ++i)
      if (!(p[i] >= 0.f) || !std::isfinite(p[i]))
      {
        const auto index = projections->ComputeIndex(static_cast<typename TImage::OffsetValueType>(i));
        std::ostringstream where;
        where << "projection value at pixel (" << index[0] << ", " << index[1] << ") of projection " << index[2];
        ThrowBadParameter(where.str(), p[i], "a finite value >= 0 (OSEM needs non-negative projections)");
      }
  }

  /** Whether every voxel of `volume` is 0. */
  static bool
  AllZero(const TImage * volume)
  {
    const float * x = volume->GetBufferPointer();
    const std::size_t n = volume->GetBufferedRegion().GetNumberOfPixels();
    return std::all_of(x, x + n, [](float v) { return v == 0.f; });
  }

  /** All-zero (the whole volume, `allZero`): fills with 1. Otherwise throws for the first voxel that
   * is not finite and > 0. */
  static void
  PrepareInitialVolume(TImage * volume, bool allZero)
  {
    float * x = volume->GetBufferPointer();
    const std::size_t n = volume->GetBufferedRegion().GetNumberOfPixels();
    if (allZero)
    {
      std::fill(x, x + n, 1.f);
      return;
    }
    for (std::size_t v = 0; v < n; ++v)
      if (!(x[v] > 0.f) || !std::isfinite(x[v]))
      {
        const auto index = volume->ComputeIndex(static_cast<typename TImage::OffsetValueType>(v));
        std::ostringstream where;
        where << "initial volume at voxel (" << index[0] << ", " << index[1] << ", " << index[2] << ")";
        ThrowBadParameter(where.str(), x[v], "a finite value > 0 everywhere (OSEM's update is multiplicative), or 0 "
                                             "everywhere to start from 1");
      }
  }

  void
  GenerateData() override
  {
    const TImage * projections = this->GetInput(1);
    TImage * output = this->AllocateOutputFromInput0();
    // Checked before any shared sum, so that the participants of a shared reconstruction all stop
    // if one's input is bad (that one throws; the others leave their slab as it is).
    std::exception_ptr bad;
    try
    {
      CheckProjections(projections);
      PrepareInitialVolume(output, this->SumOverSlabs(this->GetSlabReduction(), AllZero(output) ? 0. : 1.) == 0.);
    }
    catch (...)
    {
      bad = std::current_exception();
    }
    if (!this->AllParticipantsReady(this->GetSlabReduction(), !bad))
    {
      if (bad)
        std::rethrow_exception(bad);
      return;
    }

    const ThreeDCircularProjectionGeometry * geometry = this->GetGeometry();
    const std::unique_ptr<ProjectorOperator> A = this->MakeSharedOperator(output, projections, this->GetSlabReduction());
    const unsigned int count = geometry->GetNumberOfProjections();
    const std::vector<std::vector<unsigned int>> subsetProjections = this->Subsets();
    const unsigned int subsets = static_cast<unsigned int>(subsetProjections.size());

    const std::size_t pixels = A->PixelsPerProjection() * count, voxels = A->Voxels();
    std::vector<float> ratio(pixels), onesProjections(pixels, 1.f), correction(voxels), sensitivity(voxels);
    // Each subset's sensitivity A_s^T 1 is the same every iteration: keep them when they fit in 1 GiB,
    // otherwise recompute (one more backprojection per subset and iteration).
    const bool keepSensitivities = static_cast<double>(subsets) * voxels * sizeof(float) <= double(1u << 30);
    std::vector<std::vector<float>> sensitivities(keepSensitivities ? subsets : 0);
    const float * measured = projections->GetBufferPointer();
    float * x = output->GetBufferPointer();

    for (this->m_CurrentIteration = 1; this->m_CurrentIteration <= this->GetNumberOfIterations() && !this->StopIterating(this->GetSlabReduction());
         ++this->m_CurrentIteration)
    {
      for (unsigned int s = 0; s < subsets; ++s)
      {
        const auto & subset = subsetProjections[s];
        A->Forward(x, ratio.data(), subset, false);
        for (unsigned int k : subset)
        {
          const std::size_t first = static_cast<std::size_t>(k) * A->PixelsPerProjection();
          for (std::size_t i = first; i < first + A->PixelsPerProjection(); ++i)
            ratio[i] = ratio[i] > 0.f ? measured[i] / ratio[i] : 0.f;
        }
        A->Back(ratio.data(), correction.data(), subset, false);
        if (!keepSensitivities)
          A->Back(onesProjections.data(), sensitivity.data(), subset, false);
        else if (sensitivities[s].empty())
        {
          sensitivities[s].resize(voxels);
          A->Back(onesProjections.data(), sensitivities[s].data(), subset, false);
        }
        const std::vector<float> & weights = keepSensitivities ? sensitivities[s] : sensitivity;
        for (std::size_t v = 0; v < voxels; ++v)
          if (weights[v] > 0.f)
            x[v] *= correction[v] / weights[v];
      }
      this->UpdateProgress(static_cast<float>(this->m_CurrentIteration) / this->GetNumberOfIterations());
      this->InvokeEvent(itk::IterationEvent());
    }
    this->FinishIterations();
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NumberOfProjectionsPerSubset: " << m_NumberOfProjectionsPerSubset << std::endl;
  }

  /** Subsets of projection indices: subset s holds s, s + S, s + 2S, ... */
  std::vector<std::vector<unsigned int>>
  Subsets() const
  {
    return this->OrderedSubsets(m_NumberOfProjectionsPerSubset);
  }

private:
  unsigned int m_NumberOfProjectionsPerSubset = 0;
};

} // namespace cbct

#endif
