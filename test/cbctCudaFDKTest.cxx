// The CUDA FDK filters against their CPU twins on the same inputs, and against the Shepp-Logan
// phantom. Needs a CUDA device; skips cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaProjectionTexture.h"
#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctFDKGeometryCases.h"

#include <gtest/gtest.h>
#include <itkStreamingImageFilter.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
/** CUDA vs CPU (relative L2) for a stage with the same arithmetic on both sides, and for the
 * backprojection of smooth (unfiltered) projections. */
constexpr double FDKTolerance = 1e-4;
constexpr unsigned int Voxels = FDKVoxels;
constexpr unsigned int DetectorPixels = FDKDetectorPixels;
constexpr double PixelMm = FDKPixelMm;

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

/** Where two volumes differ most: printed when a CUDA-vs-CPU comparison fails. */
void
DescribeDifference(const ImageType * a, const ImageType * b)
{
  const auto size = b->GetBufferedRegion().GetSize();
  std::vector<double> perY(size[1], 0.), perZ(size[2], 0.);
  double worst = -1.;
  ImageType::IndexType where{};
  for (itk::IndexValueType z = 0; z < static_cast<itk::IndexValueType>(size[2]); ++z)
    for (itk::IndexValueType y = 0; y < static_cast<itk::IndexValueType>(size[1]); ++y)
      for (itk::IndexValueType x = 0; x < static_cast<itk::IndexValueType>(size[0]); ++x)
      {
        const double d = std::abs(static_cast<double>(a->GetPixel({ { x, y, z } })) - b->GetPixel({ { x, y, z } }));
        perY[y] += d * d;
        perZ[z] += d * d;
        if (d > worst)
        {
          worst = d;
          where = { { x, y, z } };
        }
      }
  std::cout << "largest difference " << worst << " at " << where << " (values " << a->GetPixel(where) << " vs "
            << b->GetPixel(where) << ")" << std::endl
            << "squared difference per y slice (every 8th):";
  for (std::size_t y = 0; y < perY.size(); y += 8)
    std::cout << " " << perY[y];
  std::cout << std::endl << "per z slice (every 8th):";
  for (std::size_t z = 0; z < perZ.size(); z += 8)
    std::cout << " " << perZ[z];
  std::cout << std::endl;
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
  EXPECT_LT(difference, FDKTolerance);
}

TEST_F(CudaFDK, WholeFDKMatchesCpuAndThePhantom)
{
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto geometry = CircularGeometry(180);
  auto cpuIn = Project<ImageType>(geometry);
  auto gpuIn = Project<CudaImageType>(geometry);
  auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
  auto gpu = Reconstruct<CudaImageType, FDK>(geometry, gpuIn);
  const double difference = RelativeDifference(gpu, cpu);
  const Quality q = Compare(gpu, FDKTruth(), FDKCentralRegion());
  std::cout << "CUDA FDK vs CPU: " << difference << "; vs phantom: MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr
            << " dB" << std::endl;
  // Exact equality stage by stage: EachStageMatchesCpuOnTheFDKProblem.
  EXPECT_LT(difference, HardwareFilterTolerance);
  if (!(difference < HardwareFilterTolerance))
    DescribeDifference(gpu, cpu);
  EXPECT_LE(q.meanAbsoluteError, 0.03);
  EXPECT_GE(q.psnr, 26.);
}

TEST_F(CudaFDK, ShortScanAndDisplacedDetectorMatchCpu)
{
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  const double arc = 180. + 2. * 4.6 + 6.;
  auto shortScan = CircularGeometry(180, arc * 180. / 179., 1000., 1500., 0., 0., 40.);
  auto displaced = CircularGeometry(360, 360., 1000., 1500., 70., -6.);
  for (auto * geometry : { shortScan.GetPointer(), displaced.GetPointer() })
  {
    auto cpuIn = Project<ImageType>(geometry);
    auto gpuIn = Project<CudaImageType>(geometry);
    auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
    auto gpu = Reconstruct<CudaImageType, FDK>(geometry, gpuIn);
    const Quality q = Compare(gpu, FDKTruth(), FDKCentralRegion());
    std::cout << "CUDA FDK: MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB" << std::endl;
    EXPECT_LT(RelativeDifference(gpu, cpu), HardwareFilterTolerance);
    EXPECT_LE(q.meanAbsoluteError, 0.03);
    EXPECT_GE(q.psnr, 26.);
  }
}

