#include "cbctOppositeViewAxisCalibration.h"

#include "cbctCalibrationSupport.h"
#include "cbctInputChecks.h"

#include "cbctWorkerErrors.h"

#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_matrix_fixed.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;
using ImageType = itk::Image<float, 3>;
/** The views' smoothing before they are compared: a binomial kernel of this order, a Gaussian of two
 * pixels (variance order / 4). Bilinear interpolation errs less on smooth views, and its error, which
 * changes with where a conjugate falls between pixels, pulled the roll toward candidates whose conjugates
 * fall on pixel centres: the cost is so flat along the roll on a coarse detector that the pull moved it by
 * a fifth. Measured on exact projections of Shepp-Logan, 128 rows, a roll of 0.3 degree with the axis on
 * a pixel and a quarter pixel off one: 0.227 and 0.368 with a Gaussian of one pixel, 0.285 and 0.316
 * with two; a roll of 0 gave 0.000; 64 rows (XVI-like) 0.28 and 0.42 for 0.5. */
constexpr unsigned int SmoothingOrder = 16;

/** Every view at one binning, and the mean view (or none). */
struct LevelImages
{
  ImageType::ConstPointer stack; // third axis: projection index, as the geometry's
  ImageType::Pointer mean;       // one view; null when the mean is not subtracted
  int nx = 0, ny = 0;
  double u0 = 0., v0 = 0., su = 1., sv = 1.; // mm
  std::size_t
  Pixels() const
  {
    return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  }
};

/** The binomial kernel of `order` (order + 1 taps, C(order, i) / 2^order): a Gaussian of variance order / 4. */
std::vector<double>
BinomialKernel(unsigned int order)
{
  std::vector<double> kernel{ 1. };
  for (unsigned int k = 0; k < order; ++k)
  {
    std::vector<double> next(kernel.size() + 1, 0.);
    for (std::size_t i = 0; i < kernel.size(); ++i)
    {
      next[i] += 0.5 * kernel[i];
      next[i + 1] += 0.5 * kernel[i];
    }
    kernel = next;
  }
  return kernel;
}

/** `image` (every view) smoothed by the binomial kernel of SmoothingOrder along u and v (edges
 * replicated). */
ImageType::Pointer
Binomial(const ImageType * image)
{
  auto smoothed = ImageType::New();
  smoothed->CopyInformation(image);
  smoothed->SetRegions(image->GetLargestPossibleRegion());
  smoothed->Allocate();
  const auto size = image->GetLargestPossibleRegion().GetSize();
  const int nx = static_cast<int>(size[0]), ny = static_cast<int>(size[1]);
  static const std::vector<double> kernel = BinomialKernel(SmoothingOrder);
  const int half = static_cast<int>(SmoothingOrder / 2);
  ParallelizeArray(
    0, size[2],
    [&](itk::SizeValueType k) {
      const float * in = image->GetBufferPointer() + k * size[0] * size[1];
      float * out = smoothed->GetBufferPointer() + k * size[0] * size[1];
      std::vector<float> along(static_cast<std::size_t>(nx) * ny);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x)
        {
          double s = 0.;
          for (int t = -half; t <= half; ++t)
            s += kernel[t + half] * in[static_cast<std::size_t>(y) * nx + std::clamp(x + t, 0, nx - 1)];
          along[static_cast<std::size_t>(y) * nx + x] = static_cast<float>(s);
        }
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x)
        {
          double s = 0.;
          for (int t = -half; t <= half; ++t)
            s += kernel[t + half] * along[static_cast<std::size_t>(std::clamp(y + t, 0, ny - 1)) * nx + x];
          out[static_cast<std::size_t>(y) * nx + x] = static_cast<float>(s);
        }
    },
    nullptr);
  return smoothed;
}

/** The views at `binning`, smoothed by a Gaussian of one pixel: bilinear interpolation of the conjugates
 * then errs far less than on the sharp edges of raw projections, whose error changes with the sub-pixel
 * shift and biased the roll by a tenth of a degree (measured on exact projections of Shepp-Logan with
 * beads). */
