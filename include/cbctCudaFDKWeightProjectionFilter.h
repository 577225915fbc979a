#ifndef cbctCudaFDKWeightProjectionFilter_h
#define cbctCudaFDKWeightProjectionFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctFDKWeightProjectionFilter.h"

namespace cbct
{

/** \class CudaFDKWeightProjectionFilter
 * \brief FDKWeightProjectionFilter on the GPU: the same per-pixel weight (FDKPixelWeight()),
 * the same padding of a displaced detector, one thread per output pixel.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaFDKWeightProjectionFilter
  : public CudaImageToImageFilter<TImage, TImage, FDKWeightProjectionFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFDKWeightProjectionFilter);

  using Self = CudaFDKWeightProjectionFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, FDKWeightProjectionFilter<TImage, TImage>>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(CudaFDKWeightProjectionFilter, CudaImageToImageFilter);

protected:
  CudaFDKWeightProjectionFilter() = default;
  ~CudaFDKWeightProjectionFilter() override = default;

  void
  GPUGenerateData() override;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFDKWeightProjectionFilter.hxx"
#endif

#endif
