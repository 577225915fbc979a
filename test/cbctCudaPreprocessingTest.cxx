// The GPU side of real-scan preprocessing against the CPU filters: 16-bit readings turned into line
// integrals in the FDK weighting kernel, the ramp filter's truncation correction (--pad) and Hann
// low-pass along v (--hannY) in the CUDA ramp filter and in the fused CUDA FDK, whose 16-bit input
// (SetCountProjections) is checked against line integrals converted on the CPU. Needs a CUDA device;
// skips cleanly without one. The CPU twins of these tests are in cbctPreprocessingTest.cxx,
// cbctRampFilterTest.cxx and cbctFDKTest.cxx.
#include "cbctConstantImageSource.h"
#include "cbctCudaDevice.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaFDKWeighting.hcu"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

#include <itkImageRegionConstIteratorWithIndex.h>

#include <cmath>
#include <cstdint>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;
using CountImage = itk::Image<std::uint16_t, 3>;

namespace
{
/** Water-like ellipsoids (0.02 per mm), with air around them on a detector of `pixels` of 1.5 mm. */
template <typename TImage>
typename TImage::Pointer
WaterProjections(const ThreeDCircularProjectionGeometry * geometry, unsigned int pixels)
{
  auto phantom = GeometricPhantom::New();
  GeometricPhantom::Ellipsoid e;
  e.density = 0.02;
  e.semiAxes = { { 40., 35., 50. } };
  phantom->AddEllipsoid(e);
  auto source = PhantomProjectionSource<TImage>::New();
  typename TImage::SizeType size{ { pixels, pixels, geometry->GetNumberOfProjections() } };
  typename TImage::SpacingType spacing;
  spacing[0] = spacing[1] = 1.5;
  spacing[2] = 1.;
  typename TImage::PointType origin;
  origin[0] = origin[1] = -0.5 * (pixels - 1.) * 1.5;
  origin[2] = 0.;
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  typename TImage::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  return projections;
}

/** A CUDA image with the values of a CPU image. */
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

/** A zero volume on the GPU: `size` voxels of `spacing` mm, centred on the rotation axis. */
ConstantImageSource<CudaImageType>::Pointer
CudaZeroVolume(const CudaImageType::SizeType & size, double spacing)
{
  auto source = ConstantImageSource<CudaImageType>::New();
  CudaImageType::SpacingType s;
  CudaImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    s[d] = spacing;
    origin[d] = -0.5 * (size[d] - 1.) * spacing;
  }
  source->SetSize(size);
  source->SetSpacing(s);
  source->SetOrigin(origin);
  return source;
}

/** Relative L2 difference of a CUDA image against a CPU one (NaN fails). */
double
Difference(CudaImageType * gpu, const ImageType * cpu)
{
  auto host = ImageType::New();
  host->CopyInformation(cpu);
  host->SetRegions(cpu->GetBufferedRegion());
  host->Allocate();
  std::copy(gpu->GetBufferPointer(), gpu->GetBufferPointer() + cpu->GetBufferedRegion().GetNumberOfPixels(),
            host->GetBufferPointer());
  return RelativeDifference(host, cpu);
}
} // namespace

class CudaPreprocessing : public ::testing::Test
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

