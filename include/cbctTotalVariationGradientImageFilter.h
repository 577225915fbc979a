#ifndef cbctTotalVariationGradientImageFilter_h
#define cbctTotalVariationGradientImageFilter_h

#include "cbctInputChecks.h"
#include "cbctTotalVariationOperators.h"

#include <itkImageToImageFilter.h>

namespace cbct
{

/** \class TotalVariationGradientImageFilter
 * \brief The derivative of the smoothed isotropic total variation, d TV_eps / d x, of a volume:
 * TV_eps(x) = sum over voxels of sqrt(eps^2 + |D x|^2), with D the forward differences per mm (0 at
 * the volume's last voxel along each axis). ASD-POCS steps down this gradient. eps (Epsilon, per mm,
 * default 1e-8 as TIGRE's) keeps it defined where the volume is flat; 0 gives the subgradient that
 * is 0 there. The volume is processed whole (each voxel's derivative needs its neighbours and
 * theirs); CudaTotalVariationGradientImageFilter is the GPU twin.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT TotalVariationGradientImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(TotalVariationGradientImageFilter);
  using Self = TotalVariationGradientImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(TotalVariationGradientImageFilter, itk::ImageToImageFilter);

  itkSetMacro(Epsilon, double);
  itkGetConstMacro(Epsilon, double);

protected:
  TotalVariationGradientImageFilter() = default;
  ~TotalVariationGradientImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (!(m_Epsilon >= 0.) || !std::isfinite(m_Epsilon))
      ThrowBadParameter("total variation epsilon", m_Epsilon, "a finite value >= 0 (per mm)");
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
    TotalVariationOperators(MakeTVGrid(input)).Derivative(input->GetBufferPointer(), output->GetBufferPointer(), m_Epsilon);
  }
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Epsilon: " << m_Epsilon << std::endl;
  }

private:
  double m_Epsilon = 1e-8;
};

} // namespace cbct

#endif
