#ifndef cbctCudaEmissionForwardProjectionImageFilter_h
#define cbctCudaEmissionForwardProjectionImageFilter_h

#include "cbctCudaForwardProjectionImageFilter.h"

namespace cbct
{

/** \class CudaEmissionForwardProjectionImageFilter
 * \brief EmissionForwardProjectionImageFilter on the GPU (CudaEmissionOperator): the same inputs,
 * attenuation map, collimator blur and results to float rounding.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaEmissionForwardProjectionImageFilter : public CudaForwardProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaEmissionForwardProjectionImageFilter);
  using Self = CudaEmissionForwardProjectionImageFilter;
  using Superclass = CudaForwardProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaEmissionForwardProjectionImageFilter, CudaForwardProjectionImageFilter);

  /** The activity volume to project (input 1; SetVolume() is the same). */
  void
  SetActivity(const TImage * activity)
  {
    this->SetVolume(activity);
  }

protected:
  CudaEmissionForwardProjectionImageFilter() { this->SetForwardProjector(ForwardProjectorKind::Emission); }
  ~CudaEmissionForwardProjectionImageFilter() override = default;
};

} // namespace cbct

#endif
