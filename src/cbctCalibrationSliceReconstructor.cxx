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

#include <algorithm>

namespace cbct
{

#if CBCT_USE_CUDA
struct CalibrationSliceReconstructor::CudaState
{
  using CudaImageType = CudaImage<float, 3>;
  CudaImageType::Pointer projections;
};
#else
struct CalibrationSliceReconstructor::CudaState
{};
#endif

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
  this->Modified();
}

void
CalibrationSliceReconstructor::SetDisplacedDetectorWeighting(bool on)
{
  m_DisplacedDetectorWeighting = on;
  this->Modified();
}

void
CalibrationSliceReconstructor::SetProjections(const ImageType * projections)
{
  m_Projections = projections;
  m_Cuda.reset();
  this->Modified();
}

namespace
{
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
} // namespace

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
    if (!m_Cuda)
    {
      m_Cuda = std::make_unique<CudaState>();
      auto copy = CudaImageType::New();
      copy->CopyInformation(m_Projections);
      copy->SetRegions(m_Projections->GetLargestPossibleRegion());
      copy->Allocate();
      std::copy(m_Projections->GetBufferPointer(),
                m_Projections->GetBufferPointer() + m_Projections->GetBufferedRegion().GetNumberOfPixels(),
                copy->GetBufferPointer());
      m_Cuda->projections = copy;
    }
    auto grid = SlabGrid<CudaImageType>(y, n, spacing, thickness);
    auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
    fdk->SetInput(0, grid->GetOutput());
    fdk->SetProjections(m_Cuda->projections);
    fdk->SetGeometry(geometry);
    fdk->GetRampFilter()->SetWindow(m_Window);
    fdk->GetRampFilter()->SetCutOff(m_CutOff);
    fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(m_DisplacedDetectorWeighting);
    fdk->Update();
    // A plain image for the scores: the CUDA image's host access brings the volume back.
    CudaImageType::Pointer volume = fdk->GetOutput();
    auto slab = ImageType::New();
    slab->CopyInformation(volume);
    slab->SetRegions(volume->GetBufferedRegion());
    slab->Allocate();
    const float * from = volume->GetBufferPointer();
    std::copy(from, from + volume->GetBufferedRegion().GetNumberOfPixels(), slab->GetBufferPointer());
    return slab;
  }
#endif
  auto grid = SlabGrid<ImageType>(y, n, spacing, thickness);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(m_Projections);
  fdk->SetGeometry(geometry);
  fdk->GetRampFilter()->SetWindow(m_Window);
  fdk->GetRampFilter()->SetCutOff(m_CutOff);
  fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(m_DisplacedDetectorWeighting);
  // Thin slabs: runs along z (a column along y of one voxel would fill one of eight vector lanes).
  if (thickness < 8)
    fdk->GetBackProjectionFilter()->SetColumnsAlongY(false);
  fdk->Update();
  ImageType::Pointer slab = fdk->GetOutput();
  slab->DisconnectPipeline();
  return slab;
}

void
CalibrationSliceReconstructor::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Hardware: " << (m_Hardware == Hardware::Cuda ? "CUDA" : "CPU") << std::endl;
  os << indent << "Window: " << RampWindowName(m_Window) << ", cut-off " << m_CutOff << std::endl;
}

} // namespace cbct
