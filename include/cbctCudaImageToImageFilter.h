#ifndef cbctCudaImageToImageFilter_h
#define cbctCudaImageToImageFilter_h

#include "cbctCudaImage.h"

namespace cbct
{

/** \class CudaImageToImageFilter
 * \brief Base of the CUDA filters: the CPU filter's parameters and regions, GPU data generation.
 *
 * Derives from the CPU twin `TCpuFilter`, so every setter, check, output-information and
 * requested-region rule is shared; a CUDA filter overrides GPUGenerateData() only. Its images are
 * CudaImages: inputs are read and outputs written through their CudaDataManager, so consecutive
 * CUDA filters exchange device buffers without host copies.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage, typename TCpuFilter>
class ITK_TEMPLATE_EXPORT CudaImageToImageFilter : public TCpuFilter
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaImageToImageFilter);

  using Self = CudaImageToImageFilter;
  using Superclass = TCpuFilter;
  using Pointer = itk::SmartPointer<Self>;

  itkTypeMacro(CudaImageToImageFilter, TCpuFilter);

protected:
  CudaImageToImageFilter() = default;
  ~CudaImageToImageFilter() override = default;

  /** Allocates the outputs (host buffers are not touched, so untouched pages cost nothing), then
   * runs the device version. */
  void
  GenerateData() override
  {
    this->AllocateOutputs();
    this->GPUGenerateData();
  }

  virtual void
  GPUGenerateData() = 0;
};

} // namespace cbct

#endif
