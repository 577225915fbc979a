#ifndef cbctSortingStripeRemovalImageFilter_h
#define cbctSortingStripeRemovalImageFilter_h

#include "cbctSortingStripeRemoval.h"
#include "cbctStripeRemovalImageFilter.h"

#include <functional>
#include <memory>
#include <utility>

namespace cbct
{

/** \class SortingStripeRemovalImageFilter
 * \brief Vo et al.'s sorting-based stripe removal (SortingStripeRemoval: Opt. Express 26:28396,
 * 2018, algorithm 3; TomoPy's remove_stripe_based_sorting; `--rings sorting`) on every detector row
 * of a projection stack of line integrals (StripeRemovalImageFilter says what a row means in cone
 * beam).
 *
 * Size: the median's window across the detector in pixels, odd or even as SciPy's median_filter
 * takes it; 0 (the default) is TomoPy's choice, SortingStripeRemoval::AutomaticSize(). Larger removes
 * wider stripes (a defect over several columns) and smooths more of the object's sharp edges. A size
 * larger than the detector is refused.
 *
 * Detection rows: the stripe detection (SNR > 0) pools each column's offsets over this many
 * neighbouring detector rows (9 by default; 1: each row alone; the band is centred on the row and
 * shifted inward at the detector's ends), so that a defect, which is in every row alike, stands out
 * of a noise divided by the root of the rows, every row of a band sees the same stripes, and a gain
 * error loses its band's mean offset. A noisy scan's 1 % stripe behind 80 mm of water was missed in single
 * rows (its ring only 2.8 to 6 times smaller; see docs/guide/preprocessing.md). Each output row needs
 * the input rows within three bands of it (the measures are pooled three times): the input is asked
 * for them, so a row's result does not depend on how the detector is split into bands (streaming,
 * MPI).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT SortingStripeRemovalImageFilter : public StripeRemovalImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SortingStripeRemovalImageFilter);

  using Self = SortingStripeRemovalImageFilter;
  using Superclass = StripeRemovalImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(SortingStripeRemovalImageFilter, StripeRemovalImageFilter);

  itkSetMacro(Size, unsigned int);
  itkGetConstMacro(Size, unsigned int);
  /** The stripe detection's ratio (TomoPy's snr; 2.5 by default, TomoPy's 3 missed a 1 % stripe
   * in a 256-column scan with Poisson noise of 10^4 counts; larger finds fewer stripes); 0 filters
   * every column (the paper's algorithm 3 alone). */
  itkSetMacro(SNR, double);
  itkGetConstMacro(SNR, double);

  /** Replacement values for the columns found as stripes (optional, the filter's second input: the
   * same projections as another ring filter corrected them, e.g. WaveletFourierStripeRemovalImageFilter's
   * output): the detected columns take them instead of losing their offset, and every other column
   * keeps its value. With SNR 0 it is not used. */
  void
  SetReplacement(const TImage * replacement)
  {
    this->SetInput(1, replacement);
  }
  const TImage *
  GetReplacement() const
  {
    return this->GetNumberOfIndexedInputs() > 1 ? static_cast<const TImage *>(this->GetInput(1)) : nullptr;
  }

  /** How many neighbouring detector rows the detection pools (>= 1; see the class comment). */
  itkSetMacro(DetectionRows, unsigned int);
  itkGetConstMacro(DetectionRows, unsigned int);

  /** The size the last update used (the automatic one when Size is 0). */
  unsigned int
  GetSizeUsed() const
  {
    return m_Sorting ? m_Sorting->GetSize() : 0;
  }

protected:
  SortingStripeRemovalImageFilter() = default;
  ~SortingStripeRemovalImageFilter() override = default;

  /** Whole rows, and the rows within twice the detection's band of the output's (DetectionInputRows()). */
  void
  GenerateInputRequestedRegion() override;
  /** With the detection: offsets of every input row, pooled per band, stripes, and each output row
   * corrected; without it (SNR 0) the base's row by row. */
  void
  GenerateData() override;

  /** The input rows [first, first + count) that the output rows `rows` need (the detection's bands of
   * bands), within the input's largest region. */
  std::pair<itk::IndexValueType, itk::SizeValueType>
  DetectionInputRows(const typename TImage::RegionType & rows) const;
  /** The rows [first, first + count) of the input that the detection's bands of the rows `count`
   * rows from `first` cover (first row and count). */
  std::pair<itk::IndexValueType, itk::SizeValueType>
  BandRows(itk::IndexValueType first, itk::SizeValueType count) const;

  void
  BeforeSinograms(std::size_t projections, std::size_t columns) override
  {
    if (m_DetectionRows < 1)
      itkExceptionMacro(<< "sorting stripe removal: detection rows is 0; expected at least 1 (1: each row alone)");
    m_Sorting = std::make_unique<SortingStripeRemoval>(
      m_Size ? m_Size : SortingStripeRemoval::AutomaticSize(columns), projections, columns, m_SNR);
  }
  void
  FilterSinogram(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const override
  {
    m_Sorting->Filter(in, inStride, out, outStride);
  }
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Size: " << m_Size << std::endl;
    os << indent << "SNR: " << m_SNR << std::endl;
    os << indent << "DetectionRows: " << m_DetectionRows << std::endl;
  }

private:
  unsigned int m_Size = 0;
  double m_SNR = 2.5;
  unsigned int m_DetectionRows = SortingStripeRemoval::DefaultDetectionRows();
  std::unique_ptr<SortingStripeRemoval> m_Sorting;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctSortingStripeRemovalImageFilter.hxx"
#endif

#endif
