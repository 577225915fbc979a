#ifndef cbctCudaProjectorFactory_h
#define cbctCudaProjectorFactory_h

#include "cbctCudaJosephOperator.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctProjectorOperator.h"

#include <memory>

namespace cbct
{

/** The CUDA twin of WholeImageProjectionFilter::MakeOperator(): the chosen projector pair on the
 * GPU for the volume grid `volume` and the stack `projections`. `rayCastStep` is in mm (> 0). */
inline std::unique_ptr<CudaProjectorOperator>
MakeCudaProjectorOperator(ForwardProjectorKind kind, double rayCastStep, const itk::ImageBase<3> * volume,
                          const itk::ImageBase<3> * projections, const ThreeDCircularProjectionGeometry * geometry)
{
  (void)rayCastStep;
  if (kind == ForwardProjectorKind::RayCast)
    throw std::runtime_error("MakeCudaProjectorOperator: the CUDA ray caster is not built yet");
  return std::unique_ptr<CudaProjectorOperator>(new CudaJosephOperator(volume, projections, geometry));
}

} // namespace cbct

#endif
