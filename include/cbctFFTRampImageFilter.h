#ifndef cbctFFTRampImageFilter_h
#define cbctFFTRampImageFilter_h

#include "cbctRampFilterResponse.h"

#include <itkImageToImageFilter.h>

#include <vector>

namespace cbct
{

/** \class FFTRampImageFilter
 * \brief Ramp filtering of every detector row (along u) of a projection stack, by FFT.
 *
 * Rows are zero-padded to RampFilterPaddedLength() (at least twice their length, 2^a 3^b 5^c) so
 * the circular convolution equals the linear one, transformed, multiplied by the windowed ramp
 * response of RampFilterResponse(), and transformed back. Windows: Ram-Lak, Shepp-Logan, Cosine,
 * Hamming, Hann, each with a cut-off as a fraction of Nyquist. The CPU filter transforms in double
 * with VNL's FFT, a row per step over ITK's thread pool; the CUDA twin uses batched cuFFT.
 *
 * A requested region asks for whole rows of the input (every u), only the requested rows (v) and
 * projections, so the filter streams in v.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT FFTRampImageFilter : public itk::ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FFTRampImageFilter);

  using Self = FFTRampImageFilter;
  using Superclass = itk::ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;

  itkNewMacro(Self);
  itkTypeMacro(FFTRampImageFilter, itk::ImageToImageFilter);

  itkSetEnumMacro(Window, RampWindow);
  itkGetEnumMacro(Window, RampWindow);
  /** Cut-off frequency as a fraction of Nyquist, in (0, 1]; 1 by default. */
  itkSetMacro(CutOff, double);
  itkGetConstMacro(CutOff, double);

  /** FFT length for the input's rows, and the response (with the inverse FFT's 1/L) used. */
  unsigned int
  GetPaddedLength() const;
  std::vector<double>
  ComputeResponse() const;

protected:
  FFTRampImageFilter();
  ~FFTRampImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  BeforeThreadedGenerateData() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

  RampWindow m_Window = RampWindow::RamLak;
  double m_CutOff = 1.;

private:
  std::vector<double> m_Response;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFFTRampImageFilter.hxx"
#endif

#endif
