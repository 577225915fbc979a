// The CUDA FDK filters against their CPU twins on the same inputs, and against the Shepp-Logan
// phantom. Needs a CUDA device; skips cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaProjectionTexture.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkStreamingImageFilter.h>

#include <functional>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
constexpr unsigned int Voxels = 128;
constexpr unsigned int DetectorPixels = 200;
constexpr double PixelMm = 1.2;

GeometricPhantom::Pointer
SheppLogan()
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(60.);
  return phantom;
}

/** The same projections as a CPU image and as a CUDA image. */
template <typename TImage>
typename TImage::Pointer
Project(const ThreeDCircularProjectionGeometry * geometry, unsigned int pixels = DetectorPixels, double pixelMm = PixelMm)
{
  auto source = PhantomProjectionSource<TImage>::New();
  typename TImage::SizeType size{ { pixels, pixels, geometry->GetNumberOfProjections() } };
  typename TImage::SpacingType spacing;
  spacing[0] = spacing[1] = pixelMm;
  spacing[2] = 1.;
  typename TImage::PointType origin;
  origin[0] = origin[1] = -0.5 * (pixels - 1.) * pixelMm;
  origin[2] = 0.;
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(SheppLogan());
  source->Update();
  typename TImage::Pointer projections = source->GetOutput();
  projections->DisconnectPipeline();
  return projections;
}

template <typename TImage, typename TFDK>
typename TImage::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const TImage * projections, unsigned int slabs = 1,
            const std::function<void(TFDK *)> & configure = nullptr)
{
  auto zero = ConstantImageSource<TImage>::New();
  typename TImage::SizeType size{ { Voxels, Voxels, Voxels } };
  typename TImage::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.));
  zero->SetSize(size);
  zero->SetOrigin(origin);
  auto fdk = TFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  if (configure)
    configure(fdk);
  auto streamer = itk::StreamingImageFilter<TImage, TImage>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  streamer->Update();
  typename TImage::Pointer volume = streamer->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

ImageType::Pointer
Truth()
{
  static ImageType::Pointer truth = VoxelizedPhantom(SheppLogan(), Voxels, 1., 2);
  return truth;
}

ImageType::RegionType
CentralRegion()
{
  ImageType::RegionType region(ImageType::SizeType{ { Voxels, Voxels, Voxels } });
  region.SetIndex(1, Voxels / 4);
  region.SetSize(1, Voxels / 2);
  return region;
}
} // namespace

class CudaFDK : public ::testing::Test
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

TEST_F(CudaFDK, WeightingMatchesCpu)
{
  for (double offset : { 0., 70. }) // centred, and displaced (padded output)
  {
    auto geometry = CircularGeometry(40, 360., 1000., 1500., offset);
    auto cpuIn = Project<ImageType>(geometry, 64, 4.);
    auto gpuIn = Project<CudaImageType>(geometry, 64, 4.);
    auto cpu = FDKWeightProjectionFilter<ImageType>::New();
    cpu->SetInput(cpuIn);
    cpu->SetGeometry(geometry);
    cpu->Update();
    auto gpu = CudaFDKWeightProjectionFilter<CudaImageType>::New();
    gpu->SetInput(gpuIn);
    gpu->SetGeometry(geometry);
    gpu->Update();
    ASSERT_EQ(gpu->GetOutput()->GetBufferedRegion(), cpu->GetOutput()->GetBufferedRegion());
    EXPECT_LT(RelativeDifference(gpu->GetOutput(), cpu->GetOutput()), 1e-6) << "offset " << offset;
  }
}

TEST_F(CudaFDK, RampFilterMatchesCpu)
{
  for (const char * window : { "ramlak", "hann" })
  {
    auto geometry = CircularGeometry(30);
    auto cpuIn = Project<ImageType>(geometry, 96, 2.5);
    auto gpuIn = Project<CudaImageType>(geometry, 96, 2.5);
    auto cpu = FFTRampImageFilter<ImageType>::New();
    cpu->SetInput(cpuIn);
    cpu->SetWindow(ParseRampWindow(window));
    cpu->SetCutOff(0.8);
    cpu->Update();
    auto gpu = CudaFFTRampImageFilter<CudaImageType>::New();
    gpu->SetInput(gpuIn);
    gpu->SetWindow(ParseRampWindow(window));
    gpu->SetCutOff(0.8);
    gpu->SetWorkMemoryBytes(1 << 20); // several chunks
    gpu->Update();
    EXPECT_LT(RelativeDifference(gpu->GetOutput(), cpu->GetOutput()), 1e-5) << window;
  }
}

