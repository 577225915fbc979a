#ifndef cbctCudaBackProjectionImageFilter_h
#define cbctCudaBackProjectionImageFilter_h

#include "cbctBackProjectionImageFilter.h"
#include "cbctCudaImage.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaProjectorFactory.h"

namespace cbct
{

/** \class CudaBackProjectionImageFilter
 * \brief BackProjectionImageFilter on the GPU: a volume (input 0) plus the transpose of the chosen
 * forward projector applied to projections (input 1), with the projector pair on the GPU
 * (MakeCudaProjectorOperator()). Uploads both, backprojects all projections onto the volume on the
 * device, downloads it. The GPU adds with atomics, so the result equals the CPU filter's up to the
 * order of float additions. Memory: 1 volume + 1 projection stack on the device.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaBackProjectionImageFilter : public BackProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaBackProjectionImageFilter);
  using Self = CudaBackProjectionImageFilter;
  using Superclass = BackProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaBackProjectionImageFilter, BackProjectionImageFilter);

protected:
  CudaBackProjectionImageFilter() = default;
  ~CudaBackProjectionImageFilter() override = default;

  void
  GenerateData() override
  {
    const TImage * base = this->GetInput(0);
    const TImage * projections = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // input 0 is uploaded below, not copied on the host
    const std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), this->GetBackProjector(), this->RayCastStepFor(output), output, projections, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const std::size_t voxels = A->Voxels(), pixels = A->PixelsPerProjection() * count;
    CudaDeviceBuffer<float> x(voxels), p(pixels);
    CudaUpload(x.Data(), base->GetBufferPointer(), voxels, "volume");
    CudaUpload(p.Data(), projections->GetBufferPointer(), pixels, "projections");
    A->Back(p.Data(), x.Data(), A->Subset(this->AllProjections()), static_cast<int>(count), true);
    CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
  }
};

} // namespace cbct

#endif
