#ifndef cbctWholeImageProjectionFilter_h
#define cbctWholeImageProjectionFilter_h

#include "cbctEmissionOperator.h"
#include "cbctInputChecks.h"
#include "cbctJosephOperator.h"
#include "cbctProjectorOperator.h"
#include "cbctRayCastOperator.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#include "cbctVoxelBackProjectionOperator.h"

#include <itkImageAlgorithm.h>
#include <itkImageToImageFilter.h>

#include <memory>
#include <vector>

namespace cbct
{

/** \class WholeImageProjectionFilter
 * \brief Base of the filters that work on whole volumes and projection stacks with a geometry:
 * Joseph's forward and back projectors and the iterative reconstructions.
 *
 * Holds the geometry; checks it is set and that the projection input (input `ProjectionsInput()`)
 * has as many projections as the geometry; asks for both inputs whole and produces the whole output,
 * starting from a copy of input 0 (which it adds to, or iterates from). Holds the choice of forward
 * projector (Joseph's, the ray caster with its step, or the emission projector with its attenuation
 * map and collimator blur) and makes the matching operator pair. The attenuation map is an optional
 * input named "AttenuationMap" (mu per mm, on any grid), so a pipeline brings it up to date.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT WholeImageProjectionFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(WholeImageProjectionFilter);
  using Self = WholeImageProjectionFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkTypeMacro(WholeImageProjectionFilter, itk::ImageToImageFilter);

  itkSetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);
  itkGetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);

  /** Which projector pair to use (Joseph by default). */
  void
  SetForwardProjector(ForwardProjectorKind kind)
  {
    if (kind != m_ForwardProjector)
    {
      m_ForwardProjector = kind;
      this->Modified();
    }
  }
  ForwardProjectorKind
  GetForwardProjector() const
  {
    return m_ForwardProjector;
  }
  /** Which backprojector the iterative methods use: the forward projector's adjoint (the default)
   * or the voxel-based one (VoxelBackProjectionOperator; SART and OSEM only). */
  void
  SetBackProjector(BackProjectorKind kind)
  {
    if (kind != m_BackProjector)
    {
      m_BackProjector = kind;
      this->Modified();
    }
  }
  BackProjectorKind
  GetBackProjector() const
  {
    return m_BackProjector;
  }
  /** The ray caster's distance between samples along a ray, in mm; 0 (the default) means the
   * smallest voxel spacing. */
  itkSetMacro(RayCastStep, double);
  itkGetConstMacro(RayCastStep, double);

  /** The emission projector's attenuation map: linear attenuation coefficients per mm, on any grid
   * (sampled where each view's slices need it; zero outside it), non-negative; null for none. */
  void
  SetAttenuationMap(const TImage * mu)
  {
    this->itk::ProcessObject::SetInput("AttenuationMap", const_cast<TImage *>(mu));
  }
  const TImage *
  GetAttenuationMap() const
  {
    return static_cast<const TImage *>(this->itk::ProcessObject::GetInput("AttenuationMap"));
  }
  /** The emission projector's collimator blur, sigma(d) = sigma0 + slope d mm at distance d from
   * the detector (default: none). */
  void
  SetCollimatorBlur(const CollimatorBlur & blur)
  {
    if (blur.sigma0 != m_CollimatorBlur.sigma0 || blur.slope != m_CollimatorBlur.slope)
    {
      m_CollimatorBlur = blur;
      this->Modified();
    }
  }
  const CollimatorBlur &
  GetCollimatorBlur() const
  {
    return m_CollimatorBlur;
  }

protected:
  /** `projectionsInput`: which input holds the projection stack (the other is the volume). */
  explicit WholeImageProjectionFilter(unsigned int projectionsInput)
    : m_ProjectionsInput(projectionsInput)
  {
    this->SetNumberOfRequiredInputs(2);
    this->AddOptionalInputName("AttenuationMap");
  }
  ~WholeImageProjectionFilter() override = default;

