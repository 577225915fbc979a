// Total-variation building blocks on the CPU: the TV gradient against finite differences of TV in
// double, the gradient and divergence as negative adjoints, Chambolle's TV denoising decreasing the
// ROF objective and matching the closed-form solution for a step, and bad input.
#include "cbctTotalVariationDenoisingImageFilter.h"
#include "cbctTotalVariationGradientImageFilter.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
/** A volume of `size` voxels of `spacing` mm, uniform random values in [0, 1). */
ImageType::Pointer
RandomVolume(const std::array<unsigned int, 3> & size, const std::array<double, 3> & spacing, unsigned int seed)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { size[0], size[1], size[2] } });
  ImageType::SpacingType s;
  for (unsigned int d = 0; d < 3; ++d)
    s[d] = spacing[d];
  image->SetSpacing(s);
  image->Allocate();
  return Copy<ImageType>(image, false, seed);
}

/** TV_eps(x) = sum sqrt(eps^2 + |D x|^2) in double, written out from its definition (forward
 * differences per mm, none past the last voxel). */
double
TotalVariationInDouble(const std::vector<double> & x, const int n[3], const double h[3], double epsilon)
{
  double sum = 0.;
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int i = 0; i < n[0]; ++i)
      {
        const std::size_t v = (static_cast<std::size_t>(z) * n[1] + y) * n[0] + i;
        const double dx = i + 1 < n[0] ? (x[v + 1] - x[v]) / h[0] : 0.;
        const double dy = y + 1 < n[1] ? (x[v + n[0]] - x[v]) / h[1] : 0.;
        const double dz = z + 1 < n[2] ? (x[v + static_cast<std::size_t>(n[0]) * n[1]] - x[v]) / h[2] : 0.;
        sum += std::sqrt(epsilon * epsilon + dx * dx + dy * dy + dz * dz);
      }
  return sum;
}

ImageType::Pointer
Denoise(const ImageType * f, double lambda, unsigned int iterations)
{
  auto filter = TotalVariationDenoisingImageFilter<ImageType>::New();
  filter->SetInput(f);
  filter->SetLambda(lambda);
  filter->SetNumberOfIterations(iterations);
  filter->Update();
  ImageType::Pointer u = filter->GetOutput();
  u->DisconnectPipeline();
  return u;
}
} // namespace

TEST(TotalVariation, GradientMatchesFiniteDifferencesOfTheTotalVariation)
{
  const std::array<unsigned int, 3> size{ { 12, 10, 8 } };
  const std::array<double, 3> spacing{ { 0.8, 1.5, 2. } };
  auto x = RandomVolume(size, spacing, 3);
  const double epsilon = 0.05;
  auto gradient = TotalVariationGradientImageFilter<ImageType>::New();
  gradient->SetInput(x);
  gradient->SetEpsilon(epsilon);
  gradient->Update();
  const int n[3] = { 12, 10, 8 };
  std::vector<double> values(x->GetBufferPointer(), x->GetBufferPointer() + 12 * 10 * 8);
  std::mt19937 generator(5);
  std::uniform_int_distribution<int> voxel(0, 12 * 10 * 8 - 1);
  double worst = 0., largest = 0.;
  for (int trial = 0; trial < 200; ++trial)
  {
    const int v = trial < 8 ? (trial & 1 ? trial >> 1 : 959 - (trial >> 1)) : voxel(generator); // corners and edges too
    const double step = 1e-4;
    std::vector<double> plus = values, minus = values;
    plus[v] += step;
    minus[v] -= step;
    const double expected = (TotalVariationInDouble(plus, n, spacing.data(), epsilon) - TotalVariationInDouble(minus, n, spacing.data(), epsilon)) /
                            (2. * step);
    const double got = gradient->GetOutput()->GetBufferPointer()[v];
    worst = std::max(worst, std::fabs(got - expected));
    largest = std::max(largest, std::fabs(expected));
  }
  std::cout << "TV gradient vs central differences of TV in double: largest difference " << worst << " (largest derivative "
            << largest << ")" << std::endl;
  EXPECT_GT(largest, 0.5);
  EXPECT_LT(worst, 1e-4 * largest);
}

