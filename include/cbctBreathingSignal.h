#ifndef cbctBreathingSignal_h
#define cbctBreathingSignal_h

#include "ConeBeamCTExport.h"

#include <itkImage.h>

#include <string>
#include <vector>

namespace cbct
{

/** The parameters of BreathingSignal (outside the class so that they can be a default argument). */
struct BreathingSignalOptions
{
  enum class EdgeDirection
  {
    DenserBelow,
    DenserAbove,
    Both
  };
  enum class PhaseZero
  {
    Minima,
    Maxima
  };
  enum class Method
  {
    PrincipalMotion,
    FollowEdge
  };

  /** The shroud's Gaussian along v, mm (AmsterdamShroudImageFilter::SetSigma). */
  double sigma = 2.;
  /** Which edges the shroud keeps (AmsterdamShroudImageFilter::SetEdgeDirection). */
  EdgeDirection edgeDirection = EdgeDirection::DenserBelow;
  /** How the signal is drawn from the shroud: PrincipalMotion() (default) or FollowEdge(). */
  Method method = Method::PrincipalMotion;
  /** Harmonics of the scan removed, with the mean and a linear trend, from each shroud row and from
   * the signal before its cycles are found; the breathing must have more cycles than this. */
  unsigned int slowHarmonics = 2;
  /** Rows the followed edge may move between consecutive projections (>= 1). */
  unsigned int maximumStep = 2;
  /** Cost of a one-row step, relative to the mean absolute value of the trend-free shroud (>= 0). */
  double stepPenalty = 0.05;
  /** Which extreme of the signal is phase 0. */
  PhaseZero phaseZero = PhaseZero::Minima;
  /** Cycle length in projections; 0: the signal's dominant period. */
  double period = 0.;
  /** The least Regularity() of a signal whose phases are computed (in [0, 1]; 0: no check). */
  double minimumRegularity = 0.5;
};

/** \class BreathingSignal
 * \brief A respiratory signal from the projections themselves and the phase of each projection from
 * its cycles: the Amsterdam shroud, the strongest moving edge followed through it, peaks and troughs.
 *
 * The chain (FromProjections()):
 * 1. the Amsterdam shroud of the line integrals (AmsterdamShroudImageFilter): one column per
 *    projection, one row per detector row, the edges across the rows summed along them;
 * 2. the signal: the slow changes of each shroud row are removed first (a least-squares fit of a
 *    constant, a linear trend and the first `slowHarmonics` harmonics of the scan: how the static
 *    anatomy's edges change as the gantry turns); what is left changes with breathing. Then either
 *    - PrincipalMotion() (default): the first principal component of the rows over time (the change
 *      shared by most rows, which is what a moving edge makes) says which rows breathing changes, and
 *      the signal is the centroid (mm along v) of the shroud over those rows; or
 *    - FollowEdge() (RTK's dynamic-programming idea): the path through the columns that collects the
 *      most of what is left, moving by at most `maximumStep` rows from one projection to the next,
 *      each row of a step costing `stepPenalty` times the mean absolute value of the shroud; the
 *      signal is the path's position v in mm, refined within the row by a parabola.
 *    On the simulated scans of the tests (the Shepp-Logan head around one breathing ellipsoid) the
 *    principal component found the breathing in every case the edge found it, and in several more
 *    (a 3 mm motion, a 5-cycle scan, a low-contrast ellipsoid): the edge follower can jump to a
 *    static edge whose brightness changes with the gantry angle.
 * 3. Phases(): the cycles' extrema: the signal less its slow trend, smoothed over a twelfth of a
 *    cycle, alternates above and below zero (crossings with hysteresis at a quarter of its spread);
 *    each stretch below (above) holds one minimum (maximum), located at the midpoint of where the
 *    signal enters and leaves the quarter of the stretch's depth nearest the extreme (the vertex of
 *    a symmetric extremum, the middle of a flat one such as a pause at exhale).
 *    Phase 0 is at each minimum (PhaseZero::Minima, the default, as RTK's LINEAR_BETWEEN_MINIMA) or
 *    maximum, and grows linearly to 1 at the next one; before the first and after the last extremum
 *    it grows at the rate of the mean cycle (RTK uses the neighbouring cycle, whose length carries
 *    the errors of two extrema, multiplied by the distance extrapolated). The cycle length (in projections) is the dominant
 *    period of the signal (DominantPeriod(), a Fourier power maximum) unless given.
 *
 * Conventions: v points along the detector's rows towards +y, the head in RTK's orientation. For a
 * diaphragm the signal's minima are end-inhale (the diaphragm lowest); for cbct::BreathingPhantom
 * with a positive amplitude along y (the simulator's default) its minima are end-exhale, the
 * phantom's phase 0, so the phases found match the simulation's. Use PhaseZero::Maxima for the other
 * extreme.
 *
 * A signal whose Regularity() at its period is below `minimumRegularity` (default 0.5) is refused
 * rather than turned into phases: no regular breathing was found (a static scan, a structure too
 * faint or moving too little for the detector); give a breathing signal from elsewhere (ReadSignal).
 *
 * Every input is checked: a shroud with fewer than 8 projections or 3 rows, a signal with NaN, an
 * infinity or fewer than 8 samples, bad options, a signal in which fewer than two extrema are found
 * (less than about two breathing cycles) throw an itk::ExceptionObject saying what was found and
 * what was expected.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BreathingSignal
{
public:
  using ProjectionsType = itk::Image<float, 3>;
  using ShroudType = itk::Image<float, 2>;

  using Options = BreathingSignalOptions;
  using EdgeDirection = BreathingSignalOptions::EdgeDirection;
  using PhaseZero = BreathingSignalOptions::PhaseZero;
  using Method = BreathingSignalOptions::Method;

  /** Where the breathing moves the shroud's edges: the first principal component over time of the
   * shroud's rows less their slow changes picks the rows breathing changes (a shifted edge changes
   * the rows around it together), and the signal is the centroid, in mm along v, of each column's
   * shroud over the span of those rows (the loading's rows above a quarter of its largest, two more
   * on each side). It grows as the edges move towards +v. */
  static std::vector<double>
  PrincipalMotion(const ShroudType * shroud, const Options & options = Options());

