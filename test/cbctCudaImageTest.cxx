// CudaImage and CudaDataManager: transfers only when the other side reads a stale copy, and grafts
// share the device buffer. Needs a CUDA device; skips cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaImage.h"

#include <gtest/gtest.h>

#include <vector>

using ImageType = cbct::CudaImage<float, 3>;

namespace
{
ImageType::Pointer
SmallImage()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::SizeType{ { 7, 5, 3 } }));
  image->Allocate();
  float v = 0.f;
  for (itk::IndexValueType z = 0; z < 3; ++z)
    for (itk::IndexValueType y = 0; y < 5; ++y)
      for (itk::IndexValueType x = 0; x < 7; ++x)
        image->SetPixel({ { x, y, z } }, v += 1.5f);
  return image;
}

std::vector<float>
ReadDevice(const void * device, std::size_t count)
{
  std::vector<float> values(count);
  EXPECT_EQ(cudaMemcpy(values.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return values;
}
} // namespace

class CudaImageTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    std::string why;
    if (!cbct::CudaDeviceAvailable(&why))
      GTEST_SKIP() << why;
  }
};

TEST_F(CudaImageTest, UploadsOnceAndOnlyWhenStale)
{
  auto image = SmallImage();
  auto * manager = image->GetCudaDataManager();
  const void * device = manager->DeviceBufferForRead();
  EXPECT_EQ(manager->GetNumberOfUploads(), 1u);
  const auto values = ReadDevice(device, 7 * 5 * 3);
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values.back(), 1.5f * 105);
  manager->DeviceBufferForRead();
  EXPECT_EQ(manager->GetNumberOfUploads(), 1u) << "a current device copy must not be uploaded again";

  image->SetPixel({ { 2, 1, 1 } }, -42.f); // CPU write: the device copy is stale
  EXPECT_FALSE(manager->IsDeviceCurrent());
  const auto after = ReadDevice(manager->DeviceBufferForRead(), 7 * 5 * 3);
  EXPECT_EQ(manager->GetNumberOfUploads(), 2u);
  EXPECT_EQ(after[(1 * 5 + 1) * 7 + 2], -42.f);
}

TEST_F(CudaImageTest, DownloadsAfterAGpuWrite)
{
  auto image = SmallImage();
  auto * manager = image->GetCudaDataManager();
  auto * device = static_cast<float *>(manager->DeviceBufferForWrite());
  EXPECT_FALSE(manager->IsHostCurrent());
  std::vector<float> values(7 * 5 * 3, 3.25f);
  ASSERT_EQ(cudaMemcpy(device, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(image->GetPixel({ { 6, 4, 2 } }), 3.25f);
  EXPECT_EQ(manager->GetNumberOfDownloads(), 1u);
  EXPECT_EQ(image->GetPixel({ { 0, 0, 0 } }), 3.25f);
  EXPECT_EQ(manager->GetNumberOfDownloads(), 1u) << "a current host copy must not be downloaded again";
}

TEST_F(CudaImageTest, GraftSharesTheDeviceBufferWithoutCopies)
{
  auto image = SmallImage();
  const void * device = image->GetCudaDataManager()->DeviceBufferForRead();
  auto other = ImageType::New();
  other->Graft(image);
  EXPECT_EQ(other->GetCudaDataManager(), image->GetCudaDataManager());
  EXPECT_EQ(other->GetCudaDataManager()->DeviceBufferForRead(), device);
  EXPECT_EQ(image->GetCudaDataManager()->GetNumberOfUploads(), 1u);
}

TEST_F(CudaImageTest, PinnedBuffersTransferAndAreReleasedBeforeReallocation)
{
  auto image = SmallImage();
  auto * manager = image->GetCudaDataManager();
  manager->PinHostBuffer();
  EXPECT_TRUE(manager->IsHostBufferPinned());
  const auto values = ReadDevice(manager->DeviceBufferForRead(), 7 * 5 * 3);
  EXPECT_EQ(values[4], 1.5f * 5);
  // A larger region reallocates the pixel buffer: it is unpinned first, and the new one works.
  image->SetRegions(ImageType::RegionType(ImageType::SizeType{ { 70, 50, 30 } }));
  image->Allocate();
  EXPECT_FALSE(image->GetCudaDataManager()->IsHostBufferPinned());
  image->FillBuffer(2.f);
  image->GetCudaDataManager()->PinHostBuffer();
  const auto after = ReadDevice(image->GetCudaDataManager()->DeviceBufferForRead(), 70 * 50 * 30);
  EXPECT_EQ(after.back(), 2.f);
}

TEST(CudaDevice, AvailabilityIsReportedWithAReason)
{
  std::string why;
  const bool available = cbct::CudaDeviceAvailable(&why);
  EXPECT_FALSE(why.empty());
  std::cout << (available ? "CUDA device: " : "no CUDA: ") << why << std::endl;
}
