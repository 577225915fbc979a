#ifndef cbctIntensityToLineIntegralImageFilter_h
#define cbctIntensityToLineIntegralImageFilter_h

#include "cbctLineIntegralConversion.hcu"

#include <itkImage.h>
#include <itkImageToImageFilter.h>

#include <limits>
#include <vector>

namespace cbct
{

/** \class IntensityToLineIntegralImageFilter
 * \brief Detector readings (intensities) to line integrals: p = ln(I0 - Idark) - ln(I - Idark).
 *
 * What a scanner writes is intensities (16-bit counts, usually); reconstruction needs line integrals.
 * The conversion is RTK's (its --i0, --idark, and the lookup table of
 * LUTbasedVariableI0RawToAttenuationImageFilter): I0 is the reading through air, Idark the reading
 * with the beam off, and readings at or below the dark level are clamped to MinimumSignal above it
 * (one count by default) so that every line integral is finite. The expression is
 * LineIntegralFromIntensity() (cbctLineIntegralConversion.hcu), which the CUDA FDK weighting kernel
 * evaluates too.
 *
 * I0 > 0 is one air reading for every projection. I0 = 0 (the default) estimates it per projection
 * from the projection's own air (EstimateI0(): above AirThreshold when one is given, else the
 * brightest population), as RTK's I0 estimation does; the input is then asked for whole projections.
 * GetI0s() gives the values used.
 *
 * Any scalar input pixel type (uint16 as detectors write it, float); the output is float.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = itk::Image<float, TInputImage::ImageDimension>>
class ITK_TEMPLATE_EXPORT IntensityToLineIntegralImageFilter : public itk::ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(IntensityToLineIntegralImageFilter);

  using Self = IntensityToLineIntegralImageFilter;
  using Superclass = itk::ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(IntensityToLineIntegralImageFilter, itk::ImageToImageFilter);

  /** The air reading; 0 (the default): estimated per projection. */
  itkSetMacro(I0, double);
  itkGetConstMacro(I0, double);
  /** The reading with the beam off (0 by default). */
  itkSetMacro(IDark, double);
  itkGetConstMacro(IDark, double);
  /** With I0 = 0: pixels above this saw air (NaN, the default: found automatically). */
  itkSetMacro(AirThreshold, double);
  itkGetConstMacro(AirThreshold, double);
  /** (I - Idark) and (I0 - Idark) are taken as at least this, > 0 (1 by default: one count); 0 means
   * 1e-6 (I0 - Idark) of each projection (for floating-point intensities, e.g. normalised to I0 = 1). */
  itkSetMacro(MinimumSignal, double);
  itkGetConstMacro(MinimumSignal, double);

  /** Whether I0 is estimated (I0 = 0). */
  bool
  EstimatesI0() const
  {
    return m_I0 == 0.;
  }
  /** The I0 of each projection of the largest region in the last update (NaN for those not
   * converted in it). */
  const std::vector<double> &
  GetI0s() const
  {
    return m_I0s;
  }
  /** The conversion's scan-wide part (dark level and minimum), for the CUDA kernel (an absolute
   * MinimumSignal; with 0, the minimum of each projection is Minimum(k)). */
  LineIntegralConversion
  GetConversion() const
  {
    LineIntegralConversion c;
    c.dark = m_IDark;
    c.minimum = m_MinimumSignal;
    return c;
  }
  /** ln(max(I0 - Idark, minimum)) of each projection of the largest region in the last update, for
   * the CUDA kernel. */
  const std::vector<double> &
  GetLogFlatFields() const
  {
    return m_LogFlat;
  }

protected:
  IntensityToLineIntegralImageFilter();
  ~IntensityToLineIntegralImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateInputRequestedRegion() override;
  void
  BeforeThreadedGenerateData() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  double m_I0 = 0.;
  double m_IDark = 0.;
  double m_AirThreshold = std::numeric_limits<double>::quiet_NaN();
  double m_MinimumSignal = 1.;
  std::vector<double> m_I0s;
  std::vector<double> m_LogFlat;  // per projection of the largest region
  std::vector<double> m_Minimum;  // likewise
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctIntensityToLineIntegralImageFilter.hxx"
#endif

#endif
