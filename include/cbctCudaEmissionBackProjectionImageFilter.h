#ifndef cbctCudaEmissionBackProjectionImageFilter_h
#define cbctCudaEmissionBackProjectionImageFilter_h

#include "cbctCudaBackProjectionImageFilter.h"

namespace cbct
{

/** \class CudaEmissionBackProjectionImageFilter
 * \brief EmissionBackProjectionImageFilter on the GPU (CudaEmissionOperator): the exact transpose of
 * CudaEmissionForwardProjectionImageFilter, equal to the CPU filter's to float rounding.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaEmissionBackProjectionImageFilter : public CudaBackProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaEmissionBackProjectionImageFilter);
  using Self = CudaEmissionBackProjectionImageFilter;
  using Superclass = CudaBackProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaEmissionBackProjectionImageFilter, CudaBackProjectionImageFilter);

protected:
  CudaEmissionBackProjectionImageFilter() { this->SetForwardProjector(ForwardProjectorKind::Emission); }
  ~CudaEmissionBackProjectionImageFilter() override = default;
};

} // namespace cbct

#endif
