// The emission projector pair on the CPU: a point source in a uniform attenuating cylinder against
// exp(-mu L), counts kept without attenuation, the collimator blur of a point against a Gaussian of
// sigma(d), the discrete Gaussian's exact variances, the adjoint in parallel and cone beam, bad input.
#include "cbctDiscreteGaussianKernel.h"
#include "cbctEmissionBackProjectionImageFilter.h"
#include "cbctEmissionForwardProjectionImageFilter.h"
#include "cbctEmissionTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** The emission projection of `activity` onto `detector`'s grid. */
ImageType::Pointer
Project(const ThreeDCircularProjectionGeometry * geometry, const ImageType * activity, const ImageType * detector,
        const ImageType * mu, const CollimatorBlur & blur = CollimatorBlur())
{
  auto forward = EmissionForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Zeros(detector));
  forward->SetActivity(activity);
  forward->SetAttenuationMap(mu);
  forward->SetCollimatorBlur(blur);
  forward->SetGeometry(geometry);
  forward->Update();
  return forward->GetOutput();
}

/** Mean and standard deviation (pixels) of projection k along axis `axis` (0: u, 1: v). */
void
Moments(const ImageType * stack, unsigned int k, int axis, double & mean, double & sigma)
{
  const auto size = stack->GetLargestPossibleRegion().GetSize();
  double s0 = 0., s1 = 0., s2 = 0.;
  for (unsigned int j = 0; j < size[1]; ++j)
    for (unsigned int i = 0; i < size[0]; ++i)
    {
      const double p = stack->GetPixel({ { i, j, k } });
      const double x = axis == 0 ? i : j;
      s0 += p;
      s1 += p * x;
      s2 += p * x * x;
    }
  mean = s1 / s0;
  sigma = std::sqrt(s2 / s0 - mean * mean);
}
} // namespace

TEST(DiscreteGaussian, VariancesAreExactAndAdd)
{
  for (double t : { 0.01, 0.3, 1., 4.7, 40. })
  {
    const auto taps = DiscreteGaussianKernel(t);
    double sum = taps[0], variance = 0.;
    for (std::size_t n = 1; n < taps.size(); ++n)
    {
      sum += 2. * taps[n];
      variance += 2. * n * n * taps[n];
      EXPECT_LE(taps[n], taps[n - 1]);
    }
    EXPECT_NEAR(sum, 1., 1e-12) << t;
    EXPECT_NEAR(variance, t, 3e-4 * t) << t; // the tail cut at 1e-6 of the centre
  }
  // Semigroup: T(0.3) * T(0.7) = T(1).
  const auto a = DiscreteGaussianKernel(0.3), b = DiscreteGaussianKernel(0.7), c = DiscreteGaussianKernel(1.);
  const int ra = static_cast<int>(a.size()) - 1, rb = static_cast<int>(b.size()) - 1;
  for (int n = 0; n < static_cast<int>(c.size()); ++n)
  {
    double convolved = 0.;
    for (int m = -ra; m <= ra; ++m)
      if (std::abs(n - m) <= rb)
        convolved += a[std::abs(m)] * b[std::abs(n - m)];
    EXPECT_NEAR(convolved, c[n], 2e-6) << n;
  }
  EXPECT_EQ(DiscreteGaussianKernel(0.).size(), 1u);
}

TEST(EmissionProjector, PointSourceInAnAttenuatingCylinderIsExpMinusMuL)
{
  // 96^3 voxels of 1 mm; a water-like cylinder (mu 0.015/mm, radius 40 mm) about the rotation axis; a
  // point source of 1 count (one voxel of 1/mm^3) off centre; 12 parallel views, detector at 200 mm.
  auto geometry = SpectGeometry(12);
  auto grid = Volume(96, 1.);
  auto mu = Cylinder(grid, 40., 0.015f);
  auto activity = Volume(96, 1.);
  const ImageType::IndexType index{ { 61, 49, 41 } };
  activity->SetPixel(index, 1.f);
  double p[3];
  VoxelCentre(grid, index, p);
  auto detector = Detector(geometry, 128, 1.);
  auto attenuated = Project(geometry, activity, detector, mu);
  auto free = Project(geometry, activity, detector, nullptr);
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    // Counts: projection sum x pixel area.
    const double counts = ProjectionSum(attenuated, k), unattenuated = ProjectionSum(free, k);
    const double L = PathToCylinderEdge(p, geometry->GetRayDirection(k), 40.);
    const double expected = std::exp(-0.015 * L);
    std::cout << "view " << k << ": path " << L << " mm, counts " << counts << ", exp(-mu L) " << expected
              << ", relative error " << counts / expected - 1. << std::endl;
    EXPECT_NEAR(counts / expected, 1., 1e-3) << "view " << k;
    EXPECT_NEAR(unattenuated, 1., 1e-5) << "view " << k; // the splat keeps every count
  }
}

