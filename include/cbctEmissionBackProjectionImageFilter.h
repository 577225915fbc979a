#ifndef cbctEmissionBackProjectionImageFilter_h
#define cbctEmissionBackProjectionImageFilter_h

#include "cbctBackProjectionImageFilter.h"

namespace cbct
{

/** \class EmissionBackProjectionImageFilter
 * \brief A volume (input 0) plus the exact transpose of EmissionForwardProjectionImageFilter with the
 * same attenuation map and collimator blur, applied to projections (input 1): each view front to
 * back, B = G(B exp(-mu dt)), gathered into the activity grid. OSEM's sensitivity image is this
 * filter applied to projections of ones.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT EmissionBackProjectionImageFilter : public BackProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(EmissionBackProjectionImageFilter);
  using Self = EmissionBackProjectionImageFilter;
  using Superclass = BackProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(EmissionBackProjectionImageFilter, BackProjectionImageFilter);

protected:
  EmissionBackProjectionImageFilter() { this->SetForwardProjector(ForwardProjectorKind::Emission); }
  ~EmissionBackProjectionImageFilter() override = default;
};

} // namespace cbct

#endif
