#ifndef cbctProjectionPreprocessingFilter_hxx
#define cbctProjectionPreprocessingFilter_hxx

#include "cbctInputChecks.h"

#include <itkImageAlgorithm.h>

#include <sstream>

namespace cbct
{

template <typename TImage>
ProjectionPreprocessingFilter<TImage>::ProjectionPreprocessingFilter()
{
  // Intermediate images are not kept once the next step has read them.
  m_Crop->ReleaseDataFlagOn();
  m_Median->ReleaseDataFlagOn();
  m_Binning->ReleaseDataFlagOn();
  m_Scatter->ReleaseDataFlagOn();
  m_LineIntegral->ReleaseDataFlagOn();
  m_SortingRings->ReleaseDataFlagOn();
  m_WaveletRings->ReleaseDataFlagOn();
}

template <typename TImage>
void
ProjectionPreprocessingFilter<TImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  const ProjectionPreprocessing & p = m_Parameters;
  if (p.scatterToPrimaryRatio != 0. && !p.intensities)
    ThrowBadParameter("scatter-to-primary ratio", p.scatterToPrimaryRatio,
                      "0 for projections that are line integrals (the scatter correction works on intensities)");
  for (unsigned int d = 0; d < 2; ++d)
    if (p.binning[d] < 1)
      ThrowBadParameter("binning", p.binning[d], "an integer >= 1");
  if (p.RemovesRings() && p.rings != "sorting" && p.rings != "wavelet")
    ThrowBadParameter("ring removal method", "'" + p.rings + "'", "sorting or wavelet");
  if (p.rings == "wavelet")
  {
    if (!DaubechiesWavelet::IsKnown(p.ringsWavelet))
      ThrowBadParameter("ring removal wavelet", "'" + p.ringsWavelet + "'", "one of " + DaubechiesWavelet::KnownNames());
    if (!std::isfinite(p.ringsSigma) || !(p.ringsSigma > 0.))
      ThrowBadParameter("ring removal sigma", p.ringsSigma, "a finite value > 0");
    if (p.ringsLevel > 30)
      ThrowBadParameter("ring removal level", p.ringsLevel, "1 .. 30, or 0 for the automatic level");
  }
}

