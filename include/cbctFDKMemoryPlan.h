#ifndef cbctFDKMemoryPlan_h
#define cbctFDKMemoryPlan_h

#include "ConeBeamCTExport.h"

#include <itkImageRegion.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cbct
{

/** \class FDKMemoryPlan
 * \brief How an FDK reconstruction fits a memory budget: slabs of the volume along y (the rotation
 * axis), each with the band of detector rows it projects onto, and batches of projections.
 *
 * A slab of the volume needs only the detector rows it projects onto (FDKBackProjectionImageFilter's
 * requested region), and those rows may go through the weighting, the ramp filter and the
 * backprojection a batch of projections at a time (FDKConeBeamReconstructionFilter's
 * SetProjectionsPerBatch()). What a slab holds at once is then
 *
 *   cost(slab, P) = slab.fixed + P x slab.perProjection
 *
 * where `fixed` counts the slab's volume buffers and `perProjection` the bytes of every image of
 * one projection's band (the rows read, their conversion, weighting and filtering): Make() asks the
 * caller for both (Cost()), since they depend on the pipeline (which stages run, which pixel type the
 * files hold). The slabs are cut from the start of y, each as thick as the budget allows with the
 * smallest batch (BackProjectionBatch projections: thick slabs re-read and re-filter fewer shared
 * rows, and a batch costs no work), then the batch is made as large as every slab allows. The plan
 * changes the memory used, never the volume: batches start at multiples of BackProjectionBatch, and
 * every voxel sums the same projections in the same order.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT FDKMemoryPlan
{
public:
  /** What a slab holds: bytes independent of the batch, and bytes per projection of a batch. */
  struct Cost
  {
    std::uint64_t fixed = 0;
    std::uint64_t perProjection = 0;
    std::uint64_t rows = 0; ///< detector rows the slab reads (for Describe())
  };
  using CostFunction = std::function<Cost(const itk::ImageRegion<3> & slab)>;

  struct Slab
  {
    itk::ImageRegion<3> region;
    Cost cost;
    std::uint64_t bytes = 0; ///< at the plan's batch size
  };

  /** The plan of `volume` (the output region, cut along y) from `projections` projections within
   * `budget` bytes; `batchMultiple`: BackProjectionBatch. Throws itk::ExceptionObject saying the
   * budget needed when even slabs of one row of voxels in batches of `batchMultiple` projections
   * exceed it. */
  static FDKMemoryPlan
  Make(const itk::ImageRegion<3> & volume, std::uint64_t projections, std::uint64_t budget, const CostFunction & cost,
       std::uint64_t batchMultiple = 64);

  /** What the smallest plan needs (slabs of one row of voxels, batches of `batchMultiple`): the
   * smallest budget Make() accepts. */
  static std::uint64_t
  SmallestBudget(const itk::ImageRegion<3> & volume, std::uint64_t projections, const CostFunction & cost,
                 std::uint64_t batchMultiple = 64);

  /** The slabs, in order along y, covering the volume once. */
  const std::vector<Slab> &
  Slabs() const
  {
    return m_Slabs;
  }
  /** Projections per batch: 0 when every slab takes all of them at once. */
  std::uint64_t
  ProjectionsPerBatch() const
  {
    return m_ProjectionsPerBatch;
  }
  /** The most any slab holds. */
  std::uint64_t
  PeakBytes() const;
  std::uint64_t
  Budget() const
  {
    return m_Budget;
  }
  /** "8 slabs of 96 to 160 rows of voxels along y, detector rows 112 to 230 each, batches of 128 of
   * the 720 projections; at most 947 MiB of the 1.00 GiB budget" */
  std::string
  Describe() const;

private:
  std::vector<Slab> m_Slabs;
  std::uint64_t m_ProjectionsPerBatch = 0;
  std::uint64_t m_Projections = 0;
  std::uint64_t m_Budget = 0;
};

} // namespace cbct

#endif
