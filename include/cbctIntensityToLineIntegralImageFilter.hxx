#ifndef cbctIntensityToLineIntegralImageFilter_hxx
#define cbctIntensityToLineIntegralImageFilter_hxx

#include "cbctI0Estimate.h"
#include "cbctInputChecks.h"
#include "cbctWorkerErrors.h"

#include <itkImageRegionConstIterator.h>
#include <itkImageScanlineIterator.h>

#include <sstream>

namespace cbct
{

template <typename TInputImage, typename TOutputImage>
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::IntensityToLineIntegralImageFilter()
{
  this->DynamicMultiThreadingOn();
}

template <typename TInputImage, typename TOutputImage>
void
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (!std::isfinite(m_I0) || m_I0 < 0.)
    ThrowBadParameter("I0", m_I0, "the air reading, > 0, or 0 to estimate it from each projection's air");
  CheckFinite("IDark", m_IDark);
  if (!std::isfinite(m_MinimumSignal) || m_MinimumSignal < 0.)
    ThrowBadParameter("minimum signal", m_MinimumSignal, "a finite value > 0 (the smallest I - Idark), or 0 for 1e-6 of I0 - Idark");
  if (m_I0 > 0. && !(m_I0 - m_IDark > 0. && m_I0 - m_IDark >= m_MinimumSignal))
  {
    std::ostringstream expected;
    expected << "an air reading above Idark (" << m_IDark << ") by at least " << m_MinimumSignal;
    ThrowBadParameter("I0", m_I0, expected.str());
  }
  if (std::isnan(m_AirThreshold) == false && !std::isfinite(m_AirThreshold))
    ThrowBadParameter("air threshold", m_AirThreshold, "a finite reading (or NaN: found automatically)");
}

template <typename TInputImage, typename TOutputImage>
void
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (!input || !this->EstimatesI0())
    return;
  // The estimate of a projection's I0 looks at the whole projection.
  auto region = this->GetOutput()->GetRequestedRegion();
  const auto & largest = input->GetLargestPossibleRegion();
  for (unsigned int d = 0; d + 1 < TInputImage::ImageDimension; ++d)
  {
    region.SetIndex(d, largest.GetIndex(d));
    region.SetSize(d, largest.GetSize(d));
  }
  input->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
void
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  constexpr unsigned int last = TInputImage::ImageDimension - 1;
  const TInputImage * input = this->GetInput();
  const auto & largest = input->GetLargestPossibleRegion();
  const auto & requested = this->GetOutput()->GetRequestedRegion();
  const itk::IndexValueType firstProjection = largest.GetIndex(last);
  m_I0s.assign(largest.GetSize(last), std::numeric_limits<double>::quiet_NaN());
  m_LogFlat.assign(largest.GetSize(last), 0.);
  m_Minimum.assign(largest.GetSize(last), m_MinimumSignal);
  const itk::IndexValueType begin = requested.GetIndex(last) - firstProjection;
  const itk::IndexValueType end = begin + static_cast<itk::IndexValueType>(requested.GetSize(last));

  if (this->EstimatesI0())
  {
    // One projection per work item; the buffered region holds whole projections.
    const auto & buffered = input->GetBufferedRegion();
    ParallelizeArray(
      this->GetMultiThreader(),
      static_cast<itk::SizeValueType>(begin),
      static_cast<itk::SizeValueType>(end),
      [&](itk::SizeValueType k) {
        auto slice = buffered;
        slice.SetIndex(last, firstProjection + static_cast<itk::IndexValueType>(k));
        slice.SetSize(last, 1);
        std::vector<typename TInputImage::PixelType> pixels;
        pixels.reserve(slice.GetNumberOfPixels());
        for (itk::ImageRegionConstIterator<TInputImage> it(input, slice); !it.IsAtEnd(); ++it)
          pixels.push_back(it.Get());
        m_I0s[k] = EstimateI0(pixels.data(), pixels.size(), m_AirThreshold);
      });
    for (itk::IndexValueType k = begin; k < end; ++k)
    {
      const double i0 = m_I0s[k];
      if (!std::isfinite(i0))
      {
        std::ostringstream what;
        what << "I0 estimate of projection " << k;
        ThrowBadParameter(what.str(), i0,
                          std::isfinite(m_AirThreshold) ? "pixels above the air threshold (none found: lower it, or give I0)"
                                                        : "a projection with finite pixels (give I0)");
      }
      if (!(i0 - m_IDark > 0. && i0 - m_IDark >= m_MinimumSignal))
      {
        std::ostringstream what, expected;
        what << "I0 estimate of projection " << k;
        expected << "an air reading above Idark (" << m_IDark << "): the projection shows no air, or Idark is wrong "
                 << "(give I0 or an air threshold)";
        ThrowBadParameter(what.str(), i0, expected.str());
      }
    }
  }
  else
  {
    for (itk::IndexValueType k = begin; k < end; ++k)
      m_I0s[k] = m_I0;
  }
  for (itk::IndexValueType k = begin; k < end; ++k)
  {
    LineIntegralConversion conversion = this->GetConversion();
    if (m_MinimumSignal == 0.)
      m_Minimum[k] = conversion.minimum = 1e-6 * (m_I0s[k] - m_IDark);
    m_LogFlat[k] = LogFlatField(m_I0s[k], conversion);
  }
}

template <typename TInputImage, typename TOutputImage>
void
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(
  const OutputImageRegionType & region)
{
  constexpr unsigned int last = TInputImage::ImageDimension - 1;
  const itk::IndexValueType firstProjection = this->GetInput()->GetLargestPossibleRegion().GetIndex(last);
  LineIntegralConversion conversion = this->GetConversion();
  itk::ImageScanlineConstIterator<TInputImage> in(this->GetInput(), region);
  itk::ImageScanlineIterator<TOutputImage> out(this->GetOutput(), region);
  while (!in.IsAtEnd())
  {
    const auto k = in.GetIndex()[last] - firstProjection;
    const double logFlat = m_LogFlat[k];
    conversion.minimum = m_Minimum[k];
    while (!in.IsAtEndOfLine())
    {
      out.Set(static_cast<typename TOutputImage::PixelType>(
        LineIntegralFromIntensity(static_cast<double>(in.Get()), logFlat, conversion)));
      ++in;
      ++out;
    }
    in.NextLine();
    out.NextLine();
  }
}

template <typename TInputImage, typename TOutputImage>
void
IntensityToLineIntegralImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "I0: " << m_I0 << (this->EstimatesI0() ? " (estimated per projection)" : "") << std::endl;
  os << indent << "IDark: " << m_IDark << std::endl;
  os << indent << "AirThreshold: " << m_AirThreshold << std::endl;
  os << indent << "MinimumSignal: " << m_MinimumSignal << std::endl;
}

} // namespace cbct

#endif