class CudaFDKGeometry : public ::testing::TestWithParam<FDKGeometryCase>
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

TEST_P(CudaFDKGeometry, MatchesCpuAndMeetsRTKThresholds)
{
  // The CPU suite's geometry matrix (cbctFDKGeometryTest) on the GPU: the weighting stage equal to
  // the CPU's, the whole FDK within the texture unit's tolerance of it, and RTK's thresholds.
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  const FDKGeometryCase & c = GetParam();
  auto geometry = c.make(c.weighted ? 360 : 180);
  auto cpuIn = ProjectSheppLogan<ImageType>(geometry);
  auto gpuIn = ProjectSheppLogan<CudaImageType>(geometry);

  auto cpuWeight = FDKWeightProjectionFilter<ImageType>::New();
  auto gpuWeight = CudaFDKWeightProjectionFilter<CudaImageType>::New();
  cpuWeight->SetInput(cpuIn);
  gpuWeight->SetInput(gpuIn);
  cpuWeight->SetGeometry(geometry);
  gpuWeight->SetGeometry(geometry);
  cpuWeight->SetFieldOfViewRadius(0.5 * (Voxels - 1.)); // the test volume's, as the FDK filter sets it
  gpuWeight->SetFieldOfViewRadius(0.5 * (Voxels - 1.));
  cpuWeight->Update();
  gpuWeight->Update();
  ASSERT_EQ(gpuWeight->GetOutput()->GetBufferedRegion(), cpuWeight->GetOutput()->GetBufferedRegion());
  EXPECT_LT(RelativeDifference(gpuWeight->GetOutput(), cpuWeight->GetOutput()), 1e-6) << "weighting";

  auto cpu = Reconstruct<ImageType, FDKConeBeamReconstructionFilter<ImageType>>(geometry, cpuIn);
  auto gpu = Reconstruct<CudaImageType, FDK>(geometry, gpuIn);
  const double difference = RelativeDifference(gpu, cpu);
  const Quality q = Compare(gpu, FDKTruth(), FDKCentralRegion());
  std::cout << c.name << ": CUDA vs CPU " << difference << "; CUDA vs phantom: MAE " << q.meanAbsoluteError << ", PSNR "
            << q.psnr << " dB" << std::endl;
  EXPECT_LT(difference, HardwareFilterTolerance);
  EXPECT_LE(q.meanAbsoluteError, 0.03);
  EXPECT_GE(q.psnr, 26.);
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaFDKGeometry, ::testing::ValuesIn(FDKGeometryCases()),
                         [](const ::testing::TestParamInfo<FDKGeometryCase> & info) { return CaseTestName(info.param.name); });

TEST_F(CudaFDK, StreamedInFourSlabsEqualsWhole)
{
  auto geometry = CircularGeometry(90);
  auto projections = Project<CudaImageType>(geometry);
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto whole = Reconstruct<CudaImageType, FDK>(geometry, projections, 1);
  auto streamed = Reconstruct<CudaImageType, FDK>(geometry, projections, 4);
  EXPECT_LT(RelativeDifference(streamed, whole), 1e-6);

}

namespace
{
/** Bit patterns of two volumes equal everywhere (NaN must match NaN exactly). */
std::size_t
DifferingVoxels(const ImageType * a, const ImageType * b)
{
  const std::size_t n = a->GetBufferedRegion().GetNumberOfPixels();
  if (b->GetBufferedRegion().GetNumberOfPixels() != n)
    return std::numeric_limits<std::size_t>::max();
  std::size_t differing = 0;
  for (std::size_t i = 0; i < n; ++i)
    differing += std::memcmp(a->GetBufferPointer() + i, b->GetBufferPointer() + i, sizeof(float)) != 0;
  return differing;
}
} // namespace