TEST_F(CudaPreprocessing, CountsAreTurnedIntoLineIntegralsInTheWeightingKernel)
{
  // 16-bit noisy readings uploaded as they are: the kernel's weighted line integrals equal the CPU's
  // IntensityToLineIntegralImageFilter (I0 estimated per projection) followed by its weighting.
  auto geometry = CircularGeometry(24);
  auto lines = WaterProjections<ImageType>(geometry, 96);
  auto toCounts = LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
  toCounts->SetInput(lines);
  toCounts->SetI0(12000.);
  toCounts->SetIDark(150.);
  toCounts->PoissonNoiseOn();
  toCounts->SetSeed(11);
  toCounts->Update();
  const CountImage * counts = toCounts->GetOutput();

  auto toLines = IntensityToLineIntegralImageFilter<CountImage, ImageType>::New();
  toLines->SetInput(counts);
  toLines->SetIDark(150.);
  auto weight = FDKWeightProjectionFilter<ImageType>::New();
  weight->SetInput(toLines->GetOutput());
  weight->SetGeometry(geometry);
  weight->Update();
  const ImageType * cpu = weight->GetOutput();

  const auto & region = counts->GetBufferedRegion();
  const std::size_t pixels = region.GetNumberOfPixels();
  CudaDeviceBuffer<std::uint16_t> deviceCounts(pixels);
  CudaCheck(cudaMemcpy(deviceCounts.Data(), counts->GetBufferPointer(), pixels * sizeof(std::uint16_t), cudaMemcpyHostToDevice),
            "cudaMemcpy (counts)");
  CudaDeviceBuffer<double> logFlat;
  logFlat.Upload(toLines->GetLogFlatFields());
  CudaDeviceBuffer<FDKWeightingProjection> parameters;
  parameters.Upload(weight->ComputeProjectionParameters(toLines->GetOutput(), 0, geometry->GetNumberOfProjections()));
  CudaDeviceBuffer<float> output(pixels);

  CudaWeightingLaunch launch;
  launch.inputCounts = deviceCounts.Data();
  launch.logFlat = logFlat.Data();
  launch.conversion = toLines->GetConversion();
  launch.output = output.Data();
  launch.inputColumns = static_cast<int>(region.GetSize(0));
  launch.inputProjectionStride = static_cast<long long>(region.GetSize(0)) * region.GetSize(1);
  launch.outputColumns = launch.outputPitch = launch.inputColumns;
  launch.outputProjectionStride = launch.inputProjectionStride;
  launch.rows = static_cast<int>(region.GetSize(1));
  launch.projections = static_cast<int>(region.GetSize(2));
  launch.parameters = parameters.Data();
  launch.scan = weight->ComputeScanParameters(toLines->GetOutput());
  CudaCheck(LaunchFDKWeighting(launch, nullptr), "LaunchFDKWeighting (counts)");
  auto gpu = ImageType::New();
  gpu->CopyInformation(cpu);
  gpu->SetRegions(cpu->GetBufferedRegion());
  gpu->Allocate();
  CudaCheck(cudaMemcpy(gpu->GetBufferPointer(), output.Data(), pixels * sizeof(float), cudaMemcpyDeviceToHost),
            "cudaMemcpy (weighted)");
  ASSERT_EQ(cpu->GetBufferedRegion().GetNumberOfPixels(), pixels);
  EXPECT_LT(RelativeDifference(gpu, cpu), 1e-6);
}

TEST_F(CudaPreprocessing, RampFilterTruncationCorrectionAndHannAlongVMatchCpu)
{
  auto geometry = CircularGeometry(20);
  auto cpuIn = WaterProjections<ImageType>(geometry, 80);
  struct Case
  {
    double pad, hannY;
  };
  for (const Case c : { Case{ 0.3, 0. }, Case{ 0., 0.5 }, Case{ 0.5, 0.8 } })
  {
    auto cpu = FFTRampImageFilter<ImageType>::New();
    cpu->SetInput(cpuIn);
    cpu->SetTruncationCorrection(c.pad);
    cpu->SetHannCutFrequencyY(c.hannY);
    cpu->Update();
    auto gpu = CudaFFTRampImageFilter<CudaImageType>::New();
    gpu->SetInput(ToCuda(cpuIn));
    gpu->SetTruncationCorrection(c.pad);
    gpu->SetHannCutFrequencyY(c.hannY);
    gpu->SetWorkMemoryBytes(1 << 20); // several chunks
    gpu->Update();
    EXPECT_LT(Difference(gpu->GetOutput(), cpu->GetOutput()), 1e-5) << "pad " << c.pad << ", hannY " << c.hannY;
  }
  // A region of rows (as a slab of the volume asks): the same values as the CPU's for those rows.
  const ImageType::RegionType rows(ImageType::IndexType{ { 0, 30, 4 } }, ImageType::SizeType{ { 80, 12, 9 } });
  auto cpu = FFTRampImageFilter<ImageType>::New();
  cpu->SetInput(cpuIn);
  cpu->SetTruncationCorrection(0.4);
  cpu->SetHannCutFrequencyY(0.6);
  cpu->GetOutput()->SetRequestedRegion(rows);
  cpu->Update();
  auto gpu = CudaFFTRampImageFilter<CudaImageType>::New();
  gpu->SetInput(ToCuda(cpuIn));
  gpu->SetTruncationCorrection(0.4);
  gpu->SetHannCutFrequencyY(0.6);
  gpu->GetOutput()->SetRequestedRegion(rows);
  gpu->Update();
  ASSERT_EQ(gpu->GetOutput()->GetBufferedRegion(), rows);
  EXPECT_LT(Difference(gpu->GetOutput(), cpu->GetOutput()), 1e-5);
}

