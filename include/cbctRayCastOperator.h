#ifndef cbctRayCastOperator_h
#define cbctRayCastOperator_h

#include "cbctRayCastProjector.h"
#include "cbctRayDrivenOperator.h"

namespace cbct
{

/** \class RayCastOperator
 * \brief The ray caster's projector pair on the CPU's threads: A and its exact transpose A^T (see
 * RayCastProjector and RayDrivenOperator); the twin of CudaRayCastOperator.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class RayCastOperator : public RayDrivenOperator<TImage, RayCastProjector>
{
public:
  /** `stepMm`: distance between samples along a ray (> 0). */
  RayCastOperator(const TImage * volume, const TImage * projections, const ThreeDCircularProjectionGeometry * geometry,
                  double stepMm)
    : RayDrivenOperator<TImage, RayCastProjector>(volume, projections, [volume, projections, geometry, stepMm](unsigned int k) {
      return RayCastProjector(volume, projections, geometry, k, stepMm);
    })
  {}
};

} // namespace cbct

#endif