TEST_F(CudaFDK, SeveralDevicesAndAnyPiecesGiveTheOneDeviceVolumeBitForBit)
{
  // A half fan with a source offset (displaced weights and padding), 90 views. Each voxel gets the
  // same batches in the same order and each row the same filtering however the volume is cut, so
  // every split must reproduce the default one-device volume exactly. A device listed twice runs the
  // multi-device path (two threads, two pipelines) on one GPU.
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto geometry = FullScan([](RtkParameters & p, double a) {
    HalfFan(p, a);
    p.sourceOffsetX = 20.;
  }, 90);
  auto projections = ProjectSheppLogan<CudaImageType>(geometry);
  auto reference = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), 1, [](FDK * f) { f->SetMinimumPieces(1); });
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  std::vector<std::pair<std::string, std::function<void(FDK *)>>> variants = {
    { "3 pieces", [](FDK * f) { f->SetMinimumPieces(3); } },
    { "7 pieces", [](FDK * f) { f->SetMinimumPieces(7); } },
    { "devices 0,0", [](FDK * f) { f->SetDevices({ 0, 0 }); } },
    { "devices 0,0,0 with 2 pieces each", [](FDK * f) {
       f->SetDevices({ 0, 0, 0 });
       f->SetMinimumPieces(2);
     } },
    { "4 slabs streamed, devices 0,0", [](FDK * f) { f->SetDevices({ 0, 0 }); } },
  };
  if (devices >= 2)
  {
    variants.push_back({ "devices 0,1", [](FDK * f) { f->SetDevices({ 0, 1 }); } });
    variants.push_back({ "devices 1,0 with 3 pieces each", [](FDK * f) {
                          f->SetDevices({ 1, 0 });
                          f->SetMinimumPieces(3);
                        } });
  }
  std::cout << devices << " CUDA device(s)" << std::endl;
  for (const auto & [name, configure] : variants)
  {
    const unsigned int slabs = name.rfind("4 slabs", 0) == 0 ? 4 : 1;
    auto volume = Reconstruct<CudaImageType, FDK>(geometry, projections.GetPointer(), slabs, configure);
    EXPECT_EQ(DifferingVoxels(volume, reference), 0u) << name;
  }
  // The reference itself (90 views of a half fan are sparse: MAE 0.090 measured on an H100).
  const Quality q = Compare(reference, FDKTruth(), FDKCentralRegion());
  EXPECT_LE(q.meanAbsoluteError, 0.12) << "the reference itself";
}

TEST_F(CudaFDK, ConstantInitialVolumeIsNotFilledOnTheHost)
{
  // The constant is filled on the device; its source is asked for one voxel, so that the host holds
  // one volume (the output) instead of two.
  auto geometry = CircularGeometry(40);
  auto projections = Project<CudaImageType>(geometry);
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto reference = Reconstruct<CudaImageType, FDK>(geometry, projections, 1, [](FDK *) {});
  auto constant = ConstantImageSource<CudaImageType>::New();
  constant->SetSize(CudaImageType::SizeType{ { Voxels, Voxels, Voxels } });
  CudaImageType::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.));
  constant->SetOrigin(origin);
  constant->SetConstant(0.25);
  auto fdk = FDK::New();
  fdk->SetInput(0, constant->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  EXPECT_EQ(constant->GetOutput()->GetBufferedRegion().GetNumberOfPixels(), 1u);
  EXPECT_EQ(fdk->GetOutput()->GetBufferedRegion(), fdk->GetOutput()->GetLargestPossibleRegion());
  // The constant is still added everywhere: the output is the zero-start reconstruction plus 0.25.
  const float * out = fdk->GetOutput()->GetBufferPointer();
  const float * ref = reference->GetBufferPointer();
  std::size_t far = 0;
  for (std::size_t i = 0; i < reference->GetBufferedRegion().GetNumberOfPixels(); ++i)
    far += !(std::abs(out[i] - (ref[i] + 0.25f)) <= 1e-5f);
  EXPECT_EQ(far, 0u);
}

TEST_F(CudaFDK, DeviceMemoryIsKeptOnlyWhenAskedAndGivesTheSameVolume)
{
  // By default an update leaves no device memory behind; with KeepDeviceMemory on, the next updates
  // reuse the buffers (the same volume bit for bit) until ReleaseDeviceMemory(). (Held memory is
  // asked of the filter: the device's free memory also moves with the tests that ctest runs beside.)
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto geometry = CircularGeometry(40);
  auto projections = Project<CudaImageType>(geometry);
  auto reference = Reconstruct<CudaImageType, FDK>(geometry, projections, 1, [](FDK *) {});
  auto fdk = FDK::New();
  auto constant = ConstantImageSource<CudaImageType>::New();
  constant->SetSize(CudaImageType::SizeType{ { Voxels, Voxels, Voxels } });
  CudaImageType::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.));
  constant->SetOrigin(origin);
  fdk->SetInput(0, constant->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  EXPECT_EQ(fdk->GetHeldDeviceMemory(), 0u) << "device memory held after an update by default";
  EXPECT_EQ(DifferingVoxels(fdk->GetOutput(), reference), 0u);
  fdk->KeepDeviceMemoryOn();
  for (int run = 0; run < 3; ++run)
  {
    fdk->Modified();
    fdk->Update();
    EXPECT_EQ(DifferingVoxels(fdk->GetOutput(), reference), 0u) << "update " << run << " with kept buffers";
    // At least the two volume pieces in flight.
    EXPECT_GE(fdk->GetHeldDeviceMemory(), 2u * Voxels * Voxels * Voxels * sizeof(float)) << "update " << run;
  }
  fdk->ReleaseDeviceMemory();
  EXPECT_EQ(fdk->GetHeldDeviceMemory(), 0u);
}

