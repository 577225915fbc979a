#ifndef cbctCudaCGLSConeBeamReconstructionFilter_h
#define cbctCudaCGLSConeBeamReconstructionFilter_h

#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctCudaImage.h"
#include "cbctCudaIterativeDevices.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctCudaSlabReducingOperator.h"
#include "cbctCudaProjectorFactory.h"

#include <itkCommand.h>

namespace cbct
{

/** \class CudaCGLSConeBeamReconstructionFilter
 * \brief CGLSConeBeamReconstructionFilter on the GPU: the same parameters, iterations, residual
 * norms, events and abort, with the chosen projector pair on the GPU (MakeCudaProjectorOperator()).
 * The volume, the projections and CGLS's vectors r, q, s and d stay on the device for all
 * iterations; the norms are summed in double in a fixed order (the same bits on every run), and the
 * step sizes alpha and beta are computed in double on the host as the CPU filter does. Observers of
 * itk::IterationEvent find the current volume in the output (it is downloaded only when there are
 * observers). Memory: 2 volumes + 3 projection stacks on the device. SetDevices() with several GPUs
 * shares the volume among them in slabs along y (CudaDeviceSlabs): forward projections and the norms
 * of volume vectors summed over the slabs.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaCGLSConeBeamReconstructionFilter
  : public CGLSConeBeamReconstructionFilter<TImage>
  , public CudaIterativeDevices
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaCGLSConeBeamReconstructionFilter);
  using Self = CudaCGLSConeBeamReconstructionFilter;
  using Superclass = CGLSConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaCGLSConeBeamReconstructionFilter, CGLSConeBeamReconstructionFilter);

  /** The GPUs (CudaIterativeDevices): several share the volume in slabs along y. */
  void
  SetDevices(const std::vector<int> & devices)
  {
    if (this->AssignDevices(devices))
      this->Modified();
  }

protected:
  CudaCGLSConeBeamReconstructionFilter() = default;
  ~CudaCGLSConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // the initial volume is uploaded below, not copied on the host
    this->CheckSlabSharing(this->GetDevices().size() > 1);
    this->RunOnDevices(this->GetSlabReduction(), this->GetInput(0), output,
                       [this](const TImage * initial, TImage * volume, SlabReduction * reduction, bool leader) {
                         this->Iterate(initial, volume, reduction, leader);
                       });
  }

  /** CGLS on the current device from `initial` into `output` (the whole volume, or a slab whose
   * forward projections and volume norms `reduction` sums with the other slabs'); the leader records
   * the residual norms and reports progress. */
  void
  Iterate(const TImage * initial, TImage * output, SlabReduction * reduction, bool leader)
  {
    const TImage * projections = this->GetInput(1);
    std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), this->GetBackProjector(), this->RayCastStepFor(output), output, projections, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
    if (reduction)
      A.reset(new CudaSlabReducingOperator(std::move(A), reduction));
    const unsigned int count = this->GetGeometry()->GetNumberOfProjections();
    const std::size_t voxels = A->Voxels(), pixels = A->PixelsPerProjection() * count;
    const auto n = static_cast<long long>(voxels), m = static_cast<long long>(pixels);
    const int all = static_cast<int>(count);
    CudaDeviceBuffer<unsigned int> * subset = A->Subset(this->AllProjections());

    CudaDeviceBuffer<float> x(voxels), s(voxels), d(voxels), p(pixels), r(pixels), q(pixels);
    CudaSquaredNorm squaredNorm;
    CudaUpload(x.Data(), initial->GetBufferPointer(), voxels, "initial volume");
    CudaUpload(p.Data(), projections->GetBufferPointer(), pixels, "projections");

    A->Forward(x.Data(), r.Data(), subset, all);
    CudaCheck(LaunchSubtractFrom(p.Data(), r.Data(), m, nullptr), "LaunchSubtractFrom (r = p - A x)");
    const double initialResidual = std::sqrt(squaredNorm(r.Data(), pixels)); // r is whole on every slab
    A->Back(r.Data(), s.Data(), subset, all, false);
    CudaCheck(cudaMemcpyAsync(d.Data(), s.Data(), voxels * sizeof(float), cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync (d = s)", voxels * sizeof(float));
    double gamma = this->SumOverSlabs(reduction, squaredNorm(s.Data(), voxels));

    if (leader)
    {
      this->m_InitialResidualNorm = initialResidual;
      this->m_ResidualNorms.clear();
    }
    double residual = initialResidual;
    const unsigned int iterations = this->GetNumberOfIterations();
    const bool observed = leader && !reduction && this->HasObserver(itk::IterationEvent());
    unsigned int k = 1;
    for (; k <= iterations && !this->StopIterating(reduction); ++k)
    {
      if (gamma > 0.)
      {
        A->Forward(d.Data(), q.Data(), subset, all);
        const double qq = squaredNorm(q.Data(), pixels);
        if (qq > 0.)
        {
          const double alpha = gamma / qq;
          CudaCheck(LaunchAxpy(alpha, d.Data(), x.Data(), n, nullptr), "LaunchAxpy (x += alpha d)");
          CudaCheck(LaunchAxpy(-alpha, q.Data(), r.Data(), m, nullptr), "LaunchAxpy (r -= alpha q)");
          residual = std::sqrt(squaredNorm(r.Data(), pixels));
          A->Back(r.Data(), s.Data(), subset, all, false);
          const double gammaNext = this->SumOverSlabs(reduction, squaredNorm(s.Data(), voxels));
          const double beta = gammaNext / gamma;
          CudaCheck(LaunchXpby(s.Data(), beta, d.Data(), n, nullptr), "LaunchXpby (d = s + beta d)");
          gamma = gammaNext;
        }
        else
          gamma = 0.;
      }
      if (!leader)
        continue;
      this->m_CurrentIteration = k;
      this->m_ResidualNorms.push_back(residual);
      if (observed)
        CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
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
