#ifndef cbctCudaDeviceSlabs_h
#define cbctCudaDeviceSlabs_h

#include "cbctCudaCheck.h"
#include "cbctSlabSplit.h"
#include "cbctThreadSlabReduction.h"
#include "cbctWorkerErrors.h"

#include <itkImageAlgorithm.h>

#include <functional>
#include <vector>

namespace cbct
{

/** \class CudaDeviceSlabs
 * \brief One iterative reconstruction on several GPUs of this process (the CUDA iterative filters'
 * SetDevices()): the output cut into slabs along y (SlabSplit::Equal), one host thread and one
 * device per slab, the forward projections and volume sums shared through a ThreadSlabReduction,
 * the slabs copied into the output at the end. Participant 0, the leader, reports progress and
 * iteration events. A device that fails abandons the reduction, so that the others stop too, and its
 * error is rethrown here.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class CudaDeviceSlabs
{
public:
  /** Iterates one slab: `initial` and `output` are slab images (largest possible region = the slab). */
  using Work = std::function<void(const TImage * initial, TImage * output, SlabReduction * reduction, bool leader)>;

  /** `output` is allocated over its requested region, which the slabs cut. */
  static void
  Run(const std::vector<int> & devices, const TImage * initial, TImage * output, const Work & work)
  {
    const auto slabs = SlabSplit::Equal(output->GetBufferedRegion(), devices.size());
    ThreadSlabReduction reduction(static_cast<unsigned int>(slabs.size()));
    RunThreads(
      slabs.size(),
      [&](std::size_t d) {
        CudaCheck(cudaSetDevice(devices[d]), "cudaSetDevice (" + std::to_string(devices[d]) + ")");
        auto slabInitial = TImage::New();
        slabInitial->CopyInformation(initial);
        slabInitial->SetRegions(slabs[d]);
        slabInitial->Allocate();
        itk::ImageAlgorithm::Copy(initial, slabInitial.GetPointer(), slabs[d], slabs[d]);
        auto slabOutput = TImage::New();
        slabOutput->CopyInformation(output);
        slabOutput->SetRegions(slabs[d]);
        slabOutput->Allocate();
        work(slabInitial, slabOutput, reduction.Participant(static_cast<unsigned int>(d)), d == 0);
        itk::ImageAlgorithm::Copy(slabOutput.GetPointer(), output, slabs[d], slabs[d]);
      },
      [&] { reduction.Abandon(); }); // the others stop; the first failure, the cause, is rethrown
  }
};

} // namespace cbct

#endif
