#ifndef cbctFDKWeightProjectionFilter_hxx
#define cbctFDKWeightProjectionFilter_hxx

#include "cbctDetectorCoordinates.h"
#include "cbctInputChecks.h"

#include <itkImageScanlineIterator.h>
#include <itkImageScanlineConstIterator.h>
#include <itkTotalProgressReporter.h>

#include <algorithm>
#include <cmath>

namespace cbct
{

template <typename TInputImage, typename TOutputImage>
FDKWeightProjectionFilter<TInputImage, TOutputImage>::FDKWeightProjectionFilter()
{
  this->DynamicMultiThreadingOn();
  this->SetInPlace(false); // the output may be wider than the input
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (m_Geometry.IsNull())
    ThrowBadParameter("FDKWeightProjectionFilter geometry", "none", "a ThreeDCircularProjectionGeometry");
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  Superclass::GenerateOutputInformation();
  // Checked here rather than in VerifyPreconditions(): only now is the input's information known.
  const auto projections = this->GetInput()->GetLargestPossibleRegion().GetSize(2);
  if (projections != m_Geometry->GetNumberOfProjections())
  {
    ThrowBadParameter("number of projection images",
                      projections,
                      "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
  }
  const auto columns = this->ComputeOutputColumns(this->GetInput());
  auto largest = this->GetOutput()->GetLargestPossibleRegion();
  largest.SetIndex(0, columns.first);
  largest.SetSize(0, static_cast<itk::SizeValueType>(columns.second - columns.first + 1));
  this->GetOutput()->SetLargestPossibleRegion(largest);
}

template <typename TInputImage, typename TOutputImage>
std::pair<itk::IndexValueType, itk::IndexValueType>
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeOutputColumns(const TInputImage * input) const
{
  const auto & largest = input->GetLargestPossibleRegion();
  const itk::IndexValueType first = largest.GetIndex(0), last = first + static_cast<itk::IndexValueType>(largest.GetSize(0)) - 1;
  if (!m_DisplacedDetectorWeighting || this->ComputeScanParameters().shortScan || largest.GetNumberOfPixels() == 0)
    return { first, last };
  const DetectorCoordinates detector(input);
  const auto & toIndex = detector.PhysicalToIndex();
  const double jMid = largest.GetIndex(1) + 0.5 * (largest.GetSize(1) - 1.);
  const double vMid = detector.V(first, jMid);
  double lo = first, hi = last;
  for (unsigned int k = 0; k < m_Geometry->GetNumberOfProjections(); ++k)
  {
    if (this->DisplacedExtent(input, k).first <= 0.)
      continue; // centred (within a pixel): no padding, whatever rounding says
    // Column of the principal point, and the input's columns mirrored about it.
    const double c = toIndex(0, 0) * m_Geometry->GetPrincipalPointU(k) + toIndex(0, 1) * vMid + toIndex(0, 2);
    lo = std::min(lo, 2. * c - last);
    hi = std::max(hi, 2. * c - first);
  }
  return { static_cast<itk::IndexValueType>(std::floor(lo + 1e-6)), static_cast<itk::IndexValueType>(std::ceil(hi - 1e-6)) };
}

template <typename TInputImage, typename TOutputImage>
std::pair<double, double>
FDKWeightProjectionFilter<TInputImage, TOutputImage>::DisplacedExtent(const TInputImage * projections, unsigned int k) const
{
  const DetectorCoordinates detector(projections);
  const auto & largest = projections->GetLargestPossibleRegion();
  // Detector extent (mm) at the pixel edges along u, on each side of the principal point.
  const double i0 = largest.GetIndex(0) - 0.5, i1 = largest.GetIndex(0) + largest.GetSize(0) - 0.5;
  const double jMid = largest.GetIndex(1) + 0.5 * (largest.GetSize(1) - 1.);
  const double u0 = m_Geometry->GetPrincipalPointU(k);
  const double a = detector.U(i0, jMid) - u0, b = detector.U(i1, jMid) - u0;
  const double negative = std::max(0., -std::min(a, b)), positive = std::max(0., std::max(a, b));
  if (std::abs(positive - negative) <= projections->GetSpacing()[0])
    return { 0., 1. };
  // A principal ray off the detector still gets a one-pixel ramp at the near edge.
  return { std::max(std::min(positive, negative), projections->GetSpacing()[0]), positive > negative ? 1. : -1. };
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  auto * input = const_cast<TInputImage *>(this->GetInput());
  if (!input)
    return;
  auto region = this->GetOutput()->GetRequestedRegion();
  if (!region.Crop(input->GetLargestPossibleRegion()))
  {
    // All requested columns lie in the zero padding: any valid row will do.
    region = input->GetLargestPossibleRegion();
    region.SetSize(0, 1);
  }
  input->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
FDKWeightingScan
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeScanParameters() const
{
  constexpr double Pi = 3.14159265358979323846;
  FDKWeightingScan scan{};
  const unsigned int n = m_Geometry->GetNumberOfProjections();
  const double range = m_Geometry->GetAngularRange();
  const double step = n > 1 ? range / (n - 1) : 2. * Pi;
  scan.shortScan = (n > 1 && 2. * Pi - range > 3. * step) ? 1 : 0;
  scan.delta = static_cast<float>(std::max(0., 0.5 * (range - Pi)));
  if (scan.shortScan && range < Pi)
  {
    itkWarningMacro(<< "angular range " << range * 180. / Pi
                    << " degrees is below 180: FDK cannot reconstruct exactly from it (limited-angle artefacts)");
  }
  return scan;
}

template <typename TInputImage, typename TOutputImage>
std::vector<FDKWeightingProjection>
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeProjectionParameters(const TInputImage * projections,
                                                                                 unsigned int first,
                                                                                 unsigned int count) const
{
  const DetectorCoordinates detector(projections);
  const auto gaps = m_Geometry->GetAngularGaps();
  const double start = m_Geometry->GetAngularRangeStart();
  const FDKWeightingScan scan = this->ComputeScanParameters();

  std::vector<FDKWeightingProjection> parameters(count);
  for (unsigned int c = 0; c < count; ++c)
  {
    const unsigned int k = first + c;
    FDKWeightingProjection & p = parameters[c];
    const double u0 = m_Geometry->GetPrincipalPointU(k), v0 = m_Geometry->GetPrincipalPointV(k);
    const auto & m = detector.IndexToPhysical();
    p.uFromIndex[0] = static_cast<float>(m(0, 0));
    p.uFromIndex[1] = static_cast<float>(m(0, 1));
    p.uFromIndex[2] = static_cast<float>(m(0, 2) - u0);
    p.vFromIndex[0] = static_cast<float>(m(1, 0));
    p.vFromIndex[1] = static_cast<float>(m(1, 1));
    p.vFromIndex[2] = static_cast<float>(m(1, 2) - v0);
    const double sdd = m_Geometry->GetSourceToDetectorDistance(k);
    const double sid = m_Geometry->GetSourceToIsocenterDistance(k);
    p.sdd = static_cast<float>(sdd);
    p.scale = static_cast<float>(sid * sdd * 0.5 * gaps[k]);
    p.beta = static_cast<float>(ThreeDCircularProjectionGeometry::WrapAngle(m_Geometry->GetGantryAngle(k) - start));
    p.overlap = 0.f;
    p.wideSide = 1.f;
    if (m_DisplacedDetectorWeighting && !scan.shortScan)
    {
      const auto extent = this->DisplacedExtent(projections, k);
      p.overlap = static_cast<float>(extent.first);
      p.wideSide = static_cast<float>(extent.second);
    }
  }
  return parameters;
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  m_Scan = this->ComputeScanParameters();
  m_Parameters = this->ComputeProjectionParameters(this->GetInput(), 0, m_Geometry->GetNumberOfProjections());
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  const TInputImage * input = this->GetInput();
  TOutputImage * output = this->GetOutput();
  const auto firstProjection = input->GetLargestPossibleRegion().GetIndex(2);
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());
  const auto & available = input->GetBufferedRegion();
  const itk::IndexValueType inFirst = available.GetIndex(0);
  const itk::IndexValueType inLast = inFirst + static_cast<itk::IndexValueType>(available.GetSize(0)) - 1;
  itk::ImageScanlineIterator<TOutputImage> out(output, region);
  while (!out.IsAtEnd())
  {
    auto index = out.GetIndex();
    const FDKWeightingProjection & p = m_Parameters[index[2] - firstProjection];
    const float j = static_cast<float>(index[1]);
    while (!out.IsAtEndOfLine())
    {
      index[0] = out.GetIndex()[0];
      // Columns beyond the measured detector (displaced-detector padding) are zero.
      const float value = (index[0] >= inFirst && index[0] <= inLast)
                            ? static_cast<float>(input->GetPixel(index)) * FDKPixelWeight(p, m_Scan, static_cast<float>(index[0]), j)
                            : 0.f;
      out.Set(static_cast<typename TOutputImage::PixelType>(value));
      ++out;
    }
    progress.Completed(region.GetSize(0));
    out.NextLine();
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "DisplacedDetectorWeighting: " << m_DisplacedDetectorWeighting << std::endl;
}

} // namespace cbct

#endif
