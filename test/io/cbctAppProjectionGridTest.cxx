// Where the apps' readers (examples/cbctProjectionFiles.h, cbctProjectionRows.h, cbctCheckedFiles.h)
// put the detector and the volume:
// - A negative spacing is a flipped axis. ITK's reader puts pixel i at origin + i x spacing and turns
//   a negative spacing into a flipped direction (itkImageFileReader.hxx), which cbct::CanonicalGrid
//   undoes by reordering the pixels. A stack stored with its u or v axis reversed and a negative
//   spacing (its first pixel at the detector's far end), in MetaImage or NRRD, reconstructs (CPU FDK)
//   to the volume of the stack as simulated; a volume stored so is the same volume. Changing only the
//   sign of ElementSpacing in a header describes another detector: the mirror image
//   of the first about its first pixel, which lies wholly on one side of the rotation axis; so every
//   negative spacing gets a warning naming the file, the axis, the value and where the pixels lie.
// - A format without an origin (TIFF, PNG) gives a centred detector, -(N-1)/2 x spacing (ITK's
//   readers give (0, 0), which put the rotation axis at the detector's corner), with
//   --new-spacing applied first; --new-origin still places it; the MPI path's stack information agrees.
#include "cbctDetectorAxisCheck.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctProjectionRows.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>
#include <itkExtractImageFilter.h>
#include <itkImageFileWriter.h>
#include <itkImageRegionConstIteratorWithIndex.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace
{
using cbct::test::ImageType;

/** The fields of an app's options that ReadProjections() and ProjectionStackInformation() read. */
struct Options
{
  std::string projections, path, regexp, replaceNonFinite;
  int subMatch = 0;
  bool numericSort = false;
  std::vector<double> projectionSpacing, projectionOrigin, nonFiniteReplacement;
};

std::string
Temporary(const std::string & name)
{
  return cbct::test::TestFile(name);
}

ImageType::Pointer
Read(const Options & o)
{
  cbct::apps::InspectedImages().clear();
  std::size_t files = 0;
  return cbct::apps::ReadProjections<ImageType>(o, files);
}

ImageType::Pointer
ReadFile(const std::string & path)
{
  Options o;
  o.projections = path;
  return Read(o);
}

/** `image` with its pixels in the opposite order along `axis` and its origin at the last pixel: with
 * the spacing negated there (given to the writers below, not set on the image, since ITK's
 * SetSpacing() warns about negative values), the same grid stored the other way round. */
ImageType::Pointer
Reversed(const ImageType * image, unsigned int axis)
{
  auto reversed = ImageType::New();
  reversed->SetRegions(image->GetLargestPossibleRegion());
  reversed->Allocate();
  const auto n = static_cast<itk::IndexValueType>(image->GetLargestPossibleRegion().GetSize(axis));
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(image, image->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    auto index = it.GetIndex();
    index[axis] = n - 1 - index[axis];
    reversed->SetPixel(index, it.Get());
  }
  auto origin = image->GetOrigin();
  origin[axis] += static_cast<double>(n - 1) * image->GetSpacing()[axis];
  reversed->SetSpacing(image->GetSpacing());
  reversed->SetOrigin(origin);
  return reversed;
}

std::string
Values(const double * v)
{
  std::ostringstream text;
  text << std::setprecision(17) << v[0] << ' ' << v[1] << ' ' << v[2];
  return text.str();
}

void
WritePixels(std::ofstream & out, const ImageType * image)
{
  out.write(reinterpret_cast<const char *>(image->GetBufferPointer()),
            static_cast<std::streamsize>(image->GetLargestPossibleRegion().GetNumberOfPixels() * sizeof(float)));
}

/** A MetaImage written from the format's definition: Offset is the first pixel's position and
 * ElementSpacing the step to the next, here negative along one axis. (Little-endian data, as x86 and
 * ARM machines hold them.) */
void
WriteMetaImage(const std::string & path, const ImageType * image, const double * spacing)
{
  const auto size = image->GetLargestPossibleRegion().GetSize();
  std::ofstream out(path, std::ios::binary);
  out << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
      << "TransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = " << Values(image->GetOrigin().GetDataPointer())
      << "\nElementSpacing = " << Values(spacing) << "\nDimSize = " << size[0] << ' ' << size[1] << ' ' << size[2]
      << "\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n";
  WritePixels(out, image);
}

/** An NRRD file without a surrounding space: "spacings" (here negative along one axis) and "axis mins",
 * the position of each axis's first sample (node-centred: the sample itself, not a cell's edge). */
void
WriteNrrd(const std::string & path, const ImageType * image, const double * spacing)
{
  const auto size = image->GetLargestPossibleRegion().GetSize();
  std::ofstream out(path, std::ios::binary);
  out << "NRRD0004\ntype: float\ndimension: 3\nsizes: " << size[0] << ' ' << size[1] << ' ' << size[2]
      << "\nspacings: " << Values(spacing) << "\naxis mins: " << Values(image->GetOrigin().GetDataPointer())
      << "\ncenters: node node node\nendian: little\nencoding: raw\n\n";
  WritePixels(out, image);
}

template <typename TImage>
void
WriteWithItk(const std::string & path, const TImage * image)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(path);
  writer->SetInput(image);
  writer->Update();
}

