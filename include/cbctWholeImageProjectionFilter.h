#ifndef cbctWholeImageProjectionFilter_h
#define cbctWholeImageProjectionFilter_h

#include "cbctInputChecks.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImageAlgorithm.h>
#include <itkImageToImageFilter.h>

#include <vector>

namespace cbct
{

/** \class WholeImageProjectionFilter
 * \brief Base of the filters that work on whole volumes and projection stacks with a geometry:
 * Joseph's forward and back projectors and the iterative reconstructions.
 *
 * Holds the geometry; checks it is set and that the projection input (input `ProjectionsInput()`)
 * has as many projections as the geometry; asks for both inputs whole and produces the whole output,
 * starting from a copy of input 0 (which it adds to, or iterates from).
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

protected:
  /** `projectionsInput`: which input holds the projection stack (the other is the volume). */
  explicit WholeImageProjectionFilter(unsigned int projectionsInput)
    : m_ProjectionsInput(projectionsInput)
  {
    this->SetNumberOfRequiredInputs(2);
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
};

} // namespace cbct

#endif
