#ifndef cbctAmsterdamShroudImageFilter_hxx
#define cbctAmsterdamShroudImageFilter_hxx

#include "cbctDiscreteGaussianKernel.h"
#include "cbctInputChecks.h"
#include "cbctWorkerErrors.h"

#include <cmath>
#include <vector>

namespace cbct
{

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (!std::isfinite(m_Sigma) || m_Sigma < 0.)
    ThrowBadParameter("Amsterdam shroud sigma (mm)", m_Sigma, "a finite value >= 0 (0: no smoothing)");
}

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  if (!input || !output)
    return;
  const auto & d = input->GetDirection();
  if (d(0, 1) != 0. || d(1, 0) != 0. || d(0, 2) != 0. || d(1, 2) != 0. || d(2, 0) != 0. || d(2, 1) != 0.)
    ThrowBadParameter("projection image direction (Amsterdam shroud)", d, "a direction that keeps u, v and the projection axis apart");
  const auto & in = input->GetLargestPossibleRegion();
  typename TOutputImage::RegionType region;
  region.SetIndex(0, in.GetIndex(2));
  region.SetSize(0, in.GetSize(2));
  region.SetIndex(1, in.GetIndex(1));
  region.SetSize(1, in.GetSize(1));
  typename TOutputImage::SpacingType spacing;
  spacing[0] = input->GetSpacing()[2];
  spacing[1] = input->GetSpacing()[1];
  typename TOutputImage::PointType origin;
  origin[0] = input->GetOrigin()[2];
  origin[1] = input->GetOrigin()[1];
  typename TOutputImage::DirectionType direction;
  direction.SetIdentity();
  direction(0, 0) = d(2, 2) < 0. ? -1. : 1.;
  direction(1, 1) = d(1, 1) < 0. ? -1. : 1.;
  output->SetLargestPossibleRegion(region);
  output->SetSpacing(spacing);
  output->SetOrigin(origin);
  output->SetDirection(direction);
}

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::EnlargeOutputRequestedRegion(itk::DataObject * data)
{
  // A column is computed whole (the Gaussian and the derivative run along it).
  Superclass::EnlargeOutputRequestedRegion(data);
  auto * output = dynamic_cast<TOutputImage *>(data);
  if (!output)
    return;
  auto region = output->GetRequestedRegion();
  region.SetIndex(1, output->GetLargestPossibleRegion().GetIndex(1));
  region.SetSize(1, output->GetLargestPossibleRegion().GetSize(1));
  output->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (!input)
    return;
  // Column k of the shroud is projection k, whole.
  auto region = input->GetLargestPossibleRegion();
  const auto & requested = this->GetOutput()->GetRequestedRegion();
  region.SetIndex(2, requested.GetIndex(0));
  region.SetSize(2, requested.GetSize(0));
  input->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  const auto region = output->GetRequestedRegion();
  const auto & in = input->GetBufferedRegion();
  const std::size_t columns = in.GetSize(0);
  const std::size_t rows = in.GetSize(1);
  const double dv = input->GetSpacing()[1] * input->GetDirection()(1, 1); // mm per row, signed
  const double sign = m_EdgeDirection == EdgeDirection::DenserAbove ? 1. : -1.;
  const bool both = m_EdgeDirection == EdgeDirection::Both;
  const double sigmaRows = m_Sigma / input->GetSpacing()[1];
  const std::vector<double> taps = DiscreteGaussianKernel(sigmaRows * sigmaRows);
  const auto radius = static_cast<long>(taps.size()) - 1;

  const auto first = region.GetIndex(0);
  auto column = [&](itk::SizeValueType n) {
    const itk::IndexValueType k = first + static_cast<itk::IndexValueType>(n);
    typename TInputImage::IndexType start = in.GetIndex();
    start[2] = k;
    const auto * projection = input->GetBufferPointer() + input->ComputeOffset(start);
    std::vector<double> profile(rows), smooth(rows), sum(rows, 0.);
    for (std::size_t i = 0; i < columns; ++i)
    {
      for (std::size_t j = 0; j < rows; ++j)
        profile[j] = projection[j * columns + i];
      // Gaussian along v, the edge rows repeated beyond the detector.
      for (long j = 0; j < static_cast<long>(rows); ++j)
      {
        double value = taps[0] * profile[j];
        for (long t = 1; t <= radius; ++t)
        {
          const long below = std::max(j - t, 0L);
          const long above = std::min(j + t, static_cast<long>(rows) - 1);
          value += taps[t] * (profile[below] + profile[above]);
        }
        smooth[j] = value;
      }
      for (std::size_t j = 0; j < rows; ++j)
      {
        double derivative = 0.;
        if (rows > 1)
        {
          const std::size_t lo = j == 0 ? 0 : j - 1;
          const std::size_t hi = j + 1 == rows ? rows - 1 : j + 1;
          derivative = (smooth[hi] - smooth[lo]) / ((hi - lo) * dv);
        }
        sum[j] += both ? std::abs(derivative) : std::max(0., sign * derivative);
      }
    }
    for (std::size_t j = 0; j < rows; ++j)
    {
      typename TOutputImage::IndexType index;
      index[0] = k;
      index[1] = in.GetIndex(1) + static_cast<itk::IndexValueType>(j);
      output->SetPixel(index, static_cast<typename TOutputImage::PixelType>(sum[j]));
    }
  };
  ParallelizeArray(this->GetMultiThreader(), 0, region.GetSize(0), column, this);
}

template <typename TInputImage, typename TOutputImage>
void
AmsterdamShroudImageFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Sigma (mm): " << m_Sigma << std::endl;
  os << indent << "Edge direction: "
     << (m_EdgeDirection == EdgeDirection::DenserBelow ? "denser below"
                                                        : m_EdgeDirection == EdgeDirection::DenserAbove ? "denser above" : "both")
     << std::endl;
}

} // namespace cbct

#endif
