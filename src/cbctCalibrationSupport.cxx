#include "cbctCalibrationSupport.h"

#include "cbctAxisCorrection.h"
#include "cbctInputChecks.h"

#include "cbctWorkerErrors.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

namespace cbct::detail
{

void
CheckCalibrationInputs(const CalibrationImage * projections,
                       const ThreeDCircularProjectionGeometry * geometry,
                       const std::string & method)
{
  if (projections == nullptr)
    ThrowBadParameter(method + " projections", "none", "a projection stack of line integrals");
  if (geometry == nullptr)
    ThrowBadParameter(method + " geometry", "none", "the scan's nominal circular geometry");
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  if (projections->GetBufferedRegion() != projections->GetLargestPossibleRegion())
    ThrowBadParameter(method + " projections", "a stack not held whole in memory", "the whole stack (call Update())");
  if (geometry->GetNumberOfProjections() != size[2])
    ThrowBadParameter(method + " geometry", std::to_string(geometry->GetNumberOfProjections()) + " projections",
                      "as many as the stack holds (" + std::to_string(size[2]) + ")");
  if (size[0] < 8 || size[1] < 1)
    ThrowBadParameter(method + " detector", std::to_string(size[0]) + " x " + std::to_string(size[1]) + " pixels",
                      "at least 8 columns");
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    if (!geometry->HasParameters(k))
      ThrowBadParameter(method + ": projection " + std::to_string(k) + " of the geometry", "a bare 3x4 matrix",
                        "a circular geometry given by RTK's parameters (a calibration corrects them)");
    if (geometry->IsParallel(k))
      ThrowBadParameter(method + " geometry", "parallel beam", "a cone-beam geometry");
  }
  const auto direction = projections->GetDirection();
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      if (direction(r, c) != (r == c ? 1. : 0.))
        ThrowBadParameter(method + " projections' direction", "not the identity",
                          "the identity (u along columns, v along rows; apps read stacks on that grid)");
  const float * p = projections->GetBufferPointer();
  const std::size_t n = projections->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i]))
    {
      const std::size_t perView = size[0] * size[1];
      ThrowBadParameter(method + " projections", "non-finite at pixel (" + std::to_string(i % size[0]) + ", " +
                                                   std::to_string((i / size[0]) % size[1]) + ") of projection " +
                                                   std::to_string(i / perView),
                        "finite line integrals");
    }
}

CalibrationImage::Pointer
BinnedViews(const CalibrationImage * projections, unsigned int binning, const std::vector<unsigned int> & views)
{
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  const unsigned int b = std::max(1u, binning);
  const auto nx = static_cast<unsigned int>(size[0] / b), ny = static_cast<unsigned int>(std::max<std::size_t>(1, size[1] / b));
  const unsigned int rowsPerBin = size[1] >= b ? b : static_cast<unsigned int>(size[1]);
  auto binned = CalibrationImage::New();
  CalibrationImage::SizeType outSize{ { nx, ny, views.size() } };
  binned->SetRegions(outSize);
  auto spacing = projections->GetSpacing();
  auto origin = projections->GetOrigin();
  origin[0] += 0.5 * (b - 1.) * spacing[0];
  origin[1] += 0.5 * (rowsPerBin - 1.) * spacing[1];
  spacing[0] *= b;
  spacing[1] *= rowsPerBin;
  origin[2] = 0.;
  spacing[2] = 1.;
  binned->SetSpacing(spacing);
  binned->SetOrigin(origin);
  binned->Allocate();
  const float * in = projections->GetBufferPointer();
  float * out = binned->GetBufferPointer();
  const std::size_t inView = size[0] * size[1], outView = static_cast<std::size_t>(nx) * ny;
  const float scale = 1.f / static_cast<float>(b * rowsPerBin);
  ParallelizeArray(
    0, views.size(),
    [&](itk::SizeValueType i) {
      const float * view = in + static_cast<std::size_t>(views[i]) * inView;
      float * o = out + i * outView;
      for (unsigned int y = 0; y < ny; ++y)
        for (unsigned int x = 0; x < nx; ++x)
        {
          float sum = 0.f;
          for (unsigned int dy = 0; dy < rowsPerBin; ++dy)
          {
            const float * row = view + (static_cast<std::size_t>(y) * rowsPerBin + dy) * size[0] + x * b;
            for (unsigned int dx = 0; dx < b; ++dx)
              sum += row[dx];
          }
          o[static_cast<std::size_t>(y) * nx + x] = sum * scale;
        }
    },
    nullptr);
  return binned;
}

ThreeDCircularProjectionGeometry::Pointer
GeometryOfViews(const ThreeDCircularProjectionGeometry * geometry, const std::vector<unsigned int> & views)
{
  auto subset = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k : views)
    subset->AddProjectionInRadians(geometry->GetParameters(k));
  return subset;
}

std::vector<unsigned int>
EvenlySpreadViews(unsigned int total, unsigned int count)
{
  std::vector<unsigned int> views;
  if (count >= total)
  {
    views.resize(total);
    std::iota(views.begin(), views.end(), 0u);
    return views;
  }
  for (unsigned int i = 0; i < count; ++i)
    views.push_back(static_cast<unsigned int>(std::floor((i + 0.5) * total / count)));
  return views;
}