  /** The edge followed through `shroud` (columns: projections): its position v in mm, per column. */
  static std::vector<double>
  FollowEdge(const ShroudType * shroud, const Options & options = Options());

  /** The phase in [0, 1) of each sample of `signal` (one per projection), from its cycles. */
  static std::vector<double>
  Phases(const std::vector<double> & signal, const Options & options = Options());

  /** Fractional sample positions of the cycles' minima (or maxima, per options.phaseZero). */
  static std::vector<double>
  Extrema(const std::vector<double> & signal, const Options & options = Options());

  /** The phase of each of `count` samples, 0 at each of `positions` (increasing, at least two) and
   * linear in between; before the first and after the last at the mean cycle's rate. */
  static std::vector<double>
  PhasesBetween(const std::vector<double> & positions, std::size_t count);

  /** The signal's dominant period in samples, once the mean, a linear trend and `slowHarmonics`
   * harmonics of its length are removed: the maximum of its Fourier power over periods of 4 samples
   * up to the length over slowHarmonics + 1. */
  static double
  DominantPeriod(const std::vector<double> & signal, unsigned int slowHarmonics);

  /** How periodic `signal` is: the autocorrelation of its trend-free part at a lag of one `period`
   * (samples), in [-1, 1]. A breathing signal scores near 1 (0.9 and more on the simulated scans,
   * 0.6 and more with cycles of irregular length); a signal drawn from a scan without breathing
   * scored 0.05 to 0.48 in the same tests. */
  static double
  Regularity(const std::vector<double> & signal, double period, unsigned int slowHarmonics);

  /** Everything from the projections (line integrals, u x v x projection). */
  struct Result
  {
    ShroudType::Pointer shroud;
    std::vector<double> signal; // mm, per projection
    std::vector<double> phases; // [0, 1), per projection
  };
  static Result
  FromProjections(const ProjectionsType * projections, const Options & options = Options());

  /** Reads an external breathing signal (a marker's position, a spirometer's volume): one finite
   * number per non-empty line, '#' comments allowed; expectedCount > 0: exactly that many. Throws
   * naming the file, the line and the value. */
  static std::vector<double>
  ReadSignal(const std::string & path, std::size_t expectedCount = 0);

  /** Checks options (throws naming the option and the value). */
  static void
  CheckOptions(const Options & options);
};

} // namespace cbct

#endif
