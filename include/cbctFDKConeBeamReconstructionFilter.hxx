#ifndef cbctFDKConeBeamReconstructionFilter_hxx
#define cbctFDKConeBeamReconstructionFilter_hxx

#include "cbctBufferedImageSource.h"
#include "cbctHelicalOrbit.h"
#include "cbctInputChecks.h"
#include "cbctCylindricalFDK.h"
#include "cbctHelicalFDK.h"

#include <itkCommand.h>
#include <itkProgressAccumulator.h>

#include <chrono>

namespace cbct
{

namespace detail
{
/** Adds the wall-clock time between a filter's StartEvent and EndEvent to a counter. */
class StageClock : public itk::Command
{
public:
  using Self = StageClock;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);

  void
  Execute(itk::Object * caller, const itk::EventObject & event) override
  {
    Execute(static_cast<const itk::Object *>(caller), event);
  }
  void
  Execute(const itk::Object *, const itk::EventObject & event) override
  {
    if (itk::StartEvent().CheckEvent(&event))
      m_Start = std::chrono::steady_clock::now();
    else if (itk::EndEvent().CheckEvent(&event) && m_Seconds)
      *m_Seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - m_Start).count();
  }
  double * m_Seconds = nullptr;

private:
  std::chrono::steady_clock::time_point m_Start;
};

template <typename TFilter>
void
ClockStage(TFilter * filter, double * seconds)
{
  auto clock = StageClock::New();
  clock->m_Seconds = seconds;
  filter->AddObserver(itk::StartEvent(), clock);
  filter->AddObserver(itk::EndEvent(), clock);
}
} // namespace detail

