// Helical FDK on the GPU against the CPU filters: the backprojection stage on smooth projections, and
// the whole FDK of the long phantom from a helix (flat panel and cylinder), whose error against the
// phantom must stay within the CPU suite's bound. Needs a CUDA device; skips cleanly without one.
#include "cbctCudaDevice.h"
#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctHelicalTestProblem.h"

#include <gtest/gtest.h>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

namespace
{
/** `image` (CPU) copied into a CudaImage. */
CudaImageType::Pointer
OnDevice(const ImageType * image)
{
  auto copy = CudaImageType::New();
  copy->CopyInformation(image);
  copy->SetRegions(image->GetLargestPossibleRegion());
  copy->Allocate();
  std::copy(image->GetBufferPointer(), image->GetBufferPointer() + image->GetBufferedRegion().GetNumberOfPixels(),
            copy->GetBufferPointer());
  return copy;
}

class CudaHelicalFDK : public ::testing::Test
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

TEST_F(CudaHelicalFDK, BackProjectionOfSmoothProjectionsMatchesCpu)
{
  for (bool cylindrical : { false, true })
  {
    ThreeDCircularProjectionGeometry::Pointer helix = HelicalScanOfTheLongPhantom(1., 64);
    if (cylindrical)
      helix = CentredCylinder(helix);
    auto cpuIn = HelicalProjections(helix, StackedHeads());
    auto gpuIn = OnDevice(cpuIn);
    auto cpu = FDKBackProjectionImageFilter<ImageType>::New();
    cpu->SetInput(0, LongVolumeGrid());
    cpu->SetProjections(cpuIn);
    cpu->SetGeometry(helix);
    cpu->Update();
    auto gpu = CudaFDKBackProjectionImageFilter<CudaImageType>::New();
    gpu->SetInput(0, OnDevice(LongVolumeGrid()));
    gpu->SetProjections(gpuIn);
    gpu->SetGeometry(helix);
    gpu->Update();
    const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
    std::cout << (cylindrical ? "cylinder" : "flat panel") << ": helical backprojection CUDA vs CPU " << difference << std::endl;
    // 1.93e-5 on the H200: the helical weights are evaluated in float on the device, in double on the
    // host.
    EXPECT_LT(difference, 5e-5);
  }
}

TEST_F(CudaHelicalFDK, WholeFDKOfTheLongPhantomMatchesCpu)
{
  using FDK = CudaFDKConeBeamReconstructionFilter<CudaImageType>;
  auto truth = TruthOn(StackedHeads(), LongVolumeGrid());
  for (bool cylindrical : { false, true })
  {
    ThreeDCircularProjectionGeometry::Pointer helix = HelicalScanOfTheLongPhantom(1.5, 64);
    if (cylindrical)
      helix = CentredCylinder(helix);
    auto cpuIn = HelicalProjections(helix, StackedHeads());
    auto cpuFdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    cpuFdk->SetInput(0, LongVolumeGrid());
    cpuFdk->SetProjections(cpuIn);
    cpuFdk->SetGeometry(helix);
    cpuFdk->Update();
    auto gpuFdk = FDK::New();
    gpuFdk->SetInput(0, OnDevice(LongVolumeGrid()));
    gpuFdk->SetProjections(OnDevice(cpuIn));
    gpuFdk->SetGeometry(helix);
    gpuFdk->Update();
    const double difference = RelativeDifference(gpuFdk->GetOutput(), cpuFdk->GetOutput());
    const Quality q = Compare(gpuFdk->GetOutput(), truth, MiddleHeadRegion());
    std::cout << (cylindrical ? "cylinder" : "flat panel") << ", pitch 1.5: helical FDK CUDA vs CPU " << difference
              << "; CUDA vs phantom: MAE " << q.meanAbsoluteError << std::endl;
    // 8.5e-4 on the H200 (the backprojection's float helical weights, after the ramp filter): within 3
    // times the flat FDK's bound.
    EXPECT_LT(difference, 3 * HardwareFilterTolerance);
    EXPECT_LT(q.meanAbsoluteError, 0.1);
  }
}
