#ifndef cbctBackProjectionImageFilter_h
#define cbctBackProjectionImageFilter_h

#include "cbctWholeImageProjectionFilter.h"

namespace cbct
{

/** \class BackProjectionImageFilter
 * \brief A volume (input 0) plus the transpose of the chosen forward projector (SetForwardProjector():
 * Joseph's by default, or the ray caster with SetRayCastStep()) applied to projections (input 1):
 * the exact adjoint of ForwardProjectionImageFilter with the same projector, for iterative
 * reconstruction (FDK keeps its voxel-driven backprojector). Both images are processed whole; the
 * output has input 0's grid. The CPU threads each accumulate into their own copy of the volume
 * (memory: one volume per thread).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT BackProjectionImageFilter : public WholeImageProjectionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BackProjectionImageFilter);
  using Self = BackProjectionImageFilter;
  using Superclass = WholeImageProjectionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(BackProjectionImageFilter, WholeImageProjectionFilter);

  void
  SetProjections(const TImage * projections)
  {
    this->SetNthInput(1, const_cast<TImage *>(projections));
  }

protected:
  BackProjectionImageFilter()
    : Superclass(1)
  {}
  ~BackProjectionImageFilter() override = default;

  /** The projector pair to use: MakeOperator()'s, i.e. the chosen one. */
  virtual std::unique_ptr<ProjectorOperator>
  MakeProjector(const TImage * volume, const TImage * projections) const
  {
    return this->MakeOperator(volume, projections);
  }

  void
  GenerateData() override
  {
    TImage * output = this->AllocateOutputFromInput0();
    const TImage * projections = this->GetInput(1);
    this->MakeProjector(this->GetInput(0), projections)
      ->Back(projections->GetBufferPointer(), output->GetBufferPointer(), this->AllProjections(), true);
  }
};

} // namespace cbct

#endif
