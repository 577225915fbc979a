#ifndef cbctFFTRampImageFilter_hxx
#define cbctFFTRampImageFilter_hxx

#include "cbctInputChecks.h"
#include "cbctTruncationCorrection.hcu"

#include <itkTotalProgressReporter.h>
#include <vnl/algo/vnl_fft_1d.h>

#include <algorithm>
#include <complex>

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
  return RampFilterResponse(this->GetPaddedLength(), this->GetInput()->GetSpacing()[0], m_Window, m_CutOff);
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  m_Response = this->ComputeResponse();
  m_RowFilter.reset();
  if (m_HannCutFrequencyY <= 0. && RampRowFilter::Supports(this->GetPaddedLength()))
    m_RowFilter = std::make_unique<RampRowFilter>(this->GetPaddedLength(), m_Response);
  m_ResponseY.clear();
  if (m_HannCutFrequencyY > 0.)
    m_ResponseY = HannLowPassResponse(this->GetPaddedLengthY(), m_HannCutFrequencyY);
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::FilterRows(const typename TInputImage::PixelType * a,
                                                          const typename TInputImage::PixelType * b,
                                                          itk::SizeValueType width,
                                                          vnl_vector<std::complex<double>> & row,
                                                          vnl_fft_1d<double> & fft,
                                                          int extent) const
{
  const unsigned int length = static_cast<unsigned int>(row.size());
  auto at = [width](const typename TInputImage::PixelType * in, itk::SizeValueType i) {
    return in && i < width ? static_cast<double>(in[i]) : 0.;
  };
  for (unsigned int i = 0; i < length; ++i)
    row[i] = std::complex<double>(at(a, i), at(b, i));
  // Truncation correction: the faded point reflections about both edges, the left one wrapping to
  // the end of the cyclic row.
  for (int d = 1; d <= extent; ++d)
  {
    const double w = TruncationMirrorWeight(d, extent);
    auto right = [&](const typename TInputImage::PixelType * in) {
      return in ? w * (2. * static_cast<double>(in[width - 1]) - static_cast<double>(in[width - 1 - d])) : 0.;
    };
    auto left = [&](const typename TInputImage::PixelType * in) {
      return in ? w * (2. * static_cast<double>(in[0]) - static_cast<double>(in[d])) : 0.;
    };
    row[width - 1 + d] = std::complex<double>(right(a), right(b));
    row[length - d] = std::complex<double>(left(a), left(b));
  }
  fft.fwd_transform(row);
  for (unsigned int f = 0; f < length; ++f)
    row[f] *= m_Response[f <= length / 2 ? f : length - f];
  fft.bwd_transform(row);
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
  const unsigned int length = this->GetPaddedLength();
  const int extent = this->GetTruncationCorrectionExtent();
  const auto & inRegion = input->GetBufferedRegion();
  const auto width = inRegion.GetSize(0);
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());

  // The region's rows (v, then projection).
  const itk::SizeValueType rowsPerProjection = region.GetSize(1), rows = rowsPerProjection * region.GetSize(2);
  const auto skip = region.GetIndex(0) - inRegion.GetIndex(0);
  auto rowIndex = [&](itk::SizeValueType r, itk::IndexValueType column) {
    typename TInputImage::IndexType index;
    index[0] = column;
    index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(r % rowsPerProjection);
    index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(r / rowsPerProjection);
    return index;
  };
  if (m_RowFilter)
  {
    // Eight rows at a time: rows 2l and 2l + 1 of a group are lane l's real and imaginary parts.
    constexpr unsigned int Lanes = RampRowFilter::Lanes;
    std::vector<double> re(std::size_t{ length } * Lanes), im(std::size_t{ length } * Lanes);
    for (itk::SizeValueType r0 = 0; r0 < rows; r0 += 2 * Lanes)
    {
      const itk::SizeValueType group = std::min<itk::SizeValueType>(2 * Lanes, rows - r0);
      for (unsigned int q = 0; q < 2 * Lanes; ++q)
      {
        double * lane = (q % 2 == 0 ? re.data() : im.data()) + q / 2;
        const typename TInputImage::PixelType * in =
          q < group ? input->GetBufferPointer() + input->ComputeOffset(rowIndex(r0 + q, inRegion.GetIndex(0))) : nullptr;
        for (unsigned int i = 0; i < length; ++i)
          lane[std::size_t{ i } * Lanes] = in && i < width ? static_cast<double>(in[i]) : 0.;
        // Truncation correction, as FilterRows() extends a row.
        for (int d = 1; in && d <= extent; ++d)
        {
          const double w = TruncationMirrorWeight(d, extent);
          lane[(width - 1 + d) * Lanes] = w * (2. * static_cast<double>(in[width - 1]) - static_cast<double>(in[width - 1 - d]));
          lane[std::size_t{ length - d } * Lanes] = w * (2. * static_cast<double>(in[0]) - static_cast<double>(in[d]));
        }
      }
      m_RowFilter->Filter(re.data(), im.data());
      for (unsigned int q = 0; q < group; ++q)
      {
        const double * lane = (q % 2 == 0 ? re.data() : im.data()) + q / 2;
        auto * out = output->GetBufferPointer() + output->ComputeOffset(rowIndex(r0 + q, region.GetIndex(0)));
        for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
          out[i] = static_cast<typename TOutputImage::PixelType>(lane[(skip + i) * Lanes]);
      }
      progress.Completed(region.GetSize(0) * group);
    }
    return;
  }

  // Other lengths: vnl's FFT, two rows at a time.
  vnl_fft_1d<double> fft(length);
  vnl_vector<std::complex<double>> row(length);
  for (itk::SizeValueType r = 0; r < rows; r += 2)
  {
    const bool pair = r + 1 < rows;
    const auto * a = input->GetBufferPointer() + input->ComputeOffset(rowIndex(r, inRegion.GetIndex(0)));
    const auto * b = pair ? input->GetBufferPointer() + input->ComputeOffset(rowIndex(r + 1, inRegion.GetIndex(0))) : nullptr;
    this->FilterRows(a, b, width, row, fft, extent);
    auto * outA = output->GetBufferPointer() + output->ComputeOffset(rowIndex(r, region.GetIndex(0)));
    for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
      outA[i] = static_cast<typename TOutputImage::PixelType>(row[skip + i].real());
    if (pair)
    {
      auto * outB = output->GetBufferPointer() + output->ComputeOffset(rowIndex(r + 1, region.GetIndex(0)));
      for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
        outB[i] = static_cast<typename TOutputImage::PixelType>(row[skip + i].imag());
    }
    progress.Completed(region.GetSize(0) * (pair ? 2 : 1));
  }
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::GenerateDataSmoothingY(const OutputImageRegionType & region)
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const unsigned int length = this->GetPaddedLength();
  const unsigned int lengthY = this->GetPaddedLengthY();
  const int extent = this->GetTruncationCorrectionExtent();
  const auto & inRegion = input->GetBufferedRegion(); // whole projections
  const auto width = inRegion.GetSize(0);
  const auto rows = inRegion.GetSize(1);
  const auto columns = region.GetSize(0);
  const auto skip = region.GetIndex(0) - inRegion.GetIndex(0);
  vnl_fft_1d<double> fft(length), fftY(lengthY);
  vnl_vector<std::complex<double>> row(length), column(lengthY);
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
      this->FilterRows(input->GetBufferPointer() + input->ComputeOffset(rowStart), nullptr, width, row, fft, extent);
      for (itk::SizeValueType i = 0; i < columns; ++i)
        filtered[j * columns + i] = row[skip + i].real();
    }
    // Along v: each column zero-padded to lengthY, low-passed, and the requested rows kept.
    for (itk::SizeValueType i = 0; i < columns; ++i)
    {
      for (unsigned int j = 0; j < lengthY; ++j)
        column[j] = j < rows ? filtered[j * columns + i] : 0.;
      fftY.fwd_transform(column);
      for (unsigned int f = 0; f < lengthY; ++f)
        column[f] *= m_ResponseY[f <= lengthY / 2 ? f : lengthY - f];
      fftY.bwd_transform(column);
      for (itk::SizeValueType j = 0; j < region.GetSize(1); ++j)
      {
        typename TOutputImage::IndexType index;
        index[0] = region.GetIndex(0) + static_cast<itk::IndexValueType>(i);
        index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(j);
        index[2] = projection;
        output->GetBufferPointer()[output->ComputeOffset(index)] = static_cast<typename TOutputImage::PixelType>(
          column[index[1] - inRegion.GetIndex(1)].real());
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