TEST(TotalVariation, DivergenceIsTheNegativeAdjointOfTheGradient)
{
  auto x = RandomVolume({ { 9, 7, 6 } }, { { 1., 0.5, 2.5 } }, 7);
  const TotalVariationOperators tv(MakeTVGrid(x));
  const std::size_t n = tv.Voxels();
  std::vector<float> q[3] = { std::vector<float>(n), std::vector<float>(n), std::vector<float>(n) }, div(n);
  std::mt19937 generator(9);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<float> p[3] = { std::vector<float>(n), std::vector<float>(n), std::vector<float>(n) };
  for (auto & component : p)
    for (float & value : component)
      value = uniform(generator);
  float * gradient[3] = { q[0].data(), q[1].data(), q[2].data() };
  tv.Gradient(x->GetBufferPointer(), gradient);
  const float * field[3] = { p[0].data(), p[1].data(), p[2].data() };
  tv.Divergence(field, div.data(), 1.f);
  double dxp = 0., xdiv = 0.;
  for (std::size_t v = 0; v < n; ++v)
  {
    for (int c = 0; c < 3; ++c)
      dxp += static_cast<double>(q[c][v]) * p[c][v];
    xdiv += static_cast<double>(x->GetBufferPointer()[v]) * div[v];
  }
  std::cout << "<D x, p> = " << dxp << ", -<x, div p> = " << -xdiv << std::endl;
  EXPECT_GT(std::fabs(dxp), 1.);
  EXPECT_LT(std::fabs(dxp + xdiv), 1e-5 * std::fabs(dxp));
}

TEST(TotalVariation, ChambolleDenoisingDecreasesTheRofObjectiveEveryIteration)
{
  auto f = RandomVolume({ { 16, 12, 10 } }, { { 1., 1., 1.5 } }, 11);
  const double lambda = 0.05;
  std::vector<double> objective{ TotalVariationDenoisingImageFilter<ImageType>::Objective(f, f, lambda) };
  for (unsigned int iterations = 1; iterations <= 40; ++iterations)
    objective.push_back(TotalVariationDenoisingImageFilter<ImageType>::Objective(Denoise(f, lambda, iterations), f, lambda));
  std::cout << "ROF objective: f " << objective[0] << ", after 1, 10, 40 iterations " << objective[1] << ", " << objective[10] << ", "
            << objective[40] << std::endl;
  for (std::size_t n = 1; n < objective.size(); ++n)
    EXPECT_LE(objective[n], objective[n - 1] * (1. + 1e-7)) << "iteration " << n;
  EXPECT_LT(objective[40], 0.85 * objective[0]); // measured 0.80
}

TEST(TotalVariation, ChambolleDenoisingOfAStepMatchesTheClosedForm)
{
  // A step along x, constant along y and z: the problem is 1D in each row, and its solution moves the
  // two plateaus towards each other by lambda / (n h): 0.2 + lambda / (8 h) left, 1 - lambda / (12 h)
  // right (8 and 12 voxels of h = 0.5 mm).
  auto f = ImageType::New();
  f->SetRegions(ImageType::SizeType{ { 20, 3, 2 } });
  ImageType::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 1.;
  spacing[2] = 2.;
  f->SetSpacing(spacing);
  f->Allocate();
  for (unsigned int i = 0; i < 20 * 3 * 2; ++i)
    f->GetBufferPointer()[i] = i % 20 < 8 ? 0.2f : 1.f;
  const double lambda = 0.4;
  auto u = Denoise(f, lambda, 3000);
  const double left = 0.2 + lambda / (8 * 0.5), right = 1. - lambda / (12 * 0.5);
  double worst = 0.;
  for (unsigned int i = 0; i < 20 * 3 * 2; ++i)
    worst = std::max(worst, std::fabs(u->GetBufferPointer()[i] - (i % 20 < 8 ? left : right)));
  std::cout << "TV denoising of a step: expected " << left << " and " << right << ", got " << u->GetBufferPointer()[0] << " and "
            << u->GetBufferPointer()[19] << " (largest difference " << worst << ")" << std::endl;
  EXPECT_LT(worst, 1e-3);
}

TEST(TotalVariationBadInput, EpsilonLambdaAndIterations)
{
  auto x = RandomVolume({ { 4, 4, 4 } }, { { 1., 1., 1. } }, 1);
  auto gradient = TotalVariationGradientImageFilter<ImageType>::New();
  gradient->SetInput(x);
  gradient->SetEpsilon(-1.);
  ExpectError(gradient.GetPointer(), "epsilon is -1");
  auto denoise = TotalVariationDenoisingImageFilter<ImageType>::New();
  denoise->SetInput(x);
  denoise->SetLambda(0.);
  ExpectError(denoise.GetPointer(), "lambda is 0");
  denoise->SetLambda(std::nan(""));
  ExpectError(denoise.GetPointer(), "lambda is nan");
  denoise->SetLambda(1.);
  denoise->SetNumberOfIterations(0);
  ExpectError(denoise.GetPointer(), "iterations is 0");
}
