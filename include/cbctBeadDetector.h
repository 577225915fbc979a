#ifndef cbctBeadDetector_h
#define cbctBeadDetector_h

#include "ConeBeamCTExport.h"

#include <cstddef>
#include <vector>

namespace cbct
{

/** \class BeadDetector
 * \brief Finds the beads (ball bearings) of a calibration phantom in one projection of line
 * integrals and measures their centres to a fraction of a pixel.
 *
 * 1. Background: the projection less its grey-level opening by a square a little wider than the
 *    largest bead (a top-hat), which removes the plastic body and any slowly varying background and
 *    keeps dense spots smaller than the square.
 * 2. Noise: sigma from the median absolute difference of horizontal neighbours (beads are too few
 *    to move it); spots are the 8-connected pixels whose top-hat exceeds the threshold: a given
 *    value, or the larger of the top-hat's median plus NoiseFactor sigma (the opening, a local
 *    minimum, lies below the mean under noise and lifts the top-hat by 2 to 3 sigma) and
 *    RelativeThreshold times the highest top-hat.
 * 3. Centroid: the intensity-weighted centroid of the projection less a plane fitted to a ring of
 *    background around the spot (pixels of other spots left out), over a disc a little wider than
 *    the spot with a one-pixel soft edge, re-centred until it moves less than 1e-4 pixel. The plane,
 *    not the top-hat, is subtracted: the opening's minimum is biased by noise, a plane fit is not.
 * 4. Centre: the least-squares fit of a sphere's projection, A sqrt(a^2 - d^2) on a quadratic background, to the
 *    pixels within a + 2.5 pixels (amplitude and plane solved for linearly, centre and radius by a
 *    simplex search: the samples make the sum of squares kinked; when the radius found is more than
 *    10 % from the nearest expected radius, the fit is repeated with that radius held, since a bead
 *    a few pixels across may hold so few samples that several centres and radii fit them exactly). Centroids of point samples are
 *    biased by the sampling when a bead is a few pixels across (on exact projections of beads 2.8
 *    and 6 pixels across, 0.065 and 0.035 pixel on average, up to 0.16), the fit is not (0.001 and
 *    0.0006 pixel); it is also the better estimate under noise. Where it fails the centroid is kept.
 * 5. Checks: a spot whose disc or ring leaves the projection is counted as `atEdge` (a bead leaving
 *    the detector has a biased centre); a spot of 12 pixels or more whose second moments (top-hat
 *    weighted, over its pixels) are elongated (sqrt(lambda_max / lambda_min) > MaximumElongation: a
 *    round bead gives 1 to 1.3, two equal beads touching 2.4, overlapping by half their diameter
 *    1.5) or that has too little background around it is counted as `merged` (beads covering each
 *    other); both are left out. Smaller spots, and beads that cover each other almost entirely, are
 *    told by their mass (cbct::BeadCalibration).
 *
 * Pixel coordinates are indices (i along the first axis, j along the second) of the centre of
 * pixel (0, 0) at (0, 0). The mass (sum of the weights) grows as the bead's volume, which tells
 * large beads from small ones.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BeadDetector
{
public:
  struct Settings
  {
    /** The largest bead's diameter on the detector, in pixels (sets the background square). */
    double beadDiameter = 8.;
    /** Minimum top-hat of a spot, in the projection's unit; 0: automatic (see the class comment). */
    double threshold = 0.;
    double noiseFactor = 6.;
    double relativeThreshold = 0.1;
    double maximumElongation = 1.8;
    /** The radii (pixels) the beads are expected to have on the detector, if known (see step 4). */
    std::vector<double> beadRadii;
  };

  /** One bead found. */
  struct Spot
  {
    double i = 0.;
    double j = 0.;
    double mass = 0.;       // sum of the background-subtracted values over the disc (value x pixel)
    double peak = 0.;       // highest top-hat value
    double radius = 0.;     // the fitted sphere's radius on the detector (pixels)
    double elongation = 1.; // sqrt(lambda_max / lambda_min) of its second moments
    bool fitted = false;    // whether the sphere-profile fit gave the centre (else the centroid)
  };

  struct Result
  {
    std::vector<Spot> spots;
    unsigned int merged = 0; // spots left out as two or more beads covering each other
    unsigned int atEdge = 0; // spots left out as too near the projection's border
    double noise = 0.;       // estimated noise sigma
    double threshold = 0.;   // the threshold used
  };

  /** Detects the beads of one projection of `width` x `height` pixels (row after row). Throws on
   * a non-finite value or setting. */
  static Result
  Detect(const float * pixels, std::size_t width, std::size_t height, const Settings & settings);
};

} // namespace cbct

#endif
