#ifndef cbctCalibrationSupport_h
#define cbctCalibrationSupport_h

// What the geometry calibrations (OppositeViewAxisCalibration, SharpnessCalibration) share: checks of
// their inputs, binned copies of the projections, subsets of views, the detector's size at the axis,
// how far the object reaches toward the detector's edges, and a parabola through a score's peak.
// Private to the library (src/).

#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>

#include <string>
#include <vector>

namespace cbct::detail
{

using CalibrationImage = itk::Image<float, 3>;

/** Refuses what no calibration can use: no projections or geometry, a geometry of another count,
 * bare matrices, parallel beam, non-finite pixels. `method` names the calibration in messages. */
void
CheckCalibrationInputs(const CalibrationImage * projections,
                       const ThreeDCircularProjectionGeometry * geometry,
                       const std::string & method);

/** Projections `views` of `projections`, averaged in blocks of `binning` x `binning` pixels (the last
 * partial block of a row or column dropped), with their grid: spacing x binning, the first pixel at
 * the first block's centre, the third axis indexing `views` in order. */
CalibrationImage::Pointer
BinnedViews(const CalibrationImage * projections, unsigned int binning, const std::vector<unsigned int> & views);

/** The projections `views` of `geometry`, in that order. */
ThreeDCircularProjectionGeometry::Pointer
GeometryOfViews(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & views);

/** About `count` views spread evenly over the projection indices [0, total) (all when count >= total). */
std::vector<unsigned int>
EvenlySpreadViews(unsigned int total, unsigned int count);

/** Whether the geometry covers a full turn (source azimuths over more than 360 degrees less three
 * median steps), as FDK's weighting decides between full and short scans. */
bool
IsFullScan(const ThreeDCircularProjectionGeometry * geometry);

/** The largest binning (a power of two) that leaves at least `columns` detector columns. */
unsigned int
BinningForColumns(unsigned int detectorColumns, unsigned int columns);

/** Which side(s) of the detector the object reaches in more than half of `views` (pixels within two
 * columns of an edge above 5% of the stack's largest value): "" when neither, else "left", "right" or
 * "left and right". */
std::string
TruncatedSides(const CalibrationImage * projections, const std::vector<unsigned int> & views);

/** The peak of y(x) by a least-squares parabola through the samples nearest the largest, at most
 * `points` of them; `curvature` receives the parabola's second derivative (negative at a peak) and
 * `standardError` the vertex's standard error from the fit's residuals (NaN with three points). Returns
 * NaN when there are fewer than three samples or the parabola opens upward. */
double
ParabolaPeak(const std::vector<double> & x,
             const std::vector<double> & y,
             std::size_t points,
             double * curvature = nullptr,
             double * standardError = nullptr);

/** The height y (mm) at which the rotation axis' point projects onto the detector's row coordinate v
 * (mm) in projection 0 of `geometry` (secant steps: the map is nearly linear). */
double
AxisHeightAtRow(const ThreeDCircularProjectionGeometry * geometry, double v);

/** A number with `digits` decimals, for the logs. */
std::string
Fixed(double value, int digits);

} // namespace cbct::detail

#endif
