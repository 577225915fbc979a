#ifndef cbctFDKSlabCost_h
#define cbctFDKSlabCost_h

#include "cbctColumnBackProjection.h"
#include "cbctFDKBackProjection.hcu"
#include "cbctFDKMemoryPlan.h"
#include "cbctRampFilterResponse.h"

#include <itkMultiThreaderBase.h>

#include <algorithm>
#include <cstdint>

namespace cbct
{

/** What an FDK filter (FDKConeBeamReconstructionFilter or its CUDA twin, `onDevice`) holds in host
 * memory to reconstruct `slab` in batches of `batch` projections (all of them when `batch` is at least
 * the stack's count), besides its projections input: for FDKMemoryPlan.
 *
 * Measured on the pipeline itself: the slab is asked of the filter (PropagateRequestedRegion()), and
 * the requested regions of its stages say how many rows each holds. On the CPU: the output slab and
 * the initial volume's slab beside it, one batch of BackProjectionBatch projections laid out in columns
 * (ColumnStack), each thread's FFT rows, and per projection its weighted and its filtered rows. The
 * CUDA filter holds the output slab only (it fills a constant initial volume on the device and
 * weights and filters on the device). Afterwards the projections input's requested region is what
 * the slab asks of it: the caller adds the bytes its own pipeline holds for that region.
 * \ingroup ConeBeamCT
 */
template <typename TFDK>
FDKMemoryPlan::Cost
FDKSlabCost(TFDK * fdk, const itk::ImageRegion<3> & slab, std::uint64_t batch, bool onDevice)
{
  const std::uint64_t count = fdk->GetInput(1)->GetLargestPossibleRegion().GetSize(2);
  fdk->SetProjectionsPerBatch(batch < count ? batch : 0);
  fdk->GetOutput()->SetRequestedRegion(slab);
  fdk->GetOutput()->PropagateRequestedRegion();
  FDKMemoryPlan::Cost cost;
  const auto & asked = fdk->GetInput(1)->GetRequestedRegion();
  cost.rows = asked.GetSize(1);
  const std::uint64_t voxels = slab.GetNumberOfPixels();
  cost.fixed = voxels * sizeof(float) * (onDevice ? 1 : 2);
  if (onDevice)
    return cost;
  const auto & weighted = fdk->GetWeightFilter()->GetOutput()->GetRequestedRegion();
  const auto & filtered = fdk->GetRampFilter()->GetOutput()->GetRequestedRegion();
  const std::uint64_t projections = std::max<itk::SizeValueType>(1, weighted.GetSize(2));
  cost.perProjection =
    (static_cast<std::uint64_t>(weighted.GetNumberOfPixels() + filtered.GetNumberOfPixels()) * sizeof(float) +
     projections - 1) /
    projections;
  const std::uint64_t columns = weighted.GetSize(0), rows = weighted.GetSize(1);
  cost.fixed += static_cast<std::uint64_t>(BackProjectionBatch) * (columns + 2) *
                (rows + ColumnStack::RowsBefore + ColumnStack::RowsAfter) * sizeof(float);
  const std::uint64_t threads = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  cost.fixed += threads * RampFilterPaddedLength(static_cast<unsigned int>(columns)) * 4 * sizeof(float);
  return cost;
}

} // namespace cbct

#endif