ImageType::Pointer
Fdk(const cbct::ThreeDCircularProjectionGeometry * geometry, const ImageType * projections)
{
  auto zero = cbct::test::ZeroVolume(40, 3.);
  auto fdk = cbct::FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** The largest difference between two images of the same size, relative to b's largest magnitude;
 * NaN (which fails every comparison) when either holds a NaN. */
double
LargestRelativeDifference(const ImageType * a, const ImageType * b)
{
  EXPECT_EQ(a->GetLargestPossibleRegion().GetSize(), b->GetLargestPossibleRegion().GetSize());
  itk::ImageRegionConstIterator<ImageType> ia(a, a->GetLargestPossibleRegion()), ib(b, b->GetLargestPossibleRegion());
  double largest = 0., peak = 0.;
  for (; !ia.IsAtEnd() && !ib.IsAtEnd(); ++ia, ++ib)
  {
    const double d = std::abs(static_cast<double>(ia.Get()) - ib.Get());
    if (std::isnan(d))
      return std::nan("");
    largest = std::max(largest, d);
    peak = std::max(peak, std::abs(static_cast<double>(ib.Get())));
  }
  return peak > 0. ? largest / peak : std::nan("");
}

void
ExpectSameGrid(const ImageType * a, const ImageType * b)
{
  EXPECT_EQ(a->GetLargestPossibleRegion(), b->GetLargestPossibleRegion());
  for (unsigned int d = 0; d < 3; ++d)
  {
    EXPECT_NEAR(a->GetSpacing()[d], b->GetSpacing()[d], 1e-12) << "axis " << d;
    EXPECT_NEAR(a->GetOrigin()[d], b->GetOrigin()[d], 1e-9) << "axis " << d;
  }
  EXPECT_TRUE(a->GetDirection().GetVnlMatrix().is_identity());
}

/** A small scan: 90 views of 96 x 96 pixels of 2.5 mm (Shepp-Logan of 60 mm), its geometry, and the
 * FDK volume of the stack written as a plain .mha and read by the apps' reader. */
struct Scan
{
  cbct::ThreeDCircularProjectionGeometry::Pointer geometry = cbct::test::CircularGeometry(90);
  ImageType::Pointer projections = cbct::test::ProjectPhantom(geometry, cbct::test::SheppLogan(), 96, 2.5);
  std::string mha = Temporary("scan.mha");
  ImageType::Pointer read;
  ImageType::Pointer volume;

  Scan()
  {
    WriteWithItk(mha, projections.GetPointer());
    read = ReadFile(mha);
    volume = Fdk(geometry, read);
  }
};

const Scan &
TheScan()
{
  static const Scan scan;
  return scan;
}
} // namespace

