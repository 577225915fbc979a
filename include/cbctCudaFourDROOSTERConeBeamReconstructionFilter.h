#ifndef cbctCudaFourDROOSTERConeBeamReconstructionFilter_h
#define cbctCudaFourDROOSTERConeBeamReconstructionFilter_h

#include "cbctCudaFourDOperations.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctCudaReconstructionBackend.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"

namespace cbct
{

/** \class CudaFourDROOSTERConeBeamReconstructionFilter
 * \brief FourDROOSTERConeBeamReconstructionFilter on the GPU: the same parameters and steps
 * (FourDROOSTERConeBeamReconstructionFilter::Reconstruct()) with the chosen projector pair on the GPU
 * (MakeCudaProjectorOperator()) and the 4D steps of CudaFourDOperations. The frames, the projections
 * and the method's vectors stay on the device for all iterations: 4 4D volumes (with the temporal
 * TV's dual), 4 projection stacks and 5 volumes; for 10 frames of 512^3 and 1440 projections of
 * 512^2 some 30 GB. Observers of itk::IterationEvent find the current frames in the output
 * (downloaded only when there are some).
 * \ingroup ConeBeamCT
 */
template <typename TVolumeSeries, typename TProjectionStack = itk::Image<typename TVolumeSeries::PixelType, 3>>
class ITK_TEMPLATE_EXPORT CudaFourDROOSTERConeBeamReconstructionFilter
  : public FourDROOSTERConeBeamReconstructionFilter<TVolumeSeries, TProjectionStack>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFourDROOSTERConeBeamReconstructionFilter);
  using Self = CudaFourDROOSTERConeBeamReconstructionFilter;
  using Superclass = FourDROOSTERConeBeamReconstructionFilter<TVolumeSeries, TProjectionStack>;
  using Pointer = itk::SmartPointer<Self>;
  using typename Superclass::VolumeType;
  itkNewMacro(Self);
  itkTypeMacro(CudaFourDROOSTERConeBeamReconstructionFilter, FourDROOSTERConeBeamReconstructionFilter);

protected:
  CudaFourDROOSTERConeBeamReconstructionFilter() = default;
  ~CudaFourDROOSTERConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    this->template Run<CudaReconstructionBackend, CudaFourDOperations>(
      [this](const VolumeType * grid, const TProjectionStack * projections) {
        return MakeCudaProjectorOperator(this->GetForwardProjector(), BackProjectorKind::Adjoint, this->RayCastStepFor(grid), grid,
                                         projections, this->GetGeometry());
      },
      false);
  }
};

} // namespace cbct

#endif
