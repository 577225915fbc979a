#ifndef cbctAmsterdamShroudImageFilter_h
#define cbctAmsterdamShroudImageFilter_h

#include <itkImage.h>
#include <itkImageToImageFilter.h>

namespace cbct
{

/** \class AmsterdamShroudImageFilter
 * \brief The Amsterdam shroud of a projection stack: per projection, the edges across the detector
 * rows summed along them, one column of a 2D image per projection (Zijp et al., ICCR 2004; Sonke et
 * al., Med Phys 2005), from which a respiratory signal is extracted (BreathingSignal).
 *
 * Input: line integrals (log projections), a stack u x v x projection. Output: a 2D image whose column
 * k is projection k and whose row j is detector row j:
 * \f[ S(k, j) = \sum_u \max\left(0, \; s \, \frac{\partial (G_\sigma * p_k)}{\partial v}(u, v_j)\right) \f]
 * with G_sigma a Gaussian along v of standard deviation Sigma (mm; Lindeberg's discrete Gaussian,
 * 0: none), the derivative in mm (central differences; one-sided on the first and last rows) and s
 * the sign chosen by the EdgeDirection:
 * - DenserBelow (default, s = -1): edges where the line integrals fall going up the detector (towards
 *   +v, the head in RTK's orientation): the top of a dense structure, such as the dome of the
 *   diaphragm with the liver under the lung;
 * - DenserAbove (s = +1): the opposite edges (the bottom of a dense structure);
 * - Both: |derivative|.
 * Units: line integral per mm, summed over the detector columns.
 *
 * Axis 0 of the output is the projection index (spacing and origin those of the input's third axis),
 * axis 1 is v (the input's rows: spacing, origin and the sign of the direction of its second axis). The
 * detector's direction must not mix u and v. RTK's rtk::AmsterdamShroudImageFilter computes the same
 * kind of image laid out the other way (time along its rows) and subtracts a moving average (its
 * unsharp mask); here the slow changes (the gantry's rotation) are removed by the signal extraction.
 * Streams along projections: column k needs projection k only. Multi-threaded over projections.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = itk::Image<float, 2>>
class ITK_TEMPLATE_EXPORT AmsterdamShroudImageFilter : public itk::ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AmsterdamShroudImageFilter);

  using Self = AmsterdamShroudImageFilter;
  using Superclass = itk::ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(AmsterdamShroudImageFilter, itk::ImageToImageFilter);

  static_assert(TInputImage::ImageDimension == 3 && TOutputImage::ImageDimension == 2,
                "the shroud of a projection stack (3D) is a 2D image");

  enum class EdgeDirection
  {
    DenserBelow,
    DenserAbove,
    Both
  };

  /** Standard deviation of the Gaussian along v before the derivative, mm (>= 0; default 2). */
  itkSetMacro(Sigma, double);
  itkGetConstMacro(Sigma, double);
  itkSetEnumMacro(EdgeDirection, EdgeDirection);
  itkGetEnumMacro(EdgeDirection, EdgeDirection);

protected:
  AmsterdamShroudImageFilter() = default;
  ~AmsterdamShroudImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  double m_Sigma = 2.;
  EdgeDirection m_EdgeDirection = EdgeDirection::DenserBelow;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctAmsterdamShroudImageFilter.hxx"
#endif

#endif
