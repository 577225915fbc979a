#ifndef cbctCudaCGLSConeBeamReconstructionFilter_h
#define cbctCudaCGLSConeBeamReconstructionFilter_h

#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctCudaImage.h"
#include "cbctCudaIterativeSupport.h"
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
 * observers). Memory: 2 volumes + 3 projection stacks on the device.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaCGLSConeBeamReconstructionFilter : public CGLSConeBeamReconstructionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaCGLSConeBeamReconstructionFilter);
  using Self = CudaCGLSConeBeamReconstructionFilter;
  using Superclass = CGLSConeBeamReconstructionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaCGLSConeBeamReconstructionFilter, CGLSConeBeamReconstructionFilter);

protected:
  CudaCGLSConeBeamReconstructionFilter() = default;
  ~CudaCGLSConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override
  {
    const TImage * initial = this->GetInput(0);
    const TImage * projections = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate(); // the initial volume is uploaded below, not copied on the host
    const std::unique_ptr<CudaProjectorOperator> A = MakeCudaProjectorOperator(
      this->GetForwardProjector(), this->GetBackProjector(), this->RayCastStepFor(output), output, projections, this->GetGeometry(),
      this->GetAttenuationMap(), this->GetCollimatorBlur());
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
    this->m_InitialResidualNorm = std::sqrt(squaredNorm(r.Data(), pixels));
    A->Back(r.Data(), s.Data(), subset, all, false);
    CudaCheck(cudaMemcpyAsync(d.Data(), s.Data(), voxels * sizeof(float), cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync (d = s)", voxels * sizeof(float));
    double gamma = squaredNorm(s.Data(), voxels);

    this->m_ResidualNorms.clear();
    double residual = this->m_InitialResidualNorm;
    const unsigned int iterations = this->GetNumberOfIterations();
    const bool observed = this->HasObserver(itk::IterationEvent());
    unsigned int & k = this->m_CurrentIteration;
    for (k = 1; k <= iterations && !this->GetAbortGenerateData(); ++k)
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
          const double gammaNext = squaredNorm(s.Data(), voxels);
          const double beta = gammaNext / gamma;
          CudaCheck(LaunchXpby(s.Data(), beta, d.Data(), n, nullptr), "LaunchXpby (d = s + beta d)");
          gamma = gammaNext;
        }
        else
          gamma = 0.;
      }
      this->m_ResidualNorms.push_back(residual);
      if (observed)
        CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
      this->UpdateProgress(static_cast<float>(k) / iterations);
      this->InvokeEvent(itk::IterationEvent());
    }
    this->FinishIterations();
    if (!observed || k == 0) // an observed iteration has already downloaded the final volume
      CudaDownload(output->GetBufferPointer(), x.Data(), voxels, "volume");
  }
};

} // namespace cbct

#endif