TEST(AppProjectionGrid, NegativeSpacingIsAFlippedDetectorAxisInMetaImageAndNrrd)
{
  const Scan & scan = TheScan();
  EXPECT_NEAR(scan.read->GetOrigin()[0], -118.75, 1e-12); // cbct-simulate's centred detector
  ::testing::internal::CaptureStderr();
  ReadFile(scan.mha);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "a warning for a positive spacing";
  const cbct::test::Quality q =
    cbct::test::Compare(scan.volume, cbct::test::VoxelizedPhantom(cbct::test::SheppLogan(), 40, 3., 2),
                        scan.volume->GetLargestPossibleRegion());
  // A reconstruction of the phantom (not of its mirror image), against which the rest is compared.
  EXPECT_LE(q.meanAbsoluteError, 0.05) << "PSNR " << q.psnr;
  for (unsigned int axis : { 0u, 1u })
    for (const std::string format : { "mha", "nrrd" })
    {
      SCOPED_TRACE(std::string(axis == 0 ? "u" : "v") + " reversed, " + format);
      const ImageType::Pointer stored = Reversed(scan.projections, axis);
      double spacing[3] = { 2.5, 2.5, 1. };
      spacing[axis] = -2.5;
      const std::string path = Temporary(std::string("reversed_") + (axis == 0 ? "u." : "v.") + format);
      if (format == "mha")
        WriteMetaImage(path, stored, spacing);
      else
        WriteNrrd(path, stored, spacing);
      const ImageType::Pointer read = ReadFile(path);
      ExpectSameGrid(read, scan.read);
      EXPECT_LE(LargestRelativeDifference(read, scan.read), 0.) << "the canonical stack is the simulated one";
      EXPECT_LE(LargestRelativeDifference(Fdk(scan.geometry, read), scan.volume), 1e-6);

      // Only the sign changed: the pixels as simulated, the first still at
      // -118.75 mm, the others at -118.75 - 2.5 i: a detector from -356.25 to -118.75 mm, which a
      // centred reconstruction does not match (it was measured at MAE 0.34 on a full scan).
      const std::string signOnly = Temporary(std::string("sign_only_") + (axis == 0 ? "u." : "v.") + format);
      if (format == "mha")
        WriteMetaImage(signOnly, scan.projections, spacing);
      else
        WriteNrrd(signOnly, scan.projections, spacing);
      ::testing::internal::CaptureStderr();
      const ImageType::Pointer mirrored = ReadFile(signOnly);
      const std::string warning = ::testing::internal::GetCapturedStderr();
      EXPECT_NE(warning.find("--projections " + signOnly + " has a negative spacing along " + (axis == 0 ? "u" : "v") +
                             " (-2.5 mm), read as a flipped axis: its pixels run from -118.75 mm (the first stored) to "
                             "-356.25 mm"),
                std::string::npos)
        << warning;
      EXPECT_NEAR(mirrored->GetOrigin()[axis], -118.75 - 95 * 2.5, 1e-9);
      EXPECT_EQ(mirrored->GetSpacing()[axis], 2.5);
      ImageType::IndexType first{ { 0, 0, 7 } }, last{ { 0, 0, 7 } };
      first[1 - axis] = 40;
      last[1 - axis] = 40;
      last[axis] = 95;
      EXPECT_EQ(mirrored->GetPixel(last), scan.projections->GetPixel(first)) << "the file's first pixel is the farthest";
    }
}

