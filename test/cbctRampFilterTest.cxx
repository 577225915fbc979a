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

namespace
{
/** Random rows of `width` pixels of `tau` mm. */
ImageType::Pointer
RandomRows(unsigned int width, unsigned int rows, unsigned int count, double tau, unsigned int seed)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::SizeType{ { width, rows, count } }));
  ImageType::SpacingType spacing;
  spacing.Fill(1.);
  spacing[0] = tau;
  image->SetSpacing(spacing);
  image->Allocate();
  for (itk::ImageRegionIterator<ImageType> it(image, image->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    seed = seed * 1103515245u + 12345u;
    it.Set(0.5f + static_cast<float>((seed >> 8) % 1000) / 1000.f);
  }
  return image;
}
} // namespace

TEST(RampFilter, TruncationCorrectionFiltersTheFadedReflectionOfTheEdges)
{
  // Rows of 37 pixels, FFT length 75, --pad 0.25: 9 pixels on each side, p[-d] = w(d) (2 p[0] - p[d])
  // and p[36+d] = w(d) (2 p[36] - p[36-d]), w(d) = sin((9 - d) pi / 16)^0.75; the row so extended,
  // convolved with the ramp kernel on the cyclic FFT grid.
  const unsigned int width = 37, rows = 2, count = 2;
  const double tau = 0.8, pi = 3.14159265358979323846;
  auto image = RandomRows(width, rows, count, tau, 4321);
  auto filter = FFTRampImageFilter<ImageType>::New();
  filter->SetInput(image);
  filter->SetTruncationCorrection(0.25);
  filter->Update();
  const int length = static_cast<int>(filter->GetPaddedLength()), extent = 9;
  ASSERT_EQ(length, 75);
  EXPECT_EQ(filter->GetTruncationCorrectionExtent(), extent);
  double worst = 0.;
  for (itk::IndexValueType k = 0; k < count; ++k)
    for (itk::IndexValueType j = 0; j < rows; ++j)
    {
      auto p = [&](itk::IndexValueType i) { return static_cast<double>(image->GetPixel({ { i, j, k } })); };
      std::vector<double> extended(length, 0.); // cyclic: index -d is length - d
      for (int i = 0; i < static_cast<int>(width); ++i)
        extended[i] = p(i);
      for (int d = 1; d <= extent; ++d)
      {
        const double w = std::pow(std::sin((extent - d) * pi / (2. * (extent - 1))), 0.75);
        extended[width - 1 + d] = w * (2. * p(width - 1) - p(width - 1 - d));
        extended[length - d] = w * (2. * p(0) - p(d));
      }
      for (int i = 0; i < static_cast<int>(width); ++i)
      {
        double expected = 0.;
        for (int m = 0; m < length; ++m)
        {
          const int c = ((i - m) % length + length) % length;
          const int n = std::min(c, length - c);
          const double h = n == 0 ? 1. / (4. * tau * tau) : (n % 2 ? -1. / (pi * pi * n * n * tau * tau) : 0.);
          expected += tau * extended[m] * h;
        }
        const double got = filter->GetOutput()->GetPixel({ { i, j, k } });
        ASSERT_FALSE(std::isnan(got));
        worst = std::max(worst, std::abs(got - expected));
      }
    }
  EXPECT_LT(worst, 1e-5);
  // The weights fade from 1 next to the edge to 0 at the end.
  EXPECT_DOUBLE_EQ(TruncationMirrorWeight(1, extent), 1.);
  EXPECT_DOUBLE_EQ(TruncationMirrorWeight(extent, extent), 0.);
}

TEST(RampFilter, NoTruncationCorrectionLeavesTheOutputUnchanged)
{
  auto image = RandomRows(64, 3, 2, 0.5, 99);
  auto plain = FFTRampImageFilter<ImageType>::New();
  plain->SetInput(image);
  plain->Update();
  auto zero = FFTRampImageFilter<ImageType>::New();
  zero->SetInput(image);
  zero->SetTruncationCorrection(0.01); // floor(0.64) = 0 pixels
  zero->Update();
  EXPECT_EQ(zero->GetTruncationCorrectionExtent(), 0);
  const auto n = image->GetBufferedRegion().GetNumberOfPixels();
  EXPECT_TRUE(std::equal(plain->GetOutput()->GetBufferPointer(), plain->GetOutput()->GetBufferPointer() + n,
                         zero->GetOutput()->GetBufferPointer()));
  // At most half the zero padding: 64 pixels in 128 leave 32 a side.
  zero->SetTruncationCorrection(0.9);
  EXPECT_EQ(zero->GetTruncationCorrectionExtent(), 32);
  zero->SetTruncationCorrection(-0.1);
  EXPECT_THROW(zero->Update(), itk::ExceptionObject);
}

TEST(RampFilter, HannAlongVIsTheColumnConvolutionOfTheLowPass)
{
  // With --hannY, every column of the ramp-filtered rows is convolved (cyclically, zero-padded to
  // RampFilterPaddedLength(rows)) with the Hann low-pass kernel: the inverse DFT of its response.
  const unsigned int width = 20, rows = 13, count = 2;
  auto image = RandomRows(width, rows, count, 0.7, 777);
  auto ramp = FFTRampImageFilter<ImageType>::New();
  ramp->SetInput(image);
  ramp->Update();
  auto smooth = FFTRampImageFilter<ImageType>::New();
  smooth->SetInput(image);
  smooth->SetHannCutFrequencyY(0.6);
  smooth->Update();
  const unsigned int lengthY = smooth->GetPaddedLengthY();
  ASSERT_EQ(lengthY, RampFilterPaddedLength(rows));
  const auto taps = HannLowPassKernel(lengthY, 0.6);
  double sum = 0.;
  for (double t : taps)
    sum += t;
  EXPECT_NEAR(sum, 1., 1e-12); // DC passes unchanged
  const auto response = HannLowPassResponse(lengthY, 0.6);
  EXPECT_NEAR(response[0] * lengthY, 1., 1e-15);
  EXPECT_EQ(response[lengthY / 2], 0.); // above the cut-off
  double worst = 0.;
  for (itk::IndexValueType k = 0; k < count; ++k)
    for (itk::IndexValueType j = 0; j < rows; ++j)
      for (itk::IndexValueType i = 0; i < width; ++i)
      {
        double expected = 0.;
        for (itk::IndexValueType m = 0; m < rows; ++m)
          expected += taps[((j - m) % lengthY + lengthY) % lengthY] * ramp->GetOutput()->GetPixel({ { i, m, k } });
        const double got = smooth->GetOutput()->GetPixel({ { i, j, k } });
        ASSERT_FALSE(std::isnan(got));
        worst = std::max(worst, std::abs(got - expected));
      }
  EXPECT_LT(worst, 1e-5);

  // A region of rows asks for every row of its projections, and gives the same values.
  smooth->GetOutput()->SetRequestedRegion(
    ImageType::RegionType(ImageType::IndexType{ { 0, 4, 1 } }, ImageType::SizeType{ { width, 3, 1 } }));
  smooth->GetOutput()->PropagateRequestedRegion();
  EXPECT_EQ(image->GetRequestedRegion().GetSize(1), rows);
  EXPECT_THROW(
    {
      smooth->SetHannCutFrequencyY(1.5);
      smooth->UpdateLargestPossibleRegion();
    },
    itk::ExceptionObject);
}
