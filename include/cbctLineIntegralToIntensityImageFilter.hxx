#ifndef cbctLineIntegralToIntensityImageFilter_hxx
#define cbctLineIntegralToIntensityImageFilter_hxx

#include "cbctInputChecks.h"

#include <itkImageScanlineIterator.h>
#include <itkNumericTraits.h>

#include <cmath>
#include <random>
#include <sstream>

namespace cbct
{

namespace detail
{
/** SplitMix64's finaliser: decorrelates the seeds of neighbouring rows. */
inline std::uint64_t
MixBits(std::uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
} // namespace detail

template <typename TInputImage, typename TOutputImage>
LineIntegralToIntensityImageFilter<TInputImage, TOutputImage>::LineIntegralToIntensityImageFilter()
{
  this->DynamicMultiThreadingOn();
}

template <typename TInputImage, typename TOutputImage>
void
LineIntegralToIntensityImageFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  CheckFinite("Idark", m_IDark);
  if (!std::isfinite(m_I0) || !(m_I0 > m_IDark))
  {
    std::ostringstream expected;
    expected << "an air reading above Idark (" << m_IDark << ")";
    ThrowBadParameter("I0", m_I0, expected.str());
  }
}

template <typename TInputImage, typename TOutputImage>
void
LineIntegralToIntensityImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (!input)
    return;
  auto region = this->GetOutput()->GetRequestedRegion();
  region.SetIndex(0, input->GetLargestPossibleRegion().GetIndex(0));
  region.SetSize(0, input->GetLargestPossibleRegion().GetSize(0));
  input->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
void
LineIntegralToIntensityImageFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  using OutputPixel = typename TOutputImage::PixelType;
  constexpr bool integer = std::numeric_limits<OutputPixel>::is_integer;
  const double lowest = static_cast<double>(itk::NumericTraits<OutputPixel>::NonpositiveMin());
  const double highest = static_cast<double>(itk::NumericTraits<OutputPixel>::max());
  const auto & largest = this->GetOutput()->GetLargestPossibleRegion();
  itk::ImageScanlineConstIterator<TInputImage> in(this->GetInput(), region);
  itk::ImageScanlineIterator<TOutputImage> out(this->GetOutput(), region);
  while (!in.IsAtEnd())
  {
    // One generator per row, seeded by the row's position in the whole image.
    const auto lineStart = in.GetIndex();
    std::uint64_t row = 0;
    for (unsigned int d = TInputImage::ImageDimension; d-- > 1;)
      row = row * largest.GetSize(d) + static_cast<std::uint64_t>(lineStart[d] - largest.GetIndex(d));
    std::mt19937_64 generator(detail::MixBits(m_Seed ^ detail::MixBits(row)));
    // Draws for the columns before this piece of the row, so that the row's draws do not depend on
    // how the region was split among threads.
    std::poisson_distribution<long long> poisson;
    const itk::IndexValueType skip = lineStart[0] - largest.GetIndex(0);
    if (m_PoissonNoise && skip > 0)
    {
      // A row split among threads: replay the earlier columns' draws (rare: rows are split last).
      auto first = lineStart;
      first[0] = largest.GetIndex(0);
      for (itk::IndexValueType i = 0; i < skip; ++i)
      {
        auto index = first;
        index[0] += i;
        const double mean = (m_I0 - m_IDark) * std::exp(-static_cast<double>(this->GetInput()->GetPixel(index))) + m_IDark;
        poisson.param(typename std::poisson_distribution<long long>::param_type(std::max(mean, 1e-300)));
        (void)poisson(generator);
      }
    }
    while (!in.IsAtEndOfLine())
    {
      double reading = (m_I0 - m_IDark) * std::exp(-static_cast<double>(in.Get())) + m_IDark;
      if (m_PoissonNoise)
      {
        poisson.param(typename std::poisson_distribution<long long>::param_type(std::max(reading, 1e-300)));
        reading = static_cast<double>(poisson(generator));
      }
      if (integer)
        reading = std::round(reading);
      if (reading < lowest)
        reading = lowest;
      if (reading > highest)
        reading = highest;
      out.Set(static_cast<OutputPixel>(reading));
      ++in;
      ++out;
    }
    in.NextLine();
    out.NextLine();
  }
}

template <typename TInputImage, typename TOutputImage>
void
LineIntegralToIntensityImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "I0: " << m_I0 << std::endl;
  os << indent << "IDark: " << m_IDark << std::endl;
  os << indent << "PoissonNoise: " << m_PoissonNoise << std::endl;
  os << indent << "Seed: " << m_Seed << std::endl;
}

} // namespace cbct

#endif