template <typename TImage>
itk::ImageSource<TImage> *
ProjectionPreprocessingFilter<TImage>::Connect()
{
  const ProjectionPreprocessing & p = m_Parameters;
  const TImage * current = this->GetInput();
  itk::ImageSource<TImage> * last = nullptr;
  auto chain = [&](auto * filter) {
    filter->SetInput(current);
    current = filter->GetOutput();
    last = filter;
  };
  auto region = current->GetLargestPossibleRegion();
  static const char * axis[2] = { "u (columns)", "v (rows)" };
  if (p.Crops())
  {
    for (unsigned int d = 0; d < 2; ++d)
    {
      const itk::SizeValueType removed = p.lowerCrop[d] + static_cast<itk::SizeValueType>(p.upperCrop[d]);
      if (removed >= region.GetSize(d))
      {
        std::ostringstream value, expected;
        value << p.lowerCrop[d] << " + " << p.upperCrop[d];
        expected << "fewer than the " << region.GetSize(d) << " pixels of the projections along " << axis[d];
        ThrowBadParameter(std::string("crop along ") + axis[d], value.str(), expected.str());
      }
      region.SetIndex(d, region.GetIndex(d) + static_cast<itk::IndexValueType>(p.lowerCrop[d]));
      region.SetSize(d, region.GetSize(d) - removed);
    }
    m_Crop->SetRegionOfInterest(region);
    chain(m_Crop.GetPointer());
  }
  if (p.Medians())
  {
    typename MedianFilterType::RadiusType radius;
    for (unsigned int d = 0; d < 3; ++d)
      radius[d] = p.medianRadius[d];
    m_Median->SetRadius(radius);
    m_Median->SetThresholdMultiplier(p.medianMultiplier);
    chain(m_Median.GetPointer());
  }
  if (p.Bins())
  {
    typename BinningFilterType::ShrinkFactorsType factors;
    for (unsigned int d = 0; d < 2; ++d)
    {
      if (p.binning[d] > region.GetSize(d))
      {
        std::ostringstream expected;
        expected << "at most the " << region.GetSize(d) << " pixels of the (cropped) projections along " << axis[d];
        ThrowBadParameter(std::string("binning along ") + axis[d], p.binning[d], expected.str());
      }
      factors[d] = p.binning[d];
    }
    factors[2] = 1;
    m_Binning->SetShrinkFactors(factors);
    chain(m_Binning.GetPointer());
  }
  if (p.CorrectsScatter())
  {
    m_Scatter->SetScatterToPrimaryRatio(p.scatterToPrimaryRatio);
    m_Scatter->SetAirThreshold(std::isnan(p.airThreshold) ? 32000. : p.airThreshold);
    m_Scatter->SetNonNegativityThreshold(std::isnan(p.nonNegativityThreshold) ? 20. : p.nonNegativityThreshold);
    chain(m_Scatter.GetPointer());
  }
  if (p.intensities)
  {
    m_LineIntegral->SetI0(p.i0);
    m_LineIntegral->SetIDark(p.dark);
    m_LineIntegral->SetAirThreshold(p.airThreshold);
    m_LineIntegral->SetMinimumSignal(p.minimumSignal);
    chain(m_LineIntegral.GetPointer());
  }
  if (p.rings == "sorting")
  {
    if (p.ringsSize > region.GetSize(0) / p.binning[0])
    {
      std::ostringstream expected;
      expected << "at most the " << region.GetSize(0) / p.binning[0]
               << " pixels of the (cropped and binned) detector rows, or 0 for the automatic size";
      ThrowBadParameter("ring removal size", p.ringsSize, expected.str());
    }
    if (!std::isfinite(p.ringsSnr) || p.ringsSnr < 0.)
      ThrowBadParameter("ring removal snr", p.ringsSnr, "a finite value >= 0 (0: every column filtered)");
    m_SortingRings->SetSize(p.ringsSize);
    if (p.ringsRows < 1)
      ThrowBadParameter("ring removal detection rows", p.ringsRows, "at least 1 (1: each row alone)");
    m_SortingRings->SetSNR(p.ringsSnr);
    m_SortingRings->SetDetectionRows(p.ringsRows);
    m_SortingRings->SetReplacement(nullptr);
    chain(m_SortingRings.GetPointer());
  }
  else if (p.rings == "wavelet")
  {
    typename WaveletRingFilterType::ParametersType parameters;
    parameters.level = p.ringsLevel;
    parameters.wavelet = p.ringsWavelet;
    parameters.sigma = p.ringsSigma;
    parameters.pad = p.ringsPad;
    m_WaveletRings->SetParameters(parameters);
    const TImage * before = current;
    if (last) // read twice (the wavelet filter and the detection): kept until both have
      last->ReleaseDataFlagOff();
    chain(m_WaveletRings.GetPointer());
    // Only the columns that the sorting filter's detection finds take the wavelet-Fourier filter's
    // values (with a detection, snr > 0): the filter removes whatever is constant along the angle,
    // and a centred object's round detail is (a noiseless head: +22 to +96 % error where every
    // column took them).
    if (p.ringsSnr > 0.)
    {
      m_SortingRings->SetSize(0);
      m_SortingRings->SetSNR(p.ringsSnr);
      m_SortingRings->SetDetectionRows(p.ringsRows);
      m_SortingRings->SetInput(before);
      m_SortingRings->SetReplacement(current);
      current = m_SortingRings->GetOutput();
      last = m_SortingRings.GetPointer();
    }
  }
  if (p.PrecorrectsWater())
  {
    m_Water->SetCoefficients(p.waterPrecorrection);
    m_Water->SetInPlace(last != nullptr); // never in place on this filter's own input
    chain(m_Water.GetPointer());
  }
  return last;
}

template <typename TImage>
void
ProjectionPreprocessingFilter<TImage>::GenerateOutputInformation()
{
  m_Last = this->Connect();
  if (!m_Last)
  {
    Superclass::GenerateOutputInformation();
    return;
  }
  m_Last->UpdateOutputInformation();
  this->GetOutput()->CopyInformation(m_Last->GetOutput());
}

template <typename TImage>
void
ProjectionPreprocessingFilter<TImage>::GenerateInputRequestedRegion()
{
  if (!m_Last)
  {
    Superclass::GenerateInputRequestedRegion();
    return;
  }
  m_Last->GetOutput()->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
  m_Last->GetOutput()->PropagateRequestedRegion();
}

template <typename TImage>
void
ProjectionPreprocessingFilter<TImage>::GenerateData()
{
  if (!m_Last)
  {
    this->AllocateOutputs();
    itk::ImageAlgorithm::Copy(this->GetInput(), this->GetOutput(), this->GetOutput()->GetRequestedRegion(),
                              this->GetOutput()->GetRequestedRegion());
    return;
  }
  m_Last->GetOutput()->SetRequestedRegion(this->GetOutput()->GetRequestedRegion());
  m_Last->Update();
  this->GraftOutput(m_Last->GetOutput());
}

template <typename TImage>
void
ProjectionPreprocessingFilter<TImage>::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Steps: " << m_Parameters.Describe() << std::endl;
}

} // namespace cbct

#endif
