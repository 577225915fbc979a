#ifndef cbctCudaForwardProjectionImageFilter_h
#define cbctCudaForwardProjectionImageFilter_h

#include "cbctCudaImage.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctForwardProjectionImageFilter.h"

namespace cbct
{

/** \class CudaForwardProjectionImageFilter
 * \brief ForwardProjectionImageFilter on the GPU: projections (input 0) plus the forward projection
 * of a volume (input 1) with the chosen projector pair on the GPU (MakeCudaProjectorOperator()).
 * Uploads the volume and input 0, projects all projections and adds them on the device, downloads
 * the sum. With Joseph's projector the result equals the CPU filter's to float rounding.
 * Memory: 1 volume + 2 projection stacks on the device.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaForwardProjectionImageFilter : public ForwardProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaForwardProjectionImageFilter);
  using Self = CudaForwardProjectionImageFilter;
  using Superclass = ForwardProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaForwardProjectionImageFilter, ForwardProjectionImageFilter);

protected:
  CudaForwardProjectionImageFilter() = default;
  ~CudaForwardProjectionImageFilter() override = default;

  void
  GenerateData() override
  {
    const TImage * base = this->GetInput(0);
    const TImage * volume = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // input 0 is uploaded below, not copied on the host
    const std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), BackProjectorKind::Adjoint, this->RayCastStepFor(volume), volume, base, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const std::size_t voxels = A->Voxels(), pixels = A->PixelsPerProjection() * count;
    CudaDeviceBuffer<float> x(voxels), sum(pixels), projected(pixels);
    CudaUpload(x.Data(), volume->GetBufferPointer(), voxels, "volume");
    CudaUpload(sum.Data(), base->GetBufferPointer(), pixels, "projections");
    A->Forward(x.Data(), projected.Data(), A->Subset(this->AllProjections()), static_cast<int>(count));
    CudaCheck(LaunchAdd(projected.Data(), sum.Data(), static_cast<long long>(pixels), nullptr), "LaunchAdd");
    CudaDownload(output->GetBufferPointer(), sum.Data(), pixels, "projections");
  }
};

} // namespace cbct

#endif
