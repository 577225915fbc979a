#ifndef cbctCudaProjectorFactory_h
#define cbctCudaProjectorFactory_h

#include "cbctCudaEmissionOperator.h"
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
 * is in mm (> 0); `attenuation` (may be null) and `blur` are the emission projector's. */
inline std::unique_ptr<CudaProjectorOperator>
MakeCudaProjectorOperator(ForwardProjectorKind kind, BackProjectorKind back, double rayCastStep, const itk::ImageBase<3> * volume,
                          const itk::ImageBase<3> * projections, const ThreeDCircularProjectionGeometry * geometry,
                          const itk::Image<float, 3> * attenuation = nullptr, const CollimatorBlur & blur = CollimatorBlur())
{
  std::unique_ptr<CudaProjectorOperator> pair;
  if (kind == ForwardProjectorKind::RayCast)
    pair.reset(new CudaRayCastOperator(volume, projections, geometry, rayCastStep));
  else if (kind == ForwardProjectorKind::Emission)
    pair.reset(new CudaEmissionOperator(volume, projections, geometry, attenuation, blur));
  else
    pair.reset(new CudaJosephOperator(volume, projections, geometry));
  if (back == BackProjectorKind::VoxelBased)
    pair.reset(new CudaVoxelBackProjectionOperator(std::move(pair), volume, projections, geometry));
  return pair;
}

} // namespace cbct

#endif