LevelImages
MakeLevel(const ImageType * projections, unsigned int binning, const ImageType * mean)
{
  LevelImages level;
  const unsigned int views = static_cast<unsigned int>(projections->GetLargestPossibleRegion().GetSize(2));
  if (binning == 1)
  {
    level.stack = projections;
    if (mean)
      level.mean = const_cast<ImageType *>(mean);
  }
  else
  {
    std::vector<unsigned int> all(views);
    std::iota(all.begin(), all.end(), 0u);
    level.stack = detail::BinnedViews(projections, binning, all);
    if (mean)
      level.mean = detail::BinnedViews(mean, binning, { 0u });
  }
  level.stack = Binomial(level.stack);
  if (level.mean)
    level.mean = Binomial(level.mean);
  const auto size = level.stack->GetLargestPossibleRegion().GetSize();
  level.nx = static_cast<int>(size[0]);
  level.ny = static_cast<int>(size[1]);
  level.u0 = level.stack->GetOrigin()[0];
  level.v0 = level.stack->GetOrigin()[1];
  level.su = level.stack->GetSpacing()[0];
  level.sv = level.stack->GetSpacing()[1];
  return level;
}

/** One view of a candidate geometry: its matrix, the inverse of its left 3x3 block (pixel to ray
 * direction), its source and the source's azimuth about the rotation axis. */
struct ViewRays
{
  double m[3][4];
  double inverse[3][3];
  double source[3];
  double azimuth = 0.;
};

/** Per compared view: the weighted sum of squared differences and the sum of weights. */
struct ViewSums
{
  std::vector<double> squares, weights;

  /** The weighted mean squared difference over the views whose index is not `leftOut` modulo `groups`
   * (groups 0: all views); infinite without weight. */
  double
  Cost(unsigned int groups = 0, unsigned int leftOut = 0) const
  {
    double s = 0., w = 0.;
    for (std::size_t i = 0; i < squares.size(); ++i)
      if (groups == 0 || i % groups != leftOut)
      {
        s += squares[i];
        w += weights[i];
      }
    return w > 0. ? s / w : std::numeric_limits<double>::infinity();
  }
  double
  Weight() const
  {
    return std::accumulate(weights.begin(), weights.end(), 0.);
  }
};

/** The comparison of rays with their conjugates for candidate corrections. */
class ConjugateRegistration
{
public:
  /** `coneSlope`: rays steeper than this (the tangent of their angle to the orbit's plane) are left out. */
  ConjugateRegistration(const ThreeDCircularProjectionGeometry * nominal, std::vector<unsigned int> compared,
                        double coneSlope)
    : m_Nominal(nominal)
    , m_Compared(std::move(compared))
    , m_ConeSlope(coneSlope)
  {}

  std::size_t
  Views() const
  {
    return m_Compared.size();
  }

  /** Each compared view's weighted squared differences against the conjugates, for correction c. */
  /** Seconds spent in Evaluate() and how many times it ran. */
  double
  Seconds() const
  {
    return m_Seconds;
  }
  unsigned int
  Evaluations() const
  {
    return m_Evaluations;
  }

