#ifndef cbctFourDFDKConeBeamReconstructionFilter_hxx
#define cbctFourDFDKConeBeamReconstructionFilter_hxx

#include "cbctDisplacedDetectorCoverage.h"
#include "cbctHelicalOrbit.h"
#include "cbctInputChecks.h"

#include <chrono>
#include <cstring>
#include <string>

namespace cbct
{

template <typename TImage, typename TOutputImage>
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::FourDFDKConeBeamReconstructionFilter()
{
  this->SetNumberOfRequiredInputs(2);
  m_WeightFilter = WeightFilterType::New();
  m_WeightFilter->InPlaceOff(); // the projections belong to the caller
  m_RampFilter = RampFilterType::New();
  m_BackProjectionFilter = BackProjectionFilterType::New();
}

template <typename TImage, typename TOutputImage>
typename TImage::Pointer
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::FrameGrid() const
{
  auto grid = TImage::New();
  grid->CopyInformation(this->GetInput(0));
  grid->SetRegions(this->GetInput(0)->GetLargestPossibleRegion());
  return grid;
}

template <typename TImage, typename TOutputImage>
void
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::GenerateOutputInformation()
{
  if (m_Geometry.IsNull())
    ThrowBadParameter("4D FDK geometry", "none", "a ThreeDCircularProjectionGeometry (SetGeometry)");
  m_Geometry->RequireConeBeam("4D FDK");
  m_Geometry->RequireFlatPanel("4D FDK");
  HelicalOrbit::RequireCircular(m_Geometry, "4D FDK", "4D ROOSTER");
  const TImage * volume = this->GetInput(0);
  const TImage * projections = this->GetInput(1);
  const auto count = projections->GetLargestPossibleRegion().GetSize(2);
  if (count != m_Geometry->GetNumberOfProjections())
    ThrowBadParameter("number of projection images", count,
                      "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
  // Frames are chosen here so that a bad signal or an empty frame is refused before any work.
  m_Frames = FourDGating::SelectFrames(m_Geometry, m_Phases, m_NumberOfFrames, m_GatingWindow, m_WindowShape);

  m_WeightFilter->SetGeometry(m_Geometry);
  m_WeightFilter->SetFieldOfViewRadius(DisplacedDetectorCoverage::ReconstructedRadius(volume));
  m_BackProjectionFilter->SetGeometry(m_Geometry);
  m_BackProjectionFilter->CheckVolumeProjectsOntoDetector(volume, projections);

  TOutputImage * output = this->GetOutput();
  typename TOutputImage::RegionType region;
  typename TOutputImage::SpacingType spacing;
  typename TOutputImage::PointType origin;
  typename TOutputImage::DirectionType direction;
  direction.SetIdentity();
  const auto & grid = volume->GetLargestPossibleRegion();
  for (unsigned int d = 0; d < 3; ++d)
  {
    region.SetIndex(d, grid.GetIndex(d));
    region.SetSize(d, grid.GetSize(d));
    spacing[d] = volume->GetSpacing()[d];
    origin[d] = volume->GetOrigin()[d];
    for (unsigned int e = 0; e < 3; ++e)
      direction(d, e) = volume->GetDirection()(d, e);
  }
  region.SetIndex(3, 0);
  region.SetSize(3, m_NumberOfFrames);
  spacing[3] = 1.;
  origin[3] = 0.;
  output->SetLargestPossibleRegion(region);
  output->SetSpacing(spacing);
  output->SetOrigin(origin);
  output->SetDirection(direction);
}

template <typename TImage, typename TOutputImage>
void
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::GenerateInputRequestedRegion()
{
  for (unsigned int i = 0; i < 2; ++i)
  {
    auto * input = const_cast<TImage *>(this->GetInput(i));
    if (input)
      input->SetRequestedRegionToLargestPossibleRegion();
  }
}

template <typename TImage, typename TOutputImage>
void
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::EnlargeOutputRequestedRegion(itk::DataObject * output)
{
  output->SetRequestedRegionToLargestPossibleRegion();
}

template <typename TImage, typename TOutputImage>
void
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::GenerateData()
{
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  this->AllocateOutputs();
  TOutputImage * output = this->GetOutput();
  const TImage * volume = this->GetInput(0);
  const TImage * projections = this->GetInput(1);

  // Weighting and ramp filter once, with the whole scan's geometry.
  auto t0 = Clock::now();
  m_WeightFilter->SetInput(projections);
  m_WeightFilter->UpdateLargestPossibleRegion();
  auto t1 = Clock::now();
  m_RampFilter->SetInput(m_WeightFilter->GetOutput());
  m_RampFilter->UpdateLargestPossibleRegion();
  auto t2 = Clock::now();
  m_StageSeconds[0] += seconds(t0, t1);
  m_StageSeconds[1] += seconds(t1, t2);
  typename TImage::Pointer filtered = m_RampFilter->GetOutput();
  filtered->DisconnectPipeline(); // ours now: the weighted stack can go
  m_WeightFilter->GetOutput()->ReleaseData();
  this->UpdateProgress(0.2f);

  const auto & filteredRegion = filtered->GetBufferedRegion();
  const std::size_t slice = filteredRegion.GetSize(0) * filteredRegion.GetSize(1);
  const auto firstSlice = filteredRegion.GetIndex(2);
  // The weighting scaled projection k by its share of the whole scan (GetAngularGaps()); a frame
  // rescales it to its weight in the frame (FourDGating::ClusterWeights).
  const std::vector<double> gaps = m_Geometry->GetAngularGaps();
  const std::size_t voxels = volume->GetLargestPossibleRegion().GetNumberOfPixels();
  for (unsigned int f = 0; f < m_NumberOfFrames; ++f)
  {
    const FourDGating::Frame & frame = m_Frames[f];
    auto stack = TImage::New();
    stack->CopyInformation(filtered);
    auto region = filteredRegion;
    region.SetIndex(2, firstSlice);
    region.SetSize(2, frame.projections.size());
    auto largest = region;
    stack->SetRegions(largest);
    stack->Allocate();
    for (std::size_t i = 0; i < frame.projections.size(); ++i)
    {
      const unsigned int k = frame.projections[i];
      if (!(gaps[k] > 0.))
        ThrowBadParameter("projection " + std::to_string(k) + "'s angular share of the whole scan", gaps[k],
                          "a positive angle (three or more projections at one gantry angle cannot be weighted per frame)");
      const float factor = static_cast<float>(frame.weights[i] / gaps[k]);
      const float * from = filtered->GetBufferPointer() + k * slice;
      float * to = stack->GetBufferPointer() + i * slice;
      for (std::size_t p = 0; p < slice; ++p)
        to[p] = from[p] * factor;
    }
    auto backProjection = BackProjectionFilterType::New();
    backProjection->SetGeometry(FourDGating::SubGeometry(m_Geometry, frame.projections));
    backProjection->SetFieldOfView(m_FieldOfView);
    backProjection->SetFieldOfViewGeometry(m_Geometry); // the whole scan's: the same voxels in every frame
    backProjection->SetInput(0, const_cast<TImage *>(volume));
    backProjection->SetProjections(stack);
    backProjection->SetInPlace(false);
    auto t3 = Clock::now();
    backProjection->Update();
    m_StageSeconds[2] += seconds(t3, Clock::now());
    std::memcpy(output->GetBufferPointer() + f * voxels, backProjection->GetOutput()->GetBufferPointer(), voxels * sizeof(float));
    this->UpdateProgress(0.2f + 0.8f * (f + 1) / m_NumberOfFrames);
  }
}

template <typename TImage, typename TOutputImage>
void
FourDFDKConeBeamReconstructionFilter<TImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "NumberOfFrames: " << m_NumberOfFrames << std::endl;
  os << indent << "GatingWindow: " << m_GatingWindow << std::endl;
  os << indent << "WindowShape: " << FourDGating::WindowShapeName(m_WindowShape) << std::endl;
  os << indent << "Phases: " << m_Phases.size() << std::endl;
  os << indent << "FieldOfView: " << FieldOfViewMask::ModeName(m_FieldOfView) << std::endl;
}

} // namespace cbct

#endif
