#include "cbctSharpnessCalibration.h"

#include "cbctCalibrationSupport.h"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctInputChecks.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;
using ImageType = itk::Image<float, 3>;

/** One resolution of the search: the projections binned and thinned, and the slices' grid. */
struct Level
{
  unsigned int binning = 0;
  ImageType::ConstPointer projections;
  ThreeDCircularProjectionGeometry::ConstPointer geometry; // the nominal geometry of these views
  double voxel = 0.;                                       // mm
  unsigned int voxels = 0;                                 // across a slice
};

/** A score against one parameter, and the best sample. */
struct Samples
{
  std::vector<double> x, score;
  std::size_t Best() const
  {
    return static_cast<std::size_t>(std::max_element(score.begin(), score.end()) - score.begin());
  }
  double Contrast() const
  {
    const auto [low, high] = std::minmax_element(score.begin(), score.end());
    return *high > 0. ? (*high - *low) / *high : 0.;
  }
};

/** The sum over slices of each slice's scores divided by its largest (every slice weighs alike). */
Samples
NormalisedSum(const std::vector<Samples> & slices)
{
  Samples sum;
  sum.x = slices.front().x;
  sum.score.assign(sum.x.size(), 0.);
  for (const Samples & s : slices)
  {
    const double top = *std::max_element(s.score.begin(), s.score.end());
    for (std::size_t i = 0; i < s.score.size(); ++i)
      sum.score[i] += top > 0. ? s.score[i] / top : 0.;
  }
  return sum;
}
} // namespace

