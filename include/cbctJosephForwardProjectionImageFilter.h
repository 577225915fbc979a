#ifndef cbctJosephForwardProjectionImageFilter_h
#define cbctJosephForwardProjectionImageFilter_h

#include "cbctJosephOperator.h"
#include "cbctWholeImageProjectionFilter.h"

namespace cbct
{

/** \class JosephForwardProjectionImageFilter
 * \brief Projections (input 0) plus the Joseph forward projection of a volume (input 1).
 *
 * Line integrals by Joseph's method (bilinear in each slice across the ray's dominant axis, see
 * JosephProjector) for every projection of the geometry, on the CPU's threads. Its exact adjoint is
 * JosephBackProjectionImageFilter. Both images are processed whole.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephForwardProjectionImageFilter : public WholeImageProjectionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephForwardProjectionImageFilter);
  using Self = JosephForwardProjectionImageFilter;
  using Superclass = WholeImageProjectionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephForwardProjectionImageFilter, WholeImageProjectionFilter);

  void
  SetVolume(const TImage * volume)
  {
    this->SetNthInput(1, const_cast<TImage *>(volume));
  }

protected:
  JosephForwardProjectionImageFilter()
    : Superclass(0)
  {}
  ~JosephForwardProjectionImageFilter() override = default;

  void
  GenerateData() override
  {
    TImage * output = this->AllocateOutputFromInput0();
    const TImage * volume = this->GetInput(1);
    JosephOperator<TImage>(volume, this->GetInput(0), this->GetGeometry())
      .Forward(volume->GetBufferPointer(), output->GetBufferPointer(), this->AllProjections(), true);
  }
};

} // namespace cbct

#endif
