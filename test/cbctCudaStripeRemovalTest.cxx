// Ring (stripe) removal on the GPU against the CPU filters: Vo et al.'s sorting filter bit for bit
// (a sort and a median are exact; ties, -0 and +0 included; the detection's double sums and
// thresholds are computed in the CPU's order without fused multiply-adds, and its noise weight,
// exp(-level / 2), by CUDA's exp, within an ulp of the host's: a last-bit difference would matter only
// to an offset within 1e-16 of a threshold), Münch et al.'s wavelet-Fourier filter
// within 1e-5 (relative L2; the GPU works in single precision, the CPU in double), on stacks whose
// sizes are not powers of two nor multiples of a block, on a band of rows, and bad input. Needs a
// CUDA device; skips cleanly without one. The CPU twins are in cbctStripeRemovalTest.cxx.
#include "cbctCudaDevice.h"
#include "cbctCudaImage.h"
#include "cbctCudaSortingStripeRemovalImageFilter.h"
#include "cbctCudaWaveletFourierStripeRemovalImageFilter.h"
#include "cbctSortingStripeRemovalImageFilter.h"
#include "cbctStripeRemovalTestHelpers.h"
#include "cbctWaveletFourierStripeRemovalImageFilter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
/** `rows` detector rows of line integrals: the synthetic sinogram scaled per row, stripes in two
 * columns, and noise; with `ties`, values rounded to 1/64 so that many are equal (and some are -0). */
ImageType::Pointer
StripedStack(std::size_t projections, std::size_t columns, std::size_t rows, bool ties)
{
  const auto sinogram = SyntheticSinogram(projections, columns, columns / 5.);
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { columns, rows, projections } });
  image->Allocate();
  std::mt19937 random(11);
  std::normal_distribution<float> noise(0.f, 0.002f);
  for (std::size_t k = 0; k < projections; ++k)
    for (std::size_t v = 0; v < rows; ++v)
      for (std::size_t u = 0; u < columns; ++u)
      {
        float p = sinogram[k * columns + u] * (1.f + 0.05f * v) + noise(random);
        if (u == columns / 3)
          p += 0.02f;
        if (u == columns / 2 + 3 && k < projections / 2)
          p -= 0.01f;
        if (ties)
          p = std::round(p * 64.f) / 64.f - 0.25f; // values about 0: +0 and -0 both occur
        if (ties && p == 0.f && (u + k) % 2)
          p = -0.f;
        image->GetBufferPointer()[(k * rows + v) * columns + u] = p;
      }
  return image;
}

CudaImageType::Pointer
ToCuda(const ImageType * image)
{
  auto copy = CudaImageType::New();
  copy->CopyInformation(image);
  copy->SetRegions(image->GetLargestPossibleRegion());
  copy->Allocate();
  std::copy(image->GetBufferPointer(), image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels(),
            copy->GetBufferPointer());
  return copy;
}

/** The GPU filter's output on `stack` (rows [firstRow, firstRow + rowCount) when rowCount > 0) as a
 * CPU image of the output's buffered region. */
template <typename TFilter>
ImageType::Pointer
RunOnDevice(TFilter * filter, const ImageType * stack, long firstRow = 0, std::size_t rowCount = 0)
{
  filter->SetInput(ToCuda(stack));
  if (rowCount > 0)
  {
    filter->UpdateOutputInformation();
    auto band = filter->GetOutput()->GetLargestPossibleRegion();
    band.SetIndex(1, firstRow);
    band.SetSize(1, rowCount);
    filter->GetOutput()->SetRequestedRegion(band);
  }
  filter->GetOutput()->Update();
  CudaImageType * out = filter->GetOutput();
  auto host = ImageType::New();
  host->CopyInformation(out);
  host->SetRegions(out->GetBufferedRegion());
  host->Allocate();
  std::copy(out->GetBufferPointer(), out->GetBufferPointer() + out->GetBufferedRegion().GetNumberOfPixels(),
            host->GetBufferPointer());
  return host;
}

template <typename TFilter>
ImageType::Pointer
RunOnHost(TFilter * filter, const ImageType * stack)
{
  filter->SetInput(stack);
  filter->Update();
  ImageType::Pointer out = filter->GetOutput();
  out->DisconnectPipeline();
  return out;
}

/** Pixels of `gpu` (a band of rows starting at `firstRow`) whose bits differ from the CPU's. */
std::size_t
DifferingBits(const ImageType * gpu, const ImageType * cpu, long firstRow = 0)
{
  const auto g = gpu->GetBufferedRegion().GetSize(), c = cpu->GetBufferedRegion().GetSize();
  std::size_t differing = 0;
  for (std::size_t k = 0; k < g[2]; ++k)
    for (std::size_t v = 0; v < g[1]; ++v)
      for (std::size_t u = 0; u < g[0]; ++u)
      {
        const float a = gpu->GetBufferPointer()[(k * g[1] + v) * g[0] + u];
        const float b = cpu->GetBufferPointer()[(k * c[1] + v + firstRow) * c[0] + u];
        differing += std::memcmp(&a, &b, sizeof(float)) != 0;
      }
  return differing;
}