TEST_F(CudaPreprocessing, FDKWithTruncationCorrectionAndHannAlongVMatchesCpu)
{
  // The fused CUDA FDK applies --pad and --hannY as the CPU composite does.
  auto geometry = CircularGeometry(90);
  auto cpuIn = WaterProjections<ImageType>(geometry, 64); // the ellipsoid is wider than the detector
  auto volume = [&](auto fdk, auto zero) {
    fdk->SetInput(0, zero->GetOutput());
    fdk->GetRampFilter()->SetTruncationCorrection(0.5);
    fdk->GetRampFilter()->SetHannCutFrequencyY(0.7);
    fdk->SetGeometry(geometry);
  };
  auto cpuZero = ZeroVolume(64, 1.5);
  auto cpu = FDKConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetProjections(cpuIn);
  volume(cpu, cpuZero);
  cpu->Update();
  auto gpuZero = ConstantImageSource<CudaImageType>::New();
  gpuZero->SetSize(cpuZero->GetSize());
  gpuZero->SetSpacing(cpuZero->GetSpacing());
  gpuZero->SetOrigin(cpuZero->GetOrigin());
  auto gpu = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
  gpu->SetProjections(ToCuda(cpuIn));
  volume(gpu, gpuZero);
  gpu->Update();
  EXPECT_LT(Difference(gpu->GetOutput(), cpu->GetOutput()), 5e-4); // the texture unit's blend, as in cbctCudaFDKTest
}

TEST_F(CudaPreprocessing, FDKWithRampOptionsDoesNotDependOnPiecesOrDevices)
{
  // --pad and --hannY in the fused pipeline: each piece weights and filters every detector row (the
  // low-pass along v mixes them) and keeps its own; the volume is the one-piece volume bit for bit,
  // however it is cut, and a slab of it (a requested region) is the same slab of the whole.
  auto geometry = CircularGeometry(70);
  auto projections = ToCuda(WaterProjections<ImageType>(geometry, 64));
  auto run = [&](unsigned int pieces, const std::vector<int> & devices, const itk::ImageRegion<3> * slab) {
    auto zero = CudaZeroVolume({ { 48, 40, 48 } }, 2.);
    auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(projections);
    fdk->SetGeometry(geometry);
    fdk->GetRampFilter()->SetTruncationCorrection(0.4);
    fdk->GetRampFilter()->SetHannCutFrequencyY(0.6);
    fdk->SetMinimumPieces(pieces);
    if (!devices.empty())
      fdk->SetDevices(devices);
    if (slab)
      fdk->GetOutput()->SetRequestedRegion(*slab);
    fdk->Update();
    CudaImageType::Pointer out = fdk->GetOutput();
    out->DisconnectPipeline();
    return out;
  };
  auto whole = run(1, {}, nullptr);
  const float * reference = whole->GetBufferPointer();
  const std::size_t voxels = whole->GetBufferedRegion().GetNumberOfPixels();
  double sum = 0.;
  for (std::size_t i = 0; i < voxels; ++i)
    sum += reference[i];
  ASSERT_TRUE(std::isfinite(sum));
  ASSERT_GT(sum, 0.); // water in the middle: a volume that is not zero
  for (const auto & cut : { std::make_pair(1u, std::vector<int>{}), std::make_pair(3u, std::vector<int>{}), std::make_pair(1u, std::vector<int>{ 0, 0 }),
                             std::make_pair(2u, std::vector<int>{ 0, 0 }) })
  {
    auto other = run(cut.first, cut.second, nullptr);
    std::size_t unequal = 0, first = voxels;
    double worst = 0.;
    for (std::size_t i = 0; i < voxels; ++i)
      if (!(other->GetBufferPointer()[i] == reference[i]))
      {
        first = std::min(first, i);
        ++unequal;
        worst = std::max(worst, std::abs(static_cast<double>(other->GetBufferPointer()[i]) - reference[i]));
      }
    EXPECT_EQ(unequal, 0u) << cut.first << " pieces on " << cut.second.size() << " device entries: " << unequal << " voxels differ, max difference " << worst
                           << ", first at voxel " << first << " (y " << (first / 48) % 40 << ", z " << first / (48 * 40)
                           << ")";
  }
  const itk::ImageRegion<3> slab(itk::Index<3>{ { 0, 13, 0 } }, itk::Size<3>{ { 48, 9, 48 } });
  auto part = run(1, {}, &slab);
  ASSERT_EQ(part->GetBufferedRegion(), slab);
  std::size_t unequal = 0;
  for (itk::ImageRegionConstIteratorWithIndex<CudaImageType> it(part, slab); !it.IsAtEnd(); ++it)
    unequal += it.Get() != whole->GetPixel(it.GetIndex());
  EXPECT_EQ(unequal, 0u);
}