template <typename TInputImage, typename TOutputImage>
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::FDKConeBeamReconstructionFilter()
{
  this->SetNumberOfRequiredInputs(2);
  this->SetStages(WeightFilterType::New(), RampFilterType::New(), BackProjectionFilterType::New());
  m_SumSource = BufferedImageSource<TOutputImage>::New();
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::SetStages(WeightFilterType * weight,
                                                                     RampFilterType * ramp,
                                                                     BackProjectionFilterType * backProjection)
{
  m_WeightFilter = weight;
  m_RampFilter = ramp;
  m_BackProjectionFilter = backProjection;
  m_WeightFilter->InPlaceOff(); // the projections belong to the caller
  detail::ClockStage(m_WeightFilter.GetPointer(), &m_StageSeconds[0]);
  detail::ClockStage(m_RampFilter.GetPointer(), &m_StageSeconds[1]);
  detail::ClockStage(m_BackProjectionFilter.GetPointer(), &m_StageSeconds[2]);
  m_RampFilter->SetInput(m_WeightFilter->GetOutput());
  m_BackProjectionFilter->SetProjections(m_RampFilter->GetOutput());
  if (m_Geometry)
    this->SetGeometry(m_Geometry);
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::SetGeometry(const GeometryType * geometry)
{
  m_Geometry = geometry;
  m_WeightFilter->SetGeometry(geometry);
  m_BackProjectionFilter->SetGeometry(geometry);
  this->Modified();
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::SetProjectionsPerBatch(itk::SizeValueType projections)
{
  if (projections % BackProjectionBatch != 0)
    ThrowBadParameter("FDK projections per batch", projections,
                      "0 (all at once) or a multiple of " + std::to_string(BackProjectionBatch) +
                        ", so that each voxel sums the same projections in the same order");
  if (projections != m_ProjectionsPerBatch)
  {
    m_ProjectionsPerBatch = projections;
    this->Modified();
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::WireStages()
{
  m_WeightFilter->SetInput(this->GetInput(1));
  m_BackProjectionFilter->SetInput(0, this->GetInput(0));
  // The backprojector adds to its first input; running in place would write into our input 0.
  m_BackProjectionFilter->SetInPlace(false);
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  if (m_Geometry.IsNull())
    ThrowBadParameter("FDKConeBeamReconstructionFilter geometry", "none", "a ThreeDCircularProjectionGeometry (SetGeometry)");
  m_Geometry->RequireConeBeam("FDK");
  RequireFlatOrCentredCylinder(m_Geometry, "FDK");
  m_RampFilter->SetCylinderRadius(m_Geometry->GetRadiusCylindricalDetector());
  if (IsHelicalGeometry(m_Geometry))
    HelicalFDKSetup::Of(m_Geometry, this->GetInput(1)); // a helix helical FDK can weight, or why not
  this->WireStages();
  // The displaced-detector decision needs the field of view this volume asks for.
  m_WeightFilter->SetFieldOfViewRadius(DisplacedDetectorCoverage::ReconstructedRadius(this->GetInput(0)));
  m_BackProjectionFilter->UpdateOutputInformation();
  // The measured detector, not the weighting's zero-padded one, must see the volume.
  m_BackProjectionFilter->CheckVolumeProjectsOntoDetector(this->GetInput(0), this->GetInput(1));
  this->GetOutput()->CopyInformation(m_BackProjectionFilter->GetOutput());
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  // Let the inner pipeline say what it needs: the backprojector asks the ramp filter for the rows
  // this output region projects onto, the ramp filter widens them to whole rows.
  auto * volume = const_cast<TInputImage *>(this->GetInput(0));
  volume->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
  // In batches, the projections are asked for the first one here and for the others in GenerateData().
  const itk::SizeValueType count = this->GetInput(1)->GetLargestPossibleRegion().GetSize(2);
  if (m_ProjectionsPerBatch > 0 && m_ProjectionsPerBatch < count)
    m_BackProjectionFilter->SetProjectionRange(0, m_ProjectionsPerBatch);
  else
    m_BackProjectionFilter->SetProjectionRange(0, 0);
  m_BackProjectionFilter->GetOutput()->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
  m_BackProjectionFilter->GetOutput()->PropagateRequestedRegion();
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::GenerateData()
{
  // Stages keep their progress from the previous streamed piece until they start: reset it first.
  m_WeightFilter->UpdateProgress(0.f);
  m_RampFilter->UpdateProgress(0.f);
  m_BackProjectionFilter->UpdateProgress(0.f);
  const itk::SizeValueType count = this->GetInput(1)->GetLargestPossibleRegion().GetSize(2);
  const itk::SizeValueType perBatch =
    m_ProjectionsPerBatch > 0 && m_ProjectionsPerBatch < count ? m_ProjectionsPerBatch : count;
  const itk::SizeValueType batches = (count + perBatch - 1) / perBatch;
  if (batches <= 1)
  {
    auto progress = itk::ProgressAccumulator::New();
    progress->SetMiniPipelineFilter(this);
    progress->RegisterInternalFilter(m_WeightFilter, 0.05f);
    progress->RegisterInternalFilter(m_RampFilter, 0.15f);
    progress->RegisterInternalFilter(m_BackProjectionFilter, 0.8f);
    m_BackProjectionFilter->GetOutput()->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
    m_BackProjectionFilter->Update();
    this->GraftOutput(m_BackProjectionFilter->GetOutput());
    // Free the filtered projections of this piece before the next one is made.
    m_WeightFilter->GetOutput()->ReleaseData();
    m_RampFilter->GetOutput()->ReleaseData();
    return;
  }

  // Batch by batch: the backprojection of each batch adds to the sum of the ones before, in place
  // (the first adds to input 0, which stays the caller's). Each batch's update asks the projections
  // input for its projections alone, so that a pipeline reading them from disk reads that batch.
  // Progress: per batch.
  struct Rewire // back to the wiring of the next pass, also when a batch fails
  {
    Self * self;
    ~Rewire()
    {
      self->m_BackProjectionFilter->SetInput(0, self->GetInput(0));
      self->m_BackProjectionFilter->SetInPlace(false);
      self->m_BackProjectionFilter->SetProjectionRange(0, 0);
      self->m_SumSource->GetOutput()->ReleaseData();
    }
  } rewire{ this };
  typename TOutputImage::Pointer sum;
  for (itk::SizeValueType b = 0; b < batches; ++b)
  {
    m_BackProjectionFilter->SetProjectionRange(b * perBatch, std::min(perBatch, count - b * perBatch));
    if (b > 0)
    {
      // The sum so far, as a slab of the volume (an image without a source would become its buffer).
      m_SumSource->SetImage(sum);
      m_BackProjectionFilter->SetInput(0, m_SumSource->GetOutput());
      m_BackProjectionFilter->SetInPlace(true);
    }
    m_BackProjectionFilter->GetOutput()->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
    m_BackProjectionFilter->Update();
    sum = TOutputImage::New(); // the same voxels, as the next batch's input
    sum->Graft(m_BackProjectionFilter->GetOutput());
    m_SumSource->GetOutput()->ReleaseData(); // the previous sum's buffer: now the output's alone
    m_WeightFilter->GetOutput()->ReleaseData();
    m_RampFilter->GetOutput()->ReleaseData();
    this->UpdateProgress(static_cast<float>(b + 1) / static_cast<float>(batches));
    if (this->GetAbortGenerateData())
    {
      itk::ProcessAborted aborted(__FILE__, __LINE__);
      aborted.SetDescription(std::string("Object ") + this->GetNameOfClass() + ": AbortGenerateDataOn");
      throw aborted;
    }
  }
  this->GraftOutput(m_BackProjectionFilter->GetOutput());
}

template <typename TInputImage, typename TOutputImage>
void
FDKConeBeamReconstructionFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "WeightFilter: " << m_WeightFilter->GetNameOfClass() << std::endl;
  os << indent << "RampFilter: " << m_RampFilter->GetNameOfClass() << std::endl;
  os << indent << "BackProjectionFilter: " << m_BackProjectionFilter->GetNameOfClass() << std::endl;
}

} // namespace cbct

#endif