TEST(EmissionProjector, ConeBeamPointSourceIsMagnifiedAndAttenuated)
{
  // The same cylinder and point in cone beam (SID 300, SDD 500, a source offset): the projection's
  // integral is the counts times the magnification squared over the cosine of the ray's obliquity,
  // attenuated along the ray from the source through the point.
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 6; ++k)
    geometry->AddProjection(300., 500., 60. * k + 10., 0., 0., 0., 0., 15., -10.);
  auto grid = Volume(96, 1.);
  auto mu = Cylinder(grid, 40., 0.015f);
  auto activity = Volume(96, 1.);
  const ImageType::IndexType index{ { 61, 49, 41 } };
  activity->SetPixel(index, 1.f);
  double p[3];
  VoxelCentre(grid, index, p);
  auto detector = Detector(geometry, 128, 1.6);
  auto attenuated = Project(geometry, activity, detector, mu);
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    const auto s = geometry->GetSourcePosition(k);
    const auto principal = geometry->GetRayDirection(k);
    itk::Vector<double, 3> ray;
    for (int d = 0; d < 3; ++d)
      ray[d] = p[d] - s[d];
    const double distance = ray.GetNorm(), along = ray * principal; // along the principal ray
    ray /= distance;
    const double magnification = 500. / along, cosine = along / distance;
    const double expected = magnification * magnification / cosine * std::exp(-0.015 * PathToCylinderEdge(p, ray, 40.));
    const double integral = 1.6 * 1.6 * ProjectionSum(attenuated, k);
    std::cout << "cone view " << k << ": magnification " << magnification << ", integral " << integral << ", expected "
              << expected << ", relative error " << integral / expected - 1. << std::endl;
    EXPECT_NEAR(integral / expected, 1., 1e-3) << "view " << k;
  }
}

TEST(EmissionProjector, BlurredPointIsAGaussianOfSigmaDAndKeepsTheAttenuatedCounts)
{
  // sigma(d) = 1 mm + 0.03 d; the point 171 mm from the detector at gantry 0 (sigma 6.13 mm, 3.07
  // pixels), 11 mm inside the cylinder's edge on the detector's side.
  auto geometry = SpectGeometry(4);
  auto grid = Volume(48, 2.);
  auto mu = Cylinder(grid, 40., 0.015f);
  auto activity = Volume(48, 2.);
  const ImageType::IndexType index{ { 23, 24, 9 } };
  activity->SetPixel(index, 1.f);
  double p[3];
  VoxelCentre(grid, index, p);
  auto detector = Detector(geometry, 64, 2.);
  CollimatorBlur blur;
  blur.sigma0 = 1.;
  blur.slope = 0.03;
  auto blurred = Project(geometry, activity, detector, mu, blur);
  auto unattenuated = Project(geometry, activity, detector, nullptr, blur);
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    const auto d = geometry->GetRayDirection(k);
    const double depth = 200. - (p[0] * d[0] + p[2] * d[2]); // the detector is 200 mm beyond the axis
    const double sigma = (blur.sigma0 + blur.slope * depth) / 2.; // pixels
    double meanU, sigmaU, meanV, sigmaV;
    Moments(blurred, k, 0, meanU, sigmaU);
    Moments(blurred, k, 1, meanV, sigmaV);
    // The shape: a sampled Gaussian of sigma(d) around the same centre, scaled to the same sum.
    const double sum = ProjectionSum(blurred, k);
    double model2 = 0., difference2 = 0., norm2 = 0.;
    std::vector<double> model(64 * 64);
    double modelSum = 0.;
    for (int j = 0; j < 64; ++j)
      for (int i = 0; i < 64; ++i)
        modelSum += model[j * 64 + i] = std::exp(-0.5 * ((i - meanU) * (i - meanU) + (j - meanV) * (j - meanV)) / (sigma * sigma));
    for (int j = 0; j < 64; ++j)
      for (int i = 0; i < 64; ++i)
      {
        const double m = model[j * 64 + i] * sum / modelSum, b = blurred->GetPixel({ { i, j, static_cast<long>(k) } });
        difference2 += (b - m) * (b - m);
        norm2 += b * b;
        model2 += m * m;
      }
    const double shape = std::sqrt(difference2 / norm2);
    std::cout << "view " << k << ": depth " << depth << " mm, sigma(d) " << sigma << " px, measured " << sigmaU << " (u), "
              << sigmaV << " (v); shape difference " << shape << std::endl;
    EXPECT_NEAR(sigmaU / sigma, 1., 0.02) << "view " << k;
    EXPECT_NEAR(sigmaV / sigma, 1., 0.02) << "view " << k;
    EXPECT_LT(shape, 0.02) << "view " << k;
    EXPECT_NEAR(4. * ProjectionSum(unattenuated, k) / 8., 1., 1e-4) << "view " << k; // blur keeps counts
  }
  // Gantry 0: the path to the edge is short, so the blur grows little inside the cylinder.
  const double L = PathToCylinderEdge(p, geometry->GetRayDirection(0), 40.);
  const double counts = 4. * ProjectionSum(blurred, 0), expected = 8. * std::exp(-0.015 * L);
  std::cout << "gantry 0: path " << L << " mm, counts " << counts << ", exp(-mu L) " << expected << std::endl;
  EXPECT_NEAR(counts / expected, 1., 1e-3);
}

