#ifndef cbctBoellaardScatterCorrectionImageFilter_hxx
#define cbctBoellaardScatterCorrectionImageFilter_hxx

#include "cbctInputChecks.h"
#include "cbctWorkerErrors.h"

#include <itkImageRegionConstIterator.h>
#include <itkImageScanlineIterator.h>

#include <algorithm>
#include <limits>

namespace cbct
{

template <typename TImage>
BoellaardScatterCorrectionImageFilter<TImage>::BoellaardScatterCorrectionImageFilter()
{
  this->DynamicMultiThreadingOn();
}

template <typename TImage>
void
BoellaardScatterCorrectionImageFilter<TImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  CheckFinite("air threshold", m_AirThreshold);
  if (!std::isfinite(m_ScatterToPrimaryRatio) || m_ScatterToPrimaryRatio < 0.)
    ThrowBadParameter("scatter-to-primary ratio", m_ScatterToPrimaryRatio, "a finite value >= 0");
  CheckFinite("non-negativity threshold", m_NonNegativityThreshold);
}

template <typename TImage>
void
BoellaardScatterCorrectionImageFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TImage *>(this->GetInput());
  if (!input)
    return;
  auto region = this->GetOutput()->GetRequestedRegion();
  for (unsigned int d = 0; d + 1 < TImage::ImageDimension; ++d)
  {
    region.SetIndex(d, input->GetLargestPossibleRegion().GetIndex(d));
    region.SetSize(d, input->GetLargestPossibleRegion().GetSize(d));
  }
  input->SetRequestedRegion(region);
}

template <typename TImage>
void
BoellaardScatterCorrectionImageFilter<TImage>::BeforeThreadedGenerateData()
{
  constexpr unsigned int last = TImage::ImageDimension - 1;
  const TImage * input = this->GetInput();
  const auto & largest = input->GetLargestPossibleRegion();
  const auto & buffered = input->GetBufferedRegion();
  const auto & requested = this->GetOutput()->GetRequestedRegion();
  const itk::IndexValueType first = largest.GetIndex(last);
  m_Scatter.assign(largest.GetSize(last), 0.);
  const auto begin = static_cast<itk::SizeValueType>(requested.GetIndex(last) - first);
  ParallelizeArray(
    this->GetMultiThreader(),
    begin,
    begin + requested.GetSize(last),
    [&](itk::SizeValueType k) {
      auto slice = buffered;
      slice.SetIndex(last, first + static_cast<itk::IndexValueType>(k));
      slice.SetSize(last, 1);
      double behind = 0., darkest = std::numeric_limits<double>::infinity();
      for (itk::ImageRegionConstIterator<TImage> it(input, slice); !it.IsAtEnd(); ++it)
      {
        const double v = static_cast<double>(it.Get());
        darkest = std::min(darkest, v);
        if (v <= m_AirThreshold)
          behind += v;
      }
      behind /= static_cast<double>(slice.GetNumberOfPixels());
      m_Scatter[k] = std::min(m_ScatterToPrimaryRatio * behind, darkest - m_NonNegativityThreshold);
    });
}

template <typename TImage>
void
BoellaardScatterCorrectionImageFilter<TImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  constexpr unsigned int last = TImage::ImageDimension - 1;
  const itk::IndexValueType first = this->GetInput()->GetLargestPossibleRegion().GetIndex(last);
  itk::ImageScanlineConstIterator<TImage> in(this->GetInput(), region);
  itk::ImageScanlineIterator<TImage> out(this->GetOutput(), region);
  while (!in.IsAtEnd())
  {
    const double scatter = m_Scatter[in.GetIndex()[last] - first];
    while (!in.IsAtEndOfLine())
    {
      out.Set(static_cast<typename TImage::PixelType>(static_cast<double>(in.Get()) - scatter));
      ++in;
      ++out;
    }
    in.NextLine();
    out.NextLine();
  }
}

template <typename TImage>
void
BoellaardScatterCorrectionImageFilter<TImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "AirThreshold: " << m_AirThreshold << std::endl;
  os << indent << "ScatterToPrimaryRatio: " << m_ScatterToPrimaryRatio << std::endl;
  os << indent << "NonNegativityThreshold: " << m_NonNegativityThreshold << std::endl;
}

} // namespace cbct

#endif
