#ifndef cbctWaterPrecorrectionImageFilter_h
#define cbctWaterPrecorrectionImageFilter_h

#include <itkInPlaceImageFilter.h>

#include <vector>

namespace cbct
{

/** \class WaterPrecorrectionImageFilter
 * \brief Water precorrection of beam hardening (Kachelriess et al., Med Phys 2006; RTK's --wpc): each
 * line integral p becomes the polynomial c0 + c1 p + c2 p^2 + ... of the Coefficients.
 *
 * The coefficients are those fitted for the scanner so that a water phantom's corrected line
 * integrals are proportional to the water path length. The default (0, 1) leaves p unchanged; a single
 * coefficient c0 gives the constant c0 (RTK's rule). Evaluated in double by Horner's scheme. Not in
 * place unless InPlaceOn() (ProjectionPreprocessingFilter runs it in place on its own intermediates).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT WaterPrecorrectionImageFilter : public itk::InPlaceImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(WaterPrecorrectionImageFilter);

  using Self = WaterPrecorrectionImageFilter;
  using Superclass = itk::InPlaceImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(WaterPrecorrectionImageFilter, itk::InPlaceImageFilter);

  /** c0, c1, c2, ...: at least one, all finite. */
  void
  SetCoefficients(const std::vector<double> & coefficients)
  {
    if (coefficients != m_Coefficients)
    {
      m_Coefficients = coefficients;
      this->Modified();
    }
  }
  const std::vector<double> &
  GetCoefficients() const
  {
    return m_Coefficients;
  }

protected:
  WaterPrecorrectionImageFilter();
  ~WaterPrecorrectionImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  std::vector<double> m_Coefficients{ 0., 1. };
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctWaterPrecorrectionImageFilter.hxx"
#endif

#endif