class CudaStripeRemoval : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    std::string why;
    if (!CudaDeviceAvailable(&why))
      GTEST_SKIP() << why;
  }
};
} // namespace

TEST_F(CudaStripeRemoval, SortingIsTheCPUsBitForBit)
{
  // 181 projections (a padded sort of 256), 101 columns (blocks of 32 and a remainder of 5), ties;
  // with the stripe detection (snr 3 and 1.5) pooled over 1, 3 and 9 (the default) rows of 7, and
  // without it (snr 0: every column). Rows 2 .. 3 alone ask the input for their bands' rows and give
  // the same values: the detection, its pooling and the correction all on the device, and equal.
  for (double snr : { 3., 1.5, 0. })
    for (unsigned int detectionRows : { 1u, 3u, 9u })
      for (bool ties : { false, true })
        for (unsigned int size : { 0u, 3u, 8u, 21u })
        {
          if (snr == 0. && detectionRows != 1u)
            continue; // no detection: nothing pooled
          const auto stack = StripedStack(181, 101, 7, ties);
          auto cpu = SortingStripeRemovalImageFilter<ImageType>::New();
          cpu->SetSize(size);
          cpu->SetSNR(snr);
          cpu->SetDetectionRows(detectionRows);
          auto gpu = CudaSortingStripeRemovalImageFilter<CudaImageType>::New();
          gpu->SetSize(size);
          gpu->SetSNR(snr);
          gpu->SetDetectionRows(detectionRows);
          const auto expected = RunOnHost(cpu.GetPointer(), stack);
          const std::string name = "snr " + std::to_string(snr) + " rows " + std::to_string(detectionRows) + " ties " +
                                   std::to_string(ties) + " size " + std::to_string(size);
          EXPECT_EQ(DifferingBits(RunOnDevice(gpu.GetPointer(), stack), expected), 0u) << name;
          // Rows 2 .. 3 alone.
          auto band = CudaSortingStripeRemovalImageFilter<CudaImageType>::New();
          band->SetSize(size);
          band->SetSNR(snr);
          band->SetDetectionRows(detectionRows);
          const auto rows = RunOnDevice(band.GetPointer(), stack, 2, 2);
          ASSERT_EQ(rows->GetBufferedRegion().GetSize(1), 2u);
          EXPECT_EQ(DifferingBits(rows, expected, 2), 0u) << name;
        }
}

TEST_F(CudaStripeRemoval, AReplacementWhereStripesAreFoundIsTheCPUs)
{
  // The detected columns take a replacement's values (--rings wavelet: the wavelet-Fourier filter's),
  // the others keep theirs: bit for bit the CPU's, whole and for rows 2 .. 3 alone.
  const auto stack = StripedStack(181, 101, 7, false);
  auto replacement = ImageType::New();
  replacement->CopyInformation(stack);
  replacement->SetRegions(stack->GetLargestPossibleRegion());
  replacement->Allocate();
  for (std::size_t i = 0; i < stack->GetBufferedRegion().GetNumberOfPixels(); ++i)
    replacement->GetBufferPointer()[i] = 100.f + static_cast<float>(i % 977);
  auto cpu = SortingStripeRemovalImageFilter<ImageType>::New();
  cpu->SetReplacement(replacement);
  const auto expected = RunOnHost(cpu.GetPointer(), stack);
  std::size_t replaced = 0;
  for (std::size_t i = 0; i < stack->GetBufferedRegion().GetNumberOfPixels(); ++i)
    replaced += expected->GetBufferPointer()[i] >= 100.f;
  EXPECT_GT(replaced, 0u) << "the CPU found no stripe: the test sees nothing";
  for (long first : { 0L, 2L })
  {
    auto gpu = CudaSortingStripeRemovalImageFilter<CudaImageType>::New();
    gpu->SetReplacement(ToCuda(replacement));
    const auto rows = first ? RunOnDevice(gpu.GetPointer(), stack, first, 2) : RunOnDevice(gpu.GetPointer(), stack);
    EXPECT_EQ(DifferingBits(rows, expected, first), 0u) << "first row " << first;
  }
}

