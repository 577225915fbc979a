#ifndef cbctFDKConeBeamReconstructionFilter_h
#define cbctFDKConeBeamReconstructionFilter_h

#include "cbctBufferedImageSource.h"
#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctFDKStageTimes.h"
#include "cbctFDKWeightProjectionFilter.h"
#include "cbctFFTRampImageFilter.h"

#include <itkImageToImageFilter.h>
#include <algorithm>
#include <iterator>

namespace cbct
{

/** \class FDKConeBeamReconstructionFilter
 * \brief Feldkamp-Davis-Kress reconstruction: weighting, ramp filtering and backprojection.
 *
 * Input 0 is the volume to add to (its grid is the output's: use a ConstantImageSource of 0),
 * input 1 the projection stack (line integrals), with a geometry of as many projections. The
 * volume's transaxial extent is the field of view that decides displaced-detector weighting
 * (DisplacedDetectorCoverage).
 *
 * \dot
 * digraph FDK {
 *   node [shape=box];
 *   projections [label="Projections (input 1)"]; volume [label="Volume (input 0)"];
 *   weight [label="FDKWeightProjectionFilter"]; ramp [label="FFTRampImageFilter"];
 *   bp [label="FDKBackProjectionImageFilter"]; out [label="Output volume"];
 *   projections -> weight -> ramp -> bp; volume -> bp -> out;
 * }
 * \enddot
 *
 * The three stages are held through base-class pointers, so the CUDA composite swaps in its CUDA
 * stages and reuses this wiring. A region of the output asks only for the projection rows it needs,
 * so an itk::StreamingImageFilter or a streaming writer bounds the memory. The time of each stage
 * (summed over streamed pieces) is kept for reports.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT FDKConeBeamReconstructionFilter
  : public itk::ImageToImageFilter<TInputImage, TOutputImage>
  , public FDKStageTimes
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FDKConeBeamReconstructionFilter);

  using Self = FDKConeBeamReconstructionFilter;
  using Superclass = itk::ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using GeometryType = ThreeDCircularProjectionGeometry;
  using WeightFilterType = FDKWeightProjectionFilter<TInputImage, TInputImage>;
  using RampFilterType = FFTRampImageFilter<TInputImage, TInputImage>;
  using BackProjectionFilterType = FDKBackProjectionImageFilter<TInputImage, TOutputImage>;

  itkNewMacro(Self);
  itkTypeMacro(FDKConeBeamReconstructionFilter, itk::ImageToImageFilter);

  void
  SetGeometry(const GeometryType * geometry);
  const GeometryType *
  GetGeometry() const
  {
    return m_Geometry;
  }

  /** Input 1: the projection stack. */
  void
  SetProjections(const TInputImage * projections)
  {
    this->SetNthInput(1, const_cast<TInputImage *>(projections));
  }

  WeightFilterType *
  GetWeightFilter()
  {
    return m_WeightFilter;
  }
  RampFilterType *
  GetRampFilter()
  {
    return m_RampFilter;
  }
  BackProjectionFilterType *
  GetBackProjectionFilter()
  {
    return m_BackProjectionFilter;
  }

  /** Voxels outside the scan's field of view (those some projection does not see) are not
   * backprojected and are written as 0 (FieldOfViewMode::Zero) or NaN; Off (the default) reconstructs
   * every voxel, as RTK does. The backprojection filter's setting (FieldOfViewMask). */
  void
  SetFieldOfView(FieldOfViewMode mode)
  {
    m_BackProjectionFilter->SetFieldOfView(mode);
    this->Modified();
  }
  FieldOfViewMode
  GetFieldOfView() const
  {
    return m_BackProjectionFilter->GetFieldOfView();
  }

  /** Weights, filters and backprojects the projections in batches of this many (0, the default: all
   * at once), each batch asked of the projections input alone, as RTK's ProjectionSubsetSize: a
   * pipeline that reads the projections from disk then holds one batch of the detector rows a piece
   * of the volume needs, not all of them. 0 or a multiple of BackProjectionBatch (64), so that every
   * voxel sums the same projections in the same order: the volume is the same, bit for bit. */
  void
  SetProjectionsPerBatch(itk::SizeValueType projections);
  itkGetConstMacro(ProjectionsPerBatch, itk::SizeValueType);

  // The stage times (summed over pieces): FDKStageTimes.

protected:
  FDKConeBeamReconstructionFilter();
  ~FDKConeBeamReconstructionFilter() override = default;

  /** Replaces a stage (the CUDA composite's constructor does this). */
  void
  SetStages(WeightFilterType * weight, RampFilterType * ramp, BackProjectionFilterType * backProjection);

  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  /** The volume and the projections live in different spaces: skip ITK's same-grid check. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  void
  WireStages();

  GeometryType::ConstPointer m_Geometry;
  typename WeightFilterType::Pointer m_WeightFilter;
  typename RampFilterType::Pointer m_RampFilter;
  typename BackProjectionFilterType::Pointer m_BackProjectionFilter;
  itk::SizeValueType m_ProjectionsPerBatch = 0;
  // Hands the sum of the batches so far to the backprojection of the next batch.
  typename BufferedImageSource<TOutputImage>::Pointer m_SumSource;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
