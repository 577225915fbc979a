#include "cbctCalibrationSliceReconstructor.h"

#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctCudaDevice.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctInputChecks.h"

#if CBCT_USE_CUDA
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
#endif

#include "cbctDisplacedDetectorCoverage.h"
#include "cbctHelicalFDK.h"
#include "cbctHelicalOrbit.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace cbct
{

namespace
{
/** Rows of the projections weighted and ramp-filtered for one weighting of the views (WeightingKey()). */
template <typename TImage>
struct FilteredRows
{
  std::vector<double> weighting;
  itk::IndexValueType first = 0, last = -1;
  typename TImage::Pointer filtered;
};

/** What the FDK weights of `geometry` depend on, as the weighting's float parameters: per view the
 * cosine weight's SDD and principal point and the FDK constant SID * SDD * angular gap / 2. The
 * calibrations' candidates differ in the axis offset (the stage model moves source and detector together:
 * the principal point stays, and the views' azimuths all turn alike, which leaves their gaps), the roll (a
 * turn about the principal point: the cosine weights depend on the distance to it) and the tilt, none of
 * which change these; so one filtering serves every candidate, and a candidate that does change them (the
 * detector model moves the principal point) gets its own. Short scans (Parker's weights follow the axis),
 * displaced-detector weights and cylindrical detectors depend on the whole geometry: every matrix is part
 * of the key. */
std::vector<double>
WeightingKey(const ThreeDCircularProjectionGeometry * geometry, bool displacedDetectorWeighting)
{
  constexpr double Pi = 3.14159265358979323846;
  const unsigned int n = geometry->GetNumberOfProjections();
  const std::vector<double> gaps = FDKAngularGaps(geometry);
  std::vector<double> key;
  key.reserve(4 * n + 2);
  key.push_back(displacedDetectorWeighting ? 1. : 0.);
  key.push_back(geometry->GetRadiusCylindricalDetector());
  for (unsigned int k = 0; k < n; ++k)
  {
    const double sid = geometry->GetSourceToIsocenterDistance(k), sdd = geometry->GetSourceToDetectorDistance(k);
    key.push_back(static_cast<float>(sdd));
    key.push_back(static_cast<float>(sid * sdd * 0.5 * gaps[k]));
    key.push_back(static_cast<float>(geometry->GetPrincipalPointU(k)));
    key.push_back(static_cast<float>(geometry->GetPrincipalPointV(k)));
  }
  const double range = geometry->GetAngularRange();
  const double step = n > 1 ? range / (n - 1) : 2. * Pi;
  const bool shortScan = n > 1 && 2. * Pi - range > 3. * step;
  if (shortScan || displacedDetectorWeighting || geometry->IsCylindrical() || IsHelicalGeometry(geometry))
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int r = 0; r < 3; ++r)
        for (unsigned int c = 0; c < 4; ++c)
          key.push_back(geometry->GetMatrix(k)(r, c));
  return key;
}

/** The grid of a slab: n x thickness x n voxels centred on the axis, its middle at height y. */
template <typename TImage>
typename ConstantImageSource<TImage>::Pointer
SlabGrid(double y, unsigned int n, double spacing, unsigned int thickness)
{
  auto grid = ConstantImageSource<TImage>::New();
  typename TImage::SizeType size{ { n, thickness, n } };
  typename TImage::SpacingType s;
  s.Fill(spacing);
  typename TImage::PointType origin;
  origin[0] = -0.5 * (n - 1.) * spacing;
  origin[1] = y - 0.5 * (thickness - 1.) * spacing;
  origin[2] = -0.5 * (n - 1.) * spacing;
  grid->SetSize(size);
  grid->SetSpacing(s);
  grid->SetOrigin(origin);
  grid->SetConstant(0.f);
  return grid;
}

/** FDK of a slab: the backprojection of filtered rows from `cache` when some were filtered for the same
 * weighting and cover the rows this slab projects onto, else of rows filtered now (those rows and a
 * margin, kept for the next candidates). The same weighting, ramp filter and backprojection as
 * FDKConeBeamReconstructionFilter, run apart so that the filtering is shared. */
template <typename TImage, typename TWeight, typename TRamp, typename TBackProjection>
typename TImage::Pointer
ReconstructSlab(const TImage * projections, std::vector<FilteredRows<TImage>> & cache,
                const ThreeDCircularProjectionGeometry * geometry, double y, unsigned int n, double spacing,
                unsigned int thickness, RampWindow window, double cutOff, bool displacedDetectorWeighting,
                CalibrationSliceReconstructor::Timings & timings)
{
  using Clock = std::chrono::steady_clock;
  auto grid = SlabGrid<TImage>(y, n, spacing, thickness);
  auto backProjection = TBackProjection::New();
  backProjection->SetInput(0, grid->GetOutput());
  backProjection->SetProjections(projections);
  backProjection->SetGeometry(geometry);
  backProjection->SetInPlace(false);
  // Thin slabs: runs along z (a column along y of one voxel would fill one of eight vector lanes).
  if (thickness < 8)
    backProjection->SetColumnsAlongY(false);
  // The rows the slab projects onto: what the backprojection asks of the projections.
  backProjection->UpdateOutputInformation();
  backProjection->CheckVolumeProjectsOntoDetector(grid->GetOutput(), projections);
  backProjection->GetOutput()->SetRequestedRegionToLargestPossibleRegion();
  backProjection->PropagateRequestedRegion(backProjection->GetOutput());
  const auto needed = projections->GetRequestedRegion();
  const itk::IndexValueType needFirst = needed.GetIndex(1);
  const itk::IndexValueType needLast = needFirst + static_cast<itk::IndexValueType>(needed.GetSize(1)) - 1;

  const std::vector<double> key = WeightingKey(geometry, displacedDetectorWeighting);
  const FilteredRows<TImage> * rows = nullptr;
  for (const auto & entry : cache)
    if (entry.first <= needFirst && entry.last >= needLast && entry.weighting == key)
    {
      rows = &entry;
      break;
    }
  if (rows == nullptr)
  {
    const auto start = Clock::now();
    const auto & largest = projections->GetLargestPossibleRegion();
    const itk::IndexValueType top = largest.GetIndex(1) + static_cast<itk::IndexValueType>(largest.GetSize(1)) - 1;
    // A margin for the next candidates, whose roll or tilt moves the rows a little.
    const itk::IndexValueType margin = 4 + (needLast - needFirst) / 4;
    FilteredRows<TImage> entry;
    entry.weighting = key;
    entry.first = std::max(largest.GetIndex(1), needFirst - margin);
    entry.last = std::min(top, std::max(needLast, needFirst) + margin);
    auto weight = TWeight::New();
    weight->SetInput(projections);
    weight->SetGeometry(geometry);
    weight->InPlaceOff(); // the projections are the caller's
    weight->SetDisplacedDetectorWeighting(displacedDetectorWeighting);
    weight->SetFieldOfViewRadius(DisplacedDetectorCoverage::ReconstructedRadius(grid->GetOutput()));
    auto ramp = TRamp::New();
    ramp->SetInput(weight->GetOutput());
    ramp->SetWindow(window);
    ramp->SetCutOff(cutOff);
    ramp->SetCylinderRadius(geometry->GetRadiusCylindricalDetector());
    ramp->UpdateOutputInformation();
    auto region = ramp->GetOutput()->GetLargestPossibleRegion();
    region.SetIndex(1, entry.first);
    region.SetSize(1, static_cast<itk::SizeValueType>(entry.last - entry.first + 1));
    ramp->GetOutput()->SetRequestedRegion(region);
    ramp->GetOutput()->PropagateRequestedRegion();
    ramp->GetOutput()->UpdateOutputData();
    entry.filtered = ramp->GetOutput();
    entry.filtered->DisconnectPipeline();
    constexpr std::size_t MaximumEntries = 32;
    if (cache.size() >= MaximumEntries)
      cache.erase(cache.begin());
    cache.push_back(entry);
    rows = &cache.back();
    timings.filtering += std::chrono::duration<double>(Clock::now() - start).count();
    ++timings.filterings;
  }
  const auto start = Clock::now();
  backProjection->SetProjections(rows->filtered);
  backProjection->Update();
  typename TImage::Pointer slab = backProjection->GetOutput();
  slab->DisconnectPipeline();
  timings.backProjection += std::chrono::duration<double>(Clock::now() - start).count();
  ++timings.backProjections;
  return slab;
}
} // namespace

