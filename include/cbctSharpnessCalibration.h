#ifndef cbctSharpnessCalibration_h
#define cbctSharpnessCalibration_h

#include "ConeBeamCTExport.h"
#include "cbctAxisCalibration.h"
#include "cbctAxisCorrection.h"
#include "cbctCalibrationSliceReconstructor.h"
#include "cbctSharpnessScore.h"

#include <itkImage.h>
#include <itkObject.h>
#include <itkObjectFactory.h>

#include <functional>

namespace cbct
{

/** \class SharpnessCalibration
 * \brief The rotation axis' offset, the detector's roll and the axis' tilt that make FDK slices
 * sharpest: passive auto-focus.
 *
 * Kingston, Sakellariou, Varslot, Myers and Sheppard (Med. Phys. 38(9):4934-4945, 2011, "Reliable
 * automatic alignment of tomographic projection data by passive auto-focus") reconstruct slices with
 * candidate alignment parameters and keep those that maximise a sharpness measure, searching coarse
 * to fine; this class does so with the library's FDK (CalibrationSliceReconstructor: the CPU filter,
 * or the CUDA one on a GPU), so it serves full and short scans (Parker weights, which follow each
 * candidate axis).
 *
 * \par Offset and roll from slices at several heights
 * A roll makes the projected axis lean: the axis offset seen by a slice grows linearly with the
 * slice's height. So each of NumberOfSlices slices (spread over the heights where the object is and
 * whose field of view projects onto the detector) gets its own one-dimensional search of the offset
 * at the current roll, and the offsets found are turned into the places where the rotation axis
 * projects at those heights; one least-squares line through them gives the offset and the roll
 * (AxisCorrection::FitToAxisPoints, on the exact projection). A slice's offset found at a wrong roll is
 * pulled toward that roll's line (measured: a fit moves the roll only a fifth of the way to the truth),
 * so the line fit is a fixed-point iteration; two of its steps measure its rate and a secant step goes
 * to the fixed point. On a 128-row detector the roll comes within 0.05 degree; OppositeViewAxisCalibration
 * measures it better, and GeometryCalibration takes its roll from there.
 *
 * \par Field of view and weights
 * The slices span the disc the detector sees from both sides and are reconstructed without
 * displaced-detector weights: with the disc beyond a candidate axis' near reach the weighting would turn
 * on, and an axis error would then scale the outer region radially instead of doubling its edges, which
 * no sharpness sees (measured: the sharpness grew with the offset instead of peaking). A half-fan scan
 * is refused for that reason: the region it sees from both sides is narrow, and its sharpness did not
 * find the axis (measured); its opposite views do.
 *
 * \par Coarse to fine
 * Projections are binned by powers of two (the coarsest keeps 64 or more columns, the finest at most
 * MaximumColumns) and views thinned to about pi/2 per column of the binned detector; slices have
 * voxels of the binned pixel at the axis and span the field of view. The coarsest level scans the
 * offset over +-SearchRange pixels in steps of one binned pixel; each finer level searches +-2 of its
 * pixels about the previous best; the finest samples +-2 pixels in half-pixel steps and fits a parabola
 * through the five samples nearest the best one (sub-step precision).
 *
 * \par Tilt
 * With FitTilt, the tilt (OutOfPlaneAngle) is searched by the summed score of all slices over
 * +-TiltRange degrees, coarse to fine with a parabola, after offset and roll, whose offset is then
 * refined once more. A score that changes by less than a percent over the range is refused as
 * undetermined.
 *
 * \par Uncertainty
 * The offset's and roll's standard errors come from the scatter of the slices about the fitted line
 * (three or more slices), or from the parabolas' fits; the tilt's from its parabola.
 *
 * Errors (itk::ExceptionObject, naming what is missing): fewer than MinimumViews views or less than
 * 180 degrees covered; a half fan; no slice with structure; a roll asked for with the object in one
 * slice's height; a best offset or tilt at the edge of its search range; a score that does not change
 * over the range (nothing to focus on); an offset or roll whose uncertainty exceeds
 * MaximumOffsetUncertainty or MaximumRollUncertainty (the slices disagree: the data do not determine it).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT SharpnessCalibration : public AxisCalibration
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SharpnessCalibration);

  using Self = SharpnessCalibration;
  using Superclass = AxisCalibration;
  using Pointer = itk::SmartPointer<Self>;
  using Hardware = CalibrationSliceReconstructor::Hardware;

  itkNewMacro(Self);
  itkTypeMacro(SharpnessCalibration, AxisCalibration);

  /** Views needed at least. */
  static constexpr unsigned int MinimumViews = 24;
  /** The largest uncertainties of a fit that is written (pixels of the unbinned detector, degrees):
   * fits of known answers stay below a tenth of them, and beyond them the slices disagree. */
  static constexpr double MaximumOffsetUncertainty = 2.;
  static constexpr double MaximumRollUncertainty = 1.;

  /** What to fit (default: offset and roll; FitRoll is AxisCalibration's). SearchRange is the offset's
   * half-width about the start. */
  itkSetMacro(FitOffset, bool);
  itkGetConstMacro(FitOffset, bool);
  itkSetMacro(FitTilt, bool);
  itkGetConstMacro(FitTilt, bool);

  /** Where the search starts (e.g. OppositeViewAxisCalibration's result); its model is the one written.
   * Default: no correction, the stage model. */
  void
  SetStart(const AxisCorrection & start)
  {
    m_Start = start;
    this->Modified();
  }
  const AxisCorrection &
  GetStart() const
  {
    return m_Start;
  }

  /** Half-width of the tilt search about the start, in degrees (default 3). */
  itkSetMacro(TiltRange, double);
  itkGetConstMacro(TiltRange, double);

  /** Slices at several heights (default 5; 1 fits no roll). */
  itkSetMacro(NumberOfSlices, unsigned int);
  itkGetConstMacro(NumberOfSlices, unsigned int);
  /** Columns of the finest level at most (default 1024: a larger detector is binned). */
  itkSetMacro(MaximumColumns, unsigned int);
  itkGetConstMacro(MaximumColumns, unsigned int);

  void
  SetMeasure(SharpnessScore::Measure measure)
  {
    m_Measure = measure;
    this->Modified();
  }
  SharpnessScore::Measure
  GetMeasure() const
  {
    return m_Measure;
  }

  /** CPU (default) or CUDA for the slices' FDK. */
  void
  SetHardware(Hardware hardware)
  {
    m_Hardware = hardware;
    this->Modified();
  }
  Hardware
  GetHardware() const
  {
    return m_Hardware;
  }

  /** Runs the calibration. Throws itk::ExceptionObject when the data cannot give the fit. */
  GeometryCalibrationResult
  Compute() override;

  /** Slices reconstructed by the last Compute() (for reports and timings). */
  itkGetConstMacro(NumberOfReconstructions, unsigned int);

protected:
  SharpnessCalibration() = default;
  ~SharpnessCalibration() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  bool m_FitOffset = true;
  bool m_FitTilt = false;
  AxisCorrection m_Start;
  double m_TiltRange = 3.;
  unsigned int m_NumberOfSlices = 5;
  unsigned int m_MaximumColumns = 1024;
  SharpnessScore::Measure m_Measure = SharpnessScore::Measure::GradientEnergyPerVariation;
  Hardware m_Hardware = Hardware::Cpu;
  unsigned int m_NumberOfReconstructions = 0;
};

} // namespace cbct

#endif
