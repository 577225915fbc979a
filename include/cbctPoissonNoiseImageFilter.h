#ifndef cbctPoissonNoiseImageFilter_h
#define cbctPoissonNoiseImageFilter_h

#include "cbctInputChecks.h"
#include "cbctWorkerErrors.h"

#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkImageToImageFilter.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>

namespace cbct
{

/** \class PoissonNoiseImageFilter
 * \brief Counts drawn from Poisson distributions whose means are the input's values (expected counts,
 * e.g. emission projections): integers, exact for every mean (std::poisson_distribution), seeded.
 *
 * Each slice along the last axis (a projection of a stack) has its own generator seeded from Seed and
 * the slice's index, so the result is the same for any number of threads and any streaming of whole
 * slices (ITK's ShotNoiseImageFilter seeds by thread region and turns to a Gaussian above a mean of
 * 50: neither reproducible across machines nor counts). A negative or non-finite mean is an error
 * naming its pixel.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT PoissonNoiseImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(PoissonNoiseImageFilter);
  using Self = PoissonNoiseImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(PoissonNoiseImageFilter, itk::ImageToImageFilter);

  itkSetMacro(Seed, std::uint64_t);
  itkGetConstMacro(Seed, std::uint64_t);

protected:
  PoissonNoiseImageFilter() = default;
  ~PoissonNoiseImageFilter() override = default;

  /** Whole slices along the last axis, so that each slice's generator draws all of it in order. */
  void
  EnlargeOutputRequestedRegion(itk::DataObject * data) override
  {
    auto * output = static_cast<TImage *>(data);
    auto region = output->GetRequestedRegion();
    const auto & largest = output->GetLargestPossibleRegion();
    for (unsigned int d = 0; d + 1 < TImage::ImageDimension; ++d)
    {
      region.SetIndex(d, largest.GetIndex(d));
      region.SetSize(d, largest.GetSize(d));
    }
    output->SetRequestedRegion(region);
  }

  void
  GenerateData() override
  {
    const TImage * input = this->GetInput();
    TImage * output = this->GetOutput();
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    const auto region = output->GetRequestedRegion();
    constexpr unsigned int last = TImage::ImageDimension - 1;
    const std::size_t perSlice = region.GetNumberOfPixels() / region.GetSize(last);
    for (itk::ImageRegionConstIteratorWithIndex<TImage> it(input, region); !it.IsAtEnd(); ++it)
    {
      const double mean = static_cast<double>(it.Get());
      if (!(mean >= 0.) || !std::isfinite(mean))
      {
        std::ostringstream where;
        where << "expected count at pixel " << it.GetIndex();
        ThrowBadParameter(where.str(), it.Get(), "a finite value >= 0 (a Poisson mean)");
      }
    }
    ParallelizeArray(
      this->GetMultiThreader(), 0, region.GetSize(last),
      [&](itk::SizeValueType n) {
        auto index = region.GetIndex();
        index[last] += static_cast<itk::IndexValueType>(n);
        std::seed_seq sequence{ static_cast<std::uint32_t>(m_Seed), static_cast<std::uint32_t>(m_Seed >> 32),
                                static_cast<std::uint32_t>(index[last]), static_cast<std::uint32_t>(static_cast<std::uint64_t>(index[last]) >> 32) };
        std::mt19937_64 generator(sequence);
        const auto * in = &input->GetPixel(index);
        auto * out = &output->GetPixel(index);
        for (std::size_t i = 0; i < perSlice; ++i)
        {
          const double mean = static_cast<double>(in[i]);
          out[i] = static_cast<typename TImage::PixelType>(mean > 0. ? std::poisson_distribution<long long>(mean)(generator) : 0);
        }
      },
      this);
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Seed: " << m_Seed << std::endl;
  }

private:
  std::uint64_t m_Seed = 1;
};

} // namespace cbct

#endif