bool
IsFullScan(const ThreeDCircularProjectionGeometry * geometry)
{
  const unsigned int n = geometry->GetNumberOfProjections();
  if (n < 2)
    return false;
  const std::vector<double> gaps = geometry->GetAngularGaps();
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  const double median = sorted[n / 2];
  const double pi = 3.14159265358979323846;
  return geometry->GetAngularRange() > 2. * pi - 3. * median;
}

unsigned int
BinningForColumns(unsigned int detectorColumns, unsigned int columns)
{
  unsigned int b = 1;
  while (detectorColumns / (2 * b) >= columns)
    b *= 2;
  return b;
}

std::string
TruncatedSides(const CalibrationImage * projections, const std::vector<unsigned int> & views)
{
  const auto size = projections->GetLargestPossibleRegion().GetSize();
  const float * p = projections->GetBufferPointer();
  const std::size_t perView = size[0] * size[1];
  float largest = 0.f;
  for (unsigned int k : views)
    for (std::size_t i = 0; i < perView; ++i)
      largest = std::max(largest, std::abs(p[k * perView + i]));
  if (!(largest > 0.f))
    return std::string();
  unsigned int left = 0, right = 0;
  const float threshold = 0.05f * largest;
  for (unsigned int k : views)
  {
    float l = 0.f, r = 0.f;
    for (std::size_t y = 0; y < size[1]; ++y)
      for (std::size_t x = 0; x < 2; ++x)
      {
        l = std::max(l, std::abs(p[k * perView + y * size[0] + x]));
        r = std::max(r, std::abs(p[k * perView + y * size[0] + size[0] - 1 - x]));
      }
    left += l > threshold;
    right += r > threshold;
  }
  const bool onLeft = 2 * left > views.size(), onRight = 2 * right > views.size();
  if (onLeft && onRight)
    return "left and right";
  return onLeft ? "left" : onRight ? "right" : "";
}

double
ParabolaPeak(const std::vector<double> & x, const std::vector<double> & y, std::size_t points, double * curvature,
             double * standardError)
{
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (curvature)
    *curvature = nan;
  if (standardError)
    *standardError = nan;
  const std::size_t n = x.size();
  if (n < 3 || y.size() != n || points < 3)
    return nan;
  const std::size_t best = static_cast<std::size_t>(std::max_element(y.begin(), y.end()) - y.begin());
  // The samples nearest the best one along x.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{ 0 });
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return std::abs(x[a] - x[best]) < std::abs(x[b] - x[best]); });
  order.resize(std::min(points, n));
  const double x0 = x[best];
  double scale = 0.;
  for (std::size_t i : order)
    scale = std::max(scale, std::abs(x[i] - x0));
  if (!(scale > 0.))
    return nan;
  // Least squares y = a + b t + c t^2 with t = (x - x0) / scale (well conditioned).
  double s[5] = { 0., 0., 0., 0., 0. }, r[3] = { 0., 0., 0. };
  for (std::size_t i : order)
  {
    const double t = (x[i] - x0) / scale;
    double tp = 1.;
    for (int k = 0; k < 5; ++k)
    {
      s[k] += tp;
      if (k < 3)
        r[k] += tp * y[i];
      tp *= t;
    }
  }
  const double m[3][3] = { { s[0], s[1], s[2] }, { s[1], s[2], s[3] }, { s[2], s[3], s[4] } };
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(std::abs(det) > 0.))
    return nan;
  double inv[3][3];
  inv[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det;
  inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
  inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
  inv[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det;
  inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
  inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
  inv[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det;
  inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
  inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
  double coefficient[3];
  for (int i = 0; i < 3; ++i)
    coefficient[i] = inv[i][0] * r[0] + inv[i][1] * r[1] + inv[i][2] * r[2];
  const double b = coefficient[1], c = coefficient[2];
  if (!(c < 0.))
    return nan;
  const double vertex = -b / (2. * c);
  if (curvature)
    *curvature = 2. * c / (scale * scale);
  if (standardError && order.size() > 3)
  {
    double rss = 0.;
    for (std::size_t i : order)
    {
      const double t = (x[i] - x0) / scale;
      const double e = y[i] - (coefficient[0] + b * t + c * t * t);
      rss += e * e;
    }
    const double sigma2 = rss / static_cast<double>(order.size() - 3);
    const double db = -1. / (2. * c), dc = b / (2. * c * c);
    const double variance = sigma2 * (db * db * inv[1][1] + dc * dc * inv[2][2] + 2. * db * dc * inv[1][2]);
    *standardError = std::sqrt(std::max(0., variance)) * scale;
  }
  return x0 + vertex * scale;
}

double
AxisHeightAtRow(const ThreeDCircularProjectionGeometry * geometry, double v)
{
  double y0 = 0., y1 = 1.;
  double v0 = AxisCorrection::ProjectedAxisV(geometry, 0, y0) - v;
  for (int i = 0; i < 30 && std::abs(v0) > 1e-9; ++i)
  {
    const double v1 = AxisCorrection::ProjectedAxisV(geometry, 0, y1) - v;
    if (v1 == v0)
      break;
    const double y2 = y1 - v1 * (y1 - y0) / (v1 - v0);
    y0 = y1;
    v0 = v1;
    y1 = y2;
  }
  return y0;
}

std::string
Fixed(double value, int digits)
{
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

} // namespace cbct::detail
