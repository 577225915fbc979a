#ifndef cbctFDKWeightProjectionFilter_hxx
#define cbctFDKWeightProjectionFilter_hxx

#include "cbctCylindricalFDK.h"
#include "cbctDetectorCoordinates.h"
#include "cbctHelicalFDK.h"
#include "cbctInputChecks.h"
#include "cbctRayAxisDistance.h"

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
  m_Geometry->RequireConeBeam("FDK");
  RequireFlatOrCentredCylinder(m_Geometry, "FDK");
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
  if (largest.GetNumberOfPixels() == 0 || this->ComputeScanParameters(input).overlap <= 0.f)
    return { first, last };
  // In each projection, the columns where the rays pass the axis as far on the near side as the
  // detector's outer edge on the wide side (top, middle and bottom rows: tilted detectors differ).
  const DetectorCoordinates detector(input);
  const double i0 = first - 0.5, i1 = last + 0.5;
  const double j0 = static_cast<double>(largest.GetIndex(1)), j1 = j0 + largest.GetSize(1) - 1.;
  // Padding of at most twice the detector's width, whatever a grazing geometry says.
  const double widest = 2. * (i1 - i0);
  double lo = first, hi = last;
  for (unsigned int k = 0; k < m_Geometry->GetNumberOfProjections(); ++k)
  {
    const RayAxisDistance s(m_Geometry, k, detector);
    for (double j : { j0, 0.5 * (j0 + j1), j1 })
    {
      const double a = s(i0, j), b = s(i1, j);
      const double mirrored = s.Column(-(std::abs(a) > std::abs(b) ? a : b), j);
      if (std::isfinite(mirrored))
      {
        lo = std::max(std::min(lo, mirrored), i0 - widest);
        hi = std::min(std::max(hi, mirrored), i1 + widest);
      }
    }
  }
  return { static_cast<itk::IndexValueType>(std::floor(lo + 1e-6)), static_cast<itk::IndexValueType>(std::ceil(hi - 1e-6)) };
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
bool
FDKWeightProjectionFilter<TInputImage, TOutputImage>::IsShortScan() const
{
  constexpr double Pi = 3.14159265358979323846;
  if (IsHelicalGeometry(m_Geometry))
    return false; // a helix's redundancy is helical FDK's backprojection weight
  const unsigned int n = m_Geometry->GetNumberOfProjections();
  const double range = m_Geometry->GetAngularRange();
  const double step = n > 1 ? range / (n - 1) : 2. * Pi;
  return n > 1 && 2. * Pi - range > 3. * step;
}

template <typename TInputImage, typename TOutputImage>
DisplacedDetectorCoverage
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeCoverage(const TInputImage * projections) const
{
  return DisplacedDetectorCoverage(m_Geometry, projections, m_FieldOfViewRadius);
}

template <typename TInputImage, typename TOutputImage>
FDKWeightingScan
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeScanParameters(const TInputImage * projections) const
{
  constexpr double Pi = 3.14159265358979323846;
  FDKWeightingScan scan{};
  if (IsHelicalGeometry(m_Geometry))
  {
    // Neither Parker's nor the displaced detector's weights: helical FDK weights each voxel's views in
    // the backprojection (cbctHelicalFDKWeights.hcu).
    scan.shortScan = 0;
    scan.delta = 0.f;
    scan.overlap = 0.f;
    scan.wideSide = 1.f;
    return scan;
  }
  const double range = m_Geometry->GetAngularRange();
  scan.shortScan = this->IsShortScan() ? 1 : 0;
  scan.delta = static_cast<float>(std::max(0., 0.5 * (range - Pi)));
  scan.overlap = 0.f;
  scan.wideSide = 1.f;
  if (scan.shortScan && range < Pi)
  {
    itkWarningMacro(<< "angular range " << range * 180. / Pi
                    << " degrees is below 180: FDK cannot reconstruct exactly from it (limited-angle artefacts)");
  }
  if (!scan.shortScan && m_DisplacedDetectorWeighting)
  {
    const DisplacedDetectorCoverage coverage = this->ComputeCoverage(projections);
    if (coverage.NeedsWeighting())
    {
      scan.overlap = static_cast<float>(coverage.Overlap());
      scan.wideSide = static_cast<float>(coverage.WideSide());
    }
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
  const auto gaps = FDKAngularGaps(m_Geometry);
  const double start = m_Geometry->GetAngularRangeStart();

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
    p.axis = RayAxisDistance(m_Geometry, k, detector).GetCoefficients();
    p.sourceRadius = static_cast<float>(m_Geometry->GetSourceRadius(k));
    p.beta = static_cast<float>(ThreeDCircularProjectionGeometry::WrapAngle(m_Geometry->GetSourceAzimuth(k) - start));
  }
  return parameters;
}