TEST_F(CudaFDK, BackProjectionMatchesCpu)
{
  auto geometry = CircularGeometry(100, 360., 1000., 1500., 7., -3.);
  auto cpuIn = Project<ImageType>(geometry, 128, 1.8);
  auto gpuIn = Project<CudaImageType>(geometry, 128, 1.8);
  auto zeroCpu = ConstantImageSource<ImageType>::New();
  auto zeroGpu = ConstantImageSource<CudaImageType>::New();
  ImageType::SizeType size{ { 70, 60, 50 } }; // not multiples of the block or z-run sizes
  ImageType::PointType origin;
  origin[0] = -70.;
  origin[1] = -55.;
  origin[2] = -40.;
  ImageType::SpacingType spacing;
  spacing[0] = 2.;
  spacing[1] = 1.8;
  spacing[2] = 1.6;
  for (auto * source : { static_cast<itk::GenerateImageSource<ImageType> *>(zeroCpu.GetPointer()) })
  {
    source->SetSize(size);
    source->SetOrigin(origin);
    source->SetSpacing(spacing);
  }
  zeroGpu->SetSize(size);
  zeroGpu->SetOrigin(origin);
  zeroGpu->SetSpacing(spacing);
  zeroCpu->SetConstant(0.5f);
  zeroGpu->SetConstant(0.5f);
  auto cpu = FDKBackProjectionImageFilter<ImageType>::New();
  cpu->SetInput(0, zeroCpu->GetOutput());
  cpu->SetProjections(cpuIn);
  cpu->SetGeometry(geometry);
  cpu->Update();
  auto gpu = CudaFDKBackProjectionImageFilter<CudaImageType>::New();
  gpu->SetInput(0, zeroGpu->GetOutput());
  gpu->SetProjections(gpuIn);
  gpu->SetGeometry(geometry);
  gpu->Update();
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "backprojection CUDA vs CPU relative L2 difference " << difference << std::endl;
  EXPECT_LT(difference, 1e-4);
}

TEST_F(CudaFDK, WholeFDKMatchesCpuAndThePhantom)
{
  auto geometry = CircularGeometry(180);
  auto cpuIn = Project<ImageType>(geometry);
  auto gpuIn = Project<CudaImageType>(geometry);
  auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
  auto gpu = Reconstruct<CudaImageType, CudaFDKConeBeamReconstructionFilter<CudaImageType>>(geometry, gpuIn);
  const double difference = RelativeDifference(gpu, cpu);
  const Quality q = Compare(gpu, Truth(), CentralRegion());
  std::cout << "CUDA FDK vs CPU: " << difference << "; vs phantom: MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr
            << " dB" << std::endl;
  EXPECT_LT(difference, 1e-4);
  EXPECT_LE(q.meanAbsoluteError, 0.03);
  EXPECT_GE(q.psnr, 26.);
}

TEST_F(CudaFDK, ShortScanAndDisplacedDetectorMatchCpu)
{
  const double arc = 180. + 2. * 4.6 + 6.;
  auto shortScan = CircularGeometry(180, arc * 180. / 179., 1000., 1500., 0., 0., 40.);
  auto displaced = CircularGeometry(360, 360., 1000., 1500., 70., -6.);
  for (auto * geometry : { shortScan.GetPointer(), displaced.GetPointer() })
  {
    auto cpuIn = Project<ImageType>(geometry);
    auto gpuIn = Project<CudaImageType>(geometry);
    auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
    auto gpu = Reconstruct<CudaImageType, CudaFDKConeBeamReconstructionFilter<CudaImageType>>(geometry, gpuIn);
    const Quality q = Compare(gpu, Truth(), CentralRegion());
    std::cout << "CUDA FDK: MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
    EXPECT_LT(RelativeDifference(gpu, cpu), 1e-4);
    EXPECT_LE(q.meanAbsoluteError, 0.03);
    EXPECT_GE(q.psnr, 26.);
  }
}

