#ifndef cbctSortingStripeRemovalImageFilter_hxx
#define cbctSortingStripeRemovalImageFilter_hxx

#include "cbctWorkerErrors.h"

#include <algorithm>
#include <vector>

namespace cbct
{

template <typename TImage>
std::pair<itk::IndexValueType, itk::SizeValueType>
SortingStripeRemovalImageFilter<TImage>::BandRows(itk::IndexValueType first, itk::SizeValueType count) const
{
  const auto & largest = this->GetInput()->GetLargestPossibleRegion();
  const itk::IndexValueType origin = largest.GetIndex(1);
  const std::size_t detectorRows = largest.GetSize(1);
  const unsigned int band = std::max(1u, m_DetectionRows);
  const std::size_t pooled = std::min<std::size_t>(band, detectorRows);
  // The bands' first rows rise with the row: the first row's band's first row and the last row's
  // band's last row.
  const std::size_t from = SortingStripeRemoval::PoolFirstRow(static_cast<std::size_t>(first - origin), detectorRows, band);
  const std::size_t to =
    SortingStripeRemoval::PoolFirstRow(static_cast<std::size_t>(first - origin) + count - 1, detectorRows, band) + pooled - 1;
  return { origin + static_cast<itk::IndexValueType>(from), static_cast<itk::SizeValueType>(to - from + 1) };
}

template <typename TImage>
std::pair<itk::IndexValueType, itk::SizeValueType>
SortingStripeRemovalImageFilter<TImage>::DetectionInputRows(const typename TImage::RegionType & rows) const
{
  if (m_SNR == 0. || rows.GetSize(1) == 0)
    return { rows.GetIndex(1), rows.GetSize(1) };
  auto span = this->BandRows(rows.GetIndex(1), rows.GetSize(1)); // CorrectionOffsets()' rows
  span = this->BandRows(span.first, span.second);                // SecondOffsets()'
  return this->BandRows(span.first, span.second);                // FirstOffsets()'
}

template <typename TImage>
void
SortingStripeRemovalImageFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion(); // whole rows of every projection
  auto * input = const_cast<TImage *>(this->GetInput());
  if (!input)
    return;
  auto region = input->GetRequestedRegion();
  const auto rows = this->DetectionInputRows(region);
  auto replacementRegion = this->GetOutput()->GetRequestedRegion();
  region.SetIndex(1, rows.first);
  region.SetSize(1, rows.second);
  input->SetRequestedRegion(region);
  if (auto * replacement = const_cast<TImage *>(this->GetReplacement()))
    replacement->SetRequestedRegion(replacementRegion); // the output's rows, whole (EnlargeOutputRequestedRegion)
}