namespace
{
/** <Ax, y> / <x, A^T y> of the emission pair on random data (RandomEmissionProblem()). */
double
AdjointRatio(const ThreeDCircularProjectionGeometry * geometry, double & product)
{
  const EmissionProblem e = RandomEmissionProblem(geometry);
  auto forward = EmissionForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, Zeros(e.y));
  forward->SetActivity(e.x);
  forward->SetAttenuationMap(e.mu);
  forward->SetCollimatorBlur(e.blur);
  forward->SetGeometry(geometry);
  forward->Update();
  auto back = EmissionBackProjectionImageFilter<ImageType>::New();
  back->SetInput(0, Zeros(e.x));
  back->SetProjections(e.y);
  back->SetAttenuationMap(e.mu);
  back->SetCollimatorBlur(e.blur);
  back->SetGeometry(geometry);
  back->Update();
  product = Dot(forward->GetOutput(), e.y);
  return product / Dot(e.x, back->GetOutput());
}
} // namespace

TEST(EmissionProjector, ForwardAndBackProjectionsAreAdjointInParallelBeam)
{
  auto geometry = IrregularSpectGeometry();
  double product = 0.;
  const double ratio = AdjointRatio(geometry, product);
  std::cout << "emission pair, parallel: <Ax, y> / <x, A^T y> = " << ratio << std::endl;
  EXPECT_NEAR(ratio, 1., 1e-5);
  EXPECT_GT(product, 0.);
}

TEST(EmissionProjector, ForwardAndBackProjectionsAreAdjointInConeBeam)
{
  auto geometry = IrregularConeGeometry();
  double product = 0.;
  const double ratio = AdjointRatio(geometry, product);
  std::cout << "emission pair, cone beam: <Ax, y> / <x, A^T y> = " << ratio << std::endl;
  EXPECT_NEAR(ratio, 1., 1e-5);
  EXPECT_GT(product, 0.);
}

TEST(EmissionProjectorBadInput, AttenuationBlurAndProjectorChoice)
{
  auto geometry = SpectGeometry(6);
  auto activity = Volume(8, 8., 1.f);
  auto detector = Detector(geometry, 12, 8.);
  auto mu = Volume(8, 8., 0.01f);
  mu->SetPixel({ { 2, 3, 4 } }, -0.5f);
  auto forward = EmissionForwardProjectionImageFilter<ImageType>::New();
  forward->SetInput(0, detector);
  forward->SetActivity(activity);
  forward->SetGeometry(geometry);
  forward->SetAttenuationMap(mu);
  ExpectError(forward.GetPointer(), "attenuation map at voxel (2, 3, 4) is -0.5; expected a finite value >= 0");
  mu->SetPixel({ { 2, 3, 4 } }, std::nanf(""));
  mu->Modified();
  ExpectError(forward.GetPointer(), "attenuation map at voxel (2, 3, 4) is nan");
  forward->SetAttenuationMap(nullptr);
  CollimatorBlur blur;
  blur.slope = -0.1;
  forward->SetCollimatorBlur(blur);
  ExpectError(forward.GetPointer(), "collimator blur slope (mm of sigma per mm of distance) is -0.1");
  blur.slope = 0.;
  blur.sigma0 = std::nan("");
  forward->SetCollimatorBlur(blur);
  ExpectError(forward.GetPointer(), "collimator blur sigma0 (mm) is nan");
  blur.sigma0 = 1.;
  forward->SetCollimatorBlur(blur);
  forward->SetForwardProjector(ForwardProjectorKind::Joseph);
  ExpectError(forward.GetPointer(), "forward projector is joseph; expected emission");
  forward->SetForwardProjector(ForwardProjectorKind::Emission);
  forward->SetBackProjector(BackProjectorKind::VoxelBased);
  ExpectError(forward.GetPointer(), "backprojector of the emission projector is voxel; expected adjoint");
}
