#include "cbctProjectionMatrixBeadFit.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_levenberg_marquardt.h>
#include <vnl/algo/vnl_svd.h>
#include <vnl/vnl_least_squares_function.h>
#include <vnl/vnl_matrix_fixed.h>

#include <cmath>

namespace cbct
{

namespace
{
constexpr unsigned int MinimumPoints = 6;

/** Centroid and scale that bring points to a mean distance of sqrt(dimension) from the origin. */
template <std::size_t D>
void
Normalisation(const std::vector<std::array<double, D>> & points, std::array<double, D> & centroid, double & scale)
{
  centroid.fill(0.);
  for (const auto & p : points)
    for (std::size_t a = 0; a < D; ++a)
      centroid[a] += p[a] / points.size();
  double distance = 0.;
  for (const auto & p : points)
  {
    double d2 = 0.;
    for (std::size_t a = 0; a < D; ++a)
      d2 += (p[a] - centroid[a]) * (p[a] - centroid[a]);
    distance += std::sqrt(d2) / points.size();
  }
  scale = distance > 0. ? std::sqrt(static_cast<double>(D)) / distance : 1.;
}

/** Reprojection residuals in pixels of P = T2^-1 (P0 + sum x_i B_i) T3 in normalised coordinates. */
class ReprojectionFunction : public vnl_least_squares_function
{
public:
  ReprojectionFunction(const vnl_matrix_fixed<double, 3, 4> & start, const std::vector<std::array<double, 3>> & points,
                       const std::vector<std::array<double, 2>> & detector, const vnl_matrix_fixed<double, 3, 3> & denormalise2,
                       const vnl_matrix_fixed<double, 4, 4> & normalise3, const DetectorPixels & pixels)
    : vnl_least_squares_function(11, static_cast<unsigned int>(2 * points.size()), no_gradient)
    , m_Points(points)
    , m_Detector(detector)
    , m_Denormalise2(denormalise2)
    , m_Normalise3(normalise3)
    , m_Pixels(pixels)
  {
    // p0 of unit length; the columns of the Householder reflection taking p0 to +-e_k, k its
    // largest entry, other than k span the directions orthogonal to p0.
    vnl_vector<double> p0(12);
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        p0[4 * r + c] = start(r, c);
    p0.normalize();
    m_Start = p0;
    unsigned int k = 0;
    for (unsigned int i = 1; i < 12; ++i)
      if (std::abs(p0[i]) > std::abs(p0[k]))
        k = i;
    vnl_vector<double> w = p0;
    w[k] -= p0[k] > 0. ? 1. : -1.;
    w.normalize();
    m_Basis.set_size(12, 11);
    unsigned int column = 0;
    for (unsigned int c = 0; c < 12; ++c)
    {
      if (c == k)
        continue;
      for (unsigned int r = 0; r < 12; ++r)
        m_Basis(r, column) = (r == c ? 1. : 0.) - 2. * w[r] * w[c];
      ++column;
    }
  }

  /** The world-to-detector matrix at x. */
  vnl_matrix_fixed<double, 3, 4>
  Matrix(const vnl_vector<double> & x) const
  {
    const vnl_vector<double> p = m_Start + m_Basis * x;
    vnl_matrix_fixed<double, 3, 4> normalised;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        normalised(r, c) = p[4 * r + c];
    return m_Denormalise2 * normalised * m_Normalise3;
  }