TEST_F(CudaFDK, NonConstantInitialVolumeIsAddedToOnSeveralDevices)
{
  // The initial volume comes from host memory (not a constant source): each device copies its
  // pieces in, adds the reconstruction and downloads them, as the CPU adds to its input.
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto geometry = CircularGeometry(40);
  auto cpuIn = Project<ImageType>(geometry, 64, 4.);
  auto gpuIn = Project<CudaImageType>(geometry, 64, 4.);
  auto initialCpu = ImageType::New();
  auto initialGpu = CudaImageType::New();
  ImageType::RegionType region(ImageType::SizeType{ { 40, 36, 30 } });
  ImageType::SpacingType spacing;
  spacing.Fill(3.);
  ImageType::PointType origin;
  origin[0] = -58.5;
  origin[1] = -52.5;
  origin[2] = -43.5;
  for (itk::ImageBase<3> * image : { static_cast<itk::ImageBase<3> *>(initialCpu.GetPointer()),
                                     static_cast<itk::ImageBase<3> *>(initialGpu.GetPointer()) })
  {
    image->SetRegions(region);
    image->SetSpacing(spacing);
    image->SetOrigin(origin);
  }
  initialCpu->Allocate();
  initialGpu->Allocate();
  for (std::size_t i = 0; i < region.GetNumberOfPixels(); ++i)
    initialCpu->GetBufferPointer()[i] = initialGpu->GetBufferPointer()[i] = 0.001f * static_cast<float>(i % 997);
  auto cpu = FDKConeBeamReconstructionFilter<ImageType>::New();
  cpu->SetInput(0, initialCpu);
  cpu->SetProjections(cpuIn);
  cpu->SetGeometry(geometry);
  cpu->Update();
  std::vector<CudaImageType::Pointer> results;
  for (const std::vector<int> & devices : { std::vector<int>{ 0 }, std::vector<int>{ 0, 0 } })
  {
    auto gpu = FDK::New();
    gpu->SetInput(0, initialGpu);
    gpu->SetProjections(gpuIn);
    gpu->SetGeometry(geometry);
    gpu->SetDevices(devices);
    gpu->SetMinimumPieces(3);
    gpu->Update();
    results.push_back(gpu->GetOutput());
    results.back()->DisconnectPipeline();
  }
  EXPECT_EQ(DifferingVoxels(results[1], results[0]), 0u);
  EXPECT_LT(RelativeDifference(results[0], cpu->GetOutput()), HardwareFilterTolerance);
  // The input is untouched.
  EXPECT_FLOAT_EQ(initialGpu->GetBufferPointer()[1234], 0.001f * static_cast<float>(1234 % 997));
}

TEST_F(CudaFDK, BadDeviceIndexIsRefused)
{
  auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  try
  {
    fdk->SetDevices({ 0, devices });
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("CUDA device is " + std::to_string(devices)), std::string::npos)
      << e.GetDescription();
  }
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

