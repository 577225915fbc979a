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
    const TImage * projections = this->GetInput(1);
    CudaReconstructionBackend::Run(this->GetInput(0), projections, this->GetOutput(), this->GetGeometry()->GetNumberOfProjections(),
                                   [&](const TImage * output) {
                                     return MakeCudaProjectorOperator(this->GetForwardProjector(), this->GetBackProjector(),
                                                                      this->RayCastStepFor(output), output, projections, this->GetGeometry());
                                   },
                                   [this](auto &&... arguments) { this->Reconstruct(arguments...); });
  }
};

} // namespace cbct

#endif
