// CanonicalGrid: negative spacings and flipped or swapped axes become the same image on a grid with
// positive spacing and the identity direction; FDK of a projection stack stored with its u axis
// reversed (negative spacing, or direction -1) then equals FDK of the stack as simulated.
#include "cbctCanonicalGrid.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkImageRegionIterator.h>
#include <itkStreamingImageFilter.h>

using namespace cbct;
using namespace cbct::test;

namespace
{
ImageType::Pointer
Numbered(const ImageType::SizeType & size)
{
  auto image = ImageType::New();
  image->SetRegions(size);
  image->Allocate();
  float value = 1.f;
  for (itk::ImageRegionIterator<ImageType> it(image, image->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
    it.Set(value++);
  return image;
}

/** Every pixel of `a` is at the same physical point as the pixel of `b` holding the same value
 * (pixels are numbered, so the value identifies the pixel). */
void
ExpectSamePhysicalPixels(const ImageType * a, const ImageType * b, bool compareThirdAxis = true)
{
  ASSERT_EQ(a->GetLargestPossibleRegion().GetNumberOfPixels(), b->GetLargestPossibleRegion().GetNumberOfPixels());
  std::vector<ImageType::PointType> whereB(b->GetLargestPossibleRegion().GetNumberOfPixels() + 1);
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(b, b->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
    b->TransformIndexToPhysicalPoint(it.GetIndex(), whereB[static_cast<std::size_t>(it.Get())]);
  std::size_t checked = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(a, a->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    ImageType::PointType p;
    a->TransformIndexToPhysicalPoint(it.GetIndex(), p);
    const auto & q = whereB[static_cast<std::size_t>(it.Get())];
    for (unsigned int d = 0; d < (compareThirdAxis ? 3u : 2u); ++d)
      ASSERT_NEAR(p[d], q[d], 1e-9) << "pixel " << it.Get() << " axis " << d;
    ++checked;
  }
  EXPECT_EQ(checked, a->GetLargestPossibleRegion().GetNumberOfPixels());
}

bool
IsIdentity(const ImageType::DirectionType & d)
{
  for (unsigned int r = 0; r < 3; ++r)
    for (unsigned int c = 0; c < 3; ++c)
      if (d(r, c) != (r == c ? 1. : 0.))
        return false;
  return true;
}
} // namespace

TEST(CanonicalGrid, CanonicalImagesAreReturnedAsTheyAre)
{
  auto image = Numbered(ImageType::SizeType{ { 4, 3, 2 } });
  EXPECT_EQ(CanonicalGrid<ImageType>(image, "image", false).GetPointer(), image.GetPointer());
}

TEST(CanonicalGrid, NegativeSpacingsBecomeFlipsThatKeepEveryPixelInPlace)
{
  auto image = Numbered(ImageType::SizeType{ { 5, 4, 3 } });
  ImageType::SpacingType spacing;
  spacing[0] = -2.;
  spacing[1] = 1.5;
  spacing[2] = -0.5;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = 10.;
  origin[1] = -3.;
  origin[2] = 7.;
  image->SetOrigin(origin);
  auto canonical = CanonicalGrid<ImageType>(image, "image", false);
  EXPECT_TRUE(IsIdentity(canonical->GetDirection()));
  EXPECT_EQ(canonical->GetSpacing()[0], 2.);
  EXPECT_EQ(canonical->GetSpacing()[1], 1.5);
  EXPECT_EQ(canonical->GetSpacing()[2], 0.5);
  EXPECT_NEAR(canonical->GetOrigin()[0], 10. - 4 * 2., 1e-12); // the last column is now the first
  EXPECT_NEAR(canonical->GetOrigin()[2], 7. - 2 * 0.5, 1e-12);
  ExpectSamePhysicalPixels(canonical, image);
}

TEST(CanonicalGrid, SwappedAndFlippedAxesArePermuted)
{
  auto image = Numbered(ImageType::SizeType{ { 5, 4, 3 } });
  ImageType::DirectionType direction;
  direction.Fill(0.);
  direction(1, 0) = 1.;  // index axis 0 runs along world y
  direction(2, 1) = -1.; // index axis 1 along -z
  direction(0, 2) = 1.;  // index axis 2 along x
  image->SetDirection(direction);
  ImageType::SpacingType spacing;
  spacing[0] = 0.7;
  spacing[1] = 1.1;
  spacing[2] = -1.3;
  image->SetSpacing(spacing);
  auto canonical = CanonicalGrid<ImageType>(image, "image", false);
  EXPECT_TRUE(IsIdentity(canonical->GetDirection()));
  const auto size = canonical->GetLargestPossibleRegion().GetSize();
  EXPECT_EQ(size[0], 3u);
  EXPECT_EQ(size[1], 5u);
  EXPECT_EQ(size[2], 4u);
  EXPECT_NEAR(canonical->GetSpacing()[0], 1.3, 1e-12);
  EXPECT_NEAR(canonical->GetSpacing()[1], 0.7, 1e-12);
  EXPECT_NEAR(canonical->GetSpacing()[2], 1.1, 1e-12);
  ExpectSamePhysicalPixels(canonical, image);
}

TEST(CanonicalGrid, ProjectionStacksKeepTheirProjectionAxis)
{
  auto stack = Numbered(ImageType::SizeType{ { 6, 4, 3 } });
  ImageType::SpacingType spacing;
  spacing[0] = -1.5;
  spacing[1] = 2.;
  spacing[2] = 1.;
  stack->SetSpacing(spacing);
  auto canonical = CanonicalGrid<ImageType>(stack, "stack", true);
  EXPECT_TRUE(IsIdentity(canonical->GetDirection()));
  // Projection k stays slice k.
  for (itk::IndexValueType k = 0; k < 3; ++k)
  {
    ImageType::IndexType i{ { 0, 0, k } };
    EXPECT_EQ(static_cast<itk::IndexValueType>(canonical->GetPixel(i)), 6 * 4 * k + 6) << "projection " << k;
  }
  ExpectSamePhysicalPixels(canonical, stack);

  // Swapping u with the projection axis is no detector.
  ImageType::DirectionType mixed;
  mixed.Fill(0.);
  mixed(2, 0) = 1.;
  mixed(1, 1) = 1.;
  mixed(0, 2) = 1.;
  stack->SetDirection(mixed);
  EXPECT_THROW(CanonicalGrid<ImageType>(stack, "stack", true), itk::ExceptionObject);
}

TEST(CanonicalGrid, ObliqueDirectionsAndBadSpacingsAreRefusedByName)
{
  auto image = Numbered(ImageType::SizeType{ { 3, 3, 3 } });
  ImageType::DirectionType oblique;
  oblique.SetIdentity();
  const double c = std::cos(0.3), s = std::sin(0.3);
  oblique(0, 0) = c;
  oblique(0, 1) = -s;
  oblique(1, 0) = s;
  oblique(1, 1) = c;
  image->SetDirection(oblique);
  try
  {
    CanonicalGrid<ImageType>(image, "volume.mha", false);
    FAIL() << "an oblique direction was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("direction of volume.mha"), std::string::npos) << message;
    EXPECT_NE(message.find("expected"), std::string::npos) << message;
  }
  image->SetDirection(ImageType::DirectionType::GetIdentity());
  ImageType::SpacingType zero;
  zero.Fill(1.);
  zero[1] = 0.;
  // ITK refuses a zero spacing itself (then no image with one can exist); where it does not, this must.
  try
  {
    image->SetSpacing(zero);
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("spacing"), std::string::npos) << e.GetDescription();
    return;
  }
  try
  {
    CanonicalGrid<ImageType>(image, "volume.mha", false);
    FAIL() << "a zero spacing was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("spacing of volume.mha"), std::string::npos) << e.GetDescription();
  }
}

namespace
{
ImageType::Pointer
Fdk(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections)
{
  auto zero = ZeroVolume(64, 2.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** The stack stored with its u axis reversed: the same detector, pixels in the opposite order. */
ImageType::Pointer
ReversedU(const ImageType * projections, bool negativeSpacing)
{
  auto reversed = ImageType::New();
  reversed->SetRegions(projections->GetLargestPossibleRegion());
  reversed->Allocate();
  const auto n = static_cast<itk::IndexValueType>(projections->GetLargestPossibleRegion().GetSize(0));
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(projections, projections->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    auto index = it.GetIndex();
    index[0] = n - 1 - index[0];
    reversed->SetPixel(index, it.Get());
  }
  auto spacing = projections->GetSpacing();
  auto origin = projections->GetOrigin();
  origin[0] += (n - 1) * spacing[0]; // the first stored pixel is the last one of the original
  if (negativeSpacing)
    spacing[0] = -spacing[0];
  else
  {
    auto direction = projections->GetDirection();
    direction(0, 0) = -1.;
    reversed->SetDirection(direction);
  }
  reversed->SetSpacing(spacing);
  reversed->SetOrigin(origin);
  return reversed;
}
} // namespace

TEST(CanonicalGrid, FdkOfAReversedDetectorEqualsFdkOfTheOriginal)
{
  auto geometry = CircularGeometry(90);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 96, 2.5);
  const auto reference = Fdk(geometry, projections);
  for (bool negativeSpacing : { true, false })
  {
    SCOPED_TRACE(negativeSpacing ? "negative spacing" : "direction -1");
    auto stored = ReversedU(projections, negativeSpacing);
    auto canonical = CanonicalGrid<ImageType>(stored, "projections", true);
    const auto volume = Fdk(geometry, canonical);
    // The canonical stack is the original, pixel for pixel, so FDK gives the same volume bit for bit.
    itk::ImageRegionConstIterator<ImageType> a(volume, volume->GetLargestPossibleRegion());
    itk::ImageRegionConstIterator<ImageType> b(reference, reference->GetLargestPossibleRegion());
    std::size_t different = 0;
    for (; !a.IsAtEnd(); ++a, ++b)
      different += a.Get() == b.Get() ? 0 : 1;
    EXPECT_EQ(different, 0u);
    // Given the stored stack directly, the library follows a direction of -1 and refuses a negative
    // spacing (the ramp filter needs the pixel size), rather than return a wrong volume.
    try
    {
      const Quality raw = Compare(Fdk(geometry, stored), VoxelizedPhantom(SheppLogan(), 64, 2., 2), volume->GetLargestPossibleRegion());
      EXPECT_FALSE(negativeSpacing) << "a negative spacing was accepted";
      EXPECT_LE(raw.meanAbsoluteError, 0.05);
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_TRUE(negativeSpacing) << e.GetDescription();
      EXPECT_NE(std::string(e.GetDescription()).find("spacing"), std::string::npos) << e.GetDescription();
    }
    // And it is a reconstruction of the phantom, not of its mirror image.
    const Quality q = Compare(volume, VoxelizedPhantom(SheppLogan(), 64, 2., 2), volume->GetLargestPossibleRegion());
    EXPECT_LE(q.meanAbsoluteError, 0.05);
  }
}