  ViewSums
  Evaluate(const LevelImages & level, const AxisCorrection & c) const
  {
    const auto started = std::chrono::steady_clock::now();
    ++m_Evaluations;
    constexpr double Taper = 4.; // pixels over which a pixel's weight falls to 0 at a detector edge
    const auto geometry = c.Apply(m_Nominal);
    const unsigned int n = geometry->GetNumberOfProjections();
    std::vector<ViewRays> rays(n);
    std::vector<std::pair<double, unsigned int>> sorted(n);
    for (unsigned int k = 0; k < n; ++k)
    {
      const auto & m = geometry->GetMatrix(k);
      vnl_matrix_fixed<double, 3, 3> left;
      for (unsigned int r = 0; r < 3; ++r)
      {
        for (unsigned int col = 0; col < 4; ++col)
          rays[k].m[r][col] = m(r, col);
        for (unsigned int col = 0; col < 3; ++col)
          left(r, col) = m(r, col);
      }
      const vnl_matrix_fixed<double, 3, 3> inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
      for (unsigned int r = 0; r < 3; ++r)
        for (unsigned int col = 0; col < 3; ++col)
          rays[k].inverse[r][col] = inverse(r, col);
      const auto s = geometry->GetSourcePosition(k);
      for (unsigned int i = 0; i < 3; ++i)
        rays[k].source[i] = s[i];
      rays[k].azimuth = ThreeDCircularProjectionGeometry::WrapAngle(std::atan2(s[0], s[2]));
      sorted[k] = { rays[k].azimuth, k };
    }
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> gaps(n);
    for (unsigned int i = 0; i < n; ++i)
      gaps[i] = (i + 1 < n ? sorted[i + 1].first : sorted[0].first + 2. * Pi) - sorted[i].first;
    std::vector<double> ordered = gaps;
    std::nth_element(ordered.begin(), ordered.begin() + n / 2, ordered.end());
    const double largestGap = 3. * ordered[n / 2];

    ViewSums sums;
    sums.squares.assign(m_Compared.size(), 0.);
    sums.weights.assign(m_Compared.size(), 0.);
    const int nx = level.nx, ny = level.ny;
    const float * stack = level.stack->GetBufferPointer();
    const float * mean = level.mean ? level.mean->GetBufferPointer() : nullptr;
    auto taper = [&](double f, int size) {
      return size < 2 ? 1. : std::clamp(std::min(f, size - 1. - f) / Taper, 0., 1.);
    };
    // Bilinear sample of `image` (nx x ny) at fractional pixel (fx, fy), inside the detector.
    auto sample = [&](const float * image, double fx, double fy) {
      const int x0 = std::min(static_cast<int>(fx), nx - 2), y0 = ny > 1 ? std::min(static_cast<int>(fy), ny - 2) : 0;
      const double tx = fx - x0, ty = ny > 1 ? fy - y0 : 0.;
      const float * r0 = image + static_cast<std::size_t>(y0) * nx;
      const float * r1 = ny > 1 ? r0 + nx : r0;
      return (1. - ty) * ((1. - tx) * r0[x0] + tx * r0[x0 + 1]) + ty * ((1. - tx) * r1[x0] + tx * r1[x0 + 1]);
    };
    // Where the own view's pixel (x, y) is measured from the other side: the
    // two views bracketing the conjugate source (interpolated in angle), their columns and rows, and the
    // sample's weight (0 where a sample leaves the detector); false without a conjugate.
    struct Conjugates
    {
      const float * views[2];
      double fx[2], fy[2], share[2];
      double weight = 0.;
    };
    auto conjugateOf = [&](int x, int y, const ViewRays & ra, unsigned int a, Conjugates & c) {
      const double u = level.u0 + x * level.su;
      const double v = level.v0 + y * level.sv;
      // The ray: source + t * d, d = inverse * (u, v, 1).
      double d[3];
      for (int r = 0; r < 3; ++r)
        d[r] = ra.inverse[r][0] * u + ra.inverse[r][1] * v + ra.inverse[r][2];
      const double across = d[0] * d[0] + d[2] * d[2];
      if (!(across > 0.) || d[1] * d[1] > m_ConeSlope * m_ConeSlope * across)
        return false;
      // Its point nearest the rotation axis (in the x-z plane), and the conjugate source: the other
      // end of the ray's chord through the orbit.
      const double t = -(ra.source[0] * d[0] + ra.source[2] * d[2]) / across;
      const double p[3] = { ra.source[0] + t * d[0], ra.source[1] + t * d[1], ra.source[2] + t * d[2] };
      const double azimuth = ThreeDCircularProjectionGeometry::WrapAngle(
        std::atan2(2. * p[0] - ra.source[0], 2. * p[2] - ra.source[2]));
      auto above = std::upper_bound(sorted.begin(), sorted.end(), std::make_pair(azimuth, n));
      const std::size_t i2 = above == sorted.end() ? 0 : static_cast<std::size_t>(above - sorted.begin());
      const std::size_t i1 = (i2 + n - 1) % n;
      if (gaps[i1] > largestGap)
        return false;
      const double into = ThreeDCircularProjectionGeometry::WrapAngle(azimuth - sorted[i1].first);
      const double w2 = std::clamp(into / gaps[i1], 0., 1.);
      c.weight = taper(x, nx) * taper(y, ny);
      for (int side = 0; side < 2; ++side)
      {
        const unsigned int k = side == 0 ? sorted[i1].second : sorted[i2].second;
        const double share = side == 0 ? 1. - w2 : w2;
        if (k == a)
          return false;
        const ViewRays & rk = rays[k];
        const double w = rk.m[2][0] * p[0] + rk.m[2][1] * p[1] + rk.m[2][2] * p[2] + rk.m[2][3];
        const double uk = (rk.m[0][0] * p[0] + rk.m[0][1] * p[1] + rk.m[0][2] * p[2] + rk.m[0][3]) / w;
        const double vk = (rk.m[1][0] * p[0] + rk.m[1][1] * p[1] + rk.m[1][2] * p[2] + rk.m[1][3]) / w;
        const double fx = (uk - level.u0) / level.su, fy = ny > 1 ? (vk - level.v0) / level.sv : 0.;
        if (!(fx >= 0. && fx <= nx - 1. && fy >= 0. && fy <= ny - 1.))
          return false;
        c.weight *= share > 0. ? taper(fx, nx) * taper(fy, ny) : 1.;
        c.views[side] = stack + k * level.Pixels();
        c.fx[side] = fx;
        c.fy[side] = fy;
        c.share[side] = share;
      }
      return c.weight > 0.;
    };
    // The conjugates' value (less the mean view's).
    auto conjugateValue = [&](const Conjugates & c) {
      double value = 0.;
      for (int side = 0; side < 2; ++side)
      {
        double s = sample(c.views[side], c.fx[side], c.fy[side]);
        if (mean)
          s -= sample(mean, c.fx[side], c.fy[side]);
        value += c.share[side] * s;
      }
      return value;
    };
    ParallelizeArray(
      0, m_Compared.size(),
      [&](itk::SizeValueType i) {
        const unsigned int a = m_Compared[i];
        const ViewRays & ra = rays[a];
        const float * view = stack + a * level.Pixels();
        // Every other row of a tall detector: the views are smoothed over about two pixels (Binomial()),
        // so the rows left out repeat the ones kept.
        const int rowStride = ny >= 64 ? 2 : 1;
        for (int y = 0; y < ny; y += rowStride)
        {
          double squares = 0., weights = 0.;
          for (int x = 0; x < nx; ++x)
          {
            Conjugates c;
            if (!conjugateOf(x, y, ra, a, c))
              continue;
            double own = view[static_cast<std::size_t>(y) * nx + x];
            if (mean)
              own -= mean[static_cast<std::size_t>(y) * nx + x];
            const double residual = own - conjugateValue(c);
            squares += c.weight * residual * residual;
            weights += c.weight;
          }
          sums.squares[i] += squares;
          sums.weights[i] += weights;
        }
      },
      nullptr);
    m_Seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return sums;
  }

private:
  ThreeDCircularProjectionGeometry::ConstPointer m_Nominal;
  std::vector<unsigned int> m_Compared;
  double m_ConeSlope;
  mutable double m_Seconds = 0.;
  mutable unsigned int m_Evaluations = 0;
};

