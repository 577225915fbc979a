#ifndef cbctProjectionPreprocessingFilter_h
#define cbctProjectionPreprocessingFilter_h

#include "cbctBoellaardScatterCorrectionImageFilter.h"
#include "cbctConditionalMedianImageFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctProjectionPreprocessing.h"
#include "cbctRowBandRegionOfInterestImageFilter.h"
#include "cbctSortingStripeRemovalImageFilter.h"
#include "cbctWaterPrecorrectionImageFilter.h"
#include "cbctWaveletFourierStripeRemovalImageFilter.h"

#include <itkBinShrinkImageFilter.h>
#include <itkImageToImageFilter.h>
#include <itkRegionOfInterestImageFilter.h>

namespace cbct
{

/** \class ProjectionPreprocessingFilter
 * \brief Projections as a scanner writes them to line integrals ready for reconstruction: the steps
 * of a ProjectionPreprocessing, each a filter, composed once for every app and for Python.
 *
 * \dot
 * digraph Preprocessing {
 *   node [shape=box];
 *   in [label="Projections (readings or line integrals)"];
 *   crop [label="itk::RegionOfInterestImageFilter (crop)"];
 *   median [label="ConditionalMedianImageFilter"];
 *   bin [label="itk::BinShrinkImageFilter (binning)"];
 *   scatter [label="BoellaardScatterCorrectionImageFilter"];
 *   log [label="IntensityToLineIntegralImageFilter"];
 *   rings [label="SortingStripeRemovalImageFilter or\nWaveletFourierStripeRemovalImageFilter"];
 *   wpc [label="WaterPrecorrectionImageFilter"];
 *   out [label="Line integrals"];
 *   in -> crop -> median -> bin -> scatter -> log -> rings -> wpc -> out;
 * }
 * \enddot
 *
 * Steps that the settings leave out are not in the pipeline (settings that do nothing pass the input
 * through). The order is RTK's ProjectionsReader's. Cropping and binning change the detector grid:
 * the output's origin is the physical centre of its first pixel, its index starts at 0, and binned
 * pixels are `binning` times larger (itk::BinShrinkImageFilter: the mean of each block; a remainder at
 * the high end is dropped). The projection axis is never cropped or binned: the geometry counts
 * projections. Ring removal (not in RTK) comes after the logarithm, where a column's gain error is an
 * offset, and before the water precorrection, which would make that offset depend on the path
 * length; it needs whole rows of every projection, so the input is asked for them. Float images in
 * and out.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT ProjectionPreprocessingFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ProjectionPreprocessingFilter);

  using Self = ProjectionPreprocessingFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;
  using CropFilterType = RowBandRegionOfInterestImageFilter<TImage>;
  using MedianFilterType = ConditionalMedianImageFilter<TImage>;
  using BinningFilterType = itk::BinShrinkImageFilter<TImage, TImage>;
  using ScatterFilterType = BoellaardScatterCorrectionImageFilter<TImage>;
  using LineIntegralFilterType = IntensityToLineIntegralImageFilter<TImage, TImage>;
  using WaterFilterType = WaterPrecorrectionImageFilter<TImage>;
  using SortingRingFilterType = SortingStripeRemovalImageFilter<TImage>;
  using WaveletRingFilterType = WaveletFourierStripeRemovalImageFilter<TImage>;

  itkNewMacro(Self);
  itkTypeMacro(ProjectionPreprocessingFilter, itk::ImageToImageFilter);

  void
  SetParameters(const ProjectionPreprocessing & parameters)
  {
    m_Parameters = parameters;
    this->Modified();
  }
  const ProjectionPreprocessing &
  GetParameters() const
  {
    return m_Parameters;
  }

  /** The inner filters, for what they measured (the I0 of each projection, the scatter subtracted). */
  const LineIntegralFilterType *
  GetLineIntegralFilter() const
  {
    return m_LineIntegral;
  }
  const ScatterFilterType *
  GetScatterFilter() const
  {
    return m_Scatter;
  }
  const SortingRingFilterType *
  GetSortingRingFilter() const
  {
    return m_SortingRings;
  }
  const WaveletRingFilterType *
  GetWaveletRingFilter() const
  {
    return m_WaveletRings;
  }

protected:
  ProjectionPreprocessingFilter();
  ~ProjectionPreprocessingFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  /** Connects the steps the parameters ask for; returns the last (null when there is none). */
  itk::ImageSource<TImage> *
  Connect();

  ProjectionPreprocessing m_Parameters;
  typename CropFilterType::Pointer m_Crop = CropFilterType::New();
  typename MedianFilterType::Pointer m_Median = MedianFilterType::New();
  typename BinningFilterType::Pointer m_Binning = BinningFilterType::New();
  typename ScatterFilterType::Pointer m_Scatter = ScatterFilterType::New();
  typename LineIntegralFilterType::Pointer m_LineIntegral = LineIntegralFilterType::New();
  typename SortingRingFilterType::Pointer m_SortingRings = SortingRingFilterType::New();
  typename WaveletRingFilterType::Pointer m_WaveletRings = WaveletRingFilterType::New();
  typename WaterFilterType::Pointer m_Water = WaterFilterType::New();
  itk::ImageSource<TImage> * m_Last = nullptr;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctProjectionPreprocessingFilter.hxx"
#endif

#endif
