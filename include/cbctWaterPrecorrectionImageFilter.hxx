#ifndef cbctWaterPrecorrectionImageFilter_hxx
#define cbctWaterPrecorrectionImageFilter_hxx

#include "cbctInputChecks.h"

#include <itkImageScanlineIterator.h>

namespace cbct
{

template <typename TImage>
WaterPrecorrectionImageFilter<TImage>::WaterPrecorrectionImageFilter()
{
  this->DynamicMultiThreadingOn();
  this->InPlaceOff(); // the input belongs to the caller unless InPlaceOn() says otherwise
}

template <typename TImage>
void
WaterPrecorrectionImageFilter<TImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (m_Coefficients.empty())
    ThrowBadParameter("water precorrection coefficients", "none", "at least one coefficient c0[,c1,c2,...]");
  for (std::size_t i = 0; i < m_Coefficients.size(); ++i)
    if (!std::isfinite(m_Coefficients[i]))
      ThrowBadParameter("water precorrection coefficient c" + std::to_string(i), m_Coefficients[i], "a finite number");
}

template <typename TImage>
void
WaterPrecorrectionImageFilter<TImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  itk::ImageScanlineConstIterator<TImage> in(this->GetInput(), region);
  itk::ImageScanlineIterator<TImage> out(this->GetOutput(), region);
  const std::size_t n = m_Coefficients.size();
  while (!in.IsAtEnd())
  {
    while (!in.IsAtEndOfLine())
    {
      const double p = static_cast<double>(in.Get());
      double value = m_Coefficients[n - 1];
      for (std::size_t i = n - 1; i-- > 0;)
        value = value * p + m_Coefficients[i];
      out.Set(static_cast<typename TImage::PixelType>(value));
      ++in;
      ++out;
    }
    in.NextLine();
    out.NextLine();
  }
}

template <typename TImage>
void
WaterPrecorrectionImageFilter<TImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Coefficients:";
  for (double c : m_Coefficients)
    os << " " << c;
  os << std::endl;
}

} // namespace cbct

#endif
