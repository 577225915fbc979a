// The voxel-based backprojector of the iterative methods (VoxelBackProjectionOperator) on the CPU:
// where it samples, and SART and OSEM with it; CGLS refuses it.
#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctIterativeTestHelpers.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctSARTConeBeamReconstructionFilter.h"
#include "cbctVoxelBackProjectionOperator.h"

#include <gtest/gtest.h>
#include <itkCommand.h>
#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkImageRegionIteratorWithIndex.h>

#include <cmath>

using namespace cbct;
using namespace cbct::test;

// Projections that are linear in the stack pixel index (which bilinear interpolation reproduces, up
// to the texture unit's 1/256 fractions) backproject, for every voxel, to the sum over projections of
// that function at the pixel where the geometry's own matrix puts the voxel's centre. The volume and
// the stack start at non-zero indices, the voxels are not cubes, and `add` keeps what was there.
TEST(VoxelBackProjection, EachVoxelSamplesEachProjectionWhereItsCentreProjects)
{
  auto geometry = CircularGeometry(24, 360., 1000., 1500., 7., -3.);
  geometry->AddProjection(1000., 1500., 33., 0., 0., 20., 5.);
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 2, -4, 1 } }, ImageType::SizeType{ { 20, 18, 16 } }));
  const double spacing[3] = { 3., 2.5, 3.5 };
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -36.;
  origin[1] = -12.;
  origin[2] = -30.;
  volume->SetOrigin(origin);
  volume->Allocate();
  volume->FillBuffer(1.f);
  auto projections = ImageType::New();
  const ImageType::IndexType first{ { 3, -2, 0 } };
  projections->SetRegions(ImageType::RegionType(first, ImageType::SizeType{ { 90, 70, geometry->GetNumberOfProjections() } }));
  const double pixel[3] = { 2., 2.2, 1. };
  projections->SetSpacing(pixel);
  ImageType::PointType detectorOrigin;
  detectorOrigin[0] = -95.;
  detectorOrigin[1] = -80.;
  detectorOrigin[2] = 0.;
  projections->SetOrigin(detectorOrigin);
  projections->Allocate();
  auto ramp = [](double i, double j, unsigned int k) { return 0.5 * i + 0.25 * j + k; };
  for (itk::ImageRegionIteratorWithIndex<ImageType> it(projections, projections->GetBufferedRegion()); !it.IsAtEnd(); ++it)
    it.Set(static_cast<float>(ramp(it.GetIndex()[0], it.GetIndex()[1], static_cast<unsigned int>(it.GetIndex()[2]))));

  const VoxelBackProjectionOperator<ImageType> B(std::unique_ptr<ProjectorOperator>(new JosephOperator<ImageType>(volume, projections, geometry)),
                                                 volume, projections, geometry);
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  B.Back(projections->GetBufferPointer(), volume->GetBufferPointer(), all, true);

  double worst = 0.;
  unsigned int inside = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(volume, volume->GetBufferedRegion()); !it.IsAtEnd(); ++it)
  {
    ImageType::PointType world;
    volume->TransformIndexToPhysicalPoint(it.GetIndex(), world);
    double expected = 1.;
    bool seen = true;
    for (unsigned int k = 0; k < all.size(); ++k)
    {
      const auto & m = geometry->GetMatrix(k);
      double h[3];
      for (unsigned int r = 0; r < 3; ++r)
        h[r] = m(r, 0) * world[0] + m(r, 1) * world[1] + m(r, 2) * world[2] + m(r, 3);
      const double i = (h[0] / h[2] - detectorOrigin[0]) / pixel[0], j = (h[1] / h[2] - detectorOrigin[1]) / pixel[1];
      seen = seen && i >= first[0] + 1 && j >= first[1] + 1 && i <= first[0] + 88 && j <= first[1] + 68;
      expected += ramp(i, j, k);
    }
    if (!seen)
      continue; // near the detector's edge the border's zeros take part
    ++inside;
    worst = std::max(worst, std::abs(it.Get() - expected) / expected);
  }
  std::cout << "voxel-based backprojection of linear projections: " << inside << " voxels checked, worst relative error " << worst
            << std::endl;
  EXPECT_GT(inside, 20u * 18u * 16u / 2u);
  EXPECT_LT(worst, 2e-4); // 1/256 fractions of a ramp of 0.75 per pixel, against sums of about 600
}

TEST(VoxelBackProjection, OsSartWithItReconstructsThePhantomAndImprovesEachIteration)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto sart = SARTConeBeamReconstructionFilter<ImageType>::New();
  sart->SetInput(0, Zeros(truth));
  sart->SetProjections(projections);
  sart->SetGeometry(geometry);
  sart->SetBackProjector(BackProjectorKind::VoxelBased);
  sart->SetNumberOfIterations(4);
  sart->SetNumberOfProjectionsPerSubset(5);
  sart->SetLambda(0.8);
  sart->EnforcePositivityOn();
  const std::vector<double> errors = UpdateWatchingErrors(sart.GetPointer(), truth, Central());
  const Quality q = Compare(sart->GetOutput(), truth, Central());
  PrintQuality("OS-SART with the voxel-based backprojector", q, errors);
  EXPECT_LE(q.meanAbsoluteError, 0.032);
  EXPECT_GE(q.psnr, 28.);
  ASSERT_EQ(errors.size(), 4u);
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_LE(errors[i], errors[i - 1]) << "iteration " << i + 1;
}

TEST(VoxelBackProjection, OsemWithItReconstructsThePhantom)
{
  auto geometry = CircularGeometry(60);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 96, 2.);
  auto truth = VoxelizedPhantom(Ellipsoids(), 64, 2., 2);
  auto osem = OSEMConeBeamReconstructionFilter<ImageType>::New();
  osem->SetInput(0, Zeros(truth));
  osem->SetProjections(projections);
  osem->SetGeometry(geometry);
  osem->SetBackProjector(BackProjectorKind::VoxelBased);
  osem->SetNumberOfIterations(3);
  osem->SetNumberOfProjectionsPerSubset(15);
  const std::vector<double> errors = UpdateWatchingErrors(osem.GetPointer(), truth, Central());
  const Quality q = Compare(osem->GetOutput(), truth, Central());
  PrintQuality("OSEM with the voxel-based backprojector", q, errors);
  EXPECT_TRUE(AllFinite(osem->GetOutput()));
  EXPECT_LE(q.meanAbsoluteError, 0.032);
  EXPECT_GE(q.psnr, 28.);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_LT(errors.back(), errors.front());
}

TEST(VoxelBackProjection, CglsNeedsTheExactAdjoint)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, Ellipsoids(), 16, 8.);
  auto volume = VoxelizedPhantom(Ellipsoids(), 8, 16., 1);
  auto cgls = CGLSConeBeamReconstructionFilter<ImageType>::New();
  cgls->SetInput(0, Zeros(volume));
  cgls->SetInput(1, projections);
  cgls->SetGeometry(geometry);
  cgls->SetBackProjector(BackProjectorKind::VoxelBased);
  ExpectError(cgls.GetPointer(), "backprojector");
}
