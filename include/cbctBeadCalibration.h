#ifndef cbctBeadCalibration_h
#define cbctBeadCalibration_h

#include "cbctBeadDetector.h"
#include "cbctBeadObservation.h"
#include "cbctBeadPhantom.h"
#include "cbctCircularOrbitBeadFit.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>

#include <string>
#include <vector>

namespace cbct
{

/** The settings of BeadCalibration (outside the class so that they can be a default argument). */
struct BeadCalibrationOptions
{
  /** circular: one set of RTK parameters for the scan; matrices: one 3x4 matrix per projection;
   * automatic: circular when it explains the beads as well as free matrices do (mean reprojection
   * error at most 1.5 times theirs plus 0.05 pixel), else matrices. */
  enum class Orbit
  {
    Automatic,
    Circular,
    Matrices
  };
  Orbit orbit = Orbit::Automatic;
  /** The circular fit's orbit parameters to fit (CircularOrbitBeadFit's order); all by default. */
  std::array<bool, CircularOrbitBeadFit::NumberOfOrbitParameters> fitted{ { true, true, true, true, true, true, true, true } };
  /** Bead detection threshold (line integral above the background); 0: automatic. */
  double threshold = 0.;
  /** Refuse a fit whose mean reprojection error exceeds this (pixels). */
  double maximumMeanError = 0.5;
  /** Search the phantom's rotation about the rotation axis (y) before matching (it may stand at any
   * azimuth); off: it stands as described. */
  bool searchAzimuth = true;
};

/** \class BeadCalibration
 * \brief The geometry of a scan from the projections of a bead phantom (cbct::BeadPhantom): the
 * circular orbit's RTK parameters, or one projection matrix per view.
 *
 * \dot
 * digraph BeadCalibration {
 *   rankdir=LR; node [shape=box];
 *   P [label="projections"]; D [label="BeadDetector\nspots, sub-pixel"]; S [label="size classes\n(mass)"];
 *   M [label="BeadMatcher\nwhich bead"]; C [label="CircularOrbitBeadFit"]; X [label="ProjectionMatrixBeadFit"];
 *   G [label="geometry"];
 *   P -> D -> S -> M; M -> C -> G; M -> X -> G;
 * }
 * \enddot
 *
 * 1. Detection (BeadDetector), projection by projection on the thread pool; the background square
 *    and windows are sized from the largest bead's diameter on the detector under the nominal
 *    geometry, and the sphere fits may hold the radii of the small and large beads at the
 *    isocentre's magnification.
 * 2. Size classes: the spots' masses (which grow as the bead's volume) split into small and large
 *    beads (two means of their logarithms); a spot whose mass is more than 1.57 times (or less than
 *    1 / 1.57 of) its class's typical mass is left out (two beads merged, a faint false spot).
 * 3. Identification: the phantom's azimuth about the rotation axis is searched first (5 degree
 *    steps, then 0.5) on the projection with the most spots: a helix turned about its axis looks
 *    like a shifted one, which the size code tells apart. Then in every projection the beads
 *    predicted by the nominal geometry are matched to the spots (BeadMatcher); the gate is 0.45
 *    times the median distance between a predicted bead and its nearest neighbour, and beads
 *    predicted nearer than 1.5 bead diameters to another are not matched (they may cover each
 *    other).
 * 4. Fits: the circular orbit (CircularOrbitBeadFit) and one matrix per projection
 *    (ProjectionMatrixBeadFit), as chosen; spots more than max(1 pixel, 6 x 1.4826 x the median
 *    error) from the first fit are left out and the fit repeated.
 *
 * World frame: for the circular orbit the rotation axis is y, the gantry angles are the nominal
 * ones, the origin is on the axis at the phantom's centre height; for matrices the world is the
 * phantom's frame (as for LEAP's and vendors' phantom calibrations: the phantom defines the patient
 * frame), so place the phantom's axis along the rotation axis and its bead 0 where the description
 * puts it.
 *
 * Bad input throws an itk::ExceptionObject naming what is missing: too few projections (circular:
 * 4 views over 30 degrees), beads too small on the detector (under 2 pixels across) or not found,
 * beads that cannot be identified (ambiguous or too few matched), a projection with fewer than 6
 * beads identified (matrices), a fit that does not converge or leaves a mean reprojection error
 * above the limit. No geometry is returned from a fit that failed.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BeadCalibration
{
public:
  using ProjectionsType = itk::Image<float, 3>;
  using GeometryType = ThreeDCircularProjectionGeometry;
  using Options = BeadCalibrationOptions;

  struct Result
  {
    GeometryType::Pointer geometry;
    bool circular = false;           // which model the geometry is
    ReprojectionError error;         // of the chosen model, pixels
    std::vector<double> viewError;   // mean per projection (pixels; NaN where no bead was seen)
    ReprojectionError circularError; // of each model where it was fitted (count 0 where not)
    ReprojectionError matricesError;
    CircularOrbitBeadFit::Result circularFit;
    double azimuthDegrees = 0.;       // the phantom's azimuth the search found
    unsigned int spots = 0;           // spots found in all projections
    unsigned int merged = 0;          // left out as merged beads (shape or mass)
    unsigned int atEdge = 0;          // left out at the detector's border
    unsigned int ambiguousViews = 0;  // projections where the beads could not be identified
    unsigned int observations = 0;    // beads identified and used, in all projections
    unsigned int outliers = 0;        // identified but left out of the fit
    std::vector<BeadObservation> used; // the observations of the final fit
    std::vector<std::string> warnings;
  };

  /** Calibrates `nominal` (cone beam, one projection per slice of `projections`, line integrals)
   * from the beads of `phantom`. */
  static Result
  Calibrate(const ProjectionsType * projections, const GeometryType * nominal, const BeadPhantom * phantom,
            const Options & options = Options());

  /** A few lines of text: what was found and fitted, the reprojection errors. */
  static std::string
  Summary(const Result & result, const BeadPhantom * phantom);
};

} // namespace cbct

#endif
