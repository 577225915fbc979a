#ifndef cbctFFTRampImageFilter_hxx
#define cbctFFTRampImageFilter_hxx

#include "cbctInputChecks.h"
#include "cbctTruncationCorrection.hcu"

#include <itkTotalProgressReporter.h>

#include <algorithm>

namespace cbct
{

template <typename TInputImage, typename TOutputImage>
FFTRampImageFilter<TInputImage, TOutputImage>::FFTRampImageFilter()
{
  this->DynamicMultiThreadingOn();
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (!(m_CutOff > 0. && m_CutOff <= 1.))
    ThrowBadParameter("ramp filter cut-off", m_CutOff, "a fraction of the Nyquist frequency in (0, 1]");
  if (!std::isfinite(m_TruncationCorrection) || m_TruncationCorrection < 0.)
    ThrowBadParameter("ramp filter truncation correction", m_TruncationCorrection,
                      "a fraction of the row length >= 0 (0: none)");
  if (!(m_HannCutFrequencyY >= 0. && m_HannCutFrequencyY <= 1.))
    ThrowBadParameter("ramp filter Hann cut-off along v", m_HannCutFrequencyY,
                      "a fraction of the Nyquist frequency in (0, 1], or 0 for none");
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  Superclass::GenerateOutputInformation();
  if (this->GetInput()->GetLargestPossibleRegion().GetNumberOfPixels() == 0)
    ThrowBadParameter("projection image size", this->GetInput()->GetLargestPossibleRegion().GetSize(), "a non-empty image");
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (!input)
    return;
  // Whole rows: every output pixel depends on its entire row (and with the low-pass along v, on
  // every row).
  auto region = this->GetOutput()->GetRequestedRegion();
  const auto & largest = input->GetLargestPossibleRegion();
  region.SetIndex(0, largest.GetIndex(0));
  region.SetSize(0, largest.GetSize(0));
  if (m_HannCutFrequencyY > 0.)
  {
    region.SetIndex(1, largest.GetIndex(1));
    region.SetSize(1, largest.GetSize(1));
  }
  region.Crop(largest);
  input->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
unsigned int
FFTRampImageFilter<TInputImage, TOutputImage>::GetPaddedLength() const
{
  return RampFilterPaddedLength(static_cast<unsigned int>(this->GetInput()->GetLargestPossibleRegion().GetSize(0)));
}

template <typename TInputImage, typename TOutputImage>
int
FFTRampImageFilter<TInputImage, TOutputImage>::GetTruncationCorrectionExtent() const
{
  const auto width = static_cast<int>(this->GetInput()->GetLargestPossibleRegion().GetSize(0));
  return TruncationCorrectionExtent(width, static_cast<int>(this->GetPaddedLength()), m_TruncationCorrection);
}

template <typename TInputImage, typename TOutputImage>
unsigned int
FFTRampImageFilter<TInputImage, TOutputImage>::GetPaddedLengthY() const
{
  return RampFilterPaddedLength(static_cast<unsigned int>(this->GetInput()->GetLargestPossibleRegion().GetSize(1)));
}

template <typename TInputImage, typename TOutputImage>
std::vector<double>
FFTRampImageFilter<TInputImage, TOutputImage>::ComputeResponse() const
{
  return RampFilterResponse(this->GetPaddedLength(), this->GetInput()->GetSpacing()[0], m_Window, m_CutOff, m_CylinderRadius);
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  // The FFT plans, once per run (FFTW plans under ITK's lock), shared by the threads.
  m_RowFilter = std::make_unique<RowFFTFilter>(this->GetPaddedLength(), this->ComputeResponse());
  m_ColumnFilter.reset();
  if (m_HannCutFrequencyY > 0.)
    m_ColumnFilter = std::make_unique<RowFFTFilter>(this->GetPaddedLengthY(),
                                                    HannLowPassResponse(this->GetPaddedLengthY(), m_HannCutFrequencyY));
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::FilterRow(const typename TInputImage::PixelType * in,
                                                         itk::SizeValueType width,
                                                         RowFFTFilter::Workspace & workspace,
                                                         int extent) const
{
  const unsigned int length = m_RowFilter->GetLength();
  double * row = workspace.Row();
  for (itk::SizeValueType i = 0; i < width; ++i)
    row[i] = static_cast<double>(in[i]);
  std::fill(row + width, row + length, 0.);
  // Truncation correction: the faded point reflections about both edges, the left one wrapping to
  // the end of the cyclic row.
  for (int d = 1; d <= extent; ++d)
  {
    const double w = TruncationMirrorWeight(d, extent);
    row[width - 1 + d] = w * (2. * static_cast<double>(in[width - 1]) - static_cast<double>(in[width - 1 - d]));
    row[length - d] = w * (2. * static_cast<double>(in[0]) - static_cast<double>(in[d]));
  }
  m_RowFilter->Filter(workspace);
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  if (m_HannCutFrequencyY > 0.)
  {
    this->GenerateDataSmoothingY(region);
    return;
  }
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const int extent = this->GetTruncationCorrectionExtent();
  const auto & inRegion = input->GetBufferedRegion();
  const auto width = inRegion.GetSize(0);
  const auto skip = region.GetIndex(0) - inRegion.GetIndex(0);
  RowFFTFilter::Workspace workspace(*m_RowFilter);
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());

  // One row per transform: a row's values depend on that row alone (not on the region's split).
  typename TInputImage::IndexType index;
  index[0] = inRegion.GetIndex(0);
  for (itk::SizeValueType k = 0; k < region.GetSize(2); ++k)
    for (itk::SizeValueType j = 0; j < region.GetSize(1); ++j)
    {
      index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(j);
      index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(k);
      this->FilterRow(input->GetBufferPointer() + input->ComputeOffset(index), width, workspace, extent);
      auto outIndex = index;
      outIndex[0] = region.GetIndex(0);
      auto * out = output->GetBufferPointer() + output->ComputeOffset(outIndex);
      const double * filtered = workspace.Row() + skip;
      for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
        out[i] = static_cast<typename TOutputImage::PixelType>(filtered[i]);
      progress.Completed(region.GetSize(0));
    }
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::GenerateDataSmoothingY(const OutputImageRegionType & region)
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const unsigned int lengthY = m_ColumnFilter->GetLength();
  const int extent = this->GetTruncationCorrectionExtent();
  const auto & inRegion = input->GetBufferedRegion(); // whole projections
  const auto width = inRegion.GetSize(0);
  const auto rows = inRegion.GetSize(1);
  const auto columns = region.GetSize(0);
  const auto skip = region.GetIndex(0) - inRegion.GetIndex(0);
  RowFFTFilter::Workspace rowWorkspace(*m_RowFilter), columnWorkspace(*m_ColumnFilter);
  std::vector<double> filtered(rows * columns); // the ramp-filtered rows of one projection, this region's columns
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());

  for (itk::SizeValueType k = 0; k < region.GetSize(2); ++k)
  {
    const auto projection = region.GetIndex(2) + static_cast<itk::IndexValueType>(k);
    for (itk::SizeValueType j = 0; j < rows; ++j)
    {
      typename TInputImage::IndexType rowStart;
      rowStart[0] = inRegion.GetIndex(0);
      rowStart[1] = inRegion.GetIndex(1) + static_cast<itk::IndexValueType>(j);
      rowStart[2] = projection;
      this->FilterRow(input->GetBufferPointer() + input->ComputeOffset(rowStart), width, rowWorkspace, extent);
      for (itk::SizeValueType i = 0; i < columns; ++i)
        filtered[j * columns + i] = rowWorkspace.Row()[skip + i];
    }
    // Along v: each column zero-padded to lengthY, low-passed, and the requested rows kept.
    double * column = columnWorkspace.Row();
    for (itk::SizeValueType i = 0; i < columns; ++i)
    {
      for (unsigned int j = 0; j < lengthY; ++j)
        column[j] = j < rows ? filtered[j * columns + i] : 0.;
      m_ColumnFilter->Filter(columnWorkspace);
      for (itk::SizeValueType j = 0; j < region.GetSize(1); ++j)
      {
        typename TOutputImage::IndexType index;
        index[0] = region.GetIndex(0) + static_cast<itk::IndexValueType>(i);
        index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(j);
        index[2] = projection;
        output->GetBufferPointer()[output->ComputeOffset(index)] =
          static_cast<typename TOutputImage::PixelType>(column[index[1] - inRegion.GetIndex(1)]);
      }
    }
    progress.Completed(columns * region.GetSize(1));
  }
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Window: " << RampWindowName(m_Window) << std::endl;
  os << indent << "CutOff: " << m_CutOff << std::endl;
  os << indent << "TruncationCorrection: " << m_TruncationCorrection << std::endl;
  os << indent << "HannCutFrequencyY: " << m_HannCutFrequencyY << std::endl;
}

} // namespace cbct

#endif