template <typename TImage>
void
SortingStripeRemovalImageFilter<TImage>::GenerateData()
{
  if (m_SNR == 0.)
  {
    Superclass::GenerateData();
    return;
  }
  this->AllocateOutputs();
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto region = output->GetRequestedRegion();
  const std::size_t columns = region.GetSize(0), projections = region.GetSize(2);
  this->BeforeSinograms(projections, columns);
  const SortingStripeRemoval & sorting = *m_Sorting;
  const double snr = m_SNR;
  using Measures = SortingStripeRemoval::Measures;

  // Rows, from the output's outward: the output's (corrected with their bands' stripes and mean
  // offsets), their bands' (CorrectionOffsets() with their own bands' final stripes), those rows'
  // bands' (SecondOffsets() with their bands' first stripes), and those rows' bands' (FirstOffsets()).
  const auto correctionRows = this->BandRows(region.GetIndex(1), region.GetSize(1));
  const auto secondRows = this->BandRows(correctionRows.first, correctionRows.second);
  const auto firstRows = this->BandRows(secondRows.first, secondRows.second);
  auto inRegion = region;
  inRegion.SetIndex(1, firstRows.first);
  inRegion.SetSize(1, firstRows.second);
  this->ThrowIfNotFinite(inRegion);

  const auto & inBuffer = input->GetBufferedRegion();
  const auto & outBuffer = output->GetBufferedRegion();
  const auto inStride = static_cast<std::ptrdiff_t>(inBuffer.GetSize(0) * inBuffer.GetSize(1));
  const auto outStride = static_cast<std::ptrdiff_t>(outBuffer.GetSize(0) * outBuffer.GetSize(1));
  const TImage * replacement = this->GetReplacement();
  std::ptrdiff_t replacementStride = 0;
  if (replacement)
  {
    const auto & buffer = replacement->GetBufferedRegion();
    if (!buffer.IsInside(region))
      itkExceptionMacro(<< "the replacement's buffered region " << buffer << " does not hold the output's rows " << region);
    replacementStride = static_cast<std::ptrdiff_t>(buffer.GetSize(0) * buffer.GetSize(1));
  }
  auto rowIn = [&](itk::IndexValueType row) {
    auto at = region.GetIndex();
    at[1] = row;
    return input->GetBufferPointer() + input->ComputeOffset(at);
  };
  // The mean of the measures of `rows` (held from row `held`) over the band of `row`.
  auto pooled = [&](const std::vector<Measures> & rows, itk::IndexValueType held, itk::IndexValueType row) {
    const auto band = this->BandRows(row, 1);
    std::vector<const Measures *> lines(band.second);
    for (std::size_t i = 0; i < band.second; ++i)
      lines[i] = &rows[static_cast<std::size_t>(band.first + static_cast<itk::IndexValueType>(i) - held)];
    return SortingStripeRemoval::Pool(lines.data(), band.second);
  };
  std::vector<Measures> first(firstRows.second), second(secondRows.second), correction(correctionRows.second);
  auto each = [&](itk::SizeValueType count, const std::function<void(itk::SizeValueType)> & job) {
    ParallelizeArray(this->GetMultiThreader(), 0, count, job, this);
  };
  each(firstRows.second, [&](itk::SizeValueType r) {
    sorting.FirstOffsets(rowIn(firstRows.first + static_cast<itk::IndexValueType>(r)), inStride, first[r]);
  });
  each(secondRows.second, [&](itk::SizeValueType r) {
    const itk::IndexValueType row = secondRows.first + static_cast<itk::IndexValueType>(r);
    const auto mean = pooled(first, firstRows.first, row);
    const auto stripes = SortingStripeRemoval::DetectStripes(mean.between.data(), columns, snr, mean.level.data());
    sorting.SecondOffsets(rowIn(row), inStride, stripes.data(), first[static_cast<std::size_t>(row - firstRows.first)],
                          second[r]);
  });
  each(correctionRows.second, [&](itk::SizeValueType r) {
    const itk::IndexValueType row = correctionRows.first + static_cast<itk::IndexValueType>(r);
    correction[r] = second[static_cast<std::size_t>(row - secondRows.first)];
    const auto stripes = SortingStripeRemoval::FinalStripes(pooled(second, secondRows.first, row), snr);
    sorting.CorrectionOffsets(rowIn(row), inStride, stripes.data(), correction[r]);
  });
  each(region.GetSize(1), [&](itk::SizeValueType r) {
    auto at = region.GetIndex();
    at[1] += static_cast<itk::IndexValueType>(r);
    const auto stripes = SortingStripeRemoval::FinalStripes(pooled(second, secondRows.first, at[1]), snr);
    if (replacement)
    {
      sorting.Replace(rowIn(at[1]), inStride, stripes.data(), replacement->GetBufferPointer() + replacement->ComputeOffset(at),
                      replacementStride, output->GetBufferPointer() + output->ComputeOffset(at), outStride);
      return;
    }
    sorting.Correct(rowIn(at[1]), inStride, stripes.data(), pooled(correction, correctionRows.first, at[1]),
                    output->GetBufferPointer() + output->ComputeOffset(at), outStride);
  });
}

} // namespace cbct

#endif
