#ifndef cbctJosephBackProjectionImageFilter_h
#define cbctJosephBackProjectionImageFilter_h

#include "cbctInputChecks.h"
#include "cbctJosephOperator.h"

#include <itkImageAlgorithm.h>
#include <itkImageToImageFilter.h>

namespace cbct
{

/** \class JosephBackProjectionImageFilter
 * \brief A volume (input 0) plus the transpose of Joseph's forward projection applied to
 * projections (input 1): the exact adjoint of JosephForwardProjectionImageFilter, for iterative
 * reconstruction (FDK keeps its voxel-driven backprojector). Both images are processed whole; the
 * CPU threads each accumulate into their own copy of the volume (memory: one volume per thread).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephBackProjectionImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephBackProjectionImageFilter);
  using Self = JosephBackProjectionImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephBackProjectionImageFilter, itk::ImageToImageFilter);

  itkSetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);
  itkGetConstObjectMacro(Geometry, ThreeDCircularProjectionGeometry);

  void
  SetProjections(const TImage * projections)
  {
    this->SetNthInput(1, const_cast<TImage *>(projections));
  }

protected:
  JosephBackProjectionImageFilter() { this->SetNumberOfRequiredInputs(2); }
  ~JosephBackProjectionImageFilter() override = default;

  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateOutputInformation() override
  {
    Superclass::GenerateOutputInformation();
    if (m_Geometry.IsNull())
      ThrowBadParameter("JosephBackProjectionImageFilter geometry", "none", "a ThreeDCircularProjectionGeometry");
    const auto count = this->GetInput(1)->GetLargestPossibleRegion().GetSize(2);
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
    const TImage * volume = this->GetInput(0);
    const TImage * projections = this->GetInput(1);
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    itk::ImageAlgorithm::Copy(volume, output, output->GetBufferedRegion(), output->GetBufferedRegion());
    std::vector<unsigned int> all(m_Geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < all.size(); ++k)
      all[k] = k;
    JosephOperator<TImage>(volume, projections, m_Geometry).Back(projections->GetBufferPointer(), output->GetBufferPointer(), all, true);
  }

private:
  ThreeDCircularProjectionGeometry::ConstPointer m_Geometry;
};

} // namespace cbct

#endif
