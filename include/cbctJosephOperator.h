#ifndef cbctJosephOperator_h
#define cbctJosephOperator_h

#include "cbctJosephProjector.h"
#include "cbctRayDrivenOperator.h"

namespace cbct
{

/** \class JosephOperator
 * \brief Joseph's projector pair on the CPU's threads: A and its exact transpose A^T (see
 * JosephProjector and RayDrivenOperator).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class JosephOperator : public RayDrivenOperator<TImage, JosephProjector>
{
public:
  JosephOperator(const TImage * volume, const TImage * projections, const ThreeDCircularProjectionGeometry * geometry)
    : RayDrivenOperator<TImage, JosephProjector>(
        volume, projections, [volume, projections, geometry](unsigned int k) { return JosephProjector(volume, projections, geometry, k); })
  {}
};

} // namespace cbct

#endif
