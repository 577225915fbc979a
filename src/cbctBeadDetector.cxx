#include "cbctBeadDetector.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_amoeba.h>
#include <vnl/vnl_cost_function.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace cbct
{

namespace
{
/** Running minimum (or maximum) over windows of 2r+1 samples of a line of n samples `stride`
 * apart, clipped at the ends (van Herk's and Gil & Werman's two passes per block of 2r+1: three
 * comparisons per sample whatever r). */
void
RunningExtremum(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride, std::size_t n,
                std::size_t r, bool takeMax, std::vector<float> & padded, std::vector<float> & g, std::vector<float> & h)
{
  const float identity = takeMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  const std::size_t m = n + 2 * r, w = 2 * r + 1;
  padded.assign(m, identity);
  for (std::size_t k = 0; k < n; ++k)
    padded[r + k] = in[static_cast<std::ptrdiff_t>(k) * inStride];
  g.resize(m);
  h.resize(m);
  auto op = [takeMax](float a, float b) { return takeMax ? std::max(a, b) : std::min(a, b); };
  for (std::size_t start = 0; start < m; start += w)
  {
    const std::size_t end = std::min(start + w, m) - 1;
    g[start] = padded[start];
    for (std::size_t i = start + 1; i <= end; ++i)
      g[i] = op(g[i - 1], padded[i]);
    h[end] = padded[end];
    for (std::size_t i = end; i > start; --i)
      h[i - 1] = op(h[i], padded[i - 1]);
  }
  for (std::size_t k = 0; k < n; ++k)
    out[static_cast<std::ptrdiff_t>(k) * outStride] = op(h[k], g[k + 2 * r]);
}

/** Grey-level erosion (or dilation) by a (2r+1)^2 square: rows, then columns. */
std::vector<float>
SquareExtremum(const std::vector<float> & image, std::size_t width, std::size_t height, std::size_t r, bool takeMax)
{
  std::vector<float> rows(image.size()), result(image.size()), padded, g, h;
  for (std::size_t y = 0; y < height; ++y)
    RunningExtremum(image.data() + y * width, 1, rows.data() + y * width, 1, width, r, takeMax, padded, g, h);
  const auto stride = static_cast<std::ptrdiff_t>(width);
  for (std::size_t x = 0; x < width; ++x)
    RunningExtremum(rows.data() + x, stride, result.data() + x, stride, height, r, takeMax, padded, g, h);
  return result;
}

/** sigma of white noise from the median absolute second difference along rows (smooth backgrounds
 * cancel; a second difference of white noise has variance 6 sigma^2). */
double
NoiseSigma(const float * pixels, std::size_t width, std::size_t height)
{
  std::vector<float> differences;
  differences.reserve(width * height);
  for (std::size_t y = 0; y < height; ++y)
    for (std::size_t x = 1; x + 1 < width; ++x)
    {
      const float * p = pixels + y * width + x;
      differences.push_back(std::abs(p[-1] - 2.f * p[0] + p[1]));
    }
  if (differences.empty())
    return 0.;
  auto middle = differences.begin() + static_cast<std::ptrdiff_t>(differences.size() / 2);
  std::nth_element(differences.begin(), middle, differences.end());
  return 1.4826 * *middle / std::sqrt(6.);
}

struct Component
{
  std::vector<std::size_t> pixels;
  double peak = 0.;
};

/** 8-connected components of `mask`; labels[p] is the component's number + 1 (0: background). */
std::vector<Component>
Components(const std::vector<unsigned char> & mask, const std::vector<float> & topHat, std::size_t width, std::size_t height,
           std::vector<std::uint32_t> & labels)
{
  std::vector<Component> components;
  labels.assign(mask.size(), 0);
  std::vector<std::size_t> stack;
  for (std::size_t start = 0; start < mask.size(); ++start)
  {
    if (!mask[start] || labels[start])
      continue;
    components.emplace_back();
    Component & c = components.back();
    const auto label = static_cast<std::uint32_t>(components.size());
    labels[start] = label;
    stack.assign(1, start);
    while (!stack.empty())
    {
      const std::size_t p = stack.back();
      stack.pop_back();
      c.pixels.push_back(p);
      c.peak = std::max(c.peak, static_cast<double>(topHat[p]));
      const std::size_t x = p % width, y = p / width;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
        {
          const auto nx = static_cast<std::ptrdiff_t>(x) + dx, ny = static_cast<std::ptrdiff_t>(y) + dy;
          if (nx < 0 || ny < 0 || nx >= static_cast<std::ptrdiff_t>(width) || ny >= static_cast<std::ptrdiff_t>(height))
            continue;
          const std::size_t q = static_cast<std::size_t>(ny) * width + static_cast<std::size_t>(nx);
          if (mask[q] && !labels[q])
          {
            labels[q] = label;
            stack.push_back(q);
          }
        }
    }
  }
  return components;
}

/** Sum of squares of the best fit of the projection of a sphere, A sqrt(a^2 - d^2) at distance d
 * from the centre, on a quadratic background, to point samples, as a function of (ci, cj, a): for a
 * given centre and radius the amplitude and the background are linear and solved for (variable
 * projection). The samples of a bead a pixel or two across make the sum kinked where a pixel centre
 * enters the disc: a simplex search (Nelder-Mead) minimises it where derivatives would stall. */
class SphereProfileCost : public vnl_cost_function
{
public:
  /** `fixedRadius` > 0: the radius is that, and the variables are (ci, cj) only. */
  SphereProfileCost(std::vector<double> x, std::vector<double> y, std::vector<double> values, double fixedRadius)
    : vnl_cost_function(fixedRadius > 0. ? 2 : 3)
    , m_X(std::move(x))
    , m_Y(std::move(y))
    , m_Values(std::move(values))
    , m_FixedRadius(fixedRadius)
  {
    // The background's quadratic about a fixed origin spans what it spans about any centre: its
    // normal equations and their Cholesky factor are computed once; each evaluation adds the profile.
    double x0 = 0., y0 = 0.;
    for (std::size_t k = 0; k < m_X.size(); ++k)
    {
      x0 += m_X[k] / m_X.size();
      y0 += m_Y[k] / m_Y.size();
    }
    m_Basis.resize(m_Values.size());
    double n[B][B] = { { 0. } }, rhs[B] = { 0. };
    for (std::size_t k = 0; k < m_Values.size(); ++k)
    {
      const double dx = m_X[k] - x0, dy = m_Y[k] - y0;
      m_Basis[k] = { { 1., dx, dy, dx * dx, dx * dy, dy * dy } };
      for (int a = 0; a < B; ++a)
      {
        rhs[a] += m_Basis[k][a] * m_Values[k];
        for (int b = 0; b < B; ++b)
          n[a][b] += m_Basis[k][a] * m_Basis[k][b];
      }
      m_Squares += m_Values[k] * m_Values[k];
    }
    for (int a = 0; a < B; ++a)
      for (int b = 0; b <= a; ++b)
      {
        double sum = n[a][b];
        for (int c = 0; c < b; ++c)
          sum -= m_L[a][c] * m_L[b][c];
        if (a == b)
        {
          if (!(sum > 1e-12 * (n[a][a] + 1e-300)))
          {
            m_Singular = true;
            return;
          }
          m_L[a][a] = std::sqrt(sum);
        }
        else
          m_L[a][b] = sum / m_L[b][b];
      }
    ForwardSolve(rhs, m_Y0);
    for (int a = 0; a < B; ++a)
      m_Explained += m_Y0[a] * m_Y0[a];
  }

  double
  f(const vnl_vector<double> & p) override
  {
    m_Amplitude = 0.;
    if (m_Singular)
      return m_Squares;
    // The profile's column of the normal equations: its products with itself, the background, the values.
    const double a = m_FixedRadius > 0. ? m_FixedRadius : p[2];
    double pp = 0., pb[B] = { 0. }, pv = 0.;
    for (std::size_t k = 0; k < m_Values.size(); ++k)
    {
      const double dx = m_X[k] - p[0], dy = m_Y[k] - p[1], inside = a * a - dx * dx - dy * dy;
      if (!(inside > 0.))
        continue;
      const double q = std::sqrt(inside);
      pp += q * q;
      pv += q * m_Values[k];
      for (int b = 0; b < B; ++b)
        pb[b] += q * m_Basis[k][b];
    }
    // Last row of the Cholesky factor: z = L^-1 pb, l = sqrt(pp - |z|^2); the profile's share of
    // the explained sum of squares is ((pv - z . y0) / l)^2 and its amplitude that over l.
    double z[B];
    ForwardSolve(pb, z);
    double zz = 0., zy = 0.;
    for (int b = 0; b < B; ++b)
    {
      zz += z[b] * z[b];
      zy += z[b] * m_Y0[b];
    }
    const double l2 = pp - zz;
    if (!(l2 > 1e-12 * (pp + 1e-300)))
      return m_Squares - m_Explained; // no pixel centre in the disc: the background alone
    const double y = (pv - zy) / std::sqrt(l2);
    m_Amplitude = y / std::sqrt(l2);
    return m_Squares - m_Explained - y * y;
  }

  /** The amplitude A of the last evaluation. */
  double
  Amplitude() const
  {
    return m_Amplitude;
  }

private:
  static constexpr int B = 6; // 1, x, y, x^2, x y, y^2

  void
  ForwardSolve(const double * rhs, double * out) const
  {
    for (int a = 0; a < B; ++a)
    {
      double sum = rhs[a];
      for (int c = 0; c < a; ++c)
        sum -= m_L[a][c] * out[c];
      out[a] = sum / m_L[a][a];
    }
  }

  std::vector<double> m_X, m_Y, m_Values;
  std::vector<std::array<double, B>> m_Basis;
  double m_FixedRadius;
  double m_L[B][B] = { { 0. } };
  double m_Y0[B] = { 0. };
  double m_Squares = 0.;
  double m_Explained = 0.;
  bool m_Singular = false;
  double m_Amplitude = 0.;
};

/** The simplex search of `cost` from `p`, restarted from where it stopped until that gains nothing:
 * a simplex can collapse on a kink of the sum, or crawl along a valley. */
void
Minimise(SphereProfileCost & cost, vnl_vector<double> & p, double squares)
{
  vnl_amoeba simplex(cost);
  simplex.set_x_tolerance(1e-7);
  simplex.set_f_tolerance(1e-15 * squares);
  simplex.set_max_iterations(3000);
  simplex.minimize(p, vnl_vector<double>(p.size(), 0.3));
  for (int restart = 0; restart < 6; ++restart)
  {
    const double before = simplex.get_end_error();
    simplex.minimize(p, vnl_vector<double>(p.size(), 0.1));
    if (!(simplex.get_end_error() < 0.5 * before))
      break;
  }
}

/** Refines (ci, cj) by the sphere-profile fit over the pixels within `radius` + 2.5 of the centroid
 * (`foreign` ones left out); false, leaving them unchanged, when it fails or moves them by a pixel
 * or more. A bead two or three pixels across may hold as few as 4 samples, which several centres and
 * radii fit exactly: when the radius found is more than 10 % from the nearest of `expectedRadii`
 * (when given), the fit is repeated with that radius held. */
template <typename TForeign>
bool
FitSphereProfile(const float * pixels, std::size_t width, std::size_t height, const TForeign & foreign, double radius,
                 const std::vector<double> & expectedRadii, double & ci, double & cj, double & fittedRadius, double & mass)
{
  double expected = 0.;
  for (const double r : expectedRadii)
    if (expected == 0. || std::abs(r - radius) < std::abs(expected - radius))
      expected = r;
  const double reach = std::max(radius, expected) + 2.5;
  std::vector<double> xs, ys, vs;
  double squares = 0.;
  for (auto y = static_cast<std::ptrdiff_t>(std::floor(cj - reach)); y <= static_cast<std::ptrdiff_t>(std::ceil(cj + reach)); ++y)
    for (auto x = static_cast<std::ptrdiff_t>(std::floor(ci - reach)); x <= static_cast<std::ptrdiff_t>(std::ceil(ci + reach)); ++x)
    {
      if (x < 0 || y < 0 || x >= static_cast<std::ptrdiff_t>(width) || y >= static_cast<std::ptrdiff_t>(height))
        continue;
      if ((x - ci) * (x - ci) + (y - cj) * (y - cj) > reach * reach || foreign(x, y))
        continue;
      xs.push_back(x);
      ys.push_back(y);
      vs.push_back(pixels[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)]);
      squares += vs.back() * vs.back();
    }
  if (vs.size() < 12)
    return false;
  SphereProfileCost free(xs, ys, vs, 0.);
  vnl_vector<double> p(3);
  p[0] = ci;
  p[1] = cj;
  p[2] = expected > 0. ? expected : radius;
  Minimise(free, p, squares);
  double amplitude = (free.f(p), free.Amplitude());
  if (expected > 0. && !(std::abs(p[2] - expected) <= 0.1 * expected))
  {
    SphereProfileCost held(xs, ys, vs, expected);
    vnl_vector<double> q(2);
    q[0] = ci;
    q[1] = cj;
    Minimise(held, q, squares);
    p[0] = q[0];
    p[1] = q[1];
    p[2] = expected;
    amplitude = (held.f(q), held.Amplitude());
  }
  if (!(std::abs(p[0] - ci) < 1.) || !(std::abs(p[1] - cj) < 1.) || !(p[2] > 0.))
    return false;
  ci = p[0];
  cj = p[1];
  fittedRadius = p[2];
  mass = amplitude * 2. * 3.14159265358979323846 * p[2] * p[2] * p[2] / 3.; // the profile's integral
  return true;
}

enum class Outcome
{
  Measured,
  AtEdge,
  Merged,
  Faint
};

/** Step 3 and 4 of the class comment for one component. */
Outcome
Measure(const float * pixels, std::size_t width, std::size_t height, const std::vector<std::uint32_t> & labels, std::uint32_t label,
        const Component & component, const std::vector<float> & topHat, double maximumElongation,
        const std::vector<double> & expectedRadii, BeadDetector::Spot & spot)
{
  double sum = 0., ci = 0., cj = 0.;
  for (const std::size_t p : component.pixels)
  {
    const double w = topHat[p];
    sum += w;
    ci += w * static_cast<double>(p % width);
    cj += w * static_cast<double>(p / width);
  }
  if (!(sum > 0.))
    return Outcome::Faint;
  ci /= sum;
  cj /= sum;
  const double pi = 3.14159265358979323846;
  const double rho = std::max(std::sqrt(component.pixels.size() / pi), 1.) + 1.5; // disc radius, pixels
  const double ringInner = rho + 1., ringOuter = rho + 3.;
  // Pixels of another spot (or next to one) belong to neither the ring nor the disc.
  auto foreign = [&](std::ptrdiff_t x, std::ptrdiff_t y) {
    for (std::ptrdiff_t dy = -1; dy <= 1; ++dy)
      for (std::ptrdiff_t dx = -1; dx <= 1; ++dx)
      {
        const std::ptrdiff_t nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= static_cast<std::ptrdiff_t>(width) || ny >= static_cast<std::ptrdiff_t>(height))
          continue;
        const std::uint32_t l = labels[static_cast<std::size_t>(ny) * width + static_cast<std::size_t>(nx)];
        if (l != 0 && l != label)
          return true;
      }
    return false;
  };
  double mass = 0., mii = 0., mij = 0., mjj = 0.;
  for (int iteration = 0; iteration < 30; ++iteration)
  {
    if (ci - ringOuter < 0. || cj - ringOuter < 0. || ci + ringOuter > width - 1. || cj + ringOuter > height - 1.)
      return Outcome::AtEdge;
    const auto x0 = static_cast<std::ptrdiff_t>(std::floor(ci - ringOuter)), x1 = static_cast<std::ptrdiff_t>(std::ceil(ci + ringOuter));
    const auto y0 = static_cast<std::ptrdiff_t>(std::floor(cj - ringOuter)), y1 = static_cast<std::ptrdiff_t>(std::ceil(cj + ringOuter));
    // Background plane a + b dx + c dy fitted to the ring (normal equations, 3 x 3).
    double n[3][3] = { { 0. } }, rhs[3] = { 0. };
    unsigned int ringPixels = 0;
    for (std::ptrdiff_t y = y0; y <= y1; ++y)
      for (std::ptrdiff_t x = x0; x <= x1; ++x)
      {
        const double dx = x - ci, dy = y - cj, r = std::sqrt(dx * dx + dy * dy);
        if (r < ringInner || r > ringOuter || foreign(x, y))
          continue;
        const double f[3] = { 1., dx, dy };
        const double value = pixels[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)];
        for (int a = 0; a < 3; ++a)
        {
          rhs[a] += f[a] * value;
          for (int b = 0; b < 3; ++b)
            n[a][b] += f[a] * f[b];
        }
        ++ringPixels;
      }
    if (ringPixels < 12)
      return Outcome::Merged; // crowded by other spots: no background to measure against
    // Solve by Cramer's rule (the ring is symmetric about its centre: well conditioned).
    auto det3 = [](const double m[3][3]) {
      return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
             m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const double d = det3(n);
    if (!(std::abs(d) > 0.))
      return Outcome::Merged;
    double plane[3];
    for (int k = 0; k < 3; ++k)
    {
      double m[3][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          m[a][b] = b == k ? rhs[a] : n[a][b];
      plane[k] = det3(m) / d;
    }
    double si = 0., sj = 0.;
    mass = mii = mij = mjj = 0.;
    for (std::ptrdiff_t y = y0; y <= y1; ++y)
      for (std::ptrdiff_t x = x0; x <= x1; ++x)
      {
        const double dx = x - ci, dy = y - cj, r = std::sqrt(dx * dx + dy * dy);
        const double taper = std::min(1., std::max(0., rho + 0.5 - r));
        if (taper <= 0. || foreign(x, y))
          continue;
        const double value = pixels[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)];
        const double w = taper * (value - (plane[0] + plane[1] * dx + plane[2] * dy));
        mass += w;
        si += w * dx;
        sj += w * dy;
        mii += w * dx * dx;
        mij += w * dx * dy;
        mjj += w * dy * dy;
      }
    if (!(mass > 0.))
      return Outcome::Faint;
    const double shiftI = si / mass, shiftJ = sj / mass;
    ci += shiftI;
    cj += shiftJ;
    // Moments about the new centre.
    mii = mii / mass - shiftI * shiftI;
    mij = mij / mass - shiftI * shiftJ;
    mjj = mjj / mass - shiftJ * shiftJ;
    if (shiftI * shiftI + shiftJ * shiftJ < 1e-8)
      break;
  }
  // Elongation from the top-hat over the spot's own pixels (the disc's moments carry the noise of
  // its background); a spot of fewer than 12 pixels is too small for its shape to mean anything
  // (two such beads merged are told by their mass).
  {
    double w = 0., wi = 0., wj = 0., wii = 0., wij = 0., wjj = 0.;
    for (const std::size_t p : component.pixels)
    {
      const double v = topHat[p], x = static_cast<double>(p % width), y = static_cast<double>(p / width);
      w += v;
      wi += v * x;
      wj += v * y;
      wii += v * x * x;
      wij += v * x * y;
      wjj += v * y * y;
    }
    const double ai = wi / w, aj = wj / w;
    const double cii = wii / w - ai * ai, cij = wij / w - ai * aj, cjj = wjj / w - aj * aj;
    const double half = 0.5 * (cii + cjj), spread = std::sqrt(0.25 * (cii - cjj) * (cii - cjj) + cij * cij);
    spot.elongation = half - spread > 0. ? std::sqrt((half + spread) / (half - spread)) : std::numeric_limits<double>::infinity();
    if (component.pixels.size() >= 12 && !(spot.elongation <= maximumElongation))
      return Outcome::Merged;
  }
  const double mean = 0.5 * (mii + mjj);
  spot.radius = std::sqrt(5. * std::max(mean, 0.));
  spot.fitted = FitSphereProfile(pixels, width, height, foreign, std::sqrt(5. * std::max(mean, 0.25)), expectedRadii, ci, cj,
                                 spot.radius, mass);
  spot.i = ci;
  spot.j = cj;
  spot.mass = mass;
  spot.peak = component.peak;
  return Outcome::Measured;
}
} // namespace

