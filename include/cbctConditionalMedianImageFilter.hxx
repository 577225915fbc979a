#ifndef cbctConditionalMedianImageFilter_hxx
#define cbctConditionalMedianImageFilter_hxx

#include "cbctInputChecks.h"

#include <itkConstNeighborhoodIterator.h>
#include <itkImageAlgorithm.h>
#include <itkImageRegionIterator.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cbct
{

template <typename TImage>
ConditionalMedianImageFilter<TImage>::ConditionalMedianImageFilter()
{
  m_Radius.Fill(0);
  this->DynamicMultiThreadingOn();
}

template <typename TImage>
void
ConditionalMedianImageFilter<TImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (!std::isfinite(m_ThresholdMultiplier) || m_ThresholdMultiplier < 0.)
    ThrowBadParameter("median threshold multiplier", m_ThresholdMultiplier, "a finite value >= 0 (0: an ordinary median)");
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
    if (m_Radius[d] > 1000)
      ThrowBadParameter("median radius", m_Radius, "at most 1000 pixels along each axis");
}

template <typename TImage>
void
ConditionalMedianImageFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TImage *>(this->GetInput());
  if (!input)
    return;
  auto region = this->GetOutput()->GetRequestedRegion();
  region.PadByRadius(m_Radius);
  region.Crop(input->GetLargestPossibleRegion());
  input->SetRequestedRegion(region);
}

template <typename TImage>
void
ConditionalMedianImageFilter<TImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  bool identity = true;
  for (unsigned int d = 0; d < TImage::ImageDimension; ++d)
    identity = identity && m_Radius[d] == 0;
  if (identity)
  {
    itk::ImageAlgorithm::Copy(input, output, region, region);
    return;
  }
  // Out-of-image neighbours repeat the edge pixel (the iterator's default zero-flux Neumann condition).
  itk::ConstNeighborhoodIterator<TImage> neighbourhood(m_Radius, input, region);
  itk::ImageRegionIterator<TImage> out(output, region);
  std::vector<double> values(neighbourhood.Size());
  for (; !out.IsAtEnd(); ++neighbourhood, ++out)
  {
    double sum = 0.;
    for (std::size_t i = 0; i < values.size(); ++i)
    {
      values[i] = static_cast<double>(neighbourhood.GetPixel(i));
      sum += values[i];
    }
    const double mean = sum / values.size();
    double squares = 0.;
    for (double v : values)
      squares += (v - mean) * (v - mean);
    const double deviation = std::sqrt(squares / values.size());
    const double centre = static_cast<double>(neighbourhood.GetCenterPixel());
    auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    const double median = *middle;
    out.Set(std::abs(centre - median) > m_ThresholdMultiplier * deviation
              ? static_cast<typename TImage::PixelType>(median)
              : neighbourhood.GetCenterPixel());
  }
}

template <typename TImage>
void
ConditionalMedianImageFilter<TImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Radius: " << m_Radius << std::endl;
  os << indent << "ThresholdMultiplier: " << m_ThresholdMultiplier << std::endl;
}

} // namespace cbct

#endif
