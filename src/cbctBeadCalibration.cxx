#include "cbctBeadCalibration.h"

#include "cbctBeadMatcher.h"
#include "cbctDetectorCoordinates.h"
#include "cbctInputChecks.h"
#include "cbctProjectionMatrixBeadFit.h"
#include "cbctWorkerErrors.h"


#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;
constexpr double MassTolerance = 0.45; // ln(1.57): a spot's mass against its class's typical mass
constexpr unsigned int MinimumCircularViews = 4;
constexpr double MinimumCircularArc = 30. * Pi / 180.;
constexpr unsigned int MinimumMatrixBeads = 6;

std::string
View(unsigned int k)
{
  return "projection " + std::to_string(k);
}

double
Median(std::vector<double> values)
{
  if (values.empty())
    return 0.;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

/** The spot of a projection as the matcher sees it, with its detector position in mm. */
struct FoundSpot
{
  BeadDetector::Spot spot;
  double u = 0., v = 0.;
  int sizeClass = -1; // 0 small, 1 large; -2: left out (mass unlike its class's)
};

/** Everything the calibration needs of the phantom and the nominal geometry to predict where the
 * beads fall. */
class Predictor
{
public:
  Predictor(const BeadPhantom * phantom, const ThreeDCircularProjectionGeometry * nominal, const DetectorCoordinates & detector)
    : m_Phantom(phantom)
    , m_Nominal(nominal)
    , m_Detector(detector)
  {}

  /** Predicted pixel positions and classes of every bead in view k with the phantom turned by
   * `azimuth` about y. */
  std::vector<BeadMatcher::Point>
  Points(unsigned int k, double azimuth) const
  {
    CircularOrbitBeadFit::Placement turn;
    turn.angleY = azimuth;
    const auto & m = m_Nominal->GetMatrix(k);
    std::vector<BeadMatcher::Point> points;
    for (const auto & bead : m_Phantom->GetBeads())
    {
      const auto uv = ProjectionMatrixBeadFit::Project(m, turn.Apply(bead.center));
      const auto & toIndex = m_Detector.PhysicalToIndex();
      BeadMatcher::Point p;
      p.i = toIndex(0, 0) * uv[0] + toIndex(0, 1) * uv[1] + toIndex(0, 2);
      p.j = toIndex(1, 0) * uv[0] + toIndex(1, 1) * uv[1] + toIndex(1, 2);
      p.sizeClass = m_Phantom->HasSizeCode() ? (bead.large ? 1 : 0) : -1;
      points.push_back(p);
    }
    return points;
  }

private:
  const BeadPhantom * m_Phantom;
  const ThreeDCircularProjectionGeometry * m_Nominal;
  const DetectorCoordinates & m_Detector;
};

/** Matching of one view: the gate from the predicted pattern, beads predicted nearer than 1.5
 * bead diameters (pixels) to another left out (they may cover each other); pairs as (spot index
 * into `spots`, bead index). */
BeadMatcher::Result
MatchView(const std::vector<BeadMatcher::Point> & predicted, const std::vector<FoundSpot> & spots, double beadDiameter,
          std::vector<unsigned int> & beadOf, std::vector<unsigned int> & spotOf)
{
  std::vector<double> nearest(predicted.size(), std::numeric_limits<double>::infinity());
  for (std::size_t a = 0; a < predicted.size(); ++a)
    for (std::size_t b = 0; b < predicted.size(); ++b)
      if (a != b)
        nearest[a] = std::min(nearest[a], std::hypot(predicted[a].i - predicted[b].i, predicted[a].j - predicted[b].j));
  const double gate = 0.45 * Median(nearest);
  std::vector<BeadMatcher::Point> kept, found;
  beadOf.clear();
  spotOf.clear();
  for (std::size_t b = 0; b < predicted.size(); ++b)
    if (nearest[b] >= 1.5 * beadDiameter)
    {
      kept.push_back(predicted[b]);
      beadOf.push_back(static_cast<unsigned int>(b));
    }
  for (std::size_t s = 0; s < spots.size(); ++s)
    if (spots[s].sizeClass >= -1)
    {
      found.push_back({ spots[s].spot.i, spots[s].spot.j, spots[s].sizeClass });
      spotOf.push_back(static_cast<unsigned int>(s));
    }
  if (!(gate > 0.) || kept.empty())
    return BeadMatcher::Result();
  return BeadMatcher::Match(kept, found, gate);
}

/** Outlier threshold of a set of reprojection errors. */
double
OutlierLimit(const std::vector<double> & errors)
{
  return std::max(1., 6. * 1.4826 * Median(errors));
}

double
ArcOf(std::vector<double> angles)
{
  if (angles.size() < 2)
    return 0.;
  for (double & a : angles)
    a = ThreeDCircularProjectionGeometry::WrapAngle(a);
  std::sort(angles.begin(), angles.end());
  double gap = 2. * Pi - (angles.back() - angles.front());
  for (std::size_t k = 1; k < angles.size(); ++k)
    gap = std::max(gap, angles[k] - angles[k - 1]);
  return 2. * Pi - gap;
}

/** Runs `fit`; with the automatic choice of orbit a fit that fails is a warning (the other model may
 * serve), otherwise its error. */
template <typename TFit>
void
Attempt(const BeadCalibrationOptions & options, BeadCalibration::Result & result, const std::string & what, TFit && fit)
{
  if (options.orbit != BeadCalibrationOptions::Orbit::Automatic)
  {
    fit();
    return;
  }
  try
  {
    fit();
  }
  catch (const itk::ExceptionObject & e)
  {
    result.warnings.push_back(what + " not fitted: " + e.GetDescription());
  }
}

std::vector<std::array<double, 3>>
BeadCentres(const BeadPhantom * phantom)
{
  std::vector<std::array<double, 3>> centres;
  for (const auto & bead : phantom->GetBeads())
    centres.push_back(bead.center);
  return centres;
}
} // namespace