template <typename TInputImage, typename TOutputImage>
std::vector<CylindricalWeightingProjection>
FDKWeightProjectionFilter<TInputImage, TOutputImage>::ComputeCylindricalParameters(const TInputImage * projections,
                                                                                  unsigned int first,
                                                                                  unsigned int count) const
{
  return CylindricalWeightingParameters(m_Geometry, DetectorCoordinates(projections), first, count);
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  m_Scan = this->ComputeScanParameters(this->GetInput());
  m_Parameters.clear();
  m_CylindricalParameters.clear();
  if (m_Geometry->IsCylindrical())
    m_CylindricalParameters = this->ComputeCylindricalParameters(this->GetInput(), 0, m_Geometry->GetNumberOfProjections());
  else
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
  // Row by row through pointers, the measured columns in one loop the compiler vectorises (the
  // weight's square root and division are IEEE operations in every lane: the same values).
  const FDKWeightingScan scan = m_Scan;
  const itk::IndexValueType first = region.GetIndex(0);
  const itk::IndexValueType last = first + static_cast<itk::IndexValueType>(region.GetSize(0)) - 1;
  const itk::IndexValueType from = std::max(first, inFirst), to = std::min(last, inLast);
  for (itk::SizeValueType k = 0; k < region.GetSize(2); ++k)
  {
    for (itk::SizeValueType row = 0; row < region.GetSize(1); ++row)
    {
      typename TOutputImage::IndexType index;
      index[0] = first;
      index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(row);
      index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(k);
      const float j = static_cast<float>(index[1]);
      auto * out = output->GetBufferPointer() + output->ComputeOffset(index) - first; // out[i]: column i
      // Columns beyond the measured detector (displaced-detector padding) are zero.
      for (itk::IndexValueType i = first; i <= last && i < from; ++i)
        out[i] = static_cast<typename TOutputImage::PixelType>(0.f);
      if (from <= to)
      {
        index[0] = inFirst;
        const auto * in = input->GetBufferPointer() + input->ComputeOffset(index) - inFirst; // in[i]: column i
        if (!m_CylindricalParameters.empty())
        {
          const CylindricalWeightingProjection p = m_CylindricalParameters[index[2] - firstProjection];
          for (itk::IndexValueType i = from; i <= to; ++i)
            out[i] = static_cast<typename TOutputImage::PixelType>(
              static_cast<float>(in[i]) * CylindricalFDKPixelWeight(p, scan, static_cast<float>(i), j));
        }
        else
        {
          const FDKWeightingProjection p = m_Parameters[index[2] - firstProjection];
          for (itk::IndexValueType i = from; i <= to; ++i)
            out[i] = static_cast<typename TOutputImage::PixelType>(static_cast<float>(in[i]) *
                                                                   FDKPixelWeight(p, scan, static_cast<float>(i), j));
        }
      }
      for (itk::IndexValueType i = std::max(first, to + 1); i <= last; ++i)
        out[i] = static_cast<typename TOutputImage::PixelType>(0.f);
      progress.Completed(region.GetSize(0));
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKWeightProjectionFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "DisplacedDetectorWeighting: " << m_DisplacedDetectorWeighting << std::endl;
  os << indent << "FieldOfViewRadius: " << m_FieldOfViewRadius << std::endl;
}

} // namespace cbct

#endif
