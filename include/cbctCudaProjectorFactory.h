#ifndef cbctCudaProjectorFactory_h
#define cbctCudaProjectorFactory_h

#include "cbctCudaJosephOperator.h"
#include "cbctCudaProjectorOperator.h"
#include "cbctCudaRayCastOperator.h"
#include "cbctCudaVoxelBackProjectionOperator.h"
#include "cbctProjectorOperator.h"

#include <memory>

namespace cbct
{

/** The CUDA twin of WholeImageProjectionFilter::MakeOperator(): the chosen forward projector and
 * backprojector on the GPU for the volume grid `volume` and the stack `projections`. `rayCastStep`
 * is in mm (> 0). */
inline std::unique_ptr<CudaProjectorOperator>
MakeCudaProjectorOperator(ForwardProjectorKind kind, BackProjectorKind back, double rayCastStep, const itk::ImageBase<3> * volume,
                          const itk::ImageBase<3> * projections, const ThreeDCircularProjectionGeometry * geometry)
{
  std::unique_ptr<CudaProjectorOperator> pair;
  if (kind == ForwardProjectorKind::RayCast)
    pair.reset(new CudaRayCastOperator(volume, projections, geometry, rayCastStep));
  else
    pair.reset(new CudaJosephOperator(volume, projections, geometry));
  if (back == BackProjectorKind::VoxelBased)
    pair.reset(new CudaVoxelBackProjectionOperator(std::move(pair), volume, projections, geometry));
  return pair;
}

} // namespace cbct

#endif
