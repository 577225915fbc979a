// The GPU side of real-scan preprocessing against the CPU filters: 16-bit readings turned into line
// integrals in the FDK weighting kernel, the ramp filter's truncation correction (--pad) and Hann
// low-pass along v (--hannY) in the CUDA ramp filter, and (once the CUDA FDK composite applies them)
// a whole FDK with both. Needs a CUDA device; skips cleanly without one. The CPU twins of these tests
// are in cbctPreprocessingTest.cxx, cbctRampFilterTest.cxx and cbctFDKTest.cxx.
#include "cbctCudaDevice.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaFDKWeighting.hcu"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctIntensityToLineIntegralImageFilter.h"
#include "cbctLineIntegralToIntensityImageFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

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
  // For the CUDA FDK composite once it applies --pad and --hannY (CudaFDKAppliesRampExtensions).
  if (!CudaFDKAppliesRampExtensions)
    GTEST_SKIP() << "the CUDA FDK composite does not apply the truncation correction and the low-pass along v yet";
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
