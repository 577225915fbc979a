#ifndef cbctCudaOSEMConeBeamReconstructionFilter_h
#define cbctCudaOSEMConeBeamReconstructionFilter_h

#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaHostBufferPin.h"
#include "cbctCudaImage.h"
#include "cbctCudaIterativeDevices.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaSlabReducingOperator.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"

#include <exception>

#include <itkCommand.h>

namespace cbct
{

/** \class CudaOSEMConeBeamReconstructionFilter
 * \brief OSEMConeBeamReconstructionFilter on the GPU: the same parameters, subsets, update, input
 * checks (on the host, before anything goes to the device), events and abort, with the chosen
 * projector pair on the GPU (MakeCudaProjectorOperator()). The volume, the projections and the
 * per-subset sensitivities A_s^T 1 stay on the device for all iterations (the sensitivities are kept
 * when they fit in 1 GiB and half the free device memory, otherwise recomputed for each subset).
 * Observers of itk::IterationEvent find the current volume in the output (it is downloaded only when
 * there are observers). Memory: 2 volumes + 3 projection stacks on the device, plus the sensitivities.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaOSEMConeBeamReconstructionFilter
  : public OSEMConeBeamReconstructionFilter<TImage>
  , public CudaIterativeDevices
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaOSEMConeBeamReconstructionFilter);
  using Self = CudaOSEMConeBeamReconstructionFilter;
  using Superclass = OSEMConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaOSEMConeBeamReconstructionFilter, OSEMConeBeamReconstructionFilter);

  /** The GPUs (CudaIterativeDevices): several share the volume in slabs along y. */
  void
  SetDevices(const std::vector<int> & devices)
  {
    if (this->AssignDevices(devices))
      this->Modified();
  }

protected:
  CudaOSEMConeBeamReconstructionFilter() = default;
  ~CudaOSEMConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    this->CheckSlabSharing(this->GetDevices().size() > 1);
    this->RunOnDevices(this->GetSlabReduction(), this->GetInput(0), output,
                       [this](const TImage * initial, TImage * volume, SlabReduction * reduction, bool leader) {
                         this->Iterate(initial, volume, reduction, leader);
                       });
  }

  /** OSEM on the current device from `initial` into `output` (the whole volume, or a slab whose
   * forward projections `reduction` sums with the other slabs'); the leader reports progress. */
  void
  Iterate(const TImage * initial, TImage * output, SlabReduction * reduction, bool leader)
  {
    // The CPU filter's checks, on the host, before the device is touched; all participants stop if
    // one's inputs are bad (that one throws).
    const TImage * projections = this->GetInput(1);
    itk::ImageAlgorithm::Copy(initial, output, output->GetBufferedRegion(), output->GetBufferedRegion());
    std::exception_ptr bad;
    try
    {
      Superclass::CheckProjections(projections);
      Superclass::PrepareInitialVolume(output, this->SumOverSlabs(reduction, Superclass::AllZero(output) ? 0. : 1.) == 0.);
    }
    catch (...)
    {
      bad = std::current_exception();
    }
    if (!this->AllParticipantsReady(reduction, !bad))
    {
      if (bad)
        std::rethrow_exception(bad);
      return;
    }

    std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), this->GetBackProjector(), this->RayCastStepFor(output), output, projections, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
    if (reduction)
      A.reset(new CudaSlabReducingOperator(std::move(A), reduction));
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const std::size_t voxels = A->Voxels(), pixelsPerProjection = A->PixelsPerProjection();
    const std::size_t pixels = pixelsPerProjection * count;
    const auto subsets = this->Subsets();

    CudaDeviceBuffer<float> x(voxels), correction(voxels), measured(pixels), ratio(pixels), ones(pixels);
    CudaUpload(x.Data(), output->GetBufferPointer(), voxels, "initial volume");
    CudaUpload(measured.Data(), projections->GetBufferPointer(), pixels, "projections");
    CudaCheck(LaunchFill(ones.Data(), pixels, 1.f, nullptr), "LaunchFill (ones)");

    std::vector<CudaDeviceBuffer<unsigned int> *> deviceSubsets;
    for (const auto & subset : subsets)
      deviceSubsets.push_back(A->Subset(subset));
    // Each subset's sensitivity A_s^T 1 is the same every iteration: keep them when they fit.
    std::size_t freeBytes = 0, totalBytes = 0;
    CudaMemoryInfo(freeBytes, totalBytes);
    const double keptBytes = static_cast<double>(subsets.size()) * voxels * sizeof(float);
    const bool keep = keptBytes <= double(1u << 30) && keptBytes <= 0.5 * static_cast<double>(freeBytes);
    std::vector<std::unique_ptr<CudaDeviceBuffer<float>>> sensitivities(keep ? subsets.size() : 1);
    for (std::size_t s = 0; s < sensitivities.size(); ++s)
    {
      sensitivities[s].reset(new CudaDeviceBuffer<float>());
      sensitivities[s]->Reserve(voxels, "sensitivity");
      if (keep)
        A->Back(ones.Data(), sensitivities[s]->Data(), deviceSubsets[s], static_cast<int>(subsets[s].size()), false);
    }

    const unsigned int iterations = this->GetNumberOfIterations();
    const bool observed = leader && !reduction && this->HasObserver(itk::IterationEvent());
    // Observers get the volume after every iteration: page-locked, its download runs at the bus's
    // speed instead of staging through a bounce buffer (about 1 ms less per iteration for 128^3).
    const CudaHostBufferPin pin(observed ? output->GetBufferPointer() : nullptr, voxels * sizeof(float));
    unsigned int k = 1;
    for (; k <= iterations && !this->StopIterating(reduction); ++k)
    {
      for (std::size_t s = 0; s < subsets.size(); ++s)
      {
        const int n = static_cast<int>(subsets[s].size());
        A->Forward(x.Data(), ratio.Data(), deviceSubsets[s], n);
        CudaCheck(LaunchOSEMRatio(measured.Data(), ratio.Data(), deviceSubsets[s]->Data(), n,
                                  static_cast<long long>(pixelsPerProjection), nullptr),
                  "LaunchOSEMRatio");
        A->Back(ratio.Data(), correction.Data(), deviceSubsets[s], n, false);
        CudaDeviceBuffer<float> & sensitivity = *sensitivities[keep ? s : 0];
        if (!keep)
          A->Back(ones.Data(), sensitivity.Data(), deviceSubsets[s], n, false);
        CudaCheck(LaunchOSEMUpdate(x.Data(), correction.Data(), sensitivity.Data(), static_cast<long long>(voxels), nullptr),
                  "LaunchOSEMUpdate");
      }
      if (observed)
        CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
      else
        CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (OSEM iteration)");
      if (!leader)
        continue;
      this->m_CurrentIteration = k;
      this->UpdateProgress(static_cast<float>(k) / iterations);
      this->InvokeEvent(itk::IterationEvent());
    }
    if (leader)
    {
      this->m_CurrentIteration = k;
      this->FinishIterations();
    }
    if (!observed || k == 1) // an observed iteration has already downloaded the final volume
      CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
  }
};

} // namespace cbct

#endif
