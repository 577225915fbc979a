#ifndef cbctCudaTotalVariationGradientImageFilter_h
#define cbctCudaTotalVariationGradientImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctCudaTotalVariationOperators.h"
#include "cbctTotalVariationGradientImageFilter.h"

namespace cbct
{

/** \class CudaTotalVariationGradientImageFilter
 * \brief TotalVariationGradientImageFilter on the GPU (CudaImage in and out, one thread per voxel).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaTotalVariationGradientImageFilter
  : public CudaImageToImageFilter<TImage, TImage, TotalVariationGradientImageFilter<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaTotalVariationGradientImageFilter);
  using Self = CudaTotalVariationGradientImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, TotalVariationGradientImageFilter<TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaTotalVariationGradientImageFilter, CudaImageToImageFilter);

protected:
  CudaTotalVariationGradientImageFilter() = default;
  ~CudaTotalVariationGradientImageFilter() override = default;

  void
  GPUGenerateData() override
  {
    const TImage * input = this->GetInput();
    TImage * output = this->GetOutput();
    const auto * x = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
    auto * g = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
    CudaTotalVariationOperators(MakeTVGrid(input)).Derivative(x, g, this->GetEpsilon());
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (TV gradient)");
  }
};

} // namespace cbct

#endif