BeadCalibration::Result
BeadCalibration::Calibrate(const ProjectionsType * projections, const GeometryType * nominal, const BeadPhantom * phantom,
                           const Options & options)
{
  if (projections == nullptr)
    ThrowBadParameter("bead calibration projections", "none", "a projection stack of line integrals");
  if (nominal == nullptr || nominal->GetNumberOfProjections() == 0)
    ThrowBadParameter("bead calibration nominal geometry", "empty", "a geometry with one projection per slice");
  if (phantom == nullptr)
    ThrowBadParameter("bead calibration phantom", "none", "a bead phantom description");
  nominal->RequireConeBeam("bead calibration");
  if (!std::isfinite(options.threshold) || options.threshold < 0.)
    ThrowBadParameter("bead detection threshold", options.threshold, "a line integral >= 0 (0: automatic)");
  CheckPositive("bead calibration maximum mean reprojection error (pixels)", options.maximumMeanError);
  const auto region = projections->GetBufferedRegion();
  if (region != projections->GetLargestPossibleRegion())
    ThrowBadParameter("bead calibration projections", "partly buffered", "the whole projection stack in memory");
  const auto size = region.GetSize();
  const unsigned int views = static_cast<unsigned int>(size[2]);
  if (views != nominal->GetNumberOfProjections())
    ThrowBadParameter("number of projections", views,
                      std::to_string(nominal->GetNumberOfProjections()) + ", as many as the nominal geometry has");
  const DetectorCoordinates detector(projections);
  DetectorPixels pixels;
  for (unsigned int r = 0; r < 2; ++r)
    for (unsigned int c = 0; c < 2; ++c)
      pixels.mmToPixels[2 * r + c] = detector.PhysicalToIndex()(r, c);
  const double pixelMm = std::min(std::abs(projections->GetSpacing()[0]), std::abs(projections->GetSpacing()[1]));

  // The beads' diameters on the detector under the nominal geometry (a few views).
  double largestDiameter = 0., smallestDiameter = std::numeric_limits<double>::infinity();
  for (unsigned int q = 0; q < 4; ++q)
  {
    const unsigned int k = q * views / 4;
    const auto & m = nominal->GetMatrix(k);
    const double sdd = nominal->GetSourceToDetectorDistance(k);
    for (const auto & bead : phantom->GetBeads())
    {
      const auto & x = bead.center;
      const double distance = -(m(2, 0) * x[0] + m(2, 1) * x[1] + m(2, 2) * x[2] + m(2, 3));
      const double diameter = 2. * bead.radius * sdd / distance / pixelMm;
      largestDiameter = std::max(largestDiameter, diameter);
      smallestDiameter = std::min(smallestDiameter, diameter);
    }
  }
  if (!(smallestDiameter >= 2.))
    ThrowBadParameter("smallest bead on the detector", std::to_string(smallestDiameter) + " pixels across",
                      "at least 2 pixels (a finer detector or larger beads): a bead's centre is found to a fraction of a "
                      "pixel only when several pixels sample it");

  // 1. Detection, projection by projection on the thread pool.
  Result result;
  std::vector<std::vector<FoundSpot>> found(views);
  std::vector<BeadDetector::Result> detections(views);
  BeadDetector::Settings settings;
  settings.beadDiameter = largestDiameter;
  settings.threshold = options.threshold;
  // The radii the detector may hold a spot's fit to (at the isocentre's magnification).
  {
    const double magnification = nominal->GetSourceToDetectorDistance(0) / nominal->GetSourceToIsocenterDistance(0);
    double radius[2] = { 0., 0. }, count[2] = { 0., 0. };
    for (const auto & bead : phantom->GetBeads())
    {
      radius[bead.large ? 1 : 0] += bead.radius;
      count[bead.large ? 1 : 0] += 1.;
    }
    for (int c = 0; c < 2; ++c)
      if (count[c] > 0.)
        settings.beadRadii.push_back(radius[c] / count[c] * magnification / pixelMm);
  }
  const std::size_t slice = size[0] * size[1];
  ParallelizeArray(0, views, [&](itk::SizeValueType k) {
    try
    {
      detections[k] = BeadDetector::Detect(projections->GetBufferPointer() + k * slice, size[0], size[1], settings);
    }
    catch (const itk::ExceptionObject & e)
    {
      itkGenericExceptionMacro(<< "Bead detection in " << View(static_cast<unsigned int>(k)) << ": " << e.GetDescription());
    }
  });
  std::vector<double> logMasses;
  for (unsigned int k = 0; k < views; ++k)
  {
    result.merged += detections[k].merged;
    result.atEdge += detections[k].atEdge;
    for (const auto & spot : detections[k].spots)
    {
      FoundSpot f;
      f.spot = spot;
      f.u = detector.U(spot.i, spot.j);
      f.v = detector.V(spot.i, spot.j);
      found[k].push_back(f);
      logMasses.push_back(std::log(std::max(spot.mass, 1e-30)));
    }
    result.spots += static_cast<unsigned int>(detections[k].spots.size());
  }
  if (result.spots < MinimumMatrixBeads)
    ThrowBadParameter("beads found in all " + std::to_string(views) + " projections", result.spots,
                      "the phantom's beads (" + std::to_string(phantom->GetBeads().size()) +
                        " per projection): none stand out of the background (give the projections as line integrals, "
                        "check the bead phantom description, or set a detection threshold)");

  // 2. Size classes from the masses: two means of the logarithms.
  double small = Median(logMasses), large = small;
  if (phantom->HasSizeCode())
  {
    small = *std::min_element(logMasses.begin(), logMasses.end());
    large = *std::max_element(logMasses.begin(), logMasses.end());
    for (int iteration = 0; iteration < 50; ++iteration)
    {
      double sums[2] = { 0., 0. }, counts[2] = { 0., 0. };
      for (const double m : logMasses)
      {
        const int c = std::abs(m - small) <= std::abs(m - large) ? 0 : 1;
        sums[c] += m;
        counts[c] += 1.;
      }
      if (counts[0] > 0.)
        small = sums[0] / counts[0];
      if (counts[1] > 0.)
        large = sums[1] / counts[1];
    }
    double smallRadius = 0., largeRadius = 0., smallCount = 0., largeCount = 0.;
    for (const auto & bead : phantom->GetBeads())
    {
      (bead.large ? largeRadius : smallRadius) += bead.radius;
      (bead.large ? largeCount : smallCount) += 1.;
    }
    const double expected = 3. * std::log((largeRadius / largeCount) / (smallRadius / smallCount));
    if (!(large - small > 0.5 * expected))
      ThrowBadParameter("ratio of the large beads' to the small beads' masses on the detector", std::exp(large - small),
                        "about " + std::to_string(std::exp(expected)) +
                          " (the cube of their radii's ratio): the spots found do not split into the phantom's small and "
                          "large beads (wrong phantom description, or spots that are not beads)");
  }
  for (auto & view : found)
    for (auto & f : view)
    {
      const double m = std::log(std::max(f.spot.mass, 1e-30));
      f.sizeClass = !phantom->HasSizeCode() ? -1 : (std::abs(m - small) <= std::abs(m - large) ? 0 : 1);
      const double typical = f.sizeClass == 1 ? large : small;
      if (std::abs(m - typical) > MassTolerance)
      {
        if (m > typical)
          ++result.merged;
        f.sizeClass = -2;
      }
    }

  // 3. Identification: the phantom's azimuth on the view with the most spots, then every view.
  const Predictor predictor(phantom, nominal, detector);
  unsigned int reference = 0;
  for (unsigned int k = 1; k < views; ++k)
    if (found[k].size() > found[reference].size())
      reference = k;
  std::vector<unsigned int> beadOf, spotOf;
  auto score = [&](double azimuth) {
    const auto match = MatchView(predictor.Points(reference, azimuth), found[reference], largestDiameter, beadOf, spotOf);
    return match.ambiguous ? 0u : static_cast<unsigned int>(match.pairs.size());
  };
  double azimuth = 0.;
  if (options.searchAzimuth)
  {
    // 5 degree steps, then 0.5 about the best: a helix turned by a few degrees still lays its beads
    // within the gate (2.5 degrees move a bead 40 mm from the axis by 1.7 mm).
    unsigned int best = 0;
    for (int step = 0; step < 72; ++step)
    {
      const double a = step * 5. * Pi / 180.;
      const unsigned int s = score(a);
      if (s > best)
      {
        best = s;
        azimuth = a;
      }
    }
    const double coarse = azimuth;
    for (int step = -5; step <= 5; ++step)
    {
      const double a = coarse + step * 0.5 * Pi / 180.;
      const unsigned int s = score(a);
      if (s > best)
      {
        best = s;
        azimuth = a;
      }
    }
  }
  result.azimuthDegrees = ThreeDCircularProjectionGeometry::WrapAngle(azimuth) * 180. / Pi;
  const unsigned int beadCount = static_cast<unsigned int>(phantom->GetBeads().size());
  const unsigned int minimumPairs = std::min(beadCount, std::max(4u, phantom->GetIdentifyingRun()));
  std::vector<std::vector<BeadObservation>> observed(views);
  for (unsigned int k = 0; k < views; ++k)
  {
    const auto match = MatchView(predictor.Points(k, azimuth), found[k], largestDiameter, beadOf, spotOf);
    if (match.ambiguous || match.pairs.size() < minimumPairs)
    {
      if (!found[k].empty())
        ++result.ambiguousViews;
      continue;
    }
    for (const auto & pair : match.pairs)
    {
      const FoundSpot & f = found[k][spotOf[pair.spot]];
      observed[k].push_back({ k, beadOf[pair.bead], f.u, f.v });
    }
  }
  std::vector<BeadObservation> all;
  for (const auto & view : observed)
    all.insert(all.end(), view.begin(), view.end());
  if (all.empty())
    ThrowBadParameter("beads identified", "none in " + std::to_string(views) + " projections",
                      "beads matched to the phantom's pattern (the nominal geometry must place them within about half "
                      "their spacing after a shift; check the phantom description, its placement and the geometry)");

  // 4. Fits.
  const auto centres = BeadCentres(phantom);
  std::vector<double> gantry(views);
  for (unsigned int k = 0; k < views; ++k)
    gantry[k] = nominal->GetGantryAngle(k);
  const bool wantCircular = options.orbit != Options::Orbit::Matrices;
  const bool wantMatrices = options.orbit != Options::Orbit::Circular;
  std::vector<unsigned int> viewsSeen;
  std::vector<double> anglesSeen;
  for (unsigned int k = 0; k < views; ++k)
    if (!observed[k].empty())
    {
      viewsSeen.push_back(k);
      anglesSeen.push_back(gantry[k]);
    }
  bool haveCircular = false;
  std::vector<BeadObservation> circularUsed;
  if (wantCircular)
  {
    const double arc = ArcOf(anglesSeen);
    if (viewsSeen.size() < MinimumCircularViews || arc < MinimumCircularArc)
    {
      const std::string found = std::to_string(viewsSeen.size()) + " projections over " + std::to_string(arc * 180. / Pi) + " degrees";
      if (options.orbit == Options::Orbit::Circular)
        ThrowBadParameter("projections with beads identified", found,
                          "at least " + std::to_string(MinimumCircularViews) + " over 30 degrees or more for a circular orbit fit");
      result.warnings.push_back("circular orbit not fitted: " + found + " with beads identified (needs " +
                                std::to_string(MinimumCircularViews) + " over 30 degrees)");
    }
    else
      Attempt(options, result, "circular orbit", [&] {
        CircularOrbitBeadFit::Parameters start;
        const unsigned int first = viewsSeen.front();
        if (nominal->HasParameters(first))
          start = nominal->GetParameters(first);
        else
        {
          start.sourceToIsocenterDistance = nominal->GetSourceToIsocenterDistance(first);
          start.sourceToDetectorDistance = nominal->GetSourceToDetectorDistance(first);
        }
        CircularOrbitBeadFit::Placement placement;
        placement.angleY = azimuth;
        circularUsed = all;
        auto fit = CircularOrbitBeadFit::Fit(centres, circularUsed, gantry, start, placement, options.fitted, pixels);
        const double limit = OutlierLimit(fit.errors);
        std::vector<BeadObservation> kept;
        for (std::size_t k = 0; k < circularUsed.size(); ++k)
          if (fit.errors[k] <= limit)
            kept.push_back(circularUsed[k]);
        if (kept.size() < circularUsed.size())
        {
          circularUsed = kept;
          fit = CircularOrbitBeadFit::Fit(centres, circularUsed, gantry, fit.orbit, fit.placement, options.fitted, pixels);
        }
        result.circularFit = fit;
        result.circularError = fit.error;
        haveCircular = true;
      });
  }
  bool haveMatrices = false;
  std::vector<ProjectionMatrixBeadFit::MatrixType> matrices(views);
  std::vector<BeadObservation> matricesUsed;
  std::vector<double> matricesErrors;
  if (wantMatrices)
  {
    std::vector<unsigned int> lacking;
    for (unsigned int k = 0; k < views; ++k)
      if (observed[k].size() < MinimumMatrixBeads)
        lacking.push_back(k);
    if (!lacking.empty())
    {
      std::ostringstream which;
      for (std::size_t q = 0; q < std::min<std::size_t>(lacking.size(), 8); ++q)
        which << (q ? ", " : "") << lacking[q] << " (" << observed[lacking[q]].size() << ")";
      if (lacking.size() > 8)
        which << " and " << lacking.size() - 8 << " more";
      const std::string found = std::to_string(lacking.size()) + " of " + std::to_string(views) +
                                " projections with too few beads identified: " + which.str();
      if (options.orbit == Options::Orbit::Matrices)
        ThrowBadParameter("beads identified per projection", found,
                          "at least " + std::to_string(MinimumMatrixBeads) +
                            " in every projection for its own matrix (a bigger detector, or a circular orbit fit)");
      result.warnings.push_back("matrices not fitted: " + found);
    }
    else
      Attempt(options, result, "matrices", [&] {
        for (unsigned int k = 0; k < views; ++k)
        {
          std::vector<BeadObservation> use = observed[k];
          for (int pass = 0; pass < 2; ++pass)
          {
            std::vector<std::array<double, 3>> points;
            std::vector<std::array<double, 2>> uv;
            for (const auto & o : use)
            {
              points.push_back(centres[o.bead]);
              uv.push_back({ { o.u, o.v } });
            }
            const auto fit = ProjectionMatrixBeadFit::Fit(points, uv, pixels, View(k));
            matrices[k] = fit.matrix;
            const double limit = OutlierLimit(fit.errors);
            std::vector<BeadObservation> kept;
            for (std::size_t q = 0; q < use.size(); ++q)
              if (fit.errors[q] <= limit)
                kept.push_back(use[q]);
            if (pass == 1 || kept.size() == use.size() || kept.size() < MinimumMatrixBeads)
            {
              matricesUsed.insert(matricesUsed.end(), use.begin(), use.end());
              matricesErrors.insert(matricesErrors.end(), fit.errors.begin(), fit.errors.end());
              break;
            }
            use = kept;
          }
        }
        for (const double e : matricesErrors)
          result.matricesError.Add(e);
        haveMatrices = true;
      });
  }
  if (!haveCircular && !haveMatrices)
    ThrowBadParameter("bead calibration", "neither a circular orbit nor matrices could be fitted",
                      "enough beads identified (" + (result.warnings.empty() ? std::string() : result.warnings.front()) + ")");
  result.circular = haveCircular && (!haveMatrices || result.circularError.mean <= 1.5 * result.matricesError.mean + 0.05);
  result.error = result.circular ? result.circularError : result.matricesError;
  result.used = result.circular ? circularUsed : matricesUsed;
  const std::vector<double> & errors = result.circular ? result.circularFit.errors : matricesErrors;
  result.observations = static_cast<unsigned int>(result.used.size());
  result.outliers = static_cast<unsigned int>(all.size() - result.used.size());
  if (!(result.error.mean <= options.maximumMeanError))
    ThrowBadParameter(std::string("mean reprojection error of the ") + (result.circular ? "circular orbit" : "projection matrix") +
                        " fit (pixels)",
                      result.error.mean,
                      "at most " + std::to_string(options.maximumMeanError) +
                        ": the beads are not where the fitted geometry puts them (beads identified wrongly, or an orbit the "
                        "model cannot follow)");
  std::vector<double> sums(views, 0.), counts(views, 0.);
  for (std::size_t q = 0; q < result.used.size(); ++q)
  {
    sums[result.used[q].projection] += errors[q];
    counts[result.used[q].projection] += 1.;
  }
  for (unsigned int k = 0; k < views; ++k)
    result.viewError.push_back(counts[k] > 0. ? sums[k] / counts[k] : std::numeric_limits<double>::quiet_NaN());

  result.geometry = GeometryType::New();
  for (unsigned int k = 0; k < views; ++k)
  {
    if (result.circular)
    {
      auto p = result.circularFit.orbit;
      p.gantryAngle = gantry[k];
      result.geometry->AddProjectionInRadians(p);
    }
    else
      result.geometry->AddProjection(matrices[k]);
  }
  return result;
}

