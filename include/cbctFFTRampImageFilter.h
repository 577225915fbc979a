#ifndef cbctFFTRampImageFilter_h
#define cbctFFTRampImageFilter_h

#include "cbctRampFilterResponse.h"
#include "cbctRowFFTFilter.h"

#include <itkImageToImageFilter.h>

#include <memory>
#include <vector>

namespace cbct
{

/** \class FFTRampImageFilter
 * \brief Ramp filtering of every detector row (along u) of a projection stack, by FFT.
 *
 * Rows are zero-padded to RampFilterPaddedLength() (at least twice their length, 2^a 3^b 5^c) so
 * the circular convolution equals the linear one, transformed, multiplied by the windowed ramp
 * response of RampFilterResponse(), and transformed back. Windows: Ram-Lak, Shepp-Logan, Cosine,
 * Hamming, Hann, each with a cut-off as a fraction of Nyquist. The CPU filter transforms in double,
 * one row per transform (RowFFTFilter: FFTW through ITK, else vnl's FFT) over ITK's thread pool, so a
 * row's values do not depend on which other rows a region or an MPI slab holds; the CUDA twin uses
 * batched cuFFT.
 *
 * A requested region asks for whole rows of the input (every u), only the requested rows (v) and
 * projections, so the filter streams in v.
 *
 * Two of RTK's ramp filter options, both off by default (the output is then unchanged):
 * - TruncationCorrection (RTK's --pad): a fraction of the row length by which each row is extended
 *   on both sides before filtering, with its faded point reflection about the edge value
 *   (cbctTruncationCorrection.hcu), so that a detector narrower than the object does not leave a
 *   bright rim and a cupped interior. At most half the zero padding is used (about half a row).
 * - HannCutFrequencyY (RTK's --hannY): a Hann low-pass along v (across rows) with that cut-off as a
 *   fraction of Nyquist (HannLowPassResponse()), columns zero-padded to RampFilterPaddedLength() of the
 *   number of rows; it smooths noise between rows. It needs every row of the projections: with it,
 *   the filter asks for whole projections and does not stream in v.
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
  /** Truncation correction: the rows are extended by this fraction of their length on each side
   * (>= 0; 0, the default, is none). */
  itkSetMacro(TruncationCorrection, double);
  itkGetConstMacro(TruncationCorrection, double);
  /** Hann low-pass along v: cut-off as a fraction of Nyquist, in (0, 1]; 0 (the default) is none. */
  itkSetMacro(HannCutFrequencyY, double);
  itkGetConstMacro(HannCutFrequencyY, double);
  /** The radius (mm) of a cylindrical detector centred on the source whose rows are filtered (its u is
   * the arc length: the kernel of equiangular columns, RampFilterResponse()); 0 (the default) for a
   * flat panel. The FDK filter sets it from the geometry. */
  itkSetMacro(CylinderRadius, double);
  itkGetConstMacro(CylinderRadius, double);

  /** Pixels by which each side of a row is extended (TruncationCorrectionExtent()). */
  int
  GetTruncationCorrectionExtent() const;
  /** FFT length along v and the low-pass response (with the inverse FFT's 1/L) with HannCutFrequencyY. */
  unsigned int
  GetPaddedLengthY() const;

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
  double m_TruncationCorrection = 0.;
  double m_HannCutFrequencyY = 0.;
  double m_CylinderRadius = 0.;

private:
  /** Fills the workspace's row (the padded length) with the input row `in` of `width` pixels,
   * zero-padded and extended by the truncation correction, and ramp filters it in place. */
  void
  FilterRow(const typename TInputImage::PixelType * in,
            itk::SizeValueType width,
            RowFFTFilter::Workspace & workspace,
            int extent) const;
  /** The filter with HannCutFrequencyY: whole projections, rows then columns. */
  void
  GenerateDataSmoothingY(const OutputImageRegionType & region);

  /** The ramp along u and, with HannCutFrequencyY, the low-pass along v; made once per run. */
  std::unique_ptr<RowFFTFilter> m_RowFilter;
  std::unique_ptr<RowFFTFilter> m_ColumnFilter;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFFTRampImageFilter.hxx"
#endif

#endif
