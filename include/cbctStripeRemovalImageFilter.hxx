#ifndef cbctStripeRemovalImageFilter_hxx
#define cbctStripeRemovalImageFilter_hxx

#include "cbctWorkerErrors.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>

namespace cbct
{

template <typename TImage>
void
StripeRemovalImageFilter<TImage>::EnlargeOutputRequestedRegion(itk::DataObject * output)
{
  auto * image = dynamic_cast<TImage *>(output);
  if (!image)
    return;
  auto region = image->GetRequestedRegion();
  const auto & largest = image->GetLargestPossibleRegion();
  for (unsigned int d : { 0u, 2u })
  {
    region.SetIndex(d, largest.GetIndex(d));
    region.SetSize(d, largest.GetSize(d));
  }
  image->SetRequestedRegion(region);
}

template <typename TImage>
void
StripeRemovalImageFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion(); // the output's requested region, as enlarged
}

template <typename TImage>
void
StripeRemovalImageFilter<TImage>::GenerateData()
{
  this->AllocateOutputs();
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto region = output->GetRequestedRegion();
  const std::size_t columns = region.GetSize(0), projections = region.GetSize(2);
  this->BeforeSinograms(projections, columns);

  // Row v's sinogram: projection k's row v, at offsets k * (pixels of a buffered projection).
  const auto & inBuffer = input->GetBufferedRegion();
  const auto & outBuffer = output->GetBufferedRegion();
  const auto inStride = static_cast<std::ptrdiff_t>(inBuffer.GetSize(0) * inBuffer.GetSize(1));
  const auto outStride = static_cast<std::ptrdiff_t>(outBuffer.GetSize(0) * outBuffer.GetSize(1));
  this->ThrowIfNotFinite(region);
  ParallelizeArray(
    this->GetMultiThreader(),
    0,
    region.GetSize(1),
    [&](itk::SizeValueType r) {
      auto first = region.GetIndex();
      first[1] += static_cast<itk::IndexValueType>(r);
      const float * in = input->GetBufferPointer() + input->ComputeOffset(first);
      float * out = output->GetBufferPointer() + output->ComputeOffset(first);
      this->FilterSinogram(in, inStride, out, outStride);
    },
    this);
}

template <typename TImage>
void
StripeRemovalImageFilter<TImage>::ThrowIfNotFinite(const typename TImage::RegionType & rows) const
{
  const TImage * input = this->GetInput();
  const std::size_t columns = rows.GetSize(0), projections = rows.GetSize(2);
  const auto & inBuffer = input->GetBufferedRegion();
  const auto inStride = static_cast<std::ptrdiff_t>(inBuffer.GetSize(0) * inBuffer.GetSize(1));
  std::atomic<long long> badRow{ std::numeric_limits<long long>::max() };
  ParallelizeArray(
    this->GetMultiThreader(),
    0,
    rows.GetSize(1),
    [&](itk::SizeValueType r) {
      auto first = rows.GetIndex();
      first[1] += static_cast<itk::IndexValueType>(r);
      const float * in = input->GetBufferPointer() + input->ComputeOffset(first);
      for (std::size_t k = 0; k < projections; ++k)
        for (std::size_t u = 0; u < columns; ++u)
          if (!std::isfinite(in[static_cast<std::ptrdiff_t>(k) * inStride + static_cast<std::ptrdiff_t>(u)]))
          {
            long long seen = badRow.load();
            while (first[1] < seen && !badRow.compare_exchange_weak(seen, first[1]))
            {
            }
            return;
          }
    },
    nullptr);
  if (badRow.load() != std::numeric_limits<long long>::max())
  {
    std::ostringstream message;
    message << this->GetNameOfClass() << ": detector row " << badRow.load()
            << " holds a NaN or an infinite value; expected finite line integrals (stripe removal sorts and "
               "transforms whole rows)";
    itkExceptionMacro(<< message.str());
  }
}

} // namespace cbct

#endif
