// FDK on the CPU against the Shepp-Logan phantom: full scan, short scan (Parker), displaced
// detector, bare-matrix geometry, streaming, and bad input.
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"

#include <gtest/gtest.h>
#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkImageRegionSplitterDirection.h>
#include <itkStreamingImageFilter.h>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr unsigned int Voxels = FDKVoxels;
constexpr double VoxelMm = 1.;
constexpr unsigned int DetectorPixels = FDKDetectorPixels;
constexpr double PixelMm = FDKPixelMm;

ImageType::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, unsigned int slabs = 1)
{
  auto zero = ZeroVolume(Voxels, VoxelMm); // the source must outlive the pipeline's update
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  auto streamer = itk::StreamingImageFilter<ImageType, ImageType>::New();
  streamer->SetInput(fdk->GetOutput());
  streamer->SetNumberOfStreamDivisions(slabs);
  streamer->Update();
  return streamer->GetOutput();
}

void
ExpectQuality(const ImageType * reconstruction, double maxMae, double minPsnr, const char * what)
{
  const Quality q = Compare(reconstruction, FDKTruth(), FDKCentralRegion());
  std::cout << what << ": MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB over " << q.voxels << " voxels"
            << std::endl;
  EXPECT_LE(q.meanAbsoluteError, maxMae) << what;
  EXPECT_GE(q.psnr, minPsnr) << what;
}
} // namespace

TEST(FDK, MatricesOfAnUntiltedOrbitHaveExactZerosAlongTheRotationAxis)
{
  // u and w do not change along y on a circular orbit without out-of-plane or in-plane tilt, whatever
  // the distances and offsets: the backprojection matrices must say so with exact zeros (double
  // rounding left 1e-16 of the row there), which the CUDA kernel tests before running along y.
  // A tilt must leave its coefficients alone.
  auto volume = CentredInformation(ImageType::SizeType{ { 31, 27, 23 } }, 1.1, 0.9, 1.3);
  auto detector = CentredInformation(ImageType::SizeType{ { 64, 48, 1 } }, 1.6, 1.6, 1.);
  for (double tilt : { 0., 2. })
    for (double angle : { 0., 37., 90., 180., 271.5 })
    {
      auto geometry = ThreeDCircularProjectionGeometry::New();
      geometry->AddProjection(950., 1430., angle, 6., -4., tilt, tilt == 0. ? 0. : 1., 11., -7.);
      const auto m = VoxelToPixelMatrices(volume.GetPointer(), detector.GetPointer(), geometry.GetPointer(), 0, 1)[0];
      for (float value : m.matrix)
        ASSERT_TRUE(std::isfinite(value));
      if (tilt == 0.)
      {
        EXPECT_EQ(m.matrix[1], 0.f) << "u's change along y at " << angle << " degrees";
        EXPECT_EQ(m.matrix[9], 0.f) << "w's change along y at " << angle << " degrees";
        EXPECT_NE(m.matrix[5], 0.f) << "v must change along y";
      }
      else
        EXPECT_TRUE(m.matrix[1] != 0.f || m.matrix[9] != 0.f) << "a tilted projection at " << angle << " degrees";
    }
}

TEST(FDK, FullScanSheppLogan)
{
  auto geometry = CircularGeometry(180);
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  ExpectQuality(Reconstruct(geometry, projections), 0.03, 26., "full scan");
}

TEST(FDK, ShortScanWithParkerWeights)
{
  // 180 degrees plus the fan angle (detector half-width 120 mm at 1500 mm: 4.6 degrees) plus margin.
  const double arc = 180. + 2. * 4.6 + 6.;
  const unsigned int count = 180;
  auto geometry = CircularGeometry(count, arc * count / (count - 1.), 1000., 1500., 0., 0., 40.);
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  ExpectQuality(Reconstruct(geometry, projections), 0.03, 26., "short scan");
}

TEST(FDK, DisplacedDetector)
{
  // The detector's centre is shifted 70 mm sideways: it sees the central ray and 50 mm beyond on
  // one side (about 33 mm at the isocenter), the whole phantom on the other. Points farther out are
  // seen from half the orbit only, so twice the views of the full scan keep the same sampling.
  auto geometry = CircularGeometry(360, 360., 1000., 1500., 70., -6.);
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  ExpectQuality(Reconstruct(geometry, projections), 0.03, 26., "displaced detector");
}

TEST(FDK, BareMatricesReconstructLikeParameters)
{
  auto geometry = CircularGeometry(60);
  auto matrices = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
    matrices->AddProjection(geometry->GetMatrix(k));
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  auto a = Reconstruct(geometry, projections);
  auto b = Reconstruct(matrices, projections);
  EXPECT_LT(RelativeDifference(b, a), 1e-5);
}

TEST(FDK, StreamedInFourSlabsEqualsWhole)
{
  auto geometry = CircularGeometry(72);
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  auto whole = Reconstruct(geometry, projections, 1);
  auto streamed = Reconstruct(geometry, projections, 4);
  EXPECT_EQ(RelativeDifference(streamed, whole), 0.);
}