#if CBCT_USE_CUDA
struct CalibrationSliceReconstructor::CudaState
{
  using CudaImageType = CudaImage<float, 3>;
  CudaImageType::Pointer projections;
  std::vector<FilteredRows<CudaImageType>> filtered;
};
#else
struct CalibrationSliceReconstructor::CudaState
{};
#endif

struct CalibrationSliceReconstructor::CpuState
{
  std::vector<FilteredRows<ImageType>> filtered;
};

CalibrationSliceReconstructor::CalibrationSliceReconstructor() = default;
CalibrationSliceReconstructor::~CalibrationSliceReconstructor() = default;

bool
CalibrationSliceReconstructor::CudaAvailable(std::string * description)
{
#if CBCT_USE_CUDA
  return CudaDeviceAvailable(description);
#else
  if (description)
    *description = "this build has no CUDA";
  return false;
#endif
}

void
CalibrationSliceReconstructor::SetHardware(Hardware hardware)
{
  if (hardware == Hardware::Cuda)
  {
    std::string why;
    if (!CudaAvailable(&why))
      ThrowBadParameter("calibration hardware", "cuda", "cpu: " + why);
  }
  if (m_Hardware != hardware)
  {
    m_Hardware = hardware;
    m_Cuda.reset();
    this->Modified();
  }
}