TEST_F(CudaPreprocessing, FDKFromCountsEqualsFDKFromTheirLineIntegrals)
{
  // 16-bit readings given to the CUDA FDK (uploaded as they are, converted in the weighting kernel)
  // reconstruct the volume of the same readings turned into line integrals on the CPU first, with a
  // dark current, an I0 estimated per projection, and noise; also for a slab of the volume, and
  // against the CPU FDK.
  auto geometry = CircularGeometry(60);
  auto lines = WaterProjections<ImageType>(geometry, 72);
  auto toCounts = LineIntegralToIntensityImageFilter<ImageType, CountImage>::New();
  toCounts->SetInput(lines);
  toCounts->SetI0(20000.);
  toCounts->SetIDark(120.);
  toCounts->PoissonNoiseOn();
  toCounts->SetSeed(5);
  toCounts->Update();
  using CudaCountImage = CudaFDKConeBeamReconstructionFilter<CudaImageType>::CountImageType;
  auto counts = CudaCountImage::New();
  counts->CopyInformation(toCounts->GetOutput());
  counts->SetRegions(toCounts->GetOutput()->GetBufferedRegion());
  counts->Allocate();
  std::copy_n(toCounts->GetOutput()->GetBufferPointer(), counts->GetBufferedRegion().GetNumberOfPixels(),
              counts->GetBufferPointer());
  auto toLines = IntensityToLineIntegralImageFilter<CountImage, ImageType>::New();
  toLines->SetInput(toCounts->GetOutput());
  toLines->SetIDark(120.);
  toLines->Update(); // I0 from the air around the water, per projection
  auto converted = ToCuda(toLines->GetOutput());

  auto run = [&](bool fromCounts, const itk::ImageRegion<3> * slab) {
    auto zero = CudaZeroVolume({ { 40, 36, 40 } }, 2.5);
    auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    if (fromCounts)
      fdk->SetCountProjections(counts, toLines->GetLogFlatFields(), toLines->GetConversion());
    else
      fdk->SetProjections(converted);
    fdk->SetGeometry(geometry);
    if (slab)
      fdk->GetOutput()->SetRequestedRegion(*slab);
    fdk->Update();
    CudaImageType::Pointer out = fdk->GetOutput();
    out->DisconnectPipeline();
    return out;
  };
  auto fromLines = run(false, nullptr);
  auto fromCounts = run(true, nullptr);
  const std::size_t voxels = fromLines->GetBufferedRegion().GetNumberOfPixels();
  ASSERT_EQ(fromCounts->GetBufferedRegion(), fromLines->GetBufferedRegion());
  double diff = 0., norm = 0.;
  for (std::size_t i = 0; i < voxels; ++i)
  {
    const double d = fromCounts->GetBufferPointer()[i] - fromLines->GetBufferPointer()[i];
    diff += d * d;
    norm += static_cast<double>(fromLines->GetBufferPointer()[i]) * fromLines->GetBufferPointer()[i];
  }
  ASSERT_GT(norm, 0.);
  EXPECT_LT(std::sqrt(diff / norm), 1e-6); // NaN fails

  const itk::ImageRegion<3> slab(itk::Index<3>{ { 0, 20, 0 } }, itk::Size<3>{ { 40, 7, 40 } });
  auto part = run(true, &slab);
  ASSERT_EQ(part->GetBufferedRegion(), slab);
  double worst = 0.;
  for (itk::ImageRegionConstIteratorWithIndex<CudaImageType> it(part, slab); !it.IsAtEnd(); ++it)
    worst = std::max(worst, std::abs(static_cast<double>(it.Get()) - fromLines->GetPixel(it.GetIndex())));
  EXPECT_LT(worst, 1e-5) << "slab of the volume from counts";
  EXPECT_TRUE(std::isfinite(worst));

  // A changed reading re-runs the filter (the readings are not a pipeline input).
  auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
  auto zero = CudaZeroVolume({ { 40, 36, 40 } }, 2.5);
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetCountProjections(counts, toLines->GetLogFlatFields(), toLines->GetConversion());
  fdk->SetGeometry(geometry);
  fdk->Update();
  const float before = fdk->GetOutput()->GetPixel({ { 20, 18, 20 } });
  std::fill_n(counts->GetBufferPointer(), counts->GetBufferedRegion().GetNumberOfPixels(), std::uint16_t{ 20120 });
  counts->Modified();
  fdk->Update();
  const float after = fdk->GetOutput()->GetPixel({ { 20, 18, 20 } });
  EXPECT_GT(std::abs(before), 1e-3f);
  EXPECT_LT(std::abs(after), 0.1f * std::abs(before)); // readings of air everywhere (close to I0): nearly nothing

  // Wrong number of log flat fields: a clear error naming the parameter.
  std::vector<double> tooFew(3, 9.9);
  try
  {
    fdk->SetCountProjections(counts, tooFew, toLines->GetConversion());
    ADD_FAILURE() << "no error for 3 log flat fields";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("log flat fields"), std::string::npos) << e.GetDescription();
  }
}