TEST_F(CudaFDK, EachStageMatchesCpuOnTheFDKProblem)
{
  // The whole-FDK problem, stage by stage, each GPU stage fed the CPU's input of that stage.
  auto geometry = CircularGeometry(180);
  auto raw = Project<ImageType>(geometry);
  auto copy = [](const ImageType * image) {
    auto out = CudaImageType::New();
    out->CopyInformation(image);
    out->SetRegions(image->GetBufferedRegion());
    out->Allocate();
    std::copy_n(image->GetBufferPointer(), image->GetBufferedRegion().GetNumberOfPixels(), out->GetBufferPointer());
    return out;
  };
  auto cpuWeight = FDKWeightProjectionFilter<ImageType>::New();
  cpuWeight->SetInput(raw);
  cpuWeight->SetGeometry(geometry);
  cpuWeight->Update();
  auto gpuWeight = CudaFDKWeightProjectionFilter<CudaImageType>::New();
  gpuWeight->SetInput(copy(raw));
  gpuWeight->SetGeometry(geometry);
  gpuWeight->Update();
  const double weighting = RelativeDifference(gpuWeight->GetOutput(), cpuWeight->GetOutput());

  auto cpuRamp = FFTRampImageFilter<ImageType>::New();
  cpuRamp->SetInput(cpuWeight->GetOutput());
  cpuRamp->Update();
  auto gpuRamp = CudaFFTRampImageFilter<CudaImageType>::New();
  gpuRamp->SetInput(copy(cpuWeight->GetOutput()));
  gpuRamp->Update();
  const double filtering = RelativeDifference(gpuRamp->GetOutput(), cpuRamp->GetOutput());

  auto zeroCpu = ConstantImageSource<ImageType>::New();
  auto zeroGpu = ConstantImageSource<CudaImageType>::New();
  ImageType::PointType origin;
  origin.Fill(-0.5 * (Voxels - 1.));
  zeroCpu->SetSize(ImageType::SizeType{ { Voxels, Voxels, Voxels } });
  zeroCpu->SetOrigin(origin);
  zeroGpu->SetSize(ImageType::SizeType{ { Voxels, Voxels, Voxels } });
  zeroGpu->SetOrigin(origin);
  auto cpuBP = FDKBackProjectionImageFilter<ImageType>::New();
  cpuBP->SetInput(0, zeroCpu->GetOutput());
  cpuBP->SetProjections(cpuRamp->GetOutput());
  cpuBP->SetGeometry(geometry);
  cpuBP->Update();
  auto gpuBP = CudaFDKBackProjectionImageFilter<CudaImageType>::New();
  gpuBP->SetInput(0, zeroGpu->GetOutput());
  gpuBP->SetProjections(copy(cpuRamp->GetOutput()));
  gpuBP->SetGeometry(geometry);
  gpuBP->Update();
  const double backProjection = RelativeDifference(gpuBP->GetOutput(), cpuBP->GetOutput());
  std::cout << "CUDA vs CPU on the FDK problem: weighting " << weighting << ", filtering " << filtering
            << ", backprojection " << backProjection << std::endl;
  if (!(backProjection < HardwareFilterTolerance))
    DescribeDifference(gpuBP->GetOutput(), cpuBP->GetOutput());
  EXPECT_LT(weighting, 1e-6);
  EXPECT_LT(filtering, 1e-6); // double-precision cuFFT, as on the CPU
  EXPECT_LT(backProjection, HardwareFilterTolerance);
}

