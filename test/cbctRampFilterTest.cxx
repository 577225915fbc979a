// Ramp filter: the response's shape, and filtering against the spatial convolution it stands for.
#include "cbctFFTRampImageFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

using namespace cbct;
using namespace cbct::test;

TEST(RampFilter, PaddedLengthIsSmoothAndLongEnough)
{
  EXPECT_EQ(RampFilterPaddedLength(256), 512u);
  EXPECT_EQ(RampFilterPaddedLength(300), 600u);
  EXPECT_EQ(RampFilterPaddedLength(257), 540u); // 2^2 3^3 5
  EXPECT_EQ(RampFilterPaddedLength(1248), 2500u);
}

TEST(RampFilter, ResponseIsARampWithWindowsAndCutOff)
{
  const unsigned int n = 512;
  const double tau = 0.5;
  const auto ramLak = RampFilterResponse(n, tau, RampWindow::RamLak, 1.);
  ASSERT_EQ(ramLak.size(), n / 2 + 1);
  // Near-zero DC (the discrete kernel's sum), |f| in the middle, 1/(2 tau) at Nyquist (times 1/n).
  EXPECT_NEAR(ramLak[0] * n, 0., 2e-3 / tau);
  EXPECT_NEAR(ramLak[n / 4] * n, 0.5 * (1. / (2. * tau)), 0.01 / tau);
  EXPECT_NEAR(ramLak[n / 2] * n, 1. / (2. * tau), 1e-3 / tau); // the kernel is truncated at n/2
  const auto hann = RampFilterResponse(n, tau, RampWindow::Hann, 1.);
  EXPECT_NEAR(hann[n / 4] / ramLak[n / 4], 0.5, 1e-12);
  EXPECT_NEAR(hann[n / 2], 0., 1e-15);
  const auto cut = RampFilterResponse(n, tau, RampWindow::RamLak, 0.5);
  EXPECT_EQ(cut[n / 4 + 1], 0.);
  EXPECT_EQ(cut[n / 4 - 1], ramLak[n / 4 - 1]);
  EXPECT_THROW(RampFilterResponse(n, tau, RampWindow::RamLak, 0.), itk::ExceptionObject);
  EXPECT_THROW(RampFilterResponse(n, tau, RampWindow::RamLak, 1.5), itk::ExceptionObject);
  EXPECT_THROW(ParseRampWindow("gaussian"), itk::ExceptionObject);
  EXPECT_EQ(ParseRampWindow("Shepp-Logan"), RampWindow::SheppLogan);
}

TEST(RampFilter, FilteringEqualsTheSpatialConvolution)
{
  // Random rows; the Ram-Lak filtered value is tau * sum_j p_j h(i - j) with Kak & Slaney's h.
  const unsigned int width = 37, rows = 3, count = 2;
  const double tau = 0.8;
  auto image = ImageType::New();
  ImageType::RegionType region(ImageType::SizeType{ { width, rows, count } });
  image->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing.Fill(1.);
  spacing[0] = tau;
  image->SetSpacing(spacing);
  image->Allocate();
  unsigned int seed = 12345;
  for (itk::ImageRegionIterator<ImageType> it(image, region); !it.IsAtEnd(); ++it)
  {
    seed = seed * 1103515245u + 12345u;
    it.Set(static_cast<float>((seed >> 8) % 1000) / 1000.f);
  }
  auto filter = FFTRampImageFilter<ImageType>::New();
  filter->SetInput(image);
  filter->Update();
  const double pi = 3.14159265358979323846;
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
        worst = std::max(worst, std::abs(got - expected));
        ASSERT_FALSE(std::isnan(got));
      }
  EXPECT_LT(worst, 1e-5);
}
