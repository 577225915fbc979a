#ifndef cbctForwardProjectionImageFilter_h
#define cbctForwardProjectionImageFilter_h

#include "cbctWholeImageProjectionFilter.h"

namespace cbct
{

/** \class ForwardProjectionImageFilter
 * \brief Projections (input 0) plus the forward projection of a volume (input 1) with the chosen
 * projector (SetForwardProjector(): Joseph's by default, or the ray caster with SetRayCastStep()).
 *
 * Line integrals for every projection of the geometry, on the CPU's threads. Its exact adjoint is
 * BackProjectionImageFilter with the same projector. Both images are processed whole; the output
 * has input 0's grid.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT ForwardProjectionImageFilter : public WholeImageProjectionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ForwardProjectionImageFilter);
  using Self = ForwardProjectionImageFilter;
  using Superclass = WholeImageProjectionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(ForwardProjectionImageFilter, WholeImageProjectionFilter);

  void
  SetVolume(const TImage * volume)
  {
    this->SetNthInput(1, const_cast<TImage *>(volume));
  }

protected:
  ForwardProjectionImageFilter()
    : Superclass(0)
  {}
  ~ForwardProjectionImageFilter() override = default;

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
    const TImage * volume = this->GetInput(1);
    this->MakeProjector(volume, this->GetInput(0))
      ->Forward(volume->GetBufferPointer(), output->GetBufferPointer(), this->AllProjections(), true);
  }
};

} // namespace cbct

#endif