TEST_F(CudaFDK, StreamedInFourSlabsEqualsWhole)
{
  auto geometry = CircularGeometry(90);
  auto projections = Project<CudaImageType>(geometry);
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto whole = Reconstruct<CudaImageType, FDK>(geometry, projections, 1);
  auto streamed = Reconstruct<CudaImageType, FDK>(geometry, projections, 4);
  EXPECT_LT(RelativeDifference(streamed, whole), 1e-6);
}

TEST_F(CudaFDK, SmallMemoryBudgetFallsBackToPiecesThatEqualTheWhole)
{
  auto geometry = CircularGeometry(90);
  auto projections = Project<CudaImageType>(geometry);
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto whole = Reconstruct<CudaImageType, FDK>(geometry, projections, 1, [&](FDK * f) { f->SetMinimumPieces(1); });
  // 90 MiB cannot hold a 128^3 piece plus a batch of 64 whole projections: the filter must cut the
  // volume into pieces along y (each needing fewer detector rows) until it fits.
  auto fdk = FDK::New();
  auto zero = ConstantImageSource<CudaImageType>::New();
  zero->SetSize(CudaImageType::SizeType{ { Voxels, Voxels, Voxels } });
  CudaImageType::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.));
  zero->SetOrigin(origin);
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetDeviceMemoryBudget(std::size_t(90) << 20);
  fdk->Update();
  std::cout << "pieces under a 90 MiB budget: " << fdk->GetNumberOfPieces() << std::endl;
  EXPECT_GT(fdk->GetNumberOfPieces(), 1u);
  EXPECT_LT(RelativeDifference(fdk->GetOutput(), whole), 1e-6);
}

TEST_F(CudaFDK, ImpossibleMemoryBudgetSaysWhatWasNeeded)
{
  auto geometry = CircularGeometry(20);
  auto projections = Project<CudaImageType>(geometry, 64, 4.);
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  try
  {
    Reconstruct<CudaImageType, FDK>(geometry, projections, 1, [](FDK * f) { f->SetDeviceMemoryBudget(1 << 20); });
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("needs"), std::string::npos) << message;
    EXPECT_NE(message.find("budget"), std::string::npos) << message;
    EXPECT_NE(message.find("free"), std::string::npos) << message;
  }
}

TEST_F(CudaFDK, TextureFractionReproducesTheTextureUnit)
{
  // Texels 0 and 1 hold 0 and 1, so a sample between their centres returns the weight the texture
  // unit gave texel 1. Fractions k/512 include every rounding tie; the rest are random.
  std::vector<float> texels{ 0.f, 1.f, 0.f, 1.f }; // two rows of two texels
  CudaDeviceBuffer<float> deviceTexels(texels.size());
  ASSERT_EQ(cudaMemcpy(deviceTexels.Data(), texels.data(), texels.size() * sizeof(float), cudaMemcpyHostToDevice),
            cudaSuccess);
  CudaProjectionTexture texture;
  texture.CopyFromDevice(deviceTexels.Data(), 2 * sizeof(float), 2, 2, 2, 1, nullptr);
  std::vector<float> fractions;
  for (int k = 0; k < 512; ++k)
    fractions.push_back(k / 512.f);
  unsigned int seed = 7;
  for (int k = 0; k < 4096; ++k)
  {
    seed = seed * 1664525u + 1013904223u;
    fractions.push_back(static_cast<float>(seed >> 8) / 16777216.f);
  }
  std::vector<float> x(fractions.size()), y(fractions.size(), 0.5f);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = 0.5f + fractions[i];
  CudaDeviceBuffer<float> dx(x.size()), dy(y.size()), values(x.size());
  ASSERT_EQ(cudaMemcpy(dx.Data(), x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy.Data(), y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(LaunchTextureProbe(texture.Texture(), dx.Data(), dy.Data(), values.Data(), static_cast<int>(x.size()), nullptr),
            cudaSuccess);
  std::vector<float> hardware(x.size());
  ASSERT_EQ(cudaMemcpy(hardware.data(), values.Data(), x.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  int mismatches = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    if (hardware[i] != TextureFraction(fractions[i]))
    {
      if (++mismatches <= 12)
        std::cout << "fraction " << fractions[i] << " (x256 = " << fractions[i] * 256.f << "): texture unit "
                  << hardware[i] * 256.f << "/256, TextureFraction " << TextureFraction(fractions[i]) * 256.f << "/256"
                  << std::endl;
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << x.size() << " fractions";
}
