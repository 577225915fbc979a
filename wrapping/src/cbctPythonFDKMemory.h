#ifndef cbctPythonFDKMemory_h
#define cbctPythonFDKMemory_h

// conebeamct.fdk(..., memory=): FDK within a host memory budget, as cbct-fdk --memory plans it
// (cbct::FDKMemoryPlan, what each slab holds measured by cbct::FDKSlabCost on the pipeline itself):
// slabs of the volume along y, each reconstructed from the detector rows it projects onto, in batches
// of projections. The projections are the caller's array, whole in memory already: the budget is what
// the call allocates besides them, the volume it returns included. With one slab the filter's output
// is that volume; with several, each slab is copied into it as it is finished, so it counts beside
// every slab's buffers. The volume is the same bit for bit: every voxel sums the same projections in
// the same order.
#include "cbctPythonSupport.h"

#include "cbctFDKMemoryPlan.h"
#include "cbctFDKSlabCost.h"
#include "cbctHostMemory.h"

#include <itkImageAlgorithm.h>
#include <itkImageSource.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace cbct::python
{

/** The plan, for the info dict conebeamct.fdk returns. */
inline void
AddPlan(py::dict & info, const FDKMemoryPlan & plan, std::uint64_t projections, std::uint64_t budget)
{
  info["slabs"] = plan.Slabs().size();
  info["projections_per_batch"] = plan.ProjectionsPerBatch() > 0 ? plan.ProjectionsPerBatch() : projections;
  info["memory"] = budget;
  info["planned_peak_bytes"] = plan.PeakBytes();
  info["plan"] = plan.Describe();
}

/** The volume of `fdk` (its inputs and options set, its output information up to date) within `budget`
 * bytes; `memory` is the argument as the caller wrote it, for messages. Returns the volume as a numpy
 * array and puts the plan into `info`: slabs, projections_per_batch, memory (the budget in bytes),
 * planned_peak_bytes and plan (FDKMemoryPlan::Describe()). A budget too small for slabs of one row of
 * voxels is a ValueError naming memory, its value and the bytes the smallest plan needs. */
template <class TImage, class TFDK>
py::array_t<float>
ReconstructWithinMemory(TFDK * fdk, itk::ImageSource<TImage> * grid, std::uint64_t budget, const std::string & memory,
                        py::dict & info, const py::object & progress)
{
  constexpr bool onDevice = !std::is_same_v<TImage, ImageType>;
  const itk::ImageRegion<3> whole = fdk->GetOutput()->GetLargestPossibleRegion();
  const std::uint64_t count = fdk->GetInput(1)->GetLargestPossibleRegion().GetSize(2);
  // On the CPU the filter takes batches of BackProjectionBatch projections; the CUDA filter takes a
  // slab's rows of every projection (it streams them to the device in batches itself).
  const std::uint64_t smallestBatch = onDevice ? count : std::min<std::uint64_t>(count, BackProjectionBatch);
  const std::uint64_t volumeBytes = static_cast<std::uint64_t>(whole.GetNumberOfPixels()) * sizeof(float);
  const FDKMemoryPlan::CostFunction slabCost = [&](const itk::ImageRegion<3> & slab) {
    return FDKSlabCost(fdk, slab, smallestBatch, onDevice);
  };
  const FDKMemoryPlan::CostFunction assembledCost = [&](const itk::ImageRegion<3> & slab) {
    FDKMemoryPlan::Cost cost = FDKSlabCost(fdk, slab, smallestBatch, onDevice);
    cost.fixed += volumeBytes; // the volume returned, beside the slab being reconstructed
    return cost;
  };
  FDKMemoryPlan plan;
  {
    py::gil_scoped_release release;
    const FDKMemoryPlan::Cost one = slabCost(whole);
    const bool oneSlab = one.perProjection <= (std::numeric_limits<std::uint64_t>::max() - one.fixed) / smallestBatch &&
                         one.fixed + one.perProjection * smallestBatch <= budget;
    if (oneSlab)
      plan = FDKMemoryPlan::Make(whole, count, budget, slabCost, smallestBatch);
    else
    {
      const std::uint64_t smallest = FDKMemoryPlan::SmallestBudget(whole, count, assembledCost, smallestBatch);
      if (smallest > budget)
      {
        py::gil_scoped_acquire acquire;
        throw py::value_error("memory is " + memory + " (" + HostMemory::Format(budget) +
                              "): too small for this reconstruction, whose smallest plan (slabs of one row of voxels "
                              "along y, batches of " +
                              std::to_string(smallestBatch) + " projections, and the " + HostMemory::Format(volumeBytes) +
                              " volume returned) needs " + HostMemory::Format(smallest) +
                              " besides the projections given; expected at least " + std::to_string(smallest) +
                              " bytes, or a smaller volume");
      }
      plan = FDKMemoryPlan::Make(whole, count, budget, assembledCost, smallestBatch);
    }
  }
  fdk->SetProjectionsPerBatch(plan.ProjectionsPerBatch());

  const auto & slabs = plan.Slabs();
  if (slabs.size() == 1) // the filter's output is the volume returned
  {
    RunWithProgress(
      fdk,
      [&] {
        fdk->GetOutput()->SetRequestedRegion(whole);
        fdk->GetOutput()->Update();
      },
      progress);
    typename TImage::Pointer output = fdk->GetOutput();
    output->DisconnectPipeline();
    grid->GetOutput()->ReleaseData();
    AddPlan(info, plan, count, budget);
    return ToNumpy<TImage>(output);
  }
  auto volume = ImageType::New();
  volume->CopyInformation(fdk->GetOutput());
  volume->SetRegions(whole);
  volume->Allocate();
  RunWithProgress(
    fdk,
    [&] {
      for (const FDKMemoryPlan::Slab & slab : slabs)
      {
        fdk->GetOutput()->SetRequestedRegion(slab.region);
        fdk->GetOutput()->Update();
        const TImage * reconstructed = fdk->GetOutput();
        // The slab as a host image over the same buffer (a CUDA image's host copy is current after the update).
        auto slabImage = ImageType::New();
        slabImage->CopyInformation(reconstructed);
        slabImage->SetBufferedRegion(reconstructed->GetBufferedRegion());
        slabImage->SetRequestedRegion(reconstructed->GetBufferedRegion());
        slabImage->GetPixelContainer()->SetImportPointer(const_cast<float *>(reconstructed->GetBufferPointer()),
                                                         reconstructed->GetBufferedRegion().GetNumberOfPixels(), false);
        itk::ImageAlgorithm::Copy(slabImage.GetPointer(), volume.GetPointer(), slab.region, slab.region);
        // The slab's buffers go before the next slab makes its own.
        fdk->GetOutput()->ReleaseData();
        fdk->GetBackProjectionFilter()->GetOutput()->ReleaseData(); // the CPU filter's output shares its buffer
        grid->GetOutput()->ReleaseData();
      }
    },
    progress, static_cast<unsigned int>(slabs.size()));
  AddPlan(info, plan, count, budget);
  return ToNumpy<ImageType>(volume);
}

} // namespace cbct::python

#endif
