#ifndef cbctCudaFDKBackProjectionImageFilter_h
#define cbctCudaFDKBackProjectionImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctCudaProjectionTexture.h"
#include "cbctFDKBackProjectionImageFilter.h"

namespace cbct
{

/** \class CudaFDKBackProjectionImageFilter
 * \brief FDKBackProjectionImageFilter on the GPU: projections in a layered texture with hardware
 * bilinear interpolation, batches of CudaBackProjectionBatch matrices as kernel parameters
 * (constant memory), each thread summing a run of voxels along z in registers.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaFDKBackProjectionImageFilter
  : public CudaImageToImageFilter<TImage, TImage, FDKBackProjectionImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFDKBackProjectionImageFilter);

  using Self = CudaFDKBackProjectionImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, FDKBackProjectionImageFilter<TImage, TImage>>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(CudaFDKBackProjectionImageFilter, CudaImageToImageFilter);

protected:
  CudaFDKBackProjectionImageFilter() = default;
  ~CudaFDKBackProjectionImageFilter() override = default;

  void
  GPUGenerateData() override;

private:
  CudaProjectionTexture m_Texture;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFDKBackProjectionImageFilter.hxx"
#endif

#endif