  void
  f(const vnl_vector<double> & x, vnl_vector<double> & residuals) override
  {
    const auto m = this->Matrix(x);
    for (std::size_t k = 0; k < m_Points.size(); ++k)
    {
      const auto & X = m_Points[k];
      double h[3];
      for (unsigned int r = 0; r < 3; ++r)
        h[r] = m(r, 0) * X[0] + m(r, 1) * X[1] + m(r, 2) * X[2] + m(r, 3);
      const auto d = m_Pixels.Pixels(h[0] / h[2] - m_Detector[k][0], h[1] / h[2] - m_Detector[k][1]);
      residuals[static_cast<unsigned int>(2 * k)] = d[0];
      residuals[static_cast<unsigned int>(2 * k + 1)] = d[1];
    }
  }

private:
  const std::vector<std::array<double, 3>> & m_Points;
  const std::vector<std::array<double, 2>> & m_Detector;
  vnl_matrix_fixed<double, 3, 3> m_Denormalise2;
  vnl_matrix_fixed<double, 4, 4> m_Normalise3;
  DetectorPixels m_Pixels;
  vnl_vector<double> m_Start;
  vnl_matrix<double> m_Basis;
};
} // namespace

std::array<double, 2>
ProjectionMatrixBeadFit::Project(const MatrixType & m, const std::array<double, 3> & x)
{
  double h[3];
  for (unsigned int r = 0; r < 3; ++r)
    h[r] = m(r, 0) * x[0] + m(r, 1) * x[1] + m(r, 2) * x[2] + m(r, 3);
  return { { h[0] / h[2], h[1] / h[2] } };
}

ProjectionMatrixBeadFit::Result
ProjectionMatrixBeadFit::Fit(const std::vector<std::array<double, 3>> & points,
                             const std::vector<std::array<double, 2>> & detector,
                             const DetectorPixels & pixels,
                             const std::string & view)
{
  if (points.size() != detector.size())
    ThrowBadParameter("number of detector points of " + view, detector.size(), std::to_string(points.size()) + ", one per bead");
  if (points.size() < MinimumPoints)
    ThrowBadParameter("number of beads identified in " + view, points.size(),
                      "at least " + std::to_string(MinimumPoints) + " for a projection matrix (11 unknowns, 2 per bead)");
  for (std::size_t k = 0; k < points.size(); ++k)
    for (int a = 0; a < 3; ++a)
      CheckFinite("bead position in " + view, points[k][a]);
  for (std::size_t k = 0; k < detector.size(); ++k)
    for (int a = 0; a < 2; ++a)
      CheckFinite("bead centre on the detector in " + view, detector[k][a]);

  // 1. Normalised DLT.
  std::array<double, 3> c3;
  std::array<double, 2> c2;
  double s3 = 1., s2 = 1.;
  Normalisation(points, c3, s3);
  Normalisation(detector, c2, s2);
  vnl_matrix_fixed<double, 4, 4> normalise3(0.);
  for (unsigned int a = 0; a < 3; ++a)
  {
    normalise3(a, a) = s3;
    normalise3(a, 3) = -s3 * c3[a];
  }
  normalise3(3, 3) = 1.;
  vnl_matrix_fixed<double, 3, 3> denormalise2(0.);
  denormalise2(0, 0) = denormalise2(1, 1) = 1. / s2;
  denormalise2(0, 2) = c2[0];
  denormalise2(1, 2) = c2[1];
  denormalise2(2, 2) = 1.;
  // Beads in one plane (or on one line) leave the matrix undetermined.
  vnl_matrix<double> homogeneous(static_cast<unsigned int>(points.size()), 4);
  for (unsigned int k = 0; k < homogeneous.rows(); ++k)
  {
    for (unsigned int a = 0; a < 3; ++a)
      homogeneous(k, a) = s3 * (points[k][a] - c3[a]);
    homogeneous(k, 3) = 1.;
  }
  vnl_svd<double> spread(homogeneous);
  if (spread.sigma_min() < 1e-3 * spread.sigma_max())
    ThrowBadParameter("beads identified in " + view, std::to_string(points.size()) + " beads in one plane or on one line",
                      "beads spread in depth (a projection matrix needs points that are not coplanar)");
  vnl_matrix<double> a(static_cast<unsigned int>(2 * points.size()), 12, 0.);
  for (unsigned int k = 0; k < points.size(); ++k)
  {
    const double u = s2 * (detector[k][0] - c2[0]), v = s2 * (detector[k][1] - c2[1]);
    const double X[4] = { homogeneous(k, 0), homogeneous(k, 1), homogeneous(k, 2), 1. };
    for (unsigned int c = 0; c < 4; ++c)
    {
      a(2 * k, c) = X[c];
      a(2 * k, 8 + c) = -u * X[c];
      a(2 * k + 1, 4 + c) = X[c];
      a(2 * k + 1, 8 + c) = -v * X[c];
    }
  }
  vnl_svd<double> svd(a);
  const vnl_vector<double> p = svd.nullvector();
  vnl_matrix_fixed<double, 3, 4> start;
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 4; ++c)
      start(r, c) = p[4 * r + c];

  // 2. Levenberg-Marquardt on the reprojection error.
  ReprojectionFunction function(start, points, detector, denormalise2, normalise3, pixels);
  vnl_levenberg_marquardt lm(function);
  lm.set_x_tolerance(1e-12);
  lm.set_f_tolerance(1e-16);
  lm.set_g_tolerance(1e-14);
  lm.set_max_function_evals(4000);
  vnl_vector<double> x(11, 0.);
  lm.minimize_without_gradient(x);
  const auto code = lm.get_failure_code();
  if (code == vnl_nonlinear_minimizer::ERROR_FAILURE || code == vnl_nonlinear_minimizer::ERROR_DODGY_INPUT ||
      code == vnl_nonlinear_minimizer::FAILED_TOO_MANY_ITERATIONS || code == vnl_nonlinear_minimizer::FAILED_USER_REQUEST ||
      !(lm.get_end_error() <= lm.get_start_error()))
    ThrowBadParameter("projection matrix fit of " + view, "not converged (MINPACK status " + std::to_string(int(code)) + ")",
                      "a fit that converges: beads mismatched or detected badly");

  Result result;
  const auto m = function.Matrix(x);
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 4; ++c)
      result.matrix(r, c) = m(r, c);
  result.iterations = static_cast<unsigned int>(lm.get_num_iterations());
  for (std::size_t k = 0; k < points.size(); ++k)
  {
    const auto uv = Project(result.matrix, points[k]);
    const double e = pixels.Length(uv[0] - detector[k][0], uv[1] - detector[k][1]);
    if (!std::isfinite(e))
      ThrowBadParameter("projection matrix fit of " + view, "a non-finite reprojection", "beads in front of the source");
    result.errors.push_back(e);
    result.error.Add(e);
  }
  return result;
}

} // namespace cbct
