#ifndef cbctOppositeViewAxisCalibration_h
#define cbctOppositeViewAxisCalibration_h

#include "ConeBeamCTExport.h"
#include "cbctAxisCalibration.h"
#include "cbctAxisCorrection.h"

namespace cbct
{

/** \class OppositeViewAxisCalibration
 * \brief The rotation axis' offset along u and the detector's roll, from each ray and the same line
 * measured from the opposite side of the orbit.
 *
 * Azevedo, Schneberk, Fitch and Martz (IEEE Trans. Nucl. Sci. 37(4):1525-1540, 1990, "Calculation
 * of the rotational centers in computed tomography sinograms") find the centre of rotation from the
 * symmetry of views 180 degrees apart: with parallel rays, the view at theta + 180 degrees mirrored
 * about the projected rotation axis is the view at theta. A cone beam breaks that mirror: a point at
 * depth z is magnified SDD / (SID - z) in one view and SDD / (SID + z) in the other, 8% apart for a
 * micro-CT object 4 mm from the axis at 100 mm from the source, and registering mirrored views then
 * biases the roll by tenths of a degree (measured). So each ray is compared with its conjugate, the
 * same line measured from the other side: for fan beams P(beta, gamma) = P(beta + 180 + 2 gamma,
 * -gamma) (Parker, Med. Phys. 9(2):254-257, 1982), the opposite view shifted by twice the fan angle.
 * Off the mid-plane a cone beam has no exact conjugates; the ray's point nearest the rotation axis is
 * projected into the conjugate view, whose error is in the ray's height, not in the axis' offset. That
 * error grows with the ray's angle to the orbit's plane (the conjugate misses what the ray crosses at
 * depth z by about 2 z tan(angle) in height), and on a micro-CT of +-11 degrees it biased the roll by
 * 0.13 to 0.26 degree (measured: truth -0.11, fitted -0.24; truth 0, fitted -0.26), while rays within
 * 5 degrees gave -0.10 and 0.37 for -0.11 and 0.37. So rays steeper than MaximumConeAngle are left out
 * (every ray of a detector whose cone is narrower).
 *
 *  - For each pixel of up to MaximumViews views spread over the scan: its ray in the candidate
 *    geometry (AxisCorrection applied to the nominal one), the source position on the other end of the
 *    ray's chord through the orbit, and there the two views whose source azimuths bracket it,
 *    interpolated linearly; a gap wider than three median steps (a short scan's open end) gives no
 *    conjugate. Views must be at most MaximumStep degrees apart for the interpolation.
 *  - Flat-field errors: on a full scan the mean of all views is subtracted from both sides first. A
 *    defective column or a gain error stands still on the detector, so it is in the mean and leaves
 *    the comparison; the mean over a full turn satisfies the conjugate relation itself (it is
 *    symmetric in the fan angle), so removing it keeps the relation.
 *  - The cost: the weighted mean squared difference between the rays and their conjugates, each pixel
 *    weighted by a taper to zero over the last four pixels before any detector edge it is read at (so
 *    truncation and a half-fan detector, whose conjugates exist only near the axis, are handled, and
 *    the cost does not jump as pixels move off the detector).
 *  - Search: the offset scanned over +-SearchRange pixels on a coarse binning (the roll at its nominal
 *    value), then quadratic fits of the cost on 3 x 3 grids of offset and roll, moved and halved down
 *    to a tenth of a binned pixel, on finer and finer binnings up to 256 columns (derivative-free: the
 *    cost is flat along the roll, where Gauss-Newton's curvature estimate made its steps crawl).
 *  - Interpolation: the views are smoothed by a Gaussian of two binned pixels first. Bilinear
 *    interpolation of the conjugates' sharp edges errs by an amount that changes with where they fall
 *    between pixels, and the cost, very flat along the roll on a coarse detector, preferred candidates
 *    whose conjugates fall on pixel centres: 0.23 or 0.37 degree for a roll of 0.3 on 128 rows (the axis
 *    on a pixel, or a quarter pixel off one) with a Gaussian of one pixel, 0.285 and 0.316 with two; 0.28
 *    and 0.42 for 0.5 on 64 rows. (Interpolating the own samples alike, at the conjugates' fraction of a
 *    pixel, helped on these coarse detectors but moved the roll of a 512-column scan from 0.216 to 0.31
 *    for 0.2: not done.)
 *  - Uncertainty: jackknife over eight groups of views (each group left out in turn): the spread of
 *    estimates from different angles, which includes the cone beam's approximation, not only noise.
 *
 * Tilt is not fitted here. Errors (itk::ExceptionObject, naming what is missing): fewer than
 * MinimumViews views or views further apart than MaximumStep, no conjugate rays, an optimum at the
 * edge of the search range, a cost that does not change with the offset (a blank scan) or a search
 * that does not converge.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT OppositeViewAxisCalibration : public AxisCalibration
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(OppositeViewAxisCalibration);

  using Self = OppositeViewAxisCalibration;
  using Superclass = AxisCalibration;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(OppositeViewAxisCalibration, AxisCalibration);

  /** Views needed at least, and the largest median angular step between them (degrees) across which
   * a conjugate view is interpolated. */
  static constexpr unsigned int MinimumViews = 36;
  static constexpr double MaximumStep = 6.;
  /** Rays further than this from the orbit's plane (degrees) are not compared (see the class comment). */
  static constexpr double MaximumConeAngle = 5.;

  /** How the offset is written (AxisCorrection::OffsetModel; default Stage). */
  void
  SetOffsetModel(AxisCorrection::OffsetModel model)
  {
    m_OffsetModel = model;
    this->Modified();
  }
  AxisCorrection::OffsetModel
  GetOffsetModel() const
  {
    return m_OffsetModel;
  }

  /** Views whose rays are compared with their conjugates, at most (default 32); the conjugates are
   * read from every view. */
  itkSetMacro(MaximumViews, unsigned int);
  itkGetConstMacro(MaximumViews, unsigned int);

  /** Subtract the mean view of a full scan first (default on; see the class comment). */
  itkSetMacro(SubtractMeanView, bool);
  itkGetConstMacro(SubtractMeanView, bool);
  itkBooleanMacro(SubtractMeanView);

  /** Runs the calibration. Throws itk::ExceptionObject when the data cannot give the fit. */
  GeometryCalibrationResult
  Compute() override;

protected:
  OppositeViewAxisCalibration() = default;
  ~OppositeViewAxisCalibration() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  AxisCorrection::OffsetModel m_OffsetModel = AxisCorrection::OffsetModel::Stage;
  unsigned int m_MaximumViews = 32;
  bool m_SubtractMeanView = true;
};

} // namespace cbct

#endif
