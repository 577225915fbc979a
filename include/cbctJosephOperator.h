#ifndef cbctJosephOperator_h
#define cbctJosephOperator_h

#include "cbctJosephForwardRow.h"
#include "cbctJosephGatherBackProjector.h"
#include "cbctJosephProjector.h"
#include "cbctRayDrivenOperator.h"
#include "cbctWorkerErrors.h"

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
 * JosephProjector, RayDrivenOperator for the scatter, JosephGatherBackProjector for the gather).
 *
 * A is computed detector row by detector row (JosephForwardRow(): eight rays at a time with AVX2),
 * the rows of all the subset's projections spread over ITK's thread pool, so that a subset of one
 * projection (SART) keeps every thread busy; each pixel's sum is RayDrivenOperator::Forward()'s bit
 * for bit.
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
    , m_Cylindrical(geometry->IsCylindrical())
  {
    for (unsigned int d = 0; d < 3; ++d)
      m_Size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
    m_Columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_FirstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_FirstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
    for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
      m_Rays.push_back(JosephProjector(volume, projections, geometry, k).Ray());
  }

  /** projections[k] (+)= A_k volume for each k of `subset` (overwrites when `add` is false). */
  void
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const override
  {
    if (m_Cylindrical)
    {
      // The row kernel walks the flat panel's pixels: a cylinder's pixel by pixel (JosephProjector::Visit()).
      Superclass::Forward(volume, projections, subset, add);
      return;
    }
    const auto rows = static_cast<itk::SizeValueType>(m_Rows);
    ParallelizeArray(
      0, subset.size() * rows,
      [&](itk::SizeValueType unit) {
        const unsigned int k = subset[unit / rows];
        const int row = static_cast<int>(unit % rows);
        JosephRowLaunch launch;
        launch.ray = &m_Rays[k];
        launch.size = m_Size;
        launch.volume = volume;
        launch.firstColumn = m_FirstColumn;
        launch.row = m_FirstRow + row;
        launch.columns = m_Columns;
        launch.add = add;
        launch.out = projections + (static_cast<std::size_t>(k) * m_Rows + row) * m_Columns;
        JosephForwardRow(launch);
      });
  }

  /** The gather (default) or the scatter. Parallel beams and cylindrical detectors are always
   * scattered: the gather is written for cones onto a flat panel (it finds a cell's rays through the
   * source and the panel's grid). */
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
    if (m_Adjoint == JosephAdjoint::Scatter || m_Parallel || m_Cylindrical)
      Superclass::Back(projections, volume, subset, add);
    else
      m_Gather.Back(projections, volume, subset, add);
  }

private:
  JosephGatherBackProjector m_Gather;
  bool m_Parallel;
  bool m_Cylindrical;
  std::vector<JosephRay> m_Rays; ///< per projection, for Forward()
  int m_Size[3];
  int m_Columns, m_Rows, m_FirstColumn, m_FirstRow;
  JosephAdjoint m_Adjoint = JosephAdjoint::Gather;
};

} // namespace cbct

#endif
