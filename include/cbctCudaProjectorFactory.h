#ifndef cbctCudaProjectorFactory_h
#define cbctCudaProjectorFactory_h

#include "cbctCudaJosephOperator.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaRayCastOperator.h"
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
  if (kind == ForwardProjectorKind::RayCast)
    return std::unique_ptr<CudaProjectorOperator>(new CudaRayCastOperator(volume, projections, geometry, rayCastStep));
  return std::unique_ptr<CudaProjectorOperator>(new CudaJosephOperator(volume, projections, geometry));
}

} // namespace cbct

#endif