/** The costs of a 3 x 3 grid of corrections about a centre (offset step i - 1, roll step j - 1). */
struct Grid
{
  std::array<std::array<ViewSums, 3>, 3> sums;

  /** The minimum (in steps) of the least-squares quadratic through the grid's costs over the views not
   * left out, or of the parabola through the middle column without the roll; false when there is none. */
  bool
  Minimum(double & x, double & y, bool withRoll, unsigned int groups = 0, unsigned int leftOut = 0) const
  {
    double c[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        c[i][j] = withRoll || j == 1 ? sums[i][j].Cost(groups, leftOut) : 0.;
    y = 0.;
    if (!withRoll)
    {
      const double b = 0.5 * (c[2][1] - c[0][1]), d = 0.5 * (c[2][1] - 2. * c[1][1] + c[0][1]);
      if (!(d > 0.) || !std::isfinite(b))
        return false;
      x = -b / (2. * d);
      return true;
    }
    // a + b x + cy y + d x^2 + e x y + f y^2 on x, y in {-1, 0, 1}.
    double b = 0., cy = 0., d = 0., f = 0.;
    for (int k = 0; k < 3; ++k)
    {
      b += (c[2][k] - c[0][k]) / 6.;
      d += (c[0][k] - 2. * c[1][k] + c[2][k]) / 6.;
      cy += (c[k][2] - c[k][0]) / 6.;
      f += (c[k][0] - 2. * c[k][1] + c[k][2]) / 6.;
    }
    const double e = (c[2][2] - c[2][0] - c[0][2] + c[0][0]) / 4.;
    const double det = 4. * d * f - e * e;
    if (!(d > 0.) || !(det > 0.) || !std::isfinite(det))
      return false;
    x = (-2. * f * b + e * cy) / det;
    y = (-2. * d * cy + e * b) / det;
    return true;
  }
};

Grid
CostGrid(const ConjugateRegistration & registration, const LevelImages & level, const AxisCorrection & c,
         double offsetStep, double rollStep, bool withRoll)
{
  Grid grid;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
    {
      if (!withRoll && j != 1)
        continue;
      AxisCorrection candidate = c;
      candidate.offset += (i - 1) * offsetStep;
      candidate.roll += (j - 1) * rollStep;
      grid.sums[i][j] = registration.Evaluate(level, candidate);
    }
  return grid;
}

/** The correction minimising the cost from `c`: quadratic fits on 3 x 3 grids of offset and roll, the
 * grid moved to the fit's minimum (at most 1.5 steps away, or to the grid's best point when the fit has
 * no minimum) and its steps halved once the minimum lies within half a step, until both steps are
 * below their tolerances. Derivative-free: Gauss-Newton's curvature overestimates the cost's along the
 * roll (the residual of conjugate rays is not small), which made its steps crawl. `last` receives the
 * last grid and its steps. */
AxisCorrection
QuadraticSearch(const ConjugateRegistration & registration, const LevelImages & level, AxisCorrection c, bool withRoll,
                double offsetStep, double rollStep, double offsetTolerance, double rollTolerance, bool & converged,
                Grid & last, double & lastOffsetStep, double & lastRollStep)
{
  converged = false;
  for (int iteration = 0; iteration < 60; ++iteration)
  {
    last = CostGrid(registration, level, c, offsetStep, rollStep, withRoll);
    lastOffsetStep = offsetStep;
    lastRollStep = rollStep;
    double x = 0., y = 0.;
    if (!last.Minimum(x, y, withRoll))
    {
      double best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if ((withRoll || j == 1) && last.sums[i][j].Cost() < best)
          {
            best = last.sums[i][j].Cost();
            x = i - 1.;
            y = j - 1.;
          }
    }
    x = std::clamp(x, -1.5, 1.5);
    y = std::clamp(y, -1.5, 1.5);
    c.offset += x * offsetStep;
    c.roll += y * rollStep;
    if (std::abs(x) <= 0.5 && std::abs(y) <= 0.5)
    {
      if (offsetStep <= offsetTolerance && (!withRoll || rollStep <= rollTolerance))
      {
        converged = true;
        break;
      }
      offsetStep = std::max(0.5 * offsetStep, 0.5 * offsetTolerance);
      rollStep = std::max(0.5 * rollStep, 0.5 * rollTolerance);
    }
  }
  return c;
}
} // namespace

