#ifndef cbctJosephOperator_h
#define cbctJosephOperator_h

#include "cbctJosephGatherBackProjector.h"
#include "cbctJosephProjector.h"
#include "cbctRayDrivenOperator.h"

namespace cbct
{

/** How the exact adjoint of Joseph's projector is computed: gathered voxel by voxel (the default:
 * no atomics on the GPU, no per-thread volumes on the CPU) or scattered ray by ray. Both add the
 * same weights; only the order of the additions differs. */
enum class JosephAdjoint
{
  Gather,
  Scatter
};

/** \class JosephOperator
 * \brief Joseph's projector pair on the CPU's threads: A and its exact transpose A^T (see
 * JosephProjector, RayDrivenOperator for A and the scatter, JosephGatherBackProjector for the gather).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class JosephOperator : public RayDrivenOperator<TImage, JosephProjector>
{
public:
  using Superclass = RayDrivenOperator<TImage, JosephProjector>;

  JosephOperator(const TImage * volume, const TImage * projections, const ThreeDCircularProjectionGeometry * geometry)
    : Superclass(volume, projections,
                 [volume, projections, geometry](unsigned int k) { return JosephProjector(volume, projections, geometry, k); })
    , m_Gather(volume, projections, geometry)
    , m_Parallel(geometry->GetNumberOfProjections() > 0 && geometry->IsParallel(0))
  {}

  /** The gather (default) or the scatter. Parallel beams are always scattered: the gather is
   * written for cones (it finds a cell's rays through the source). */
  void
  SetAdjoint(JosephAdjoint adjoint)
  {
    m_Adjoint = adjoint;
  }
  JosephAdjoint
  GetAdjoint() const
  {
    return m_Adjoint;
  }

  /** volume (+)= sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const override
  {
    if (m_Adjoint == JosephAdjoint::Scatter || m_Parallel)
      Superclass::Back(projections, volume, subset, add);
    else
      m_Gather.Back(projections, volume, subset, add);
  }

private:
  JosephGatherBackProjector m_Gather;
  bool m_Parallel;
  JosephAdjoint m_Adjoint = JosephAdjoint::Gather;
};

} // namespace cbct

#endif
