// The total-variation filters and methods on the GPU against their CPU twins: the TV gradient, TV
// denoising, ASD-POCS and ADMM-TV. Skips without a device.
#include "cbctCudaADMMTotalVariationConeBeamReconstructionFilter.h"
#include "cbctCudaASDPOCSConeBeamReconstructionFilter.h"
#include "cbctCudaDevice.h"
#include "cbctCudaTotalVariationDenoisingImageFilter.h"
#include "cbctCudaTotalVariationGradientImageFilter.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace cbct;
using namespace cbct::test;
using CudaImageType = CudaImage<float, 3>;

class CudaTotalVariation : public ::testing::Test
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

namespace
{
/** A random volume of 37 x 30 x 23 voxels of 0.8 x 1.5 x 2 mm. */
ImageType::Pointer
RandomVolume()
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 37, 30, 23 } });
  ImageType::SpacingType spacing;
  spacing[0] = 0.8;
  spacing[1] = 1.5;
  spacing[2] = 2.;
  image->SetSpacing(spacing);
  image->Allocate();
  return Copy<ImageType>(image, false, 17);
}

/** The relative L2 difference of a CUDA image from a CPU image (NaN fails). */
double
Difference(CudaImageType * gpu, const ImageType * cpu)
{
  auto host = Copy<ImageType>(cpu, true);
  std::copy(gpu->GetBufferPointer(), gpu->GetBufferPointer() + cpu->GetBufferedRegion().GetNumberOfPixels(), host->GetBufferPointer());
  return RelativeDifference(host, cpu);
}

struct FewViews
{
  ThreeDCircularProjectionGeometry::Pointer geometry = CircularGeometry(15);
  ImageType::Pointer projections = ProjectPhantom(geometry, Ellipsoids(), 80, 2.5);
  ImageType::Pointer zeros = Zeros(VoxelizedPhantom(Ellipsoids(), 48, 2.5, 1));
};

template <typename TFilter>
void
Prepare(TFilter * filter, const FewViews & scan, unsigned int iterations)
{
  filter->SetInput(0, scan.zeros);
  filter->SetProjections(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetNumberOfIterations(iterations);
}
} // namespace

TEST_F(CudaTotalVariation, GradientMatchesCpu)
{
  auto x = RandomVolume();
  auto cpu = TotalVariationGradientImageFilter<ImageType>::New();
  cpu->SetInput(x);
  cpu->SetEpsilon(0.01);
  cpu->Update();
  auto gpu = CudaTotalVariationGradientImageFilter<CudaImageType>::New();
  gpu->SetInput(Copy<CudaImageType>(x));
  gpu->SetEpsilon(0.01);
  gpu->Update();
  const double difference = Difference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA TV gradient vs CPU: " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
}

TEST_F(CudaTotalVariation, DenoisingMatchesCpu)
{
  auto f = RandomVolume();
  auto cpu = TotalVariationDenoisingImageFilter<ImageType>::New();
  cpu->SetInput(f);
  cpu->SetLambda(0.05);
  cpu->SetNumberOfIterations(50);
  cpu->Update();
  auto gpu = CudaTotalVariationDenoisingImageFilter<CudaImageType>::New();
  gpu->SetInput(Copy<CudaImageType>(f));
  gpu->SetLambda(0.05);
  gpu->SetNumberOfIterations(50);
  gpu->Update();
  const double difference = Difference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA TV denoising vs CPU (50 iterations): " << difference << std::endl;
  EXPECT_LT(difference, 1e-5);
}

TEST_F(CudaTotalVariation, AsdPocsMatchesCpuAfterThreeIterations)
{
  FewViews scan;
  auto cpu = ASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaASDPOCSConeBeamReconstructionFilter<ImageType>::New();
  for (ASDPOCSConeBeamReconstructionFilter<ImageType> * filter : { cpu.GetPointer(), static_cast<ASDPOCSConeBeamReconstructionFilter<ImageType> *>(gpu.GetPointer()) })
  {
    Prepare(filter, scan, 3);
    filter->SetNumberOfProjectionsPerSubset(5);
    filter->SetLambda(0.8);
    filter->SetAlpha(0.05);
    filter->Update();
  }
  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA ASD-POCS vs CPU after 3 iterations: " << difference << "; TV steps CPU";
  for (double s : cpu->GetTVStepSizes())
    std::cout << " " << s;
  std::cout << ", CUDA";
  for (double s : gpu->GetTVStepSizes())
    std::cout << " " << s;
  std::cout << std::endl;
  EXPECT_LT(difference, 1e-3); // the texture unit's interpolation in the forward projection (1e-4 per projection)
  ASSERT_EQ(gpu->GetTVStepSizes().size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_NEAR(gpu->GetTVStepSizes()[k], cpu->GetTVStepSizes()[k], 1e-3 * cpu->GetTVStepSizes()[k]);
}

TEST_F(CudaTotalVariation, AdmmTvMatchesCpuAfterThreeIterations)
{
  FewViews scan;
  auto cpu = ADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  auto gpu = CudaADMMTotalVariationConeBeamReconstructionFilter<ImageType>::New();
  unsigned int events = 0;
  gpu->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
    ++events;
    EXPECT_TRUE(AllFinite(gpu->GetOutput())); // observed: the current volume is in the output
  });
  for (ADMMTotalVariationConeBeamReconstructionFilter<ImageType> * filter :
       { cpu.GetPointer(), static_cast<ADMMTotalVariationConeBeamReconstructionFilter<ImageType> *>(gpu.GetPointer()) })
  {
    Prepare(filter, scan, 3);
    filter->SetAlpha(50.);
    filter->SetBeta(500.);
    filter->SetNumberOfCGIterations(3);
    filter->Update();
  }
  EXPECT_EQ(events, 3u);
  ASSERT_TRUE(AllFinite(gpu->GetOutput()));
  const double difference = RelativeDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << "CUDA ADMM-TV vs CPU after 3 iterations: " << difference << std::endl;
  EXPECT_LT(difference, 1e-3);
}
