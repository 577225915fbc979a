#ifndef cbctFFTRampImageFilter_hxx
#define cbctFFTRampImageFilter_hxx

#include "cbctInputChecks.h"

#include <itkTotalProgressReporter.h>
#include <vnl/algo/vnl_fft_1d.h>

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
  // Whole rows: every output pixel depends on its entire row.
  auto region = this->GetOutput()->GetRequestedRegion();
  const auto & largest = input->GetLargestPossibleRegion();
  region.SetIndex(0, largest.GetIndex(0));
  region.SetSize(0, largest.GetSize(0));
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
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const unsigned int length = this->GetPaddedLength();
  const auto & inRegion = input->GetBufferedRegion();
  const auto width = inRegion.GetSize(0);
  vnl_fft_1d<double> fft(length);
  vnl_vector<std::complex<double>> row(length);
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());

  auto index = region.GetIndex();
  for (itk::SizeValueType k = 0; k < region.GetSize(2); ++k)
  {
    for (itk::SizeValueType j = 0; j < region.GetSize(1); ++j)
    {
      index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(j);
      index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(k);
      auto rowStart = index;
      rowStart[0] = inRegion.GetIndex(0);
      const auto * in = input->GetBufferPointer() + input->ComputeOffset(rowStart);
      for (unsigned int i = 0; i < length; ++i)
        row[i] = i < width ? static_cast<double>(in[i]) : 0.;
      fft.fwd_transform(row);
      for (unsigned int f = 0; f < length; ++f)
        row[f] *= m_Response[f <= length / 2 ? f : length - f];
      fft.bwd_transform(row);
      index[0] = region.GetIndex(0);
      auto * out = output->GetBufferPointer() + output->ComputeOffset(index);
      const auto skip = region.GetIndex(0) - inRegion.GetIndex(0);
      for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
        out[i] = static_cast<typename TOutputImage::PixelType>(row[skip + i].real());
      progress.Completed(region.GetSize(0));
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
FFTRampImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Window: " << RampWindowName(m_Window) << std::endl;
  os << indent << "CutOff: " << m_CutOff << std::endl;
}

} // namespace cbct

#endif