TEST_F(CudaStripeRemoval, SortingOfTheBenchmarkSizeIsTheCPUs)
{
  // 360 projections of 512 columns (the benchmark's sinograms), 12 rows, with the stage timing on
  // (the events must not change the values).
  const auto stack = StripedStack(360, 512, 12, false);
  auto cpu = SortingStripeRemovalImageFilter<ImageType>::New();
  auto gpu = CudaSortingStripeRemovalImageFilter<CudaImageType>::New();
  gpu->SetTimeStages(true);
  EXPECT_EQ(DifferingBits(RunOnDevice(gpu.GetPointer(), stack), RunOnHost(cpu.GetPointer(), stack)), 0u);
  EXPECT_GT(gpu->GetStageMilliseconds().sort, 0.);
  EXPECT_GT(gpu->GetStageMilliseconds().detection, 0.);
}

TEST_F(CudaStripeRemoval, WaveletFourierIsTheCPUsWithinSinglePrecision)
{
  const auto stack = StripedStack(181, 101, 5, false);
  for (const char * wavelet : { "db5", "haar", "db10" })
    for (unsigned int level : { 0u, 3u })
      for (int variant : { 0, 1, 2 }) // padded, not padded; the whole sinogram filtered (padded)
      {
        const bool pad = variant != 1;
        WaveletFourierStripeRemoval::Parameters p;
        p.wavelet = wavelet;
        p.level = level;
        p.pad = pad;
        p.detailOnly = variant != 2;
        p.sigma = level ? 1.5 : 2.;
        auto cpu = WaveletFourierStripeRemovalImageFilter<ImageType>::New();
        cpu->SetParameters(p);
        auto gpu = CudaWaveletFourierStripeRemovalImageFilter<CudaImageType>::New();
        gpu->SetParameters(p);
        const auto expected = RunOnHost(cpu.GetPointer(), stack);
        const double difference = RelativeDifference(RunOnDevice(gpu.GetPointer(), stack), expected);
        EXPECT_LT(difference, 1e-5) << wavelet << " level " << level << " pad " << pad << " detail " << p.detailOnly;
        // The filter did something: the GPU's output is not its input.
        EXPECT_GT(RelativeDifference(expected, stack), 1e-3);
      }
  // A band of rows.
  auto cpu = WaveletFourierStripeRemovalImageFilter<ImageType>::New();
  auto gpu = CudaWaveletFourierStripeRemovalImageFilter<CudaImageType>::New();
  const auto expected = RunOnHost(cpu.GetPointer(), stack);
  const auto rows = RunOnDevice(gpu.GetPointer(), stack, 1, 3);
  double d = 0., n = 0.;
  const auto g = rows->GetBufferedRegion().GetSize();
  ASSERT_EQ(g[1], 3u);
  for (std::size_t k = 0; k < g[2]; ++k)
    for (std::size_t v = 0; v < 3; ++v)
      for (std::size_t u = 0; u < g[0]; ++u)
      {
        const double a = rows->GetBufferPointer()[(k * 3 + v) * g[0] + u];
        const double b = expected->GetBufferPointer()[(k * 5 + v + 1) * g[0] + u];
        d += (a - b) * (a - b);
        n += b * b;
      }
  EXPECT_LT(std::sqrt(d / n), 1e-5);
}

TEST_F(CudaStripeRemoval, BadInputWithANaNIsRefusedNamingTheRow)
{
  auto stack = StripedStack(40, 33, 4, false);
  stack->GetBufferPointer()[(9 * 4 + 3) * 33 + 5] = std::numeric_limits<float>::infinity();
  for (int method = 0; method < 2; ++method)
  {
    std::string message = "no error";
    try
    {
      if (method == 0)
        RunOnDevice(CudaSortingStripeRemovalImageFilter<CudaImageType>::New().GetPointer(), stack);
      else
        RunOnDevice(CudaWaveletFourierStripeRemovalImageFilter<CudaImageType>::New().GetPointer(), stack);
    }
    catch (const itk::ExceptionObject & e)
    {
      message = e.GetDescription();
    }
    EXPECT_NE(message.find("detector row 3 holds a NaN or an infinite value"), std::string::npos) << message;
  }
}

TEST_F(CudaStripeRemoval, BadProjectionCountForTheSharedMemorySortIsNamed)
{
  // 70000 projections: a column's keys padded to 131072 (1 MiB) exceed any block's shared memory.
  auto stack = ImageType::New();
  stack->SetRegions(ImageType::SizeType{ { 4, 1, 70000 } });
  stack->Allocate();
  stack->FillBuffer(1.f);
  std::string message = "no error";
  try
  {
    RunOnDevice(CudaSortingStripeRemovalImageFilter<CudaImageType>::New().GetPointer(), stack);
  }
  catch (const itk::ExceptionObject & e)
  {
    message = e.GetDescription();
  }
  EXPECT_NE(message.find("CUDA sorting stripe removal: projections is 70000; expected at most"), std::string::npos)
    << message;
}