GeometryCalibrationResult
OppositeViewAxisCalibration::Compute()
{
  const std::string method = "opposite-view calibration";
  detail::CheckCalibrationInputs(m_Projections, m_Geometry, method);
  GeometryCalibrationResult result;
  const LogFunction log = this->LogInto(result);
  const ImageType * projections = m_Projections;
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  const double pixel = projections->GetSpacing()[0];
  result.pixelSize = pixel;
  const unsigned int n = m_Geometry->GetNumberOfProjections();
  const bool fullScan = detail::IsFullScan(m_Geometry);
  const double range = m_Geometry->GetAngularRange() * 180. / Pi;
  const double step = range / std::max(1u, n - 1);
  if (n < MinimumViews || step > MaximumStep)
    itkExceptionMacro(<< "opposite views: " << n << " projections " << detail::Fixed(step, 2)
                      << " degrees apart; at least " << MinimumViews << ", at most " << MaximumStep
                      << " degrees apart, are needed to interpolate the opposite views; use the sharpness method");
  if (range < 180.)
    itkExceptionMacro(<< "opposite views: the scan covers " << detail::Fixed(range, 1)
                      << " degrees; no ray is measured from both sides below 180 degrees plus the fan; use the "
                         "sharpness method");

  const std::vector<unsigned int> compared = detail::EvenlySpreadViews(n, m_MaximumViews);
  log("opposite views: the rays of " + std::to_string(compared.size()) + " views against their conjugates (" +
      (fullScan ? "full scan" : "scan over " + detail::Fixed(range, 1) + " degrees") + ")");
  const std::string truncated = detail::TruncatedSides(projections, compared);
  if (!truncated.empty())
    result.warnings.push_back("the object leaves the detector on its " + truncated +
                              " side in most views: rays are compared only where both sides measured them");

  // Where the time goes (--verbose, cbct-bench): the views' preparation and the registration.
  using Clock = std::chrono::steady_clock;
  double preparation = 0.;
  unsigned int levels = 0;
  auto makeLevel = [&](unsigned int binning, const ImageType * mean) {
    const auto started = Clock::now();
    LevelImages level = MakeLevel(projections, binning, mean);
    preparation += std::chrono::duration<double>(Clock::now() - started).count();
    ++levels;
    return level;
  };
  const auto meanStarted = Clock::now();
  // The mean view of a full scan (flat-field errors stand still on the detector).
  ImageType::Pointer meanView;
  if (m_SubtractMeanView && fullScan)
  {
    meanView = ImageType::New();
    ImageType::SizeType meanSize{ { size[0], size[1], 1 } };
    meanView->SetRegions(meanSize);
    meanView->SetSpacing(projections->GetSpacing());
    meanView->SetOrigin(projections->GetOrigin());
    meanView->Allocate();
    const std::size_t perView = size[0] * size[1];
    std::vector<double> sum(perView, 0.);
    const float * p = projections->GetBufferPointer();
    for (unsigned int k = 0; k < n; ++k)
      for (std::size_t i = 0; i < perView; ++i)
        sum[i] += p[k * perView + i];
    for (std::size_t i = 0; i < perView; ++i)
      meanView->GetBufferPointer()[i] = static_cast<float>(sum[i] / n);
    log("opposite views: the mean of all " + std::to_string(n) + " views subtracted (stationary flat-field errors leave "
        "the comparison)");
  }
  preparation += std::chrono::duration<double>(Clock::now() - meanStarted).count();

  // Rays within MaximumConeAngle of the orbit's plane: a steeper ray's conjugate misses it by twice the
  // slope times the depth of what it crosses, and that mismatch biased the roll (see the class comment).
  const auto & firstView = m_Geometry->GetParameters(0);
  const double coneSlope = std::tan(MaximumConeAngle * Pi / 180.);
  const double halfHeight = 0.5 * size[1] * projections->GetSpacing()[1];
  const double coneHalfHeight = coneSlope * firstView.sourceToDetectorDistance;
  if (coneHalfHeight < halfHeight)
    log("opposite views: rays within " + detail::Fixed(MaximumConeAngle, 1) + " degrees of the orbit's plane (" +
        detail::Fixed(coneHalfHeight, 1) + " of " + detail::Fixed(halfHeight, 1) +
        " mm above and below the middle row; steeper rays' conjugates are too approximate)");
  ConjugateRegistration registration(m_Geometry, compared, coneSlope);
  AxisCorrection c;
  c.model = m_OffsetModel;

  // 1. The offset scanned on a coarse binning, the roll at its nominal value.
  const unsigned int coarse = detail::BinningForColumns(static_cast<unsigned int>(size[0]), 64);
  // The finest level keeps at most 256 columns: the registration finds the axis to a few hundredths of
  // its pixel there, and the cost grows with the pixels (SharpnessCalibration refines on the full
  // detector).
  unsigned int finestBinning = 1;
  while (size[0] / finestBinning > 256)
    finestBinning *= 2;
  const double searchPixels = m_SearchRange > 0. ? m_SearchRange : 0.25 * size[0];
  {
    const LevelImages level = makeLevel(coarse, meanView);
    const int steps = std::max(2, static_cast<int>(std::ceil(searchPixels / coarse)));
    std::vector<double> offsets, costs;
    double largestWeight = 0.;
    for (int k = -steps; k <= steps; ++k)
    {
      AxisCorrection candidate = c;
      candidate.offset = k * double(coarse) * pixel;
      const ViewSums sums = registration.Evaluate(level, candidate);
      offsets.push_back(candidate.offset / pixel);
      costs.push_back(sums.Weight() >= 16. ? sums.Cost() : std::numeric_limits<double>::infinity());
      largestWeight = std::max(largestWeight, sums.Weight());
    }
    const std::size_t best = static_cast<std::size_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
    if (!std::isfinite(costs[best]))
      itkExceptionMacro(<< "opposite views: no ray has a conjugate on the detector for offsets within +-"
                        << detail::Fixed(searchPixels, 1) << " pixels; check the detector's grid and the geometry");
    double largest = 0.;
    for (double cost : costs)
      if (std::isfinite(cost))
        largest = std::max(largest, cost);
    if (!(largest > costs[best] * (1. + 1e-3)))
      itkExceptionMacro(<< "opposite views: rays match their conjugates equally well at every offset within +-"
                        << detail::Fixed(searchPixels, 1)
                        << " pixels (a blank scan, or an object without structure): the offset cannot be fitted");
    if (best == 0 || best + 1 == costs.size())
      itkExceptionMacro(<< "opposite views: the best offset lies at the edge of the search, "
                        << detail::Fixed(offsets[best], 1) << " pixels of +-" << detail::Fixed(searchPixels, 1)
                        << "; the axis is further off (widen the search range) or the data do not determine it");
    c.offset = offsets[best] * pixel;
    log("opposite views: coarse search over +-" + detail::Fixed(searchPixels, 1) + " pixels on " +
        std::to_string(level.nx) + " x " + std::to_string(level.ny) + " binned pixels: best offset " +
        detail::Fixed(offsets[best], 1) + " pixels");
  }

  // The rows' lever arm for the roll: the half height compared.
  const double rowSpan = std::min(halfHeight, coneHalfHeight);
  // 2. Quadratic fits of the cost in offset and roll on finer and finer binnings. The roll's step
  // moves the detector's top and bottom rows by a binned pixel (at most a degree).
  LevelImages finest;
  Grid last;
  double lastOffsetStep = 0., lastRollStep = 0.;
  for (unsigned int binning = coarse; binning >= finestBinning; binning /= 2)
  {
    const LevelImages level = makeLevel(binning, meanView);
    // Steps of a binned pixel on the coarsest level, half of one on the next (the previous level found
    // the axis to a tenth of its pixel), down to a tenth of a binned pixel; the quadratic's minimum then
    // places the axis well within the last step.
    const double binnedPixel = binning * pixel;
    const double start = binning == coarse ? 1. : 0.5;
    const double tolerance = binning == finestBinning ? 0.05 : 0.1;
    bool converged = false;
    c = QuadraticSearch(registration, level, c, m_FitRoll, start * binnedPixel,
                        std::min(Pi / 180., start * binnedPixel / rowSpan), tolerance * binnedPixel,
                        tolerance * binnedPixel / rowSpan, converged, last, lastOffsetStep, lastRollStep);
    log("opposite views: binning " + std::to_string(binning) + ": offset " + detail::Fixed(c.offset / pixel, 3) +
        " pixels" + (m_FitRoll ? ", roll " + detail::Fixed(c.roll * 180. / Pi, 4) + " degrees" : std::string()) +
        ", mean squared difference " + detail::Fixed(registration.Evaluate(level, c).Cost(), 8) +
        (converged ? "" : " (not converged)"));
    if (!converged)
      itkExceptionMacro(<< "opposite views: the fit did not converge at binning " << binning << " (offset "
                        << detail::Fixed(c.offset / pixel, 3) << " pixels, roll " << detail::Fixed(c.roll * 180. / Pi, 4)
                        << " degrees); the views may not be of one rigid object turning about one axis");
    if (binning == finestBinning)
    {
      finest = level;
      break;
    }
  }

  // 3. Jackknife over groups of views, from one grid about the result (the cost is a sum over views, so
  // a group left out needs no new evaluation). Its steps: a tenth of a pixel, and the roll that moves
  // the top and bottom rows by as much.
  const double gridOffset = 0.1 * pixel, gridRoll = 0.1 * pixel / rowSpan;
  const Grid grid = CostGrid(registration, finest, c, gridOffset, gridRoll, m_FitRoll);
  if (m_FitRoll)
  {
    double x = 0., y = 0.;
    if (size[1] < 4 || !grid.Minimum(x, y, true))
      itkExceptionMacro(<< "opposite views: the data do not determine the roll (the detector has " << size[1]
                        << " rows, and the cost has no minimum along the roll; the object must span several rows); "
                           "fit the offset alone");
  }
  const unsigned int groups = std::min<unsigned int>(8, static_cast<unsigned int>(compared.size()));
  std::vector<double> offsetEstimates, rollEstimates;
  for (unsigned int g = 0; g < groups; ++g)
  {
    double x = 0., y = 0.;
    if (grid.Minimum(x, y, m_FitRoll, groups, g))
    {
      offsetEstimates.push_back(x * gridOffset / pixel);
      rollEstimates.push_back(y * gridRoll * 180. / Pi);
    }
  }
  auto jackknife = [](const std::vector<double> & estimates) {
    const double count = static_cast<double>(estimates.size());
    if (count < 2.)
      return std::numeric_limits<double>::quiet_NaN();
    const double mean = std::accumulate(estimates.begin(), estimates.end(), 0.) / count;
    double sum = 0.;
    for (double e : estimates)
      sum += (e - mean) * (e - mean);
    return std::sqrt((count - 1.) / count * sum);
  };
  const double offsetSigma = jackknife(offsetEstimates);
  const double rollSigma = jackknife(rollEstimates);

  result.correction = c;
  result.geometry = c.Apply(m_Geometry);
  result.method = "opposite views";
  // Filled through a reference that the roll's insertion below would leave dangling: later uses read
  // offsetPixels.
  const double offsetPixels = c.offset / pixel;
  {
    CalibrationParameter & offset = result.Parameter("offset");
    offset.fitted = true;
    offset.value = offsetPixels;
    offset.uncertainty = offsetSigma;
    offset.method = "opposite views";
  }
  if (m_FitRoll)
  {
    CalibrationParameter & roll = result.Parameter("roll");
    roll.fitted = true;
    roll.value = c.roll * 180. / Pi;
    roll.uncertainty = rollSigma;
    roll.method = "opposite views";
  }
  log("opposite views: offset " + detail::Fixed(offsetPixels, 3) + " +- " + detail::Fixed(offsetSigma, 3) + " pixels" +
      (m_FitRoll ? ", roll " + detail::Fixed(c.roll * 180. / Pi, 4) + " +- " + detail::Fixed(rollSigma, 4) + " degrees"
                 : std::string()) +
      " (jackknife over " + std::to_string(groups) + " groups of views)");

  auto timed = [&]() {
    result.AddTiming("opposite views: mean view, binning and smoothing", preparation, levels);
    result.AddTiming("opposite views: registration", registration.Seconds(), registration.Evaluations());
    for (const std::string & line : result.DescribeTimings())
      log("timing: " + line);
    return result;
  };
  if (!m_ComputeCurves)
    return timed();
  // 4. The cost against each parameter about the fit, for reports (on at most 256 columns).
  const unsigned int curveBinning = std::max(finestBinning, detail::BinningForColumns(static_cast<unsigned int>(size[0]), 256));
  const LevelImages curveLevel = curveBinning == finestBinning ? finest : makeLevel(curveBinning, meanView);
  auto curve = [&](const std::string & parameter, double centre, double halfWidth, auto set) {
    CalibrationScoreCurve scores;
    scores.parameter = parameter;
    scores.unit = parameter == "offset" ? "pixels" : "degrees";
    scores.method = "opposite views";
    scores.score = "mean squared difference of rays and their conjugates";
    scores.higherIsBetter = false;
    scores.fitted = centre;
    for (int i = -16; i <= 16; ++i)
    {
      const double value = centre + halfWidth * i / 16.;
      AxisCorrection candidate = c;
      set(candidate, value);
      scores.values.push_back(value);
      scores.scores.push_back(registration.Evaluate(curveLevel, candidate).Cost());
    }
    result.curves.push_back(scores);
  };
  curve("offset", offsetPixels, std::max(4., 6. * offsetSigma),
        [&](AxisCorrection & a, double value) { a.offset = value * pixel; });
  if (m_FitRoll)
    curve("roll", c.roll * 180. / Pi, std::max(0.5, 6. * rollSigma),
          [&](AxisCorrection & a, double value) { a.roll = value * Pi / 180.; });
  return timed();
}

void
OppositeViewAxisCalibration::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "OffsetModel: " << AxisCorrection::ModelName(m_OffsetModel) << std::endl;
  os << indent << "MaximumViews: " << m_MaximumViews << std::endl;
  os << indent << "SubtractMeanView: " << m_SubtractMeanView << std::endl;
}

} // namespace cbct