GeometryCalibrationResult
SharpnessCalibration::Compute()
{
  const std::string method = "sharpness calibration";
  detail::CheckCalibrationInputs(m_Projections, m_Geometry, method);
  m_NumberOfReconstructions = 0;
  GeometryCalibrationResult result;
  const LogFunction log = this->LogInto(result);
  if (!m_FitOffset && !m_FitRoll && !m_FitTilt)
    itkExceptionMacro(<< "sharpness calibration: nothing to fit (offset, roll and tilt all off)");
  if (m_FitRoll && !m_FitOffset)
    itkExceptionMacro(<< "sharpness calibration: the roll is found from the axis' offsets at several heights; fit the "
                         "offset with it");
  if (m_NumberOfSlices < 1)
    itkExceptionMacro(<< "sharpness calibration: NumberOfSlices is 0; expected at least 1 (2 or more for a roll)");
  const ImageType * projections = m_Projections;
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  const unsigned int columns = static_cast<unsigned int>(size[0]);
  const unsigned int views = m_Geometry->GetNumberOfProjections();
  const double pixel = projections->GetSpacing()[0];
  result.pixelSize = pixel;
  const double range = m_Geometry->GetAngularRange() * 180. / Pi;
  if (views < MinimumViews)
    itkExceptionMacro(<< "sharpness calibration: " << views << " projections; at least " << MinimumViews
                      << " are needed (the slices of fewer are streaks more than structure)");
  if (range < 179.5)
    itkExceptionMacro(<< "sharpness calibration: the scan covers " << detail::Fixed(range, 1)
                      << " degrees; FDK needs at least 180 (a short scan covers 180 degrees plus the fan)");

  auto reconstructor = CalibrationSliceReconstructor::New();
  reconstructor->SetHardware(m_Hardware);

  AxisCorrection current = m_Start;
  const auto & first = m_Geometry->GetParameters(0);
  const double magnification = first.sourceToDetectorDistance / first.sourceToIsocenterDistance;

  // The field of view: the slices span the disc the detector sees from both sides, reconstructed
  // without displaced-detector weights (with the disc beyond a candidate axis' near reach they would turn
  // on, and an axis error would then scale the outer region radially instead of doubling its edges:
  // measured, the sharpness then grew with the offset instead of peaking). A half fan is refused: there
  // the region seen from both sides is narrow and its sharpness did not find the axis (measured), and
  // outside it no sharpness sees an axis error.
  const auto startGeometry = current.Apply(m_Geometry);
  const DisplacedDetectorCoverage coverage(startGeometry, projections, std::numeric_limits<double>::infinity());
  const double nearReach = std::min(coverage.Negative(), coverage.Positive());
  const double farReach = std::max(coverage.Negative(), coverage.Positive());
  if (nearReach < 0.5 * farReach)
    itkExceptionMacro(<< "sharpness calibration: a half-fan scan (the detector reaches " << detail::Fixed(nearReach, 3)
                      << " and " << detail::Fixed(farReach, 3)
                      << " mm from the rotation axis): the sharpness of slices does not find its axis; use the "
                         "opposite views (method opposite, or auto)");
  const double radius = 0.95 * nearReach;
  if (!(radius > 4. * pixel / magnification))
    itkExceptionMacro(<< "sharpness calibration: the detector reaches " << detail::Fixed(nearReach, 3) << " and "
                      << detail::Fixed(farReach, 3)
                      << " mm from the rotation axis: no field of view to reconstruct slices in; check the geometry");
  reconstructor->SetDisplacedDetectorWeighting(false);
  log("sharpness: slices of radius " + detail::Fixed(radius, 3) + " mm (the field of view seen from both sides)");
  const double scoreRadius = radius;
  unsigned int finest = 1;
  while (columns / finest > std::max(64u, m_MaximumColumns))
    finest *= 2;
  const unsigned int coarsest = std::max(finest, detail::BinningForColumns(columns, 64));
  const double searchPixels = m_SearchRange > 0. ? m_SearchRange : 0.25 * columns;
  {
    const std::string truncated = detail::TruncatedSides(projections, detail::EvenlySpreadViews(views, 32));
    if (!truncated.empty())
      result.warnings.push_back("the object leaves the detector on its " + truncated +
                                " side in most views: the slices' edges are truncated, and only the field of view "
                                "is scored");
  }
  // Heights: slices whose field of view projects onto the detector's rows (with two rows of margin) in
  // a few views, within the rows where the object is.
  const double vFirst = projections->GetOrigin()[1] + 2. * projections->GetSpacing()[1];
  const double vLast = projections->GetOrigin()[1] + (size[1] - 3.) * projections->GetSpacing()[1];
  auto fits = [&](double y) {
    for (unsigned int k : { 0u, views / 4, views / 2, 3 * views / 4 })
    {
      const auto & m = startGeometry->GetMatrix(k);
      for (int i = 0; i < 16; ++i)
      {
        const double x = radius * std::cos(i * Pi / 8.), z = radius * std::sin(i * Pi / 8.);
        const double w = m(2, 0) * x + m(2, 1) * y + m(2, 2) * z + m(2, 3);
        const double v = (m(1, 0) * x + m(1, 1) * y + m(1, 2) * z + m(1, 3)) / w;
        if (!(v >= vFirst && v <= vLast))
          return false;
      }
    }
    return true;
  };
  auto heightOfRow = [&](double v) { return detail::AxisHeightAtRow(startGeometry, v); };
  const double middle = heightOfRow(0.5 * (vFirst + vLast));
  if (!fits(middle))
    itkExceptionMacro(<< "sharpness calibration: a slice of the field of view (radius " << detail::Fixed(radius, 3)
                      << " mm) does not project onto the detector's " << size[1]
                      << " rows; the detector is too short for slices");
  const double heightScale = size[1] * projections->GetSpacing()[1] / magnification;
  auto limit = [&](double direction) {
    double inside = middle, outside = middle + direction * heightScale;
    for (int i = 0; i < 40; ++i)
    {
      const double mid = 0.5 * (inside + outside);
      (fits(mid) ? inside : outside) = mid;
    }
    return inside;
  };
  double yLow = limit(-1.), yHigh = limit(1.);
  {
    // The object's rows: where the projections hold energy (a fifth of the strongest row's, or more).
    const std::vector<unsigned int> sampled = detail::EvenlySpreadViews(views, 32);
    std::vector<double> energy(size[1], 0.);
    const float * p = projections->GetBufferPointer();
    for (unsigned int k : sampled)
      for (std::size_t r = 0; r < size[1]; ++r)
        for (std::size_t c = 0; c < size[0]; ++c)
        {
          const double value = p[(k * size[1] + r) * size[0] + c];
          energy[r] += value * value;
        }
    const double strongest = *std::max_element(energy.begin(), energy.end());
    if (!(strongest > 0.))
      itkExceptionMacro(<< "sharpness calibration: the projections are all zero (a blank scan): nothing to focus on");
    std::size_t lowRow = 0, highRow = size[1] - 1;
    while (energy[lowRow] < 0.2 * strongest)
      ++lowRow;
    while (energy[highRow] < 0.2 * strongest)
      --highRow;
    const double v0 = projections->GetOrigin()[1] + lowRow * projections->GetSpacing()[1];
    const double v1 = projections->GetOrigin()[1] + highRow * projections->GetSpacing()[1];
    const double y0 = heightOfRow(v0), y1 = heightOfRow(v1);
    yLow = std::max(yLow, std::min(y0, y1));
    yHigh = std::min(yHigh, std::max(y0, y1));
  }
  const double finestVoxel = pixel / magnification;
  std::vector<double> heights;
  if (yHigh - yLow < 4. * finestVoxel)
    heights.push_back(0.5 * (yLow + yHigh));
  else
  {
    const double inset = 0.1 * (yHigh - yLow);
    const unsigned int count = m_NumberOfSlices;
    for (unsigned int i = 0; i < count; ++i)
      heights.push_back(count == 1 ? 0.5 * (yLow + yHigh)
                                   : yLow + inset + (yHigh - yLow - 2. * inset) * i / (count - 1.));
  }
  if (m_FitRoll && (heights.size() < 2 || heights.back() - heights.front() < 8. * finestVoxel))
    itkExceptionMacro(<< "sharpness calibration: the roll is found from slices at several heights, but the object and "
                         "the field of view share "
                      << detail::Fixed(std::max(0., yHigh - yLow), 3)
                      << " mm of height; the data do not determine the roll (fit the offset alone)");
  {
    std::string text;
    for (double y : heights)
      text += (text.empty() ? "" : ", ") + detail::Fixed(y, 3);
    log("sharpness: " + std::to_string(heights.size()) + " slice" + (heights.size() == 1 ? "" : "s") +
        " at heights " + text + " mm");
  }

  // The levels: binnings from the coarsest (64 columns or more) to the finest (MaximumColumns or fewer).
  Level level;
  using Clock = std::chrono::steady_clock;
  double binningSeconds = 0., scoreSeconds = 0.;
  unsigned int binnings = 0, scores = 0;
  auto useLevel = [&](unsigned int binning) {
    if (level.binning == binning)
      return;
    const auto started = Clock::now();
    ++binnings;
    const auto target =
      std::max<unsigned int>(MinimumViews, static_cast<unsigned int>(std::ceil(0.5 * Pi * columns / binning)));
    const std::vector<unsigned int> chosen = detail::EvenlySpreadViews(views, target);
    level.binning = binning;
    if (binning == 1 && chosen.size() == views)
    {
      level.projections = m_Projections;
      level.geometry = m_Geometry;
    }
    else
    {
      level.projections = detail::BinnedViews(projections, binning, chosen);
      level.geometry = detail::GeometryOfViews(m_Geometry, chosen);
    }
    level.voxel = binning * pixel / magnification;
    level.voxels = std::max(8u, static_cast<unsigned int>(std::ceil(2. * radius / level.voxel)) + 1);
    reconstructor->SetProjections(level.projections);
    binningSeconds += std::chrono::duration<double>(Clock::now() - started).count();
  };

  std::map<std::vector<double>, double> cache;
  auto score = [&](std::size_t slice, const AxisCorrection & c) {
    const std::vector<double> key{ double(level.binning), double(slice), c.offset, c.roll, c.tilt, scoreRadius };
    const auto found = cache.find(key);
    if (found != cache.end())
      return found->second;
    const auto geometry = c.Apply(level.geometry);
    const auto slab = reconstructor->Reconstruct(geometry, heights[slice], level.voxels, level.voxel, 1);
    ++m_NumberOfReconstructions;
    const auto started = Clock::now();
    const double value = SharpnessScore::Compute(m_Measure, slab, scoreRadius);
    scoreSeconds += std::chrono::duration<double>(Clock::now() - started).count();
    ++scores;
    if (!std::isfinite(value))
      itkExceptionMacro(<< "sharpness calibration: the slice at height " << detail::Fixed(heights[slice], 3)
                        << " mm reconstructed with non-finite values");
    cache.emplace(key, value);
    return value;
  };
  // Scores of `slice` for offsets `offsets` (pixels), the rest of the correction `c`.
  auto offsetScores = [&](std::size_t slice, const AxisCorrection & c, const std::vector<double> & offsets) {
    Samples s;
    for (double o : offsets)
    {
      AxisCorrection candidate = c;
      candidate.offset = o * pixel;
      s.x.push_back(o);
      s.score.push_back(score(slice, candidate));
    }
    return s;
  };

  std::vector<std::size_t> slices(heights.size());
  std::iota(slices.begin(), slices.end(), std::size_t{ 0 });
  std::vector<double> sliceOffset(heights.size(), current.offset / pixel); // per slice, pixels
  std::vector<double> sliceError(heights.size(), std::numeric_limits<double>::quiet_NaN());

  // The finest level's search of each slice about its current offset, a parabola through its peak.
  auto refineSlices = [&](const AxisCorrection & c) {
    useLevel(finest);
    const double step = 0.5 * finest;
    for (std::size_t i : slices)
    {
      double centre = sliceOffset[i];
      Samples s;
      for (int attempt = 0; attempt < 4; ++attempt)
      {
        std::vector<double> offsets;
        for (int k = -4; k <= 4; ++k)
          offsets.push_back(centre + k * step);
        s = offsetScores(i, c, offsets);
        const std::size_t best = s.Best();
        if (best > 0 && best + 1 < s.x.size())
          break;
        centre = s.x[best];
      }
      double error = 0.;
      const double peak = detail::ParabolaPeak(s.x, s.score, 5, nullptr, &error);
      sliceOffset[i] = std::isfinite(peak) && std::abs(peak - s.x[s.Best()]) <= step ? peak : s.x[s.Best()];
      sliceError[i] = std::isfinite(peak) ? error : step;
    }
  };

  // Offset and roll from the slices' offsets: the projected axis through their places.
  auto fitLine = [&](AxisCorrection c, bool withRoll) {
    std::vector<double> y, targets, weights;
    for (std::size_t i : slices)
    {
      AxisCorrection local = c;
      local.offset = sliceOffset[i] * pixel;
      y.push_back(heights[i]);
      targets.push_back(AxisCorrection::ProjectedAxisU(local.Apply(m_Geometry), 0, heights[i]));
      weights.push_back(1.);
    }
    return AxisCorrection::FitToAxisPoints(m_Geometry, c, y, targets, weights, withRoll && y.size() >= 2);
  };

  if (m_FitOffset)
  {
    // 1. The coarsest level: a scan of the offset shared by the slices.
    useLevel(coarsest);
    const int steps = std::max(2, static_cast<int>(std::ceil(searchPixels / coarsest)));
    std::vector<double> offsets;
    for (int k = -steps; k <= steps; ++k)
      offsets.push_back(current.offset / pixel + k * double(coarsest));
    std::vector<Samples> perSlice;
    for (std::size_t i = 0; i < heights.size(); ++i)
      perSlice.push_back(offsetScores(i, current, offsets));
    const Samples sum = NormalisedSum(perSlice);
    const std::size_t best = sum.Best();
    log("sharpness: binning " + std::to_string(coarsest) + " (" + std::to_string(level.voxels) + "^2 voxels of " +
        detail::Fixed(level.voxel, 4) + " mm, " + std::to_string(level.geometry->GetNumberOfProjections()) +
        " views): offsets " + detail::Fixed(offsets.front(), 1) + " to " + detail::Fixed(offsets.back(), 1) +
        " pixels, best " + detail::Fixed(sum.x[best], 1));
    if (sum.Contrast() < 1e-3)
      itkExceptionMacro(<< "sharpness calibration: the slices' " << SharpnessScore::Description(m_Measure)
                        << " changes by less than 0.1% over offsets of +-" << detail::Fixed(searchPixels, 1)
                        << " pixels: nothing to focus on (a blank or structureless scan); the offset cannot be fitted");
    if (best == 0 || best + 1 == sum.x.size())
      itkExceptionMacro(<< "sharpness calibration: the sharpest offset lies at the edge of the search, "
                        << detail::Fixed(sum.x[best], 1) << " pixels (searched " << detail::Fixed(offsets.front(), 1)
                        << " to " << detail::Fixed(offsets.back(), 1)
                        << "); widen the search range, or the data do not determine the offset");
    // Slices without structure are left out; the others start from their own best near the consensus.
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < heights.size(); ++i)
    {
      if (perSlice[i].Contrast() < 1e-3)
      {
        log("sharpness: the slice at height " + detail::Fixed(heights[i], 3) + " mm has no structure: left out");
        continue;
      }
      std::size_t own = best;
      for (std::size_t k = best >= 2 ? best - 2 : 0; k <= std::min(best + 2, sum.x.size() - 1); ++k)
        if (perSlice[i].score[k] > perSlice[i].score[own])
          own = k;
      sliceOffset[i] = perSlice[i].x[own];
      kept.push_back(i);
    }
    slices = kept;
    if (m_FitRoll && slices.size() < 2)
      itkExceptionMacro(<< "sharpness calibration: only " << slices.size()
                        << " slice holds structure; the roll needs two or more at different heights");

    // 2. Finer levels: +-2 of their pixels about each slice's best.
    for (unsigned int binning = coarsest / 2; binning > finest; binning /= 2)
    {
      useLevel(binning);
      for (std::size_t i : slices)
      {
        double centre = sliceOffset[i];
        for (int attempt = 0; attempt < 4; ++attempt)
        {
          std::vector<double> candidates;
          for (int k = -2; k <= 2; ++k)
            candidates.push_back(centre + k * double(binning));
          const Samples s = offsetScores(i, current, candidates);
          centre = s.x[s.Best()];
          if (s.Best() > 0 && s.Best() + 1 < s.x.size())
            break;
        }
        sliceOffset[i] = centre;
      }
    }

    // 3. The finest level: the slices' offsets and the line through them. A slice's offset, fitted at a
    // wrong roll, is pulled toward that roll's line (measured: one fit moved the roll a fifth of the way
    // to the truth), so the fit is a fixed-point iteration roll -> F(roll) whose fixed point is the
    // truth; two steps measure its rate k and a secant step goes to the fixed point,
    // F(r1) + (F(r1) - r1) k / (1 - k), checked by a last fit.
    const AxisCorrection start = current;
    refineSlices(current);
    current = fitLine(current, m_FitRoll);
    log("sharpness: slices' line: offset " + detail::Fixed(current.offset / pixel, 3) + " pixels" +
        (m_FitRoll ? ", roll " + detail::Fixed(current.roll * 180. / Pi, 4) + " degrees" : std::string()));
    if (m_FitRoll)
    {
      auto step = [&](const AxisCorrection & at) {
        std::fill(sliceOffset.begin(), sliceOffset.end(), at.offset / pixel);
        refineSlices(at);
        return fitLine(at, true);
      };
      const double r0 = start.roll, r1 = current.roll;
      const AxisCorrection second = step(current);
      const double r2 = second.roll;
      AxisCorrection next = second;
      const double rate = std::abs(r1 - r0) > 1e-9 ? (r2 - r1) / (r1 - r0) : 0.;
      if (rate > 0. && rate < 0.95)
        next.roll = r2 + std::clamp((r2 - r1) * rate / (1. - rate), -2. * Pi / 180., 2. * Pi / 180.);
      log("sharpness: roll " + detail::Fixed(r1 * 180. / Pi, 4) + " then " + detail::Fixed(r2 * 180. / Pi, 4) +
          " degrees (rate " + detail::Fixed(rate, 3) + "): extrapolated to " + detail::Fixed(next.roll * 180. / Pi, 4));
      // The offset at the extrapolated roll (the roll held).
      std::fill(sliceOffset.begin(), sliceOffset.end(), next.offset / pixel);
      refineSlices(next);
      current = fitLine(next, false);
      log("sharpness: at that roll: offset " + detail::Fixed(current.offset / pixel, 3) + " pixels");
    }
  }

  // 4. The tilt: the summed score of the slices, coarse to fine.
  double tiltError = std::numeric_limits<double>::quiet_NaN();
  if (m_FitTilt)
  {
    const double tiltRange = m_TiltRange > 0. ? m_TiltRange : 3.;
    // The tilt must change the score by a percent over its range to count as determined.
    auto tiltScores = [&](const std::vector<double> & degrees) {
      std::vector<Samples> perSlice;
      for (std::size_t i : slices)
      {
        Samples s;
        for (double t : degrees)
        {
          AxisCorrection candidate = current;
          candidate.tilt = t * Pi / 180.;
          s.x.push_back(t);
          s.score.push_back(score(i, candidate));
        }
        perSlice.push_back(s);
      }
      return NormalisedSum(perSlice);
    };
    useLevel(std::max(finest, detail::BinningForColumns(columns, 128)));
    std::vector<double> degrees;
    const double start = current.tilt * 180. / Pi;
    for (int k = -4; k <= 4; ++k)
      degrees.push_back(start + k * tiltRange / 4.);
    const Samples coarse = tiltScores(degrees);
    if (coarse.Contrast() < 1e-2)
      itkExceptionMacro(<< "sharpness calibration: the slices' " << SharpnessScore::Description(m_Measure)
                        << " changes by less than 1% for tilts of +-" << detail::Fixed(tiltRange, 2)
                        << " degrees: the data do not determine the tilt (its effect grows with the cone angle and "
                           "the object's height); leave it out of the fit");
    if (coarse.Best() == 0 || coarse.Best() + 1 == coarse.x.size())
      itkExceptionMacro(<< "sharpness calibration: the sharpest tilt lies at the edge of the search, "
                        << detail::Fixed(coarse.x[coarse.Best()], 2) << " degrees of " << detail::Fixed(start, 2)
                        << " +- " << detail::Fixed(tiltRange, 2) << "; widen the tilt range");
    useLevel(finest);
    double centre = coarse.x[coarse.Best()];
    const double step = tiltRange / 16.;
    Samples fine;
    for (int attempt = 0; attempt < 4; ++attempt)
    {
      std::vector<double> candidates;
      for (int k = -3; k <= 3; ++k)
        candidates.push_back(centre + k * step);
      fine = tiltScores(candidates);
      centre = fine.x[fine.Best()];
      if (fine.Best() > 0 && fine.Best() + 1 < fine.x.size())
        break;
    }
    double error = 0.;
    const double peak = detail::ParabolaPeak(fine.x, fine.score, 5, nullptr, &error);
    current.tilt = (std::isfinite(peak) && std::abs(peak - centre) <= step ? peak : centre) * Pi / 180.;
    tiltError = std::isfinite(peak) ? error : step;
    log("sharpness: tilt " + detail::Fixed(current.tilt * 180. / Pi, 4) + " degrees");
    if (m_FitOffset)
    {
      std::fill(sliceOffset.begin(), sliceOffset.end(), current.offset / pixel);
      refineSlices(current);
      current = fitLine(current, false);
      log("sharpness: at the tilt found: offset " + detail::Fixed(current.offset / pixel, 3) + " pixels, roll " +
          detail::Fixed(current.roll * 180. / Pi, 4) + " degrees");
    }
  }

  // 5. Uncertainties: the slices' scatter about the line, or their parabolas.
  double offsetError = std::numeric_limits<double>::quiet_NaN(), rollError = offsetError;
  if (m_FitOffset)
  {
    const std::size_t k = slices.size();
    double parabolaVariance = 0.;
    for (std::size_t i : slices)
      parabolaVariance += std::isfinite(sliceError[i]) ? sliceError[i] * sliceError[i] : 0.;
    parabolaVariance /= static_cast<double>(k * k);
    // Residuals of the slices' offsets against the fitted correction, in pixels along u.
    const auto fittedGeometry = current.Apply(m_Geometry);
    std::vector<double> residual;
    double meanHeight = 0.;
    for (std::size_t i : slices)
    {
      AxisCorrection local = current;
      local.offset = sliceOffset[i] * pixel;
      residual.push_back((AxisCorrection::ProjectedAxisU(local.Apply(m_Geometry), 0, heights[i]) -
                          AxisCorrection::ProjectedAxisU(fittedGeometry, 0, heights[i])) /
                         pixel);
      meanHeight += heights[i] / k;
    }
    double spread = 0., heightSpread = 0.;
    for (std::size_t j = 0; j < k; ++j)
    {
      spread += residual[j] * residual[j];
      heightSpread += (heights[slices[j]] - meanHeight) * (heights[slices[j]] - meanHeight);
    }
    const std::size_t freedom = k > (m_FitRoll ? 2u : 1u) ? k - (m_FitRoll ? 2u : 1u) : 0u;
    const double sigma2 = freedom > 0 ? spread / freedom : 0.;
    double offsetVariance = sigma2 / k, slopeVariance = 0.;
    if (m_FitRoll && heightSpread > 0.)
    {
      offsetVariance = sigma2 * (1. / k + meanHeight * meanHeight / heightSpread);
      slopeVariance = sigma2 / heightSpread;
    }
    offsetError = std::sqrt(std::max(offsetVariance, parabolaVariance));
    if (m_FitRoll)
    {
      // Pixels of axis shift per mm of height per radian of roll.
      AxisCorrection rolled = current;
      rolled.roll += 1e-4;
      const double h = std::max(std::abs(heights[slices.front()]), std::abs(heights[slices.back()]));
      const double perRadian =
        std::abs(AxisCorrection::ProjectedAxisU(rolled.Apply(m_Geometry), 0, h) -
                 AxisCorrection::ProjectedAxisU(fittedGeometry, 0, h) -
                 (AxisCorrection::ProjectedAxisU(rolled.Apply(m_Geometry), 0, 0.) -
                  AxisCorrection::ProjectedAxisU(fittedGeometry, 0, 0.))) /
        (1e-4 * h * pixel);
      const double parabolaSlope = heightSpread > 0. ? parabolaVariance * k / heightSpread : 0.;
      rollError = std::sqrt(std::max(slopeVariance, parabolaSlope)) / perRadian * 180. / Pi;
    }
  }

  // A fit whose slices scatter by pixels is not a fit: on a scan whose object leaves the detector the
  // slices' offsets were measured to scatter by hundreds of pixels (the field of view's edge sharpest,
  // not the object), and such a geometry must not be written.
  if (m_FitOffset && !(offsetError <= MaximumOffsetUncertainty))
    itkExceptionMacro(<< "sharpness calibration: the slices do not agree on the offset ("
                      << detail::Fixed(current.offset / pixel, 3) << " +- " << detail::Fixed(offsetError, 3)
                      << " pixels, more than " << detail::Fixed(MaximumOffsetUncertainty, 1)
                      << "): the data do not determine it (an object that leaves the detector, or too little "
                         "structure); try the opposite views");
  if (m_FitRoll && !(rollError <= MaximumRollUncertainty))
    itkExceptionMacro(<< "sharpness calibration: the slices do not agree on the roll ("
                      << detail::Fixed(current.roll * 180. / Pi, 4) << " +- " << detail::Fixed(rollError, 4)
                      << " degrees, more than " << detail::Fixed(MaximumRollUncertainty, 1)
                      << "): the data do not determine it; fit the offset alone or try the opposite views");

  result.correction = current;
  result.geometry = current.Apply(m_Geometry);
  result.method = "sharpness";
  if (m_FitOffset)
  {
    CalibrationParameter & p = result.Parameter("offset");
    p.fitted = true;
    p.value = current.offset / pixel;
    p.uncertainty = offsetError;
    p.method = "sharpness";
  }
  if (m_FitRoll)
  {
    CalibrationParameter & p = result.Parameter("roll");
    p.fitted = true;
    p.value = current.roll * 180. / Pi;
    p.uncertainty = rollError;
    p.method = "sharpness";
  }
  if (m_FitTilt)
  {
    CalibrationParameter & p = result.Parameter("tilt");
    p.fitted = true;
    p.value = current.tilt * 180. / Pi;
    p.uncertainty = tiltError;
    p.method = "sharpness";
  }

  // 6. The curves for reports: the slices' summed score against each fitted parameter.
  if (m_ComputeCurves)
  {
    useLevel(std::max(finest, detail::BinningForColumns(columns, 256)));
    auto curve = [&](const std::string & parameter, double centre, double halfWidth, auto set) {
      CalibrationScoreCurve c;
      c.parameter = parameter;
      c.unit = parameter == "offset" ? "pixels" : "degrees";
      c.method = "sharpness";
      c.score = SharpnessScore::Description(m_Measure) + " of FDK slices (sum over " + std::to_string(slices.size()) +
                " slices, each divided by its largest)";
      c.higherIsBetter = true;
      c.fitted = centre;
      std::vector<Samples> perSlice(slices.size());
      for (int k = -8; k <= 8; ++k)
      {
        const double value = centre + halfWidth * k / 8.;
        AxisCorrection candidate = current;
        set(candidate, value);
        for (std::size_t j = 0; j < slices.size(); ++j)
        {
          perSlice[j].x.push_back(value);
          perSlice[j].score.push_back(score(slices[j], candidate));
        }
      }
      const Samples sum = NormalisedSum(perSlice);
      c.values = sum.x;
      c.scores = sum.score;
      result.curves.push_back(c);
    };
    if (m_FitOffset)
      curve("offset", current.offset / pixel, std::max(8., 4. * level.binning),
            [&](AxisCorrection & a, double value) { a.offset = value * pixel; });
    if (m_FitRoll)
    {
      const double h = std::max(std::abs(heights[slices.front()]), std::abs(heights[slices.back()]));
      // Wide enough to move the outer slices' axis by four binned pixels.
      const double halfWidth = std::max(0.25, 4. * level.binning * pixel / (magnification * h) * 180. / Pi);
      curve("roll", current.roll * 180. / Pi, halfWidth,
            [&](AxisCorrection & a, double value) { a.roll = value * Pi / 180.; });
    }
    if (m_FitTilt)
      curve("tilt", current.tilt * 180. / Pi, m_TiltRange > 0. ? m_TiltRange : 3.,
            [&](AxisCorrection & a, double value) { a.tilt = value * Pi / 180.; });
  }
  log("sharpness: " + std::to_string(m_NumberOfReconstructions) + " slices reconstructed");
  const CalibrationSliceReconstructor::Timings & t = reconstructor->GetTimings();
  result.AddTiming("sharpness: binning and thinning the views", binningSeconds, binnings);
  result.AddTiming(std::string("sharpness: FDK weighting and ramp filter (") +
                     (m_Hardware == Hardware::Cuda ? "GPU" : "CPU") + ", shared by the candidates)",
                   t.filtering, t.filterings);
  result.AddTiming(std::string("sharpness: FDK backprojection of the slices (") +
                     (m_Hardware == Hardware::Cuda ? "GPU" : "CPU") + ")",
                   t.backProjection, t.backProjections);
  if (m_Hardware == Hardware::Cuda)
    result.AddTiming("sharpness: transfers (projections to the GPU's image, slices back)", t.transfers, 0);
  result.AddTiming("sharpness: scores of the slices", scoreSeconds, scores);
  for (const std::string & line : result.DescribeTimings())
    log("timing: " + line);
  return result;
}

void
SharpnessCalibration::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Fit: offset " << m_FitOffset << ", roll " << m_FitRoll << ", tilt " << m_FitTilt << std::endl;
  os << indent << "TiltRange: " << m_TiltRange << " degrees" << std::endl;
  os << indent << "NumberOfSlices: " << m_NumberOfSlices << ", MaximumColumns: " << m_MaximumColumns << std::endl;
  os << indent << "Measure: " << SharpnessScore::Name(m_Measure) << std::endl;
}

} // namespace cbct