void
CalibrationSliceReconstructor::SetRampWindow(RampWindow window, double cutOff)
{
  if (!(cutOff > 0. && cutOff <= 1.))
    ThrowBadParameter("ramp filter cut-off", cutOff, "a fraction of Nyquist in (0, 1]");
  m_Window = window;
  m_CutOff = cutOff;
  this->ForgetFiltered();
  this->Modified();
}

void
CalibrationSliceReconstructor::SetDisplacedDetectorWeighting(bool on)
{
  m_DisplacedDetectorWeighting = on;
  this->ForgetFiltered();
  this->Modified();
}

void
CalibrationSliceReconstructor::SetProjections(const ImageType * projections)
{
  m_Projections = projections;
  m_Cuda.reset();
  m_Cpu.reset();
  this->Modified();
}

void
CalibrationSliceReconstructor::ForgetFiltered()
{
  m_Cpu.reset();
#if CBCT_USE_CUDA
  if (m_Cuda)
    m_Cuda->filtered.clear();
#endif
}


CalibrationSliceReconstructor::ImageType::Pointer
CalibrationSliceReconstructor::Reconstruct(const GeometryType * geometry,
                                           double y,
                                           unsigned int n,
                                           double spacing,
                                           unsigned int thickness)
{
  if (m_Projections.IsNull())
    ThrowBadParameter("CalibrationSliceReconstructor projections", "none", "a projection stack (SetProjections)");
  CheckPositive("slice spacing (mm)", spacing);
  CheckFinite("slice height (mm)", y);
  if (n < 2 || thickness < 1)
    ThrowBadParameter("slice size", n, "at least 2 x 1 x 2 voxels");
#if CBCT_USE_CUDA
  if (m_Hardware == Hardware::Cuda)
  {
    using CudaImageType = CudaState::CudaImageType;
    using Clock = std::chrono::steady_clock;
    if (!m_Cuda)
    {
      const auto start = Clock::now();
      m_Cuda = std::make_unique<CudaState>();
      auto copy = CudaImageType::New();
      copy->CopyInformation(m_Projections);
      copy->SetRegions(m_Projections->GetLargestPossibleRegion());
      copy->Allocate();
      std::copy(m_Projections->GetBufferPointer(),
                m_Projections->GetBufferPointer() + m_Projections->GetBufferedRegion().GetNumberOfPixels(),
                copy->GetBufferPointer());
      m_Cuda->projections = copy;
      m_Timings.transfers += std::chrono::duration<double>(Clock::now() - start).count();
    }
    CudaImageType::Pointer volume =
      ReconstructSlab<CudaImageType, CudaFDKWeightProjectionFilter<CudaImageType>, CudaFFTRampImageFilter<CudaImageType>,
                      CudaFDKBackProjectionImageFilter<CudaImageType>>(m_Cuda->projections, m_Cuda->filtered, geometry, y,
                                                                       n, spacing, thickness, m_Window, m_CutOff,
                                                                       m_DisplacedDetectorWeighting, m_Timings);
    // A plain image for the scores: the CUDA image's host access brings the volume back.
    const auto start = Clock::now();
    auto slab = ImageType::New();
    slab->CopyInformation(volume);
    slab->SetRegions(volume->GetBufferedRegion());
    slab->Allocate();
    const float * from = volume->GetBufferPointer();
    std::copy(from, from + volume->GetBufferedRegion().GetNumberOfPixels(), slab->GetBufferPointer());
    m_Timings.transfers += std::chrono::duration<double>(Clock::now() - start).count();
    return slab;
  }
#endif
  if (!m_Cpu)
    m_Cpu = std::make_unique<CpuState>();
  return ReconstructSlab<ImageType, FDKWeightProjectionFilter<ImageType, ImageType>, FFTRampImageFilter<ImageType, ImageType>,
                         FDKBackProjectionImageFilter<ImageType, ImageType>>(m_Projections, m_Cpu->filtered, geometry, y, n,
                                                                             spacing, thickness, m_Window, m_CutOff,
                                                                             m_DisplacedDetectorWeighting, m_Timings);
}

void
CalibrationSliceReconstructor::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Hardware: " << (m_Hardware == Hardware::Cuda ? "CUDA" : "CPU") << std::endl;
  os << indent << "Window: " << RampWindowName(m_Window) << ", cut-off " << m_CutOff << std::endl;
}

} // namespace cbct