// cbct-forward, cbct-compare, cbct-sart --input ... read volumes through ReadImage(): a volume stored
// with a negative spacing along x or z, in MetaImage or NRRD, is the same volume.
TEST(AppProjectionGrid, NegativeSpacingVolumesAreTheSameVolume)
{
  auto volume = ImageType::New();
  volume->SetRegions(ImageType::SizeType{ { 7, 5, 4 } });
  volume->Allocate();
  float value = 1.f;
  for (itk::ImageRegionIterator<ImageType> it(volume, volume->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
    it.Set(value++);
  ImageType::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 1.25;
  spacing[2] = 2.;
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -1.5;
  origin[1] = 2.5;
  origin[2] = -3.;
  volume->SetOrigin(origin);
  for (unsigned int axis : { 0u, 2u })
    for (const std::string format : { "mha", "nrrd" })
    {
      SCOPED_TRACE(std::string("axis ") + std::to_string(axis) + ", " + format);
      double negative[3] = { spacing[0], spacing[1], spacing[2] };
      negative[axis] = -negative[axis];
      const std::string path = Temporary("volume_" + std::to_string(axis) + "." + format);
      if (format == "mha")
        WriteMetaImage(path, Reversed(volume, axis), negative);
      else
        WriteNrrd(path, Reversed(volume, axis), negative);
      cbct::apps::InspectedImages().clear();
      ::testing::internal::CaptureStderr();
      const ImageType::Pointer read = cbct::apps::ReadImage<ImageType>("--input", path);
      const std::string warning = ::testing::internal::GetCapturedStderr();
      std::ostringstream expected; // the far end stored first
      expected << "--input " << path << " has a negative spacing along " << (axis == 0 ? "x" : "z") << " ("
               << negative[axis] << " mm), read as a flipped axis: its pixels run from "
               << origin[axis] + (axis == 0 ? 6 : 3) * spacing[axis] << " mm (the first stored) to " << origin[axis] << " mm";
      EXPECT_NE(warning.find(expected.str()), std::string::npos) << warning;
      ExpectSameGrid(read, volume);
      EXPECT_LE(LargestRelativeDifference(read, volume), 0.);
    }
}

// A TIFF stack (one file) and a folder of 16-bit PNG files (one projection each) carry no origin:
// the detector is centred, with --new-spacing's pixel size, and reconstructs as the .mha does.
TEST(AppProjectionGrid, FilesWithoutAnOriginGiveACentredDetector)
{
  const Scan & scan = TheScan();
  const std::string tiff = Temporary("scan.tif");
  WriteWithItk(tiff, scan.projections.GetPointer());
  Options o;
  o.projections = tiff;
  o.projectionSpacing = { 2.5, 2.5 };
  const ImageType::Pointer read = Read(o);
  ExpectSameGrid(read, scan.read);
  EXPECT_LE(LargestRelativeDifference(read, scan.read), 0.);
  const ImageType::Pointer volume = Fdk(scan.geometry, read);
  EXPECT_LE(LargestRelativeDifference(volume, scan.volume), 1e-6);
  // The MPI path (each rank reads its rows) places the detector alike.
  {
    cbct::apps::InspectedImages().clear();
    std::vector<std::string> files;
    const ImageType::Pointer information = cbct::apps::ProjectionStackInformation<ImageType>(o, files);
    ExpectSameGrid(information, scan.read);
  }
  // What the old default did, the rotation axis at the corner pixel: another volume altogether.
  o.projectionOrigin = { 0., 0. };
  const ImageType::Pointer corner = Read(o);
  EXPECT_EQ(corner->GetOrigin()[0], 0.);
  EXPECT_EQ(corner->GetOrigin()[1], 0.);
  EXPECT_GT(cbct::test::RelativeDifference(Fdk(scan.geometry, corner), scan.volume), 0.5);
  // --new-origin places the detector wherever it says, with or without --new-spacing.
  o.projectionOrigin = { -70., -81.5 };
  for (const bool newSpacing : { true, false })
  {
    o.projectionSpacing = newSpacing ? std::vector<double>{ 2.5, 2.5 } : std::vector<double>{};
    const ImageType::Pointer placed = Read(o);
    EXPECT_EQ(placed->GetOrigin()[0], -70.);
    EXPECT_EQ(placed->GetOrigin()[1], -81.5);
  }

  // 16-bit PNG files, one per projection, read through --path/--regexp; the same readings in one
  // .mha stack are the reference (the PNG files have ITK's default spacing, replaced by --new-spacing).
  using ShortImage = itk::Image<std::uint16_t, 3>;
  using ShortSlice = itk::Image<std::uint16_t, 2>;
  auto readings = ShortImage::New();
  readings->CopyInformation(scan.projections);
  readings->SetRegions(scan.projections->GetLargestPossibleRegion());
  readings->Allocate();
  itk::ImageRegionConstIterator<ImageType> from(scan.projections, scan.projections->GetLargestPossibleRegion());
  itk::ImageRegionIterator<ShortImage> to(readings, readings->GetLargestPossibleRegion());
  for (; !from.IsAtEnd(); ++from, ++to)
    to.Set(static_cast<std::uint16_t>(std::lround(std::min(65535., 400. * from.Get()))));
  const std::string folder = Temporary("png");
  itksys::SystemTools::RemoveADirectory(folder);
  itksys::SystemTools::MakeDirectory(folder);
  const auto size = readings->GetLargestPossibleRegion().GetSize();
  for (itk::IndexValueType k = 0; k < static_cast<itk::IndexValueType>(size[2]); ++k)
  {
    auto extract = itk::ExtractImageFilter<ShortImage, ShortSlice>::New();
    extract->SetInput(readings);
    ShortImage::RegionType slice = readings->GetLargestPossibleRegion();
    slice.SetIndex(2, k);
    slice.SetSize(2, 0);
    extract->SetExtractionRegion(slice);
    extract->SetDirectionCollapseToIdentity();
    extract->Update();
    std::ostringstream name;
    name << folder << "/proj_" << std::setw(3) << std::setfill('0') << k << ".png";
    WriteWithItk(name.str(), extract->GetOutput());
  }
  const std::string readingsMha = Temporary("readings.mha");
  WriteWithItk(readingsMha, readings.GetPointer());
  const ImageType::Pointer reference = ReadFile(readingsMha);
  Options png;
  png.path = folder;
  png.regexp = "proj_.*\\.png";
  png.projectionSpacing = { 2.5, 2.5 };
  const ImageType::Pointer pngStack = Read(png);
  ExpectSameGrid(pngStack, reference);
  EXPECT_NEAR(pngStack->GetOrigin()[1], -118.75, 1e-12);
  EXPECT_LE(LargestRelativeDifference(pngStack, reference), 0.);
  EXPECT_LE(LargestRelativeDifference(Fdk(scan.geometry, pngStack), Fdk(scan.geometry, reference)), 1e-6);
}

// The formats that carry no origin, by the name ImageFileContents gives ITK's ImageIO; those that do
// carry one keep theirs, even (0, 0).
TEST(AppProjectionGrid, FormatsWithoutAnOrigin)
{
  for (const char * format : { "TIFF", "PNG", "JPEG", "BMP", "LSM", "BioRad" })
    EXPECT_TRUE(cbct::apps::FormatCarriesNoOrigin(format)) << format;
  for (const char * format : { "MetaImage", "Nrrd", "Nifti", "VTK", "Gipl", "MRC", "HDF5", "GDCM", "" })
    EXPECT_FALSE(cbct::apps::FormatCarriesNoOrigin(format)) << format;
  auto image = ImageType::New();
  image->SetRegions(ImageType::SizeType{ { 4, 3, 2 } });
  image->Allocate();
  image->FillBuffer(1.f);
  const std::string path = Temporary("origin_zero.mha");
  WriteWithItk(path, image.GetPointer());
  const ImageType::Pointer read = ReadFile(path);
  EXPECT_EQ(read->GetOrigin()[0], 0.);
  EXPECT_EQ(read->GetOrigin()[1], 0.);
}

// A 2D MetaImage (one projection), which the apps read at its own dimension: the same flip and warning.
TEST(AppProjectionGrid, NegativeSpacingInATwoDimensionalFile)
{
  const std::string path = Temporary("flat_negative.mha");
  {
    std::ofstream out(path, std::ios::binary);
    out << "ObjectType = Image\nNDims = 2\nBinaryData = True\nBinaryDataByteOrderMSB = False\nOffset = 3 -1\n"
        << "ElementSpacing = -2 0.5\nDimSize = 4 3\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n";
    for (int i = 0; i < 12; ++i)
    {
      const float value = static_cast<float>(i);
      out.write(reinterpret_cast<const char *>(&value), sizeof value);
    }
  }
  ::testing::internal::CaptureStderr();
  const ImageType::Pointer read = ReadFile(path);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("has a negative spacing along u (-2 mm), read as a flipped axis: its pixels run from 3 mm (the "
                         "first stored) to -3 mm"),
            std::string::npos)
    << warning;
  EXPECT_EQ(read->GetSpacing()[0], 2.);
  EXPECT_EQ(read->GetSpacing()[1], 0.5);
  EXPECT_NEAR(read->GetOrigin()[0], -3., 1e-12);
  EXPECT_NEAR(read->GetOrigin()[1], -1., 1e-12);
  EXPECT_TRUE(read->GetDirection().GetVnlMatrix().is_identity());
  for (itk::IndexValueType v = 0; v < 3; ++v)
    for (itk::IndexValueType u = 0; u < 4; ++u)
      EXPECT_EQ(read->GetPixel({ { u, v, 0 } }), static_cast<float>(4 * v + 3 - u)) << u << ", " << v;
}

// NIfTI defines pixdim as positive: a negative one has two readings (nifti1_io's qform arithmetic takes
// it for 1 mm, ITK's reader for a flipped axis), so the apps refuse it, naming the file, axis and value,
// for projections and volumes alike; a positive pixdim with the same qform is read.
TEST(AppProjectionGrid, NegativePixdimInNiftiIsRefused)
{
  auto write = [](const std::string & path, float pixdimU) {
    char header[352] = {};
    auto put = [&](std::size_t offset, const auto & value) { std::memcpy(header + offset, &value, sizeof value); };
    put(0, std::int32_t{ 348 });                                          // sizeof_hdr
    const std::int16_t dim[8] = { 3, 4, 3, 2, 1, 1, 1, 1 };               // dim
    put(40, dim);
    put(70, std::int16_t{ 16 });                                          // datatype: float
    put(72, std::int16_t{ 32 });                                          // bitpix
    const float pixdim[8] = { 1.f, pixdimU, 0.5f, 1.f, 1.f, 1.f, 1.f, 1.f }; // qfac, voxel sizes
    put(76, pixdim);
    put(108, 352.f);                                                      // vox_offset
    put(112, 1.f);                                                        // scl_slope
    put(252, std::int16_t{ 1 });                                          // qform_code: scanner
    const float offsets[3] = { 3.f, -1.f, 0.f };                          // qoffset_x, y, z
    put(268, offsets);
    std::memcpy(header + 344, "n+1", 4);                                  // magic
    std::ofstream out(path, std::ios::binary);
    out.write(header, sizeof header);
    for (int i = 0; i < 24; ++i)
    {
      const float value = static_cast<float>(i);
      out.write(reinterpret_cast<const char *>(&value), sizeof value);
    }
  };
  const std::string negative = Temporary("negative_pixdim.nii");
  write(negative, -2.f);
  for (const bool projections : { true, false })
  {
    SCOPED_TRACE(projections ? "projections" : "volume");
    cbct::apps::InspectedImages().clear();
    try
    {
      if (projections)
        ReadFile(negative);
      else
        cbct::apps::ReadImage<ImageType>("--input", negative);
      FAIL() << "a negative pixdim was read";
    }
    catch (const cbct::apps::Error & e)
    {
      const std::string expected = std::string(projections ? "--projections" : "--input") + " is '" + negative +
                                   "' with pixdim -2 along " + (projections ? "u" : "x") + "; expected a positive pixdim";
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
  const std::string positive = Temporary("positive_pixdim.nii");
  write(positive, 2.f);
  const ImageType::Pointer read = ReadFile(positive);
  EXPECT_EQ(read->GetSpacing()[0], 2.);
  EXPECT_EQ(read->GetLargestPossibleRegion().GetSize(0), 4u);
}

// cbct-fdk's check before reconstructing (cbctDetectorAxisCheck.h): the sign-only
// edited stack, read as the apps read it, is refused with one message naming the option, the detector's
// extent, where the axis projects, the reach on each side and the header's spacing and origin; the
// iterative apps' warning says the same on stderr; the stack stored reversed with a negative spacing
// and a half fan that reaches the axis pass.
TEST(AppProjectionGrid, DetectorBesideTheRotationAxisIsRefusedByFdk)
{
  struct AxisOptions : Options
  {
    std::string geometry = "g.xml", newOrigin, newSpacing;
  };
  const Scan & scan = TheScan();
  const double spacing[3] = { -2.5, 2.5, 1. };
  const std::string signOnly = Temporary("axis_sign_only.mha");
  WriteMetaImage(signOnly, scan.projections, spacing);
  AxisOptions o;
  o.projections = signOnly;
  ::testing::internal::CaptureStderr(); // the flip warning
  const ImageType::Pointer mirrored = Read(o);
  ::testing::internal::GetCapturedStderr();
  using cbct::apps::AxisMissIs;
  try
  {
    cbct::apps::CheckDetectorReachesAxis(o, { signOnly }, scan.geometry, mirrored, AxisMissIs::Error);
    FAIL() << "a detector beside the rotation axis was accepted";
  }
  catch (const cbct::apps::Error & e)
  {
    const std::string text = e.what();
    for (const std::string & expected :
         { "--projections " + signOnly + " with --geometry g.xml: the detector misses the rotation axis: in projection "
             "0 (gantry angle 0.0 deg) the detector's columns span u = -357.5 to -117.5 mm (outer pixel edges) but the "
             "rotation axis projects at u = 0.0 mm",
           std::string("reach 231.8 mm on the negative side, -78.1 mm on the positive side; negative: not reached"),
           signOnly + " gives spacing -2.5 x 2.5 mm and origin (-118.75, -118.75) mm: a negative spacing flips the axis "
                      "about the first pixel" })
      EXPECT_NE(text.find(expected), std::string::npos) << text;
    EXPECT_EQ(text.find('\n'), std::string::npos) << "one line";
  }
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(cbct::apps::CheckDetectorReachesAxis(o, { signOnly }, scan.geometry, mirrored, AxisMissIs::Warning));
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("warning: --projections " + signOnly + " with --geometry g.xml: the detector misses the "
                         "rotation axis"),
            std::string::npos)
    << warning;

  // Stored reversed, origin at the far end: the same detector, centred.
  const std::string reversed = Temporary("axis_reversed.mha");
  WriteMetaImage(reversed, Reversed(scan.projections, 0), spacing);
  o.projections = reversed;
  ::testing::internal::CaptureStderr();
  const ImageType::Pointer read = Read(o);
  ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(cbct::apps::CheckDetectorReachesAxis(o, { reversed }, scan.geometry, read, AxisMissIs::Error));

  // A half fan whose detector (240 mm) is offset by 100 mm reaches 13 mm past the axis and passes; a
  // centred scan whose first pixel --new-origin puts at u = 8.75 mm misses it (its edge 7.5 mm beyond
  // the axis's projection, 5 mm at the axis), and the message names --new-origin.
  auto half = cbct::test::CircularGeometry(90, 360., 1000., 1500., 100.);
  o.projections = scan.mha;
  EXPECT_FALSE(cbct::apps::CheckDetectorReachesAxis(o, { scan.mha }, half, scan.read, AxisMissIs::Error));
  o.newOrigin = "8.75,-118.75";
  o.projectionOrigin = { 8.75, -118.75 };
  const ImageType::Pointer shifted = Read(o);
  try
  {
    cbct::apps::CheckDetectorReachesAxis(o, { scan.mha }, scan.geometry, shifted, AxisMissIs::Error);
    FAIL() << "a detector put beside the axis by --new-origin was accepted";
  }
  catch (const cbct::apps::Error & e)
  {
    EXPECT_NE(std::string(e.what()).find("--new-origin 8.75,-118.75 put the first pixel at (8.75, -118.75) mm; a "
                                         "detector centred on the axis would have it at (-118.75, -118.75) mm"),
              std::string::npos)
      << e.what();
  }
}
