// Endurance on the GPU: 1000 CUDA FDK reconstructions in one process, each with a pipeline built from
// scratch; host resident memory and the device memory in use (cudaMemGetInfo: total - free) are read
// after 10, 100 and 1000 runs and must stay flat; the last volume must equal the first bit for bit.
// The CPU twin is cbctEnduranceTest. Skips without a CUDA device.
//
// Margins, from the 100th to the 1000th run: 8 MiB of device memory (the driver hands memory out
// in 2 MiB pages; a leaked projection stack of this problem, 36 x 48 x 48 floats, would add 285 MiB
// over 900 runs, a leaked cuFFT plan or texture array as much or more) and 8 MiB of host memory (as
// on the CPU, plus room for the CUDA runtime's own bookkeeping).
#include "cbctCudaDevice.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaImage.h"
#include "cbctEndurance.h"
#include "cbctTestHelpers.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
constexpr std::uint64_t DeviceMarginBytes = 8u << 20;
constexpr std::uint64_t HostMarginBytes = 8u << 20;

std::uint64_t
DeviceBytesInUse()
{
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess)
    return 0;
  return static_cast<std::uint64_t>(total - free);
}

CudaImageType::Pointer
ReconstructOnce(const ThreeDCircularProjectionGeometry * geometry, const CudaImageType * projections)
{
  auto zero = ConstantImageSource<CudaImageType>::New();
  zero->SetSize(CudaImageType::SizeType{ { 24, 24, 24 } });
  CudaImageType::SpacingType spacing;
  spacing.Fill(4.);
  CudaImageType::PointType origin;
  origin.Fill(-0.5 * 23. * 4.);
  zero->SetSpacing(spacing);
  zero->SetOrigin(origin);
  auto fdk = CudaFDKConeBeamReconstructionFilter<CudaImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  CudaImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

} // namespace

TEST(CudaEndurance, ThousandFdkReconstructionsKeepHostAndDeviceMemoryFlat)
{
  std::string device;
  if (!CudaDeviceAvailable(&device))
    GTEST_SKIP() << device;
  auto geometry = CircularGeometry(36);
  auto cpuProjections = ProjectPhantom(geometry, SheppLogan(), 48, 4.);
  auto projections = CudaImageType::New();
  projections->SetRegions(cpuProjections->GetLargestPossibleRegion());
  projections->SetSpacing(cpuProjections->GetSpacing());
  projections->SetOrigin(cpuProjections->GetOrigin());
  projections->Allocate();
  std::copy(cpuProjections->GetBufferPointer(),
            cpuProjections->GetBufferPointer() + cpuProjections->GetBufferedRegion().GetNumberOfPixels(),
            projections->GetBufferPointer());
  const CudaImageType::Pointer first = ReconstructOnce(geometry, projections);
  std::vector<std::uint64_t> host, deviceUsed;
  CudaImageType::Pointer last;
  Repeat(
    1000, { 10, 100, 1000 }, [&](unsigned int) { last = ReconstructOnce(geometry, projections); },
    [&](unsigned int i) {
      cudaDeviceSynchronize();
      host.push_back(ResidentBytes());
      deviceUsed.push_back(DeviceBytesInUse());
      std::cout << "after " << i << " CUDA reconstructions: host resident " << host.back() / 1024 << " KiB, device in use "
                << deviceUsed.back() / 1024 << " KiB (" << device << ")" << std::endl;
      ::testing::Test::RecordProperty("host_resident_kib_after_" + std::to_string(i), static_cast<int>(host.back() / 1024));
      ::testing::Test::RecordProperty("device_used_kib_after_" + std::to_string(i), static_cast<int>(deviceUsed.back() / 1024));
    });
  EXPECT_EQ(RelativeDifference(last, first), 0.) << "the 1000th volume differs from the first";
  ASSERT_EQ(host.size(), 3u);
  ASSERT_GT(deviceUsed[0], 0u) << "cudaMemGetInfo failed";
  const auto hostGrowth = static_cast<std::int64_t>(host[2]) - static_cast<std::int64_t>(host[1]);
  const auto deviceGrowth = static_cast<std::int64_t>(deviceUsed[2]) - static_cast<std::int64_t>(deviceUsed[1]);
  std::cout << "growth from the 100th to the 1000th: host " << hostGrowth / 1024 << " KiB (margin " << HostMarginBytes / 1024
            << "), device " << deviceGrowth / 1024 << " KiB (margin " << DeviceMarginBytes / 1024 << ")" << std::endl;
  EXPECT_LE(hostGrowth, static_cast<std::int64_t>(HostMarginBytes));
  EXPECT_LE(deviceGrowth, static_cast<std::int64_t>(DeviceMarginBytes));
}
