#ifndef cbctCudaASDPOCSConeBeamReconstructionFilter_h
#define cbctCudaASDPOCSConeBeamReconstructionFilter_h

#include "cbctASDPOCSConeBeamReconstructionFilter.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctCudaReconstructionBackend.h"

namespace cbct
{

/** \class CudaASDPOCSConeBeamReconstructionFilter
 * \brief ASDPOCSConeBeamReconstructionFilter on the GPU: the same parameters and steps
 * (ASDPOCSConeBeamReconstructionFilter::Reconstruct()) with the chosen projector pair on the GPU; the
 * volume, projections and per-subset sensitivities stay on the device. Observers of
 * itk::IterationEvent find the current volume in the output (downloaded only when there are some).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaASDPOCSConeBeamReconstructionFilter : public ASDPOCSConeBeamReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaASDPOCSConeBeamReconstructionFilter);
  using Self = CudaASDPOCSConeBeamReconstructionFilter;
  using Superclass = ASDPOCSConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaASDPOCSConeBeamReconstructionFilter, ASDPOCSConeBeamReconstructionFilter);

protected:
  CudaASDPOCSConeBeamReconstructionFilter() = default;
  ~CudaASDPOCSConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    const TImage * initial = this->GetInput(0);
    const TImage * projections = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // the initial volume is uploaded below, not copied on the host
    CudaReconstructionBackend backend(MakeCudaProjectorOperator(this->GetForwardProjector(), this->GetBackProjector(),
                                                                this->RayCastStepFor(output), output, projections, this->GetGeometry()),
                                      MakeTVGrid(output), this->GetGeometry()->GetNumberOfProjections());
    CudaReconstructionBackend::Vector x(backend.Voxels()), measured(backend.Pixels());
    backend.Upload(initial->GetBufferPointer(), x, backend.Voxels());
    backend.Upload(projections->GetBufferPointer(), measured, backend.Pixels());
    this->Reconstruct(backend, x, measured, [&] { backend.Download(x, output->GetBufferPointer(), backend.Voxels()); }, false);
  }
};

} // namespace cbct

#endif
