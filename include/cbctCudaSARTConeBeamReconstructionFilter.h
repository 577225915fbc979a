#ifndef cbctCudaSARTConeBeamReconstructionFilter_h
#define cbctCudaSARTConeBeamReconstructionFilter_h

#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaImage.h"
#include "cbctCudaIterativeDevices.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaSlabReducingOperator.h"
#include "cbctCudaProjectorFactory.h"
#include "cbctSARTConeBeamReconstructionFilter.h"

namespace cbct
{

/** \class CudaSARTConeBeamReconstructionFilter
 * \brief SARTConeBeamReconstructionFilter on the GPU: the same parameters, subsets and update, with
 * the chosen projector pair on the GPU (MakeCudaProjectorOperator()); the volume, projections and per-subset sensitivities stay on the device for
 * all iterations. SetDevices() with several GPUs shares the volume among them in slabs along y
 * (CudaDeviceSlabs), the forward projections summed over the slabs.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaSARTConeBeamReconstructionFilter
  : public SARTConeBeamReconstructionFilter<TImage>
  , public CudaIterativeDevices
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSARTConeBeamReconstructionFilter);
  using Self = CudaSARTConeBeamReconstructionFilter;
  using Superclass = SARTConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaSARTConeBeamReconstructionFilter, SARTConeBeamReconstructionFilter);

  /** The GPUs (CudaIterativeDevices): several share the volume in slabs along y. */
  void
  SetDevices(const std::vector<int> & devices)
  {
    if (this->AssignDevices(devices))
      this->Modified();
  }

protected:
  CudaSARTConeBeamReconstructionFilter() = default;
  ~CudaSARTConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // the initial volume is uploaded, not copied on the host
    this->CheckSlabSharing(this->GetDevices().size() > 1);
    this->RunOnDevices(this->GetSlabReduction(), this->GetInput(0), output,
                       [this](const TImage * initial, TImage * volume, SlabReduction * reduction, bool leader) {
                         this->Iterate(initial, volume, reduction, leader);
                       });
  }

  /** SART on the current device from `initial` into `output` (the whole volume, or a slab whose
   * forward projections `reduction` sums with the other slabs'); the leader reports progress. */
  void
  Iterate(const TImage * initial, TImage * output, SlabReduction * reduction, bool leader)
  {
    const TImage * projections = this->GetInput(1);
    std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), this->GetBackProjector(), this->RayCastStepFor(output), output, projections, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
    if (reduction)
      A.reset(new CudaSlabReducingOperator(std::move(A), reduction));
    const std::size_t voxels = A->Voxels();
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const std::size_t pixels = A->PixelsPerProjection() * count;
    const auto subsets = this->Subsets();

    CudaDeviceBuffer<float> x(voxels), measured(pixels), rayLength(pixels), residual(pixels), ones(std::max(voxels, pixels)),
      correction(voxels);
    CudaUpload(x.Data(), initial->GetBufferPointer(), voxels, "initial volume");
    CudaUpload(measured.Data(), projections->GetBufferPointer(), pixels, "projections");
    CudaCheck(LaunchFill(ones.Data(), std::max(voxels, pixels), 1.f, nullptr), "LaunchFill (ones)");
    A->Forward(ones.Data(), rayLength.Data(), A->Subset(this->AllProjections()), static_cast<int>(count));

    // Per-subset sensitivities A_s^T 1, computed once.
    std::vector<CudaDeviceBuffer<unsigned int> *> deviceSubsets;
    std::vector<std::unique_ptr<CudaDeviceBuffer<float>>> sensitivities;
    for (const auto & subset : subsets)
    {
      deviceSubsets.push_back(A->Subset(subset));
      sensitivities.emplace_back(new CudaDeviceBuffer<float>(voxels));
      A->Back(ones.Data(), sensitivities.back()->Data(), deviceSubsets.back(), static_cast<int>(subset.size()), false);
    }

    unsigned int iteration = 1;
    for (; iteration <= this->GetNumberOfIterations() && !this->StopIterating(reduction); ++iteration)
    {
      for (std::size_t s = 0; s < subsets.size(); ++s)
      {
        const int n = static_cast<int>(subsets[s].size());
        A->Forward(x.Data(), residual.Data(), deviceSubsets[s], n);
        CudaSARTLaunch step;
        step.measured = measured.Data();
        step.rayLength = rayLength.Data();
        step.residual = residual.Data();
        step.subset = deviceSubsets[s]->Data();
        step.count = n;
        step.pixelsPerProjection = static_cast<long long>(A->PixelsPerProjection());
        CudaCheck(LaunchSARTResidual(step, nullptr), "LaunchSARTResidual");
        A->Back(residual.Data(), correction.Data(), deviceSubsets[s], n, false);
        step.volume = x.Data();
        step.correction = correction.Data();
        step.sensitivity = sensitivities[s]->Data();
        step.voxels = static_cast<long long>(voxels);
        step.lambda = static_cast<float>(this->GetLambda());
        step.positivity = this->GetEnforcePositivity() ? 1 : 0;
        // The next subset's forward projection is of this volume: the update may write the
        // projector's copy of it in the same pass.
        A->SARTUpdate(step, true);
      }
      CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (SART iteration)");
      if (leader)
      {
        this->m_CurrentIteration = iteration;
        this->UpdateProgress(static_cast<float>(iteration) / this->GetNumberOfIterations());
        this->InvokeEvent(itk::IterationEvent());
      }
    }
    CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
  }
};

} // namespace cbct

#endif
