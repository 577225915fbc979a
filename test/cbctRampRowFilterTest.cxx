// The ramp filter's power-of-two FFTs (RampRowFilter): against a direct DFT, and inside
// FFTRampImageFilter against the spatial convolution, with a partial group of rows.
#include "cbctFFTRampImageFilter.h"
#include "cbctRampRowFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

using namespace cbct;
using namespace cbct::test;

TEST(RampRowFilter, EqualsTheDirectTransformsToDoubleRounding)
{
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-1., 1.);
  const double pi = std::acos(-1.);
  for (unsigned int n : { 4u, 8u, 64u, 512u })
  {
    // An even, real response with the inverse's 1/n, and four complex rows.
    std::vector<double> response(n / 2 + 1);
    for (auto & r : response)
      r = (1. + value(random)) / n;
    constexpr unsigned int L = RampRowFilter::Lanes;
    std::vector<double> re(n * L), im(n * L);
    for (unsigned int i = 0; i < n * L; ++i)
    {
      re[i] = value(random);
      im[i] = value(random);
    }
    const auto re0 = re, im0 = im;
    RampRowFilter(n, response).Filter(re.data(), im.data());
    double worst = 0., largest = 0.;
    for (unsigned int l = 0; l < L; ++l)
    {
      std::vector<std::complex<double>> spectrum(n);
      for (unsigned int f = 0; f < n; ++f)
      {
        std::complex<double> sum = 0.;
        for (unsigned int t = 0; t < n; ++t)
          sum += std::complex<double>(re0[t * L + l], im0[t * L + l]) * std::polar(1., -2. * pi * f * t / n);
        spectrum[f] = sum * response[f <= n / 2 ? f : n - f];
      }
      for (unsigned int t = 0; t < n; ++t)
      {
        std::complex<double> sum = 0.;
        for (unsigned int f = 0; f < n; ++f)
          sum += spectrum[f] * std::polar(1., 2. * pi * f * t / n);
        worst = std::max({ worst, std::abs(sum.real() - re[t * L + l]), std::abs(sum.imag() - im[t * L + l]) });
        largest = std::max({ largest, std::abs(sum.real()), std::abs(sum.imag()) });
        ASSERT_TRUE(std::isfinite(re[t * L + l]) && std::isfinite(im[t * L + l]));
      }
    }
    EXPECT_LT(worst, 1e-12 * largest) << "length " << n;
    EXPECT_GT(largest, 0.1);
  }
  EXPECT_FALSE(RampRowFilter::Supports(12));
  EXPECT_FALSE(RampRowFilter::Supports(2));
  EXPECT_TRUE(RampRowFilter::Supports(1024));
  EXPECT_THROW(RampRowFilter(12, std::vector<double>(7, 1.)), itk::ExceptionObject);
}

TEST(RampRowFilter, FilterRowsInGroupsEqualTheSpatialConvolution)
{
  // 32 pixels (padded to 64: the power-of-two path), 3 rows x 3 projections = one group of eight
  // rows and a lone row; Ram-Lak: tau * sum_j p_j h(i - j) with Kak & Slaney's h.
  const unsigned int width = 32, rows = 3, count = 3;
  const double tau = 0.7;
  auto image = ImageType::New();
  ImageType::RegionType region(ImageType::SizeType{ { width, rows, count } });
  image->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing.Fill(1.);
  spacing[0] = tau;
  image->SetSpacing(spacing);
  image->Allocate();
  std::mt19937 random(3);
  std::uniform_real_distribution<float> value(0.f, 1.f);
  for (itk::ImageRegionIterator<ImageType> it(image, region); !it.IsAtEnd(); ++it)
    it.Set(value(random));
  auto filter = FFTRampImageFilter<ImageType>::New();
  filter->SetInput(image);
  filter->Update();
  ASSERT_EQ(filter->GetPaddedLength(), 64u);
  const double pi = std::acos(-1.);
  double worst = 0.;
  for (itk::IndexValueType k = 0; k < count; ++k)
    for (itk::IndexValueType j = 0; j < rows; ++j)
      for (itk::IndexValueType i = 0; i < width; ++i)
      {
        double expected = 0.;
        for (itk::IndexValueType m = 0; m < width; ++m)
        {
          const auto n = std::abs(i - m);
          const double h = n == 0 ? 1. / (4. * tau * tau) : (n % 2 ? -1. / (pi * pi * n * n * tau * tau) : 0.);
          expected += tau * image->GetPixel({ { m, j, k } }) * h;
        }
        const double got = filter->GetOutput()->GetPixel({ { i, j, k } });
        ASSERT_TRUE(std::isfinite(got));
        worst = std::max(worst, std::abs(got - expected));
      }
  EXPECT_LT(worst, 1e-5);
}