TEST_F(CudaFDK, TextureBlendProbe)
{
  // Pairs of texels with large values of both signs; the sample at fraction f between them shows
  // how the texture unit blends. Measured on an H100: no float formula matches it bit for bit (the
  // closest, fma(f, b, (1-f) a), matches 77% of samples), and it stays within ~1e-6 of |b - a|.
  const int pairs = 4096;
  std::vector<float> texels(2 * 2 * pairs); // rows of 2 texels, two rows per layer... one layer of pairs rows
  unsigned int seed = 11;
  auto random = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.f;
  };
  std::vector<float> a(pairs), b(pairs), f(pairs);
  for (int i = 0; i < pairs; ++i)
  {
    a[i] = (random() - 0.5f) * 2000.f;
    b[i] = (random() - 0.5f) * 2000.f;
    f[i] = TextureFraction(random());
    texels[2 * i] = a[i];
    texels[2 * i + 1] = b[i];
  }
  CudaDeviceBuffer<float> deviceTexels(2 * pairs);
  ASSERT_EQ(cudaMemcpy(deviceTexels.Data(), texels.data(), 2 * pairs * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  CudaProjectionTexture texture;
  texture.CopyFromDevice(deviceTexels.Data(), 2 * sizeof(float), 2, pairs, pairs, 1, nullptr);
  std::vector<float> x(pairs), y(pairs);
  for (int i = 0; i < pairs; ++i)
  {
    x[i] = 0.5f + f[i];
    y[i] = i + 0.5f;
  }
  CudaDeviceBuffer<float> dx(pairs), dy(pairs), values(pairs);
  cudaMemcpy(dx.Data(), x.data(), pairs * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy.Data(), y.data(), pairs * sizeof(float), cudaMemcpyHostToDevice);
  ASSERT_EQ(LaunchTextureProbe(texture.Texture(), dx.Data(), dy.Data(), values.Data(), pairs, nullptr), cudaSuccess);
  std::vector<float> hw(pairs);
  cudaMemcpy(hw.data(), values.Data(), pairs * sizeof(float), cudaMemcpyDeviceToHost);
  double e1 = 0., e2 = 0., e3 = 0., e4 = 0., e5 = 0.;
  int exact1 = 0, exact2 = 0, exact3 = 0, exact4 = 0;
  for (int i = 0; i < pairs; ++i)
  {
    const float r1 = (1.f - f[i]) * a[i] + f[i] * b[i];
    const float r2 = a[i] + f[i] * (b[i] - a[i]);
    const float r3 = std::fma(f[i], b[i] - a[i], a[i]);
    const float r4 = std::fma(f[i], b[i], (1.f - f[i]) * a[i]);
    const double exact = (1.0 - f[i]) * a[i] + static_cast<double>(f[i]) * b[i];
    const double scale = std::abs(b[i] - a[i]) + 1e-30;
    e1 = std::max(e1, std::abs(hw[i] - r1) / scale);
    e2 = std::max(e2, std::abs(hw[i] - r2) / scale);
    e3 = std::max(e3, std::abs(hw[i] - r3) / scale);
    e4 = std::max(e4, std::abs(hw[i] - r4) / scale);
    e5 = std::max(e5, std::abs(hw[i] - exact) / scale);
    exact1 += hw[i] == r1;
    exact2 += hw[i] == r2;
    exact3 += hw[i] == r3;
    exact4 += hw[i] == r4;
  }
  double worstRelative = 0.;
  for (int i = 0; i < pairs; ++i)
  {
    const double exact = (1.0 - f[i]) * a[i] + static_cast<double>(f[i]) * b[i];
    const double d = std::abs(hw[i] - exact) / (std::abs(a[i]) + std::abs(b[i]));
    worstRelative = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worstRelative, d);
  }
  std::cout << "largest |hardware - exact| / (|a| + |b|): " << worstRelative << std::endl;
  // The texture unit's blend is close to float precision but not exact: bound it, so a change of
  // hardware or of the texture set-up (e.g. a half-float format) is noticed.
  EXPECT_LT(worstRelative, 1e-5);
  std::cout << "blend probe, largest |hardware - formula| / |b - a| and exact matches of " << pairs << ":\n"
            << "  (1-f)a + fb      " << e1 << " " << exact1 << "\n  a + f(b-a)       " << e2 << " " << exact2
            << "\n  fma(f, b-a, a)   " << e3 << " " << exact3 << "\n  fma(f,b,(1-f)a)  " << e4 << " " << exact4
            << "\n  exact (double)   " << e5 << std::endl;
  for (int i = 0; i < 4; ++i)
    std::cout << "  a " << a[i] << " b " << b[i] << " f*256 " << f[i] * 256 << " hw " << hw[i] << " exact "
              << (1.0 - f[i]) * a[i] + static_cast<double>(f[i]) * b[i] << std::endl;
}

