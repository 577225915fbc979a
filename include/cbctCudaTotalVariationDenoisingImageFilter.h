#ifndef cbctCudaTotalVariationDenoisingImageFilter_h
#define cbctCudaTotalVariationDenoisingImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctCudaReconstructionBackend.h"
#include "cbctTotalVariationDenoisingImageFilter.h"

namespace cbct
{

/** \class CudaTotalVariationDenoisingImageFilter
 * \brief TotalVariationDenoisingImageFilter on the GPU (CudaImage in and out): the same Chambolle
 * iterations (DenoiseTotalVariation()) on device volumes. Memory: six volumes on the device.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaTotalVariationDenoisingImageFilter
  : public CudaImageToImageFilter<TImage, TImage, TotalVariationDenoisingImageFilter<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaTotalVariationDenoisingImageFilter);
  using Self = CudaTotalVariationDenoisingImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, TotalVariationDenoisingImageFilter<TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaTotalVariationDenoisingImageFilter, CudaImageToImageFilter);

protected:
  CudaTotalVariationDenoisingImageFilter() = default;
  ~CudaTotalVariationDenoisingImageFilter() override = default;

  void
  GPUGenerateData() override
  {
    const TImage * input = this->GetInput();
    TImage * output = this->GetOutput();
    CudaReconstructionBackend backend(nullptr, MakeTVGrid(input), 0);
    const std::size_t n = backend.Voxels();
    CudaReconstructionBackend::Vector f(n), u(n), z(n);
    std::array<CudaReconstructionBackend::Vector, 3> p{ CudaReconstructionBackend::Vector(n), CudaReconstructionBackend::Vector(n),
                                                        CudaReconstructionBackend::Vector(n) };
    const auto * in = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
    CudaCheck(cudaMemcpy(f.Data(), in, n * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpy (TV denoising input)", n * sizeof(float));
    DenoiseTotalVariation(backend, f, u, this->GetLambda(), this->GetNumberOfIterations(), p, z);
    auto * out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
    CudaCheck(cudaMemcpy(out, u.Data(), n * sizeof(float), cudaMemcpyDeviceToDevice), "cudaMemcpy (TV denoising output)", n * sizeof(float));
  }
};

} // namespace cbct

#endif
