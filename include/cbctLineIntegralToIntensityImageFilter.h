#ifndef cbctLineIntegralToIntensityImageFilter_h
#define cbctLineIntegralToIntensityImageFilter_h

#include <itkImageToImageFilter.h>

#include <cstdint>

namespace cbct
{

/** \class LineIntegralToIntensityImageFilter
 * \brief Line integrals to detector readings: I = (I0 - Idark) exp(-p) + Idark, optionally with
 * Poisson noise; the inverse of IntensityToLineIntegralImageFilter, for simulating real scans.
 *
 * I0 is the reading through air and Idark the reading with the beam off (both in counts), as
 * IntensityToLineIntegralImageFilter takes them. With PoissonNoise on, each reading is a Poisson draw
 * of that mean (the dark current's own shot noise included). The draws depend only on Seed and the
 * pixel's row, not on the number of threads, so a simulation is reproducible. An integer output
 * (uint16 as detectors write) gets the reading rounded to the nearest integer and clamped to the
 * type's range (saturation); a floating-point output keeps it as it is.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT LineIntegralToIntensityImageFilter : public itk::ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(LineIntegralToIntensityImageFilter);

  using Self = LineIntegralToIntensityImageFilter;
  using Superclass = itk::ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(LineIntegralToIntensityImageFilter, itk::ImageToImageFilter);

  /** The reading through air (> Idark; 10000 by default). */
  itkSetMacro(I0, double);
  itkGetConstMacro(I0, double);
  /** The reading with the beam off (0 by default). */
  itkSetMacro(IDark, double);
  itkGetConstMacro(IDark, double);
  /** Poisson draws instead of the mean readings (off by default). */
  itkSetMacro(PoissonNoise, bool);
  itkGetConstMacro(PoissonNoise, bool);
  itkBooleanMacro(PoissonNoise);
  /** Seed of the noise (0 by default). */
  itkSetMacro(Seed, std::uint64_t);
  itkGetConstMacro(Seed, std::uint64_t);

protected:
  LineIntegralToIntensityImageFilter();
  ~LineIntegralToIntensityImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  /** Whole rows: a row's noise is drawn from its first column on. */
  void
  GenerateInputRequestedRegion() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  double m_I0 = 10000.;
  double m_IDark = 0.;
  bool m_PoissonNoise = false;
  std::uint64_t m_Seed = 0;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctLineIntegralToIntensityImageFilter.hxx"
#endif

#endif
