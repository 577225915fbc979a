#ifndef cbctTotalVariationDenoisingImageFilter_h
#define cbctTotalVariationDenoisingImageFilter_h

#include "cbctCpuReconstructionBackend.h"
#include "cbctInputChecks.h"
#include "cbctTotalVariationDenoising.h"

#include <itkImageToImageFilter.h>

namespace cbct
{

/** \class TotalVariationDenoisingImageFilter
 * \brief Total-variation denoising (the ROF model, the proximal map of lambda TV): the volume u that
 * minimises 1/2 sum (u - f)^2 + lambda TV(u), f the input, TV(u) the sum over voxels of |D u| with D
 * the forward differences per mm (TotalVariationGradientImageFilter's, without eps), by
 * NumberOfIterations steps of Chambolle's projection algorithm (DenoiseTotalVariation()). Larger
 * Lambda (in the volume's units times mm) flattens more. The volume is processed whole (memory: four
 * more volumes); CudaTotalVariationDenoisingImageFilter is the GPU twin.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT TotalVariationDenoisingImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TotalVariationDenoisingImageFilter);
  using Self = TotalVariationDenoisingImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(TotalVariationDenoisingImageFilter, itk::ImageToImageFilter);

  itkSetMacro(Lambda, double);
  itkGetConstMacro(Lambda, double);
  itkSetMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(NumberOfIterations, unsigned int);

  /** The ROF objective 1/2 sum (u - f)^2 + lambda TV(u), in double (for tests and reports). */
  static double
  Objective(const TImage * u, const TImage * f, double lambda)
  {
    const std::size_t n = u->GetBufferedRegion().GetNumberOfPixels();
    const float * a = u->GetBufferPointer();
    const float * b = f->GetBufferPointer();
    double fidelity = 0.;
    for (std::size_t i = 0; i < n; ++i)
      fidelity += 0.5 * (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    return fidelity + lambda * TotalVariationOperators(MakeTVGrid(u)).Value(a);
  }

protected:
  TotalVariationDenoisingImageFilter() = default;
  ~TotalVariationDenoisingImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (!(m_Lambda > 0.) || !std::isfinite(m_Lambda))
      ThrowBadParameter("total variation denoising lambda", m_Lambda, "a finite value > 0");
    if (m_NumberOfIterations < 1)
      ThrowBadParameter("total variation denoising iterations", m_NumberOfIterations, "at least 1");
  }
  void
  GenerateInputRequestedRegion() override
  {
    Superclass::GenerateInputRequestedRegion();
    if (auto * input = const_cast<TImage *>(this->GetInput()))
      input->SetRequestedRegionToLargestPossibleRegion();
  }
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }
  void
  GenerateData() override
  {
    const TImage * input = this->GetInput();
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    CpuReconstructionBackend backend(nullptr, MakeTVGrid(input), 0);
    const std::size_t n = backend.Voxels();
    CpuReconstructionBackend::Vector f(input->GetBufferPointer(), input->GetBufferPointer() + n), u(n), z(n);
    std::array<CpuReconstructionBackend::Vector, 3> p{ CpuReconstructionBackend::Vector(n), CpuReconstructionBackend::Vector(n),
                                                       CpuReconstructionBackend::Vector(n) };
    DenoiseTotalVariation(backend, f, u, m_Lambda, m_NumberOfIterations, p, z);
    backend.Download(u, output->GetBufferPointer(), n);
  }
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Lambda: " << m_Lambda << std::endl;
    os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
  }

private:
  double m_Lambda = 0.01;
  unsigned int m_NumberOfIterations = 50;
};

} // namespace cbct

#endif