BeadDetector::Result
BeadDetector::Detect(const float * pixels, std::size_t width, std::size_t height, const Settings & settings)
{
  CheckPositive("bead detector bead diameter (pixels)", settings.beadDiameter);
  if (!std::isfinite(settings.threshold) || settings.threshold < 0.)
    ThrowBadParameter("bead detector threshold", settings.threshold, "a value >= 0 (0: automatic)");
  CheckPositive("bead detector noise factor", settings.noiseFactor);
  CheckPositive("bead detector relative threshold", settings.relativeThreshold);
  if (!(settings.maximumElongation >= 1.))
    ThrowBadParameter("bead detector maximum elongation", settings.maximumElongation, "a ratio >= 1");
  if (width < 3 || height < 3)
    ThrowBadParameter("bead detector projection size", std::to_string(width) + " x " + std::to_string(height),
                      "at least 3 x 3 pixels");
  const std::size_t count = width * height;
  for (std::size_t p = 0; p < count; ++p)
    if (!std::isfinite(pixels[p]))
      ThrowBadParameter("pixel (" + std::to_string(p % width) + ", " + std::to_string(p / width) + ") of the projection",
                        pixels[p], "a finite line integral");

  // 1. Top-hat: the projection less its opening by a square wider than the largest bead.
  const auto r = static_cast<std::size_t>(std::ceil(0.75 * settings.beadDiameter)) + 1;
  const std::vector<float> image(pixels, pixels + count);
  const std::vector<float> opened = SquareExtremum(SquareExtremum(image, width, height, r, false), width, height, r, true);
  std::vector<float> topHat(count);
  float highest = 0.f;
  for (std::size_t p = 0; p < count; ++p)
  {
    topHat[p] = image[p] - opened[p];
    highest = std::max(highest, topHat[p]);
  }
  // 2. Threshold and spots.
  Result result;
  result.noise = NoiseSigma(pixels, width, height);
  // The opening is a local minimum: under noise it lies some sigma below the mean, which lifts the
  // whole top-hat; the automatic threshold counts from the top-hat's median.
  std::vector<float> sample;
  sample.reserve(count / 7 + 1);
  for (std::size_t p = 0; p < count; p += 7)
    sample.push_back(topHat[p]);
  auto middle = sample.begin() + static_cast<std::ptrdiff_t>(sample.size() / 2);
  std::nth_element(sample.begin(), middle, sample.end());
  const double floor = *middle;
  result.threshold = settings.threshold > 0.
                       ? settings.threshold
                       : std::max(floor + settings.noiseFactor * result.noise, settings.relativeThreshold * highest);
  if (!(highest > 0.f) || !(highest > result.threshold))
    return result;
  std::vector<unsigned char> mask(count);
  for (std::size_t p = 0; p < count; ++p)
    mask[p] = topHat[p] > result.threshold ? 1 : 0;
  std::vector<std::uint32_t> labels;
  const auto components = Components(mask, topHat, width, height, labels);
  // 3 and 4. Centres and checks.
  for (std::size_t c = 0; c < components.size(); ++c)
  {
    Spot spot;
    auto outcome = Measure(pixels, width, height, labels, static_cast<std::uint32_t>(c + 1), components[c], topHat,
                    settings.maximumElongation, settings.beadRadii, spot);
    switch (outcome)
    {
      case Outcome::Measured:
        result.spots.push_back(spot);
        break;
      case Outcome::AtEdge:
        ++result.atEdge;
        break;
      case Outcome::Merged:
        ++result.merged;
        break;
      case Outcome::Faint:
        break;
    }
  }
  return result;
}

} // namespace cbct
