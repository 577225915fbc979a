#ifndef cbctCudaADMMTotalVariationConeBeamReconstructionFilter_h
#define cbctCudaADMMTotalVariationConeBeamReconstructionFilter_h

#include "cbctADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctCudaReconstructionBackend.h"

namespace cbct
{

/** \class CudaADMMTotalVariationConeBeamReconstructionFilter
 * \brief ADMMTotalVariationConeBeamReconstructionFilter on the GPU: the same parameters and steps
 * (ADMMTotalVariationConeBeamReconstructionFilter::Reconstruct()) with the chosen projector pair on the GPU; the
 * volume, projections and the method's vectors stay on the device (16 volumes and 3 projection stacks). Observers of
 * itk::IterationEvent find the current volume in the output (downloaded only when there are some).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaADMMTotalVariationConeBeamReconstructionFilter : public ADMMTotalVariationConeBeamReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaADMMTotalVariationConeBeamReconstructionFilter);
  using Self = CudaADMMTotalVariationConeBeamReconstructionFilter;
  using Superclass = ADMMTotalVariationConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaADMMTotalVariationConeBeamReconstructionFilter, ADMMTotalVariationConeBeamReconstructionFilter);

protected:
  CudaADMMTotalVariationConeBeamReconstructionFilter() = default;
  ~CudaADMMTotalVariationConeBeamReconstructionFilter() override = default;

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