std::string
BeadCalibration::Summary(const Result & r, const BeadPhantom * phantom)
{
  std::ostringstream out;
  out << std::setprecision(4);
  out << "phantom: " << phantom->Summary() << "\n";
  out << "found " << r.spots << " spots (" << r.merged << " left out as merged beads, " << r.atEdge
      << " at the detector's border), phantom azimuth " << r.azimuthDegrees << " deg; " << r.ambiguousViews
      << " projections not identified\n";
  if (r.circularError.count > 0)
  {
    const auto & f = r.circularFit;
    out << "circular orbit: mean reprojection error " << r.circularError.mean << " px, max " << r.circularError.max << " px\n";
    for (unsigned int p = 0; p < CircularOrbitBeadFit::NumberOfOrbitParameters; ++p)
    {
      const bool angle = p >= CircularOrbitBeadFit::OutOfPlaneAngle;
      ThreeDCircularProjectionGeometry::Parameters copy = f.orbit;
      const double values[] = { copy.sourceToIsocenterDistance, copy.sourceToDetectorDistance, copy.projectionOffsetX,
                                copy.projectionOffsetY,        copy.sourceOffsetX,            copy.sourceOffsetY,
                                copy.outOfPlaneAngle,          copy.inPlaneAngle };
      const double scale = angle ? 180. / Pi : 1.;
      out << "  " << CircularOrbitBeadFit::Name(p) << " = " << values[p] * scale;
      if (f.uncertainty[p] > 0.)
        out << " +- " << f.uncertainty[p] * scale;
      out << (angle ? " deg" : " mm") << "\n";
    }
    out << "  phantom placement: angles (" << f.placement.angleX * 180. / Pi << ", " << f.placement.angleY * 180. / Pi << ", "
        << f.placement.angleZ * 180. / Pi << ") deg, shift (" << f.placement.shiftX << ", 0, " << f.placement.shiftZ << ") mm\n";
  }
  if (r.matricesError.count > 0)
    out << "projection matrices: mean reprojection error " << r.matricesError.mean << " px, max " << r.matricesError.max
        << " px\n";
  out << "chosen: " << (r.circular ? "circular orbit" : "one matrix per projection") << ", " << r.observations
      << " beads used (" << r.outliers << " left out as outliers): mean reprojection error " << r.error.mean << " px, max "
      << r.error.max << " px\n";
  for (const auto & w : r.warnings)
    out << "warning: " << w << "\n";
  return out.str();
}

} // namespace cbct