TEST(FDK, EachSlabAsksOnlyForTheRowsItProjectsOnto)
{
  auto geometry = CircularGeometry(36);
  auto projections = ProjectPhantom(geometry, SheppLogan(), DetectorPixels, PixelMm);
  auto zero = ZeroVolume(Voxels, VoxelMm); // the source must outlive the pipeline's update
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->UpdateOutputInformation();
  // The top quarter of the volume along y (the rotation axis): 32 mm of 128 at magnification
  // up to 1500 / (1000 - 90) projects onto roughly a third of the 200 rows.
  ImageType::RegionType slab(ImageType::SizeType{ { Voxels, Voxels / 4, Voxels } });
  slab.SetIndex(1, 3 * Voxels / 4);
  fdk->GetOutput()->SetRequestedRegion(slab);
  fdk->GetOutput()->PropagateRequestedRegion();
  const auto asked = projections->GetRequestedRegion();
  std::cout << "slab y in [96, 128) asks for projection rows " << asked.GetIndex(1) << " + " << asked.GetSize(1)
            << std::endl;
  EXPECT_EQ(asked.GetSize(0), DetectorPixels); // the ramp filter needs whole rows
  EXPECT_EQ(asked.GetSize(2), geometry->GetNumberOfProjections());
  EXPECT_GT(asked.GetIndex(1), static_cast<itk::IndexValueType>(DetectorPixels / 2));
  EXPECT_LT(asked.GetSize(1), DetectorPixels / 2);
  // Rows the slab's voxels really reach: y in [32, 64) mm seen from 1000 - 90 mm to 1000 + 90 mm.
  const double lowest = 100. + (32. - 0.5) * 1500. / 1090. / PixelMm; // row index of y = 31.5 mm
  EXPECT_LE(asked.GetIndex(1), static_cast<itk::IndexValueType>(lowest));
}

TEST(FDKBadInput, GeometryCountDiffersFromImages)
{
  auto geometry = CircularGeometry(10);
  auto other = CircularGeometry(12);
  auto projections = ProjectPhantom(other, SheppLogan(), 32, 8.);
  try
  {
    Reconstruct(geometry, projections);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("number of projection images is 12"), std::string::npos) << message;
    EXPECT_NE(message.find("10"), std::string::npos) << message;
  }
}

TEST(FDKBadInput, DetectorThatSeesNoVoxel)
{
  auto geometry = CircularGeometry(10);
  // A 16-pixel detector of 1 mm moved 5 m sideways.
  auto projections = ProjectPhantom(geometry, SheppLogan(), 16, 1., 5000.);
  try
  {
    Reconstruct(geometry, projections);
    FAIL() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("detector"), std::string::npos) << e.GetDescription();
  }
}

TEST(FDKBadInput, EmptyVolumeAndMissingGeometry)
{
  auto geometry = CircularGeometry(10);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 32, 8.);
  auto zero = ZeroVolume(8, 1.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  EXPECT_THROW(fdk->Update(), itk::ExceptionObject); // no geometry
}

TEST(FDK, TruncationCorrectionReducesTheTruncatedDetectorError)
{
  // A detector 90 mm wide (30 mm at the isocenter on each side) sees the middle of a head 83 x 110 mm
  // across: every row is truncated on both sides. Inside the field of view (the cylinder the detector
  // sees in every projection, less 3 mm), the ramp filter's truncation correction (RTK's --pad) must
  // cut the mean absolute error by at least 40%.
  const unsigned int voxels = 64;
  const double voxelMm = 1.5, pixelMm = 1.2, fieldOfView = 30.;
  auto geometry = CircularGeometry(180);
  auto source = PhantomProjectionSource<ImageType>::New();
  ImageType::SizeType size{ { 75, 120, 180 } };
  CentredGrid(source, size, pixelMm, pixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(SheppLogan());
  source->Update();
  auto truth = VoxelizedPhantom(SheppLogan(), voxels, voxelMm, 2);

  auto meanError = [&](double pad) {
    auto zero = ZeroVolume(voxels, voxelMm);
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(source->GetOutput());
    fdk->SetGeometry(geometry);
    fdk->GetRampFilter()->SetTruncationCorrection(pad);
    fdk->Update();
    const auto * volume = fdk->GetOutput();
    double sum = 0.;
    std::size_t n = 0;
    for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(volume, volume->GetBufferedRegion()); !it.IsAtEnd(); ++it)
    {
      ImageType::PointType point;
      volume->TransformIndexToPhysicalPoint(it.GetIndex(), point);
      const double r = std::hypot(point[0], point[2]);
      if (r > fieldOfView - 3. || std::abs(point[1]) > 0.25 * voxels * voxelMm)
        continue;
      sum += std::abs(static_cast<double>(it.Get()) - truth->GetPixel(it.GetIndex()));
      ++n;
    }
    EXPECT_GT(n, 10000u);
    return sum / n;
  };
  const double without = meanError(0.), with = meanError(0.5);
  std::cout << "truncated detector: MAE in the field of view " << without << " without --pad, " << with
            << " with --pad 0.5" << std::endl;
  EXPECT_LT(with, 0.6 * without); // NaN fails
}
