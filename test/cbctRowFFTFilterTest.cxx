// RowFFTFilter (the CPU ramp filter's FFTs: FFTW through ITK, else vnl's) against a direct DFT, and
// FFTRampImageFilter's rows independent of the region that holds them (streamed slabs, MPI ranks and
// threads split the rows differently; the volume must not depend on it).
#include "cbctFFTRampImageFilter.h"
#include "cbctRowFFTFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <itkImageRegionIterator.h>
#include <itkMultiThreaderBase.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>

using namespace cbct;
using namespace cbct::test;

TEST(RowFFTFilter, EqualsTheDirectTransformsToDoubleRounding)
{
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-1., 1.);
  const double pi = std::acos(-1.);
  for (unsigned int n : { 4u, 12u, 64u, 192u, 500u, 512u })
  {
    // An even, real response with the inverse's 1/n.
    std::vector<double> response(n / 2 + 1);
    for (auto & r : response)
      r = (1. + value(random)) / n;
    const RowFFTFilter filter(n, response);
    ASSERT_EQ(filter.GetLength(), n);
    RowFFTFilter::Workspace workspace(filter);
    std::vector<double> row(n);
    for (auto & x : row)
      x = value(random);
    std::copy(row.begin(), row.end(), workspace.Row());
    filter.Filter(workspace);
    double worst = 0., largest = 0.;
    std::vector<std::complex<double>> spectrum(n);
    for (unsigned int f = 0; f < n; ++f)
    {
      std::complex<double> sum = 0.;
      for (unsigned int t = 0; t < n; ++t)
        sum += row[t] * std::polar(1., -2. * pi * f * t / n);
      spectrum[f] = sum * response[f <= n / 2 ? f : n - f];
    }
    for (unsigned int t = 0; t < n; ++t)
    {
      std::complex<double> sum = 0.;
      for (unsigned int f = 0; f < n; ++f)
        sum += spectrum[f] * std::polar(1., 2. * pi * f * t / n);
      ASSERT_TRUE(std::isfinite(workspace.Row()[t]));
      worst = std::max(worst, std::abs(sum.real() - workspace.Row()[t]));
      largest = std::max(largest, std::abs(sum.real()));
    }
    EXPECT_LT(worst, 1e-12 * largest) << "length " << n;
    EXPECT_GT(largest, 0.1);
  }
}

TEST(RowFFTFilter, RefusesAShortResponse)
{
  EXPECT_THROW(RowFFTFilter(12, std::vector<double>(6, 1.)), itk::ExceptionObject);
  EXPECT_THROW(RowFFTFilter(1, std::vector<double>(1, 1.)), itk::ExceptionObject);
}

TEST(RowFFTFilter, FilteredRowsDoNotDependOnTheRegionThatHoldsThem)
{
  // A row next to a bright one and a zero row: paired in one complex FFT (as an earlier version did),
  // the zero row took 1e-12 of its neighbour, and which rows were paired followed the region's start.
  // Each requested region (odd and even starts, single rows) and each thread count gives the whole
  // run's values bit for bit; zero rows stay exactly zero. Widths 96 (padded 192) and 64 (128).
  for (unsigned int width : { 96u, 64u })
  {
    const unsigned int rows = 7, count = 3;
    auto image = ImageType::New();
    ImageType::RegionType whole(ImageType::SizeType{ { width, rows, count } });
    image->SetRegions(whole);
    image->Allocate();
    std::mt19937 random(5);
    std::uniform_real_distribution<float> value(0.f, 100.f);
    for (itk::ImageRegionIterator<ImageType> it(image, whole); !it.IsAtEnd(); ++it)
      it.Set(it.GetIndex()[1] % 3 == 0 ? 0.f : value(random)); // rows 0, 3, 6 zero
    auto reference = FFTRampImageFilter<ImageType>::New();
    reference->SetInput(image);
    reference->SetNumberOfWorkUnits(1);
    reference->Update();
    const auto * expected = reference->GetOutput();
    for (itk::ImageRegionConstIterator<ImageType> it(expected, whole); !it.IsAtEnd(); ++it)
    {
      ASSERT_TRUE(std::isfinite(it.Get()));
      if (it.GetIndex()[1] % 3 == 0)
        ASSERT_EQ(it.Get(), 0.f) << it.GetIndex();
    }
    for (itk::IndexValueType start : { 0, 1, 2, 3 })
      for (itk::SizeValueType size : { 1, 2, 3, 4 })
        for (unsigned int units : { 1u, 2u, 5u })
        {
          if (start + static_cast<itk::IndexValueType>(size) > static_cast<itk::IndexValueType>(rows))
            continue;
          auto filter = FFTRampImageFilter<ImageType>::New();
          filter->SetInput(image);
          filter->SetNumberOfWorkUnits(units);
          auto region = whole;
          region.SetIndex(1, start);
          region.SetSize(1, size);
          filter->GetOutput()->SetRequestedRegion(region);
          filter->Update();
          for (itk::ImageRegionConstIterator<ImageType> it(filter->GetOutput(), region); !it.IsAtEnd(); ++it)
            ASSERT_EQ(std::memcmp(&it.Value(), &expected->GetPixel(it.GetIndex()), sizeof(float)), 0)
              << "width " << width << ", rows " << start << ".." << start + static_cast<itk::IndexValueType>(size) - 1
              << ", " << units << " work units, pixel " << it.GetIndex() << ": " << it.Get() << " vs "
              << expected->GetPixel(it.GetIndex());
        }
  }
}
