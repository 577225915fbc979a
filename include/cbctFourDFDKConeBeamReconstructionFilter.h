#ifndef cbctFourDFDKConeBeamReconstructionFilter_h
#define cbctFourDFDKConeBeamReconstructionFilter_h

#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctFDKStageTimes.h"
#include "cbctFDKWeightProjectionFilter.h"
#include "cbctFFTRampImageFilter.h"
#include "cbctFourDGating.h"

#include <itkImage.h>
#include <itkImageToImageFilter.h>

#include <algorithm>
#include <iterator>
#include <vector>

namespace cbct
{

/** \class FourDFDKConeBeamReconstructionFilter
 * \brief Respiratory-correlated (4D) FDK: one FDK volume per breathing phase, each from the
 * projections of that phase.
 *
 * Input 0 is the frame grid and the values every frame starts from (a ConstantImageSource of 0),
 * input 1 the projection stack (line integrals), with a geometry and one phase in [0, 1) per
 * projection (RTK's signal file: PhaseSignal::Read). The output is an image of one more dimension:
 * the frame grid in its first three axes, frame f (centred at phase f / N) along the fourth (spacing
 * 1, origin 0).
 *
 * \dot
 * digraph FourDFDK {
 *   node [shape=box];
 *   projections [label="Projections (input 1)"]; weight [label="FDKWeightProjectionFilter (whole scan)"];
 *   ramp [label="FFTRampImageFilter"]; gate [label="FourDGating: frame f's projections x angular weight"];
 *   bp [label="FDKBackProjectionImageFilter (frame f's geometry)"]; out [label="4D output, frame f"];
 *   projections -> weight -> ramp -> gate -> bp -> out;
 * }
 * \enddot
 *
 * The cosine and redundancy weights and the ramp filter do not depend on the frame, so every
 * projection is weighted and filtered once, with the whole scan's geometry (its short-scan and
 * displaced-detector decisions are the scan's). Only FDK's angular weight differs from frame to
 * frame: each cluster of the frame's projections (one per breathing cycle) stands for its share of the
 * angle, spread evenly over its projections (FourDGating), a scalar per projection applied when the
 * frame's stack is gathered. Each frame is
 * then backprojected from its projections alone. By default each projection goes to its nearest
 * frame, so each is backprojected once over all frames.
 *
 * Frame by frame the filter holds the filtered stack, one frame's share of it and one frame; the
 * 4D output is whole in memory (the 3D frames stream no further).
 * \ingroup ConeBeamCT
 */
template <typename TImage = itk::Image<float, 3>, typename TOutputImage = itk::Image<float, 4>>
class ITK_TEMPLATE_EXPORT FourDFDKConeBeamReconstructionFilter
  : public itk::ImageToImageFilter<TImage, TOutputImage>
  , public FDKStageTimes
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FourDFDKConeBeamReconstructionFilter);

  using Self = FourDFDKConeBeamReconstructionFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using GeometryType = ThreeDCircularProjectionGeometry;
  using WeightFilterType = FDKWeightProjectionFilter<TImage, TImage>;
  using RampFilterType = FFTRampImageFilter<TImage, TImage>;
  using BackProjectionFilterType = FDKBackProjectionImageFilter<TImage, TImage>;
  using WindowShape = FourDGating::WindowShape;

  static_assert(TImage::ImageDimension == 3 && TOutputImage::ImageDimension == 4,
                "4D FDK: 3D projections and frame grid, a 4D output");

  itkNewMacro(Self);
  itkTypeMacro(FourDFDKConeBeamReconstructionFilter, itk::ImageToImageFilter);

  void
  SetGeometry(const GeometryType * geometry)
  {
    m_Geometry = geometry;
    this->Modified();
  }
  const GeometryType *
  GetGeometry() const
  {
    return m_Geometry;
  }

  /** Input 1: the projection stack. */
  void
  SetProjections(const TImage * projections)
  {
    this->SetNthInput(1, const_cast<TImage *>(projections));
  }

  /** The phase of each projection, in [0, 1) (checked when the filter runs, naming the index). */
  void
  SetPhases(const std::vector<double> & phases)
  {
    if (phases != m_Phases)
    {
      m_Phases = phases;
      this->Modified();
    }
  }
  const std::vector<double> &
  GetPhases() const
  {
    return m_Phases;
  }

  /** Number of frames N (default 10): frame f is centred at phase f / N. */
  itkSetMacro(NumberOfFrames, unsigned int);
  itkGetConstMacro(NumberOfFrames, unsigned int);
  /** Gating window, a fraction of the breathing cycle in [0, 1]; 0 (default): 1/N for the
   * rectangular window (each projection in its nearest frame), 2/N for the triangular. */
  itkSetMacro(GatingWindow, double);
  itkGetConstMacro(GatingWindow, double);
  /** Rectangular (default) or triangular gating window (FourDGating). */
  void
  SetWindowShape(WindowShape shape)
  {
    if (shape != m_WindowShape)
    {
      m_WindowShape = shape;
      this->Modified();
    }
  }
  WindowShape
  GetWindowShape() const
  {
    return m_WindowShape;
  }

  /** Voxels outside the scan's field of view (those some projection of the whole scan does not see:
   * the same in every frame) are not backprojected and are written as 0 or NaN; Off (the default)
   * reconstructs every voxel (FDKBackProjectionImageFilter::SetFieldOfView()). */
  void
  SetFieldOfView(FieldOfViewMode mode)
  {
    if (mode != m_FieldOfView)
    {
      m_FieldOfView = mode;
      this->Modified();
    }
  }
  FieldOfViewMode
  GetFieldOfView() const
  {
    return m_FieldOfView;
  }

  /** The weighting and the ramp filter, applied once to the whole stack (set their options here:
   * window, cut-off, truncation correction, displaced-detector weighting). */
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

  /** The frames of the last update (their projections and angular weights). */
  const std::vector<FourDGating::Frame> &
  GetFrames() const
  {
    return m_Frames;
  }

  // The stage times, summed over updates (weighting, filtering, backprojection of all frames; upload
  // and download the CUDA filter's): FDKStageTimes.

protected:
  FourDFDKConeBeamReconstructionFilter();
  ~FourDFDKConeBeamReconstructionFilter() override = default;

  /** Checks the geometry, the projections and the phases, selects the frames (a frame without
   * projections throws here) and sets the 4D grid. */
  void
  GenerateOutputInformation() override;
  /** Both inputs whole. */
  void
  GenerateInputRequestedRegion() override;
  /** The output whole: frames are made whole. */
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override;
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

  /** The backprojection filter of the whole geometry (matrices, detector rows of a volume region). */
  BackProjectionFilterType *
  GetBackProjectionFilter()
  {
    return m_BackProjectionFilter;
  }
  /** An image without pixels holding the frame grid (input 0's information). */
  typename TImage::Pointer
  FrameGrid() const;

  GeometryType::ConstPointer m_Geometry;
  std::vector<double> m_Phases;
  unsigned int m_NumberOfFrames = 10;
  double m_GatingWindow = 0.;
  WindowShape m_WindowShape = WindowShape::Rectangular;
  FieldOfViewMode m_FieldOfView = FieldOfViewMode::Off;
  std::vector<FourDGating::Frame> m_Frames;
  typename WeightFilterType::Pointer m_WeightFilter;
  typename RampFilterType::Pointer m_RampFilter;
  typename BackProjectionFilterType::Pointer m_BackProjectionFilter;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFourDFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