  /** The volume and the projections live in different spaces: skip ITK's same-grid check. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (m_Geometry.IsNull())
      ThrowBadParameter(std::string(this->GetNameOfClass()) + " geometry", "none", "a ThreeDCircularProjectionGeometry");
    if (!(m_RayCastStep >= 0.) || !std::isfinite(m_RayCastStep))
      ThrowBadParameter("ray-cast step (mm)", m_RayCastStep, "a finite value > 0, or 0 for the smallest voxel spacing");
    m_CollimatorBlur.Check();
    if (m_ForwardProjector != ForwardProjectorKind::Emission && (this->GetAttenuationMap() != nullptr || m_CollimatorBlur.IsOn()))
      ThrowBadParameter("forward projector", ToString(m_ForwardProjector),
                        "emission (SetForwardProjector(ForwardProjectorKind::Emission)) with an attenuation map or a collimator blur");
    if (m_ForwardProjector == ForwardProjectorKind::Emission && m_BackProjector != BackProjectorKind::Adjoint)
      ThrowBadParameter("backprojector of the emission projector", ToString(m_BackProjector),
                        "adjoint (the voxel-based backprojector knows no attenuation or blur)");
  }
  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    const auto count = this->GetInput(m_ProjectionsInput)->GetLargestPossibleRegion().GetSize(2);
    if (count != m_Geometry->GetNumberOfProjections())
      ThrowBadParameter("number of projection images", count,
                        "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
  }
  void
  GenerateInputRequestedRegion() override
  {
    for (unsigned int i = 0; i < 2; ++i)
      if (auto * input = const_cast<TImage *>(this->GetInput(i)))
        input->SetRequestedRegionToLargestPossibleRegion();
    if (auto * mu = const_cast<TImage *>(this->GetAttenuationMap()))
      mu->SetRequestedRegionToLargestPossibleRegion();
  }
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }

  /** Allocates the whole output as a copy of input 0. */
  TImage *
  AllocateOutputFromInput0()
  {
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    itk::ImageAlgorithm::Copy(this->GetInput(0), output, output->GetBufferedRegion(), output->GetBufferedRegion());
    return output;
  }

  /** The ray caster's step in mm for `volume`: RayCastStep, or the smallest spacing when it is 0. */
  double
  RayCastStepFor(const TImage * volume) const
  {
    if (m_RayCastStep > 0.)
      return m_RayCastStep;
    const auto & spacing = volume->GetSpacing();
    return std::min(spacing[0], std::min(spacing[1], spacing[2]));
  }

  /** The chosen forward projector and backprojector (CPU) for the volume grid `volume` and the stack
   * `projections`. */
  std::unique_ptr<ProjectorOperator>
  MakeOperator(const TImage * volume, const TImage * projections) const
  {
    std::unique_ptr<ProjectorOperator> pair;
    if (m_ForwardProjector == ForwardProjectorKind::RayCast)
      pair.reset(new RayCastOperator<TImage>(volume, projections, m_Geometry, this->RayCastStepFor(volume)));
    else if (m_ForwardProjector == ForwardProjectorKind::Emission)
      pair.reset(new EmissionOperator<TImage>(volume, projections, m_Geometry, this->GetAttenuationMap(), m_CollimatorBlur));
    else
      pair.reset(new JosephOperator<TImage>(volume, projections, m_Geometry));
    if (m_BackProjector == BackProjectorKind::VoxelBased)
      pair.reset(new VoxelBackProjectionOperator<TImage>(std::move(pair), volume, projections, m_Geometry));
    return pair;
  }

  /** Throws when the voxel-based backprojector is chosen: `method` needs the exact adjoint. */
  void
  CheckAdjointBackProjector(const std::string & method) const
  {
    if (m_BackProjector != BackProjectorKind::Adjoint)
      ThrowBadParameter(method + " backprojector", ToString(m_BackProjector), "adjoint (" + method + " needs the forward projector's exact transpose)");
  }

  /** Throws unless `perSubset` (projections per subset of an ordered-subsets method; 0 means all) is
   * at most the number of projections. */
  void
  CheckProjectionsPerSubset(unsigned int perSubset) const
  {
    const unsigned int count = m_Geometry->GetNumberOfProjections();
    if (perSubset > count)
      ThrowBadParameter("projections per subset", perSubset, "at most the number of projections (" + std::to_string(count) + "), or 0 for all");
  }

  /** Subsets of `perSubset` projections (0: all): subset s of S holds projections s, s + S, s + 2S, ...
   * so that each spans the whole arc. */
  std::vector<std::vector<unsigned int>>
  OrderedSubsets(unsigned int perSubset) const
  {
    const unsigned int count = m_Geometry->GetNumberOfProjections();
    const unsigned int size = perSubset == 0 ? count : perSubset;
    const unsigned int subsets = (count + size - 1) / size;
    std::vector<std::vector<unsigned int>> result(subsets);
    for (unsigned int k = 0; k < count; ++k)
      result[k % subsets].push_back(k);
    return result;
  }

  /** 0, 1, ..., number of projections - 1. */
  std::vector<unsigned int>
  AllProjections() const
  {
    std::vector<unsigned int> all(m_Geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < all.size(); ++k)
      all[k] = k;
    return all;
  }

private:
  ThreeDCircularProjectionGeometry::ConstPointer m_Geometry;
  unsigned int m_ProjectionsInput;
  BackProjectorKind m_BackProjector = BackProjectorKind::Adjoint;
  ForwardProjectorKind m_ForwardProjector = ForwardProjectorKind::Joseph;
  double m_RayCastStep = 0.;
  CollimatorBlur m_CollimatorBlur;
};

} // namespace cbct

#endif
