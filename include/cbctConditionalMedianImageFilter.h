#ifndef cbctConditionalMedianImageFilter_h
#define cbctConditionalMedianImageFilter_h

#include <itkImageToImageFilter.h>
#include <itkSize.h>

namespace cbct
{

/** \class ConditionalMedianImageFilter
 * \brief Replaces a pixel by the median of its neighbourhood when it stands out from it: RTK's
 * --radius and --multiplier, for dead and hot detector pixels.
 *
 * The neighbourhood is the box of Radius pixels on each side along each axis (a radius along the
 * third axis takes in neighbouring projections), the image's edge pixels repeated beyond it. A pixel
 * x whose neighbourhood (itself included) has median m and standard deviation s becomes m where
 * |x - m| > ThresholdMultiplier * s, and stays x elsewhere: a multiplier of 0 (the default) is an
 * ordinary median filter, a radius of 0 (the default) leaves the image unchanged.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT ConditionalMedianImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ConditionalMedianImageFilter);

  using Self = ConditionalMedianImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using RadiusType = itk::Size<TImage::ImageDimension>;
  using OutputImageRegionType = typename TImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(ConditionalMedianImageFilter, itk::ImageToImageFilter);

  itkSetMacro(Radius, RadiusType);
  itkGetConstMacro(Radius, RadiusType);
  /** Pixels further than this many standard deviations from the median are replaced (0: all). */
  itkSetMacro(ThresholdMultiplier, double);
  itkGetConstMacro(ThresholdMultiplier, double);

protected:
  ConditionalMedianImageFilter();
  ~ConditionalMedianImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateInputRequestedRegion() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  RadiusType m_Radius;
  double m_ThresholdMultiplier = 0.;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctConditionalMedianImageFilter.hxx"
#endif

#endif
