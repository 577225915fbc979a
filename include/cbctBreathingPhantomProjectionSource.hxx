#ifndef cbctBreathingPhantomProjectionSource_hxx
#define cbctBreathingPhantomProjectionSource_hxx

#include "cbctInputChecks.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctPhaseSignal.h"

#include <itkImageAlgorithm.h>
#include <itkProgressReporter.h>

namespace cbct
{

template <typename TOutputImage>
void
BreathingPhantomProjectionSource<TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (m_Geometry.IsNull() || m_Geometry->GetNumberOfProjections() == 0)
    ThrowBadParameter("BreathingPhantomProjectionSource geometry", "empty", "a geometry with at least one projection");
  if (m_BreathingPhantom.IsNull() || m_BreathingPhantom->GetPhantom() == nullptr)
    ThrowBadParameter("BreathingPhantomProjectionSource phantom", "none", "a BreathingPhantom with its phantom set");
  PhaseSignal::Check(m_Phases, m_Geometry->GetNumberOfProjections(), "the breathing scan's phases (one per projection)");
}

template <typename TOutputImage>
void
BreathingPhantomProjectionSource<TOutputImage>::GenerateOutputInformation()
{
  if (m_Geometry.IsNotNull())
  {
    auto size = this->GetSize();
    size[2] = m_Geometry->GetNumberOfProjections();
    this->SetSize(size);
  }
  Superclass::GenerateOutputInformation();
}

template <typename TOutputImage>
void
BreathingPhantomProjectionSource<TOutputImage>::GenerateData()
{
  this->AllocateOutputs();
  TOutputImage * output = this->GetOutput();
  const auto requested = output->GetRequestedRegion();
  const auto firstProjection = output->GetLargestPossibleRegion().GetIndex(2);
  itk::ProgressReporter progress(this, 0, requested.GetSize(2));

  for (itk::IndexValueType slice = requested.GetIndex(2); slice < requested.GetIndex(2) + static_cast<itk::IndexValueType>(requested.GetSize(2)); ++slice)
  {
    const auto k = static_cast<unsigned int>(slice - firstProjection);
    // Projection k alone, in a geometry of one projection, given as it was (parameters or matrix), on
    // the same detector.
    auto single = m_Geometry->Subset({ k });

    auto source = PhantomProjectionSource<TOutputImage>::New();
    auto size = this->GetSize();
    size[2] = 1;
    auto start = output->GetLargestPossibleRegion().GetIndex();
    start[2] = slice; // the same detector indices, hence the same (u, v) of each pixel
    source->SetSize(size);
    source->SetStartIndex(start);
    source->SetSpacing(output->GetSpacing());
    source->SetOrigin(output->GetOrigin());
    source->SetDirection(output->GetDirection());
    source->SetGeometry(single);
    source->SetPhantom(m_BreathingPhantom->AtPhase(m_Phases[k]));
    source->SetNumberOfWorkUnits(this->GetNumberOfWorkUnits());
    auto sliceRegion = requested;
    sliceRegion.SetIndex(2, slice);
    sliceRegion.SetSize(2, 1);
    source->UpdateOutputInformation();
    source->GetOutput()->SetRequestedRegion(sliceRegion);
    source->Update();
    itk::ImageAlgorithm::Copy(source->GetOutput(), output, sliceRegion, sliceRegion);
    progress.CompletedPixel();
  }
}

} // namespace cbct

#endif
