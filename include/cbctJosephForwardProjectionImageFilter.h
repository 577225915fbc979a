#ifndef cbctJosephForwardProjectionImageFilter_h
#define cbctJosephForwardProjectionImageFilter_h

#include "cbctInputChecks.h"
#include "cbctJosephOperator.h"

#include <itkImageAlgorithm.h>
#include <itkImageToImageFilter.h>

namespace cbct
{

/** \class JosephForwardProjectionImageFilter
 * \brief Projections (input 0) plus the Joseph forward projection of a volume (input 1).
 *
 * Line integrals by Joseph's method (bilinear in each slice across the ray's dominant axis, see
 * JosephProjector) for every projection of the geometry, on the CPU's threads. Its exact adjoint is
 * JosephBackProjectionImageFilter. Both images are processed whole.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephForwardProjectionImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephForwardProjectionImageFilter);
  using Self = JosephForwardProjectionImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephForwardProjectionImageFilter, itk::ImageToImageFilter);

  itkSetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);
  itkGetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);

  void
  SetVolume(const TImage * volume)
  {
    this->SetNthInput(1, const_cast<TImage *>(volume));
  }

protected:
  JosephForwardProjectionImageFilter() { this->SetNumberOfRequiredInputs(2); }
  ~JosephForwardProjectionImageFilter() override = default;

  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    if (m_Geometry.IsNull())
      ThrowBadParameter("JosephForwardProjectionImageFilter geometry", "none", "a ThreeDCircularProjectionGeometry");
    const auto count = this->GetInput(0)->GetLargestPossibleRegion().GetSize(2);
    if (count != m_Geometry->GetNumberOfProjections())
      ThrowBadParameter("number of projection images", count,
                        "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
  }
  void
  GenerateInputRequestedRegion() override
  {
    for (unsigned int i = 0; i < 2; ++i)
      if (auto * input = const_cast<TImage *>(this->GetInput(i)))
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
    const TImage * projections = this->GetInput(0);
    const TImage * volume = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    itk::ImageAlgorithm::Copy(projections, output, output->GetBufferedRegion(), output->GetBufferedRegion());
    std::vector<unsigned int> all(m_Geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < all.size(); ++k)
      all[k] = k;
    JosephOperator<TImage>(volume, projections, m_Geometry).Forward(volume->GetBufferPointer(), output->GetBufferPointer(), all, true);
  }

private:
  ThreeDCircularProjectionGeometry::ConstPointer m_Geometry;
};

} // namespace cbct

#endif