namespace
{
/** The CUDA backprojection of `count` layers of `texture` into a zeroed block `size` at `first`. */
std::vector<float>
BackProjectBlock(const std::vector<ConeProjection> & matrices, cudaTextureObject_t texture, const int first[3],
                 const int size[3], bool runsAlongY, bool distanceWeight)
{
  const std::size_t voxels = static_cast<std::size_t>(size[0]) * size[1] * size[2];
  CudaDeviceBuffer<float> volume(voxels);
  EXPECT_EQ(cudaMemset(volume.Data(), 0, voxels * sizeof(float)), cudaSuccess);
  CudaBackProjectionLaunch launch;
  launch.volume = volume.Data();
  for (int d = 0; d < 3; ++d)
  {
    launch.size[d] = size[d];
    launch.first[d] = first[d];
  }
  launch.projections = texture;
  launch.count = static_cast<int>(matrices.size());
  launch.distanceWeight = distanceWeight;
  launch.runsAlongY = runsAlongY;
  std::transform(matrices.begin(), matrices.end(), launch.matrices, TexelCentred);
  EXPECT_EQ(LaunchFDKBackProjection(launch, nullptr), cudaSuccess);
  std::vector<float> result(voxels);
  EXPECT_EQ(cudaMemcpy(result.data(), volume.Data(), voxels * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return result;
}
} // namespace

TEST_F(CudaFDK, RunsAlongYEqualTheGeneralKernelOnAnyBlock)
{
  // A circular orbit with SID, SDD, detector and source offsets varying per projection but no tilt:
  // u and w do not change along y, so the launch may run along y (and does unless told not to).
  const int count = 40;
  auto orbit = ThreeDCircularProjectionGeometry::New();
  auto tilted = ThreeDCircularProjectionGeometry::New();
  for (int k = 0; k < count; ++k)
  {
    orbit->AddProjection(900. + 3. * k, 1400. + 2. * k, 9. * k, 6. - 0.2 * k, -4. + 0.1 * k, 0., 0., 11., -7.);
    tilted->AddProjection(900. + 3. * k, 1400. + 2. * k, 9. * k, 6. - 0.2 * k, -4. + 0.1 * k, k == 17 ? 2. : 0.);
  }
  auto volume = CentredInformation(ImageType::SizeType{ { 61, 53, 47 } }, 1.1, 0.9, 1.3);
  // Wide enough that every voxel projects inside (no texture border in the comparison).
  const int width = 160, height = 100;
  auto detector = CentredInformation(ImageType::SizeType{ { width, height, count } }, 1.6, 1.6, 1.);
  const auto matrices = VoxelToPixelMatrices(volume.GetPointer(), detector.GetPointer(), orbit.GetPointer(), 0, count);
  CudaBackProjectionLaunch check;
  check.count = count;
  std::transform(matrices.begin(), matrices.end(), check.matrices, TexelCentred);
  ASSERT_TRUE(RunsAlongYAllowed(check)) << "an untilted orbit's matrices must allow runs along y";
  const auto tiltedMatrices = VoxelToPixelMatrices(volume.GetPointer(), detector.GetPointer(), tilted.GetPointer(), 0, count);
  std::transform(tiltedMatrices.begin(), tiltedMatrices.end(), check.matrices, TexelCentred);
  EXPECT_FALSE(RunsAlongYAllowed(check)) << "one tilted projection must send the launch to the general kernel";

  // The two kernels compute the same coordinates with different roundings (u and w once per run
  // along y, against stepped along z), so a sample's 8-bit texture weight can differ by one step of
  // 1/256. On texels linear in the pixel index that step moves a sample by the slope / 256 only: the
  // kernels must agree to 1e-5 there, while a wrong coordinate (a v step off by a tenth of a
  // voxel, u from the wrong run) would move the sums by about 1e-2. Random texels (of both signs,
  // as ramp-filtered projections have) bound each voxel by the worst case: every sample one step
  // off, a texel difference of at most 2 each.
  std::vector<float> linear(static_cast<std::size_t>(width) * height * count), noise(linear.size());
  unsigned int seed = 11;
  for (std::size_t q = 0; q < linear.size(); ++q)
  {
    const int i = static_cast<int>(q % width), j = static_cast<int>(q / width % height), k = static_cast<int>(q / width / height);
    linear[q] = 0.004f * i + 0.006f * j - 0.3f + 0.01f * k;
    seed = seed * 1664525u + 1013904223u;
    noise[q] = static_cast<float>(seed >> 8) / 16777216.f * 2.f - 1.f;
  }
  const int wholeFirst[3] = { 0, 0, 0 }, wholeSize[3] = { 61, 53, 47 };
  // A piece whose y starts and ends inside runs (13 and 40 are no multiples of BackProjectionRun).
  const int pieceFirst[3] = { 5, 13, 3 }, pieceSize[3] = { 50, 27, 40 };
  for (const std::vector<float> * texels : { &linear, &noise })
  {
    const bool isLinear = texels == &linear;
    CudaDeviceBuffer<float> deviceTexels(texels->size());
    ASSERT_EQ(cudaMemcpy(deviceTexels.Data(), texels->data(), texels->size() * sizeof(float), cudaMemcpyHostToDevice),
              cudaSuccess);
    CudaProjectionTexture texture;
    texture.CopyFromDevice(deviceTexels.Data(), width * sizeof(float), width, height, height, count, nullptr);
    for (bool weight : { true, false })
    {
      const auto general = BackProjectBlock(matrices, texture.Texture(), wholeFirst, wholeSize, false, weight);
      const auto alongY = BackProjectBlock(matrices, texture.Texture(), wholeFirst, wholeSize, true, weight);
      const auto piece = BackProjectBlock(matrices, texture.Texture(), pieceFirst, pieceSize, true, weight);
      double norm = 0., difference = 0., largest = 0.;
      for (std::size_t i = 0; i < general.size(); ++i)
      {
        ASSERT_TRUE(std::isfinite(alongY[i])) << "voxel " << i;
        const double d = static_cast<double>(alongY[i]) - general[i];
        norm += static_cast<double>(general[i]) * general[i];
        difference += d * d;
        largest = std::max(largest, std::abs(d));
      }
      ASSERT_GT(norm, 0.);
      const double relative = std::sqrt(difference / norm);
      std::cout << (isLinear ? "linear" : "random") << " texels, " << (weight ? "FDK" : "voxel-based")
                << " backprojection, runs along y vs along z: relative L2 " << relative << ", largest voxel difference "
                << largest << std::endl;
      if (isLinear)
        EXPECT_LT(relative, 1e-5);
      else
      {
        EXPECT_LT(relative, 2e-3);
        if (!weight) // unweighted samples: every one a step off is count * 2 / 256 at most
          EXPECT_LE(largest, count * 2. / 256.);
      }
      // Every voxel of the piece is the same voxel of the whole, bit for bit: the runs start at absolute y.
      int mismatches = 0;
      for (int z = 0; z < pieceSize[2]; ++z)
        for (int y = 0; y < pieceSize[1]; ++y)
          for (int x = 0; x < pieceSize[0]; ++x)
          {
            const float a = piece[(static_cast<std::size_t>(z) * pieceSize[1] + y) * pieceSize[0] + x];
            const float b = alongY[(static_cast<std::size_t>(z + pieceFirst[2]) * wholeSize[1] + y + pieceFirst[1]) *
                                     wholeSize[0] +
                                   x + pieceFirst[0]];
            if (std::memcmp(&a, &b, sizeof(float)) != 0 && ++mismatches <= 5)
              ADD_FAILURE() << "voxel (" << x + pieceFirst[0] << ", " << y + pieceFirst[1] << ", " << z + pieceFirst[2]
                            << "): piece " << a << ", whole " << b;
          }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

TEST_F(CudaFDK, TextureCoordinateProbe)
{
  // Texel value = its column (rows of 1024), so a sample's value is column + weight: checks
  // TextureFraction at coordinates far from 0 in u (and, transposed, in v).
  const int n = 1024;
  for (int axis = 0; axis < 2; ++axis)
  {
    std::vector<float> texels(n * 2);
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < 2; ++r)
        texels[axis == 0 ? r * n + i : i * 2 + r] = static_cast<float>(i);
    CudaDeviceBuffer<float> deviceTexels(texels.size());
    cudaMemcpy(deviceTexels.Data(), texels.data(), texels.size() * sizeof(float), cudaMemcpyHostToDevice);
    CudaProjectionTexture texture;
    const int width = axis == 0 ? n : 2, height = axis == 0 ? 2 : n;
    texture.CopyFromDevice(deviceTexels.Data(), width * sizeof(float), width, height, height, 1, nullptr);
    const int count = 8192;
    std::vector<float> c(count), x(count), y(count);
    unsigned int seed = 5;
    for (int i = 0; i < count; ++i)
    {
      seed = seed * 1664525u + 1013904223u;
      c[i] = static_cast<float>(seed % ((n - 2) * 4096)) / 4096.f + 0.5f; // texel index + fraction, x/4096 steps
      (axis == 0 ? x : y)[i] = c[i] + 0.5f;
      (axis == 0 ? y : x)[i] = 0.5f;
    }
    CudaDeviceBuffer<float> dx(count), dy(count), values(count);
    cudaMemcpy(dx.Data(), x.data(), count * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy.Data(), y.data(), count * sizeof(float), cudaMemcpyHostToDevice);
    ASSERT_EQ(LaunchTextureProbe(texture.Texture(), dx.Data(), dy.Data(), values.Data(), count, nullptr), cudaSuccess);
    std::vector<float> hw(count);
    cudaMemcpy(hw.data(), values.Data(), count * sizeof(float), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < count; ++i)
    {
      const float base = std::floor(c[i]);
      const float expected = base + TextureFraction(c[i] - base);
      if (std::abs(hw[i] - expected) > 1e-3f && ++bad <= 8)
        std::cout << "axis " << axis << " coordinate " << c[i] << ": texture " << hw[i] << ", expected " << expected
                  << std::endl;
    }
    std::cout << "axis " << axis << ": " << bad << " of " << count << " samples off" << std::endl;
    EXPECT_EQ(bad, 0);
  }
}

