// A volume written slab by slab (SlabVolumeWriter): MetaImage, NRRD and a TIFF slice stack read back
// equal to the volume, bit for bit, with its grid and metadata; nothing under the output's name
// until every row is written.
#include "cbctSlabVolumeWriter.h"

#include <gtest/gtest.h>
#include <itkImageAlgorithm.h>
#include <itkImageFileReader.h>
#include <itkMetaDataObject.h>
#include <itkImageRegionIteratorWithIndex.h>
#include <itksys/Directory.hxx>
#include <itksys/SystemTools.hxx>

#include <cstdlib>
#include <string>

using cbct::SlabVolumeWriter;
using ImageType = SlabVolumeWriter::ImageType;

namespace
{
/** A fresh folder for one test, removed afterwards (kept with CBCT_KEEP_TEST_FILES=1). */
class Folder
{
public:
  explicit Folder(const std::string & name)
  {
    std::string pattern = ::testing::TempDir() + "cbctSlabVolumeWriter_" + name + "_XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    const char * made = mkdtemp(buffer.data());
    EXPECT_NE(made, nullptr);
    m_Path = made ? made : "";
  }
  ~Folder()
  {
    const char * keep = std::getenv("CBCT_KEEP_TEST_FILES");
    if (!m_Path.empty() && !(keep && std::string(keep) == "1"))
      itksys::SystemTools::RemoveADirectory(m_Path);
  }
  std::string
  operator/(const std::string & file) const
  {
    return m_Path + "/" + file;
  }

private:
  std::string m_Path;
};

/** 7 x 10 x 5 voxels of distinct values on an oblique grid, with a metadata entry. */
ImageType::Pointer
Volume()
{
  auto volume = ImageType::New();
  ImageType::RegionType region;
  region.SetSize({ { 7, 10, 5 } });
  volume->SetRegions(region);
  ImageType::SpacingType spacing;
  spacing[0] = 0.5;
  spacing[1] = 0.75;
  spacing[2] = 1.25;
  volume->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -3.;
  origin[1] = 2.5;
  origin[2] = 10.;
  volume->SetOrigin(origin);
  ImageType::DirectionType direction;
  direction.Fill(0.);
  direction(0, 1) = 1.;
  direction(1, 0) = -1.;
  direction(2, 2) = 1.;
  volume->SetDirection(direction);
  volume->Allocate();
  for (itk::ImageRegionIteratorWithIndex<ImageType> it(volume, region); !it.IsAtEnd(); ++it)
  {
    const auto i = it.GetIndex();
    it.Set(static_cast<float>(i[0] + 10 * i[1] + 100 * i[2]) * 0.1f - 3.3f);
  }
  itk::EncapsulateMetaData<std::string>(volume->GetMetaDataDictionary(), "ConeBeamCT_Method", "FDK test");
  return volume;
}

/** Rows [first, first + count) of `volume` as an image of their own (largest region: the volume). */
ImageType::Pointer
Slab(const ImageType * volume, long first, unsigned long count)
{
  auto region = volume->GetLargestPossibleRegion();
  region.SetIndex(1, first);
  region.SetSize(1, count);
  auto slab = ImageType::New();
  slab->CopyInformation(volume);
  slab->SetLargestPossibleRegion(volume->GetLargestPossibleRegion());
  slab->SetBufferedRegion(region);
  slab->SetRequestedRegion(region);
  slab->Allocate();
  itk::ImageAlgorithm::Copy(volume, slab.GetPointer(), region, region);
  return slab;
}

/** Writes `volume` to `path` in three slabs, out of order. */
void
WriteInSlabs(const ImageType * volume, const std::string & path)
{
  SlabVolumeWriter writer(path, volume);
  writer.Write(Slab(volume, 4, 5));
  EXPECT_EQ(writer.BytesWritten(), 7u * 5 * 5 * 4);
  writer.Write(Slab(volume, 0, 4));
  writer.Write(Slab(volume, 9, 1));
  EXPECT_EQ(writer.BytesWritten(), writer.VolumeBytes());
  writer.Commit();
}

void
ExpectEqual(const ImageType * read, const ImageType * volume, const std::string & what, bool grid = true)
{
  ASSERT_EQ(read->GetLargestPossibleRegion().GetSize(), volume->GetLargestPossibleRegion().GetSize()) << what;
  const auto n = volume->GetLargestPossibleRegion().GetNumberOfPixels();
  EXPECT_TRUE(std::equal(volume->GetBufferPointer(), volume->GetBufferPointer() + n, read->GetBufferPointer())) << what;
  if (!grid)
    return;
  for (unsigned int d = 0; d < 3; ++d)
  {
    EXPECT_NEAR(read->GetSpacing()[d], volume->GetSpacing()[d], 1e-12) << what;
    EXPECT_NEAR(read->GetOrigin()[d], volume->GetOrigin()[d], 1e-12) << what;
    for (unsigned int c = 0; c < 3; ++c)
      EXPECT_NEAR(read->GetDirection()(d, c), volume->GetDirection()(d, c), 1e-12) << what;
  }
  std::string method;
  EXPECT_TRUE(itk::ExposeMetaData<std::string>(read->GetMetaDataDictionary(), "ConeBeamCT_Method", method)) << what;
  EXPECT_EQ(method, "FDK test") << what;
}
} // namespace

TEST(SlabVolumeWriter, MetaImageAndNrrdReadBackAsTheVolume)
{
  Folder folder("formats");
  const auto volume = Volume();
  for (const char * name : { "v.mha", "v.mhd", "v.nrrd", "v.nhdr" })
  {
    const std::string path = folder / name;
    WriteInSlabs(volume, path);
    auto reader = itk::ImageFileReader<ImageType>::New();
    reader->SetFileName(path);
    reader->Update();
    ExpectEqual(reader->GetOutput(), volume, name);
  }
  EXPECT_TRUE(itksys::SystemTools::FileExists(folder / "v.raw")); // the .mhd's or .nhdr's data
}

TEST(SlabVolumeWriter, ASliceStackHasOneFilePerRowOfY)
{
  Folder folder("stack");
  const auto volume = Volume();
  const std::string pattern = folder / "slice_%03d.tif";
  ASSERT_TRUE(SlabVolumeWriter::IsSliceStack(pattern));
  WriteInSlabs(volume, pattern);
  for (long y = 0; y < 10; ++y)
  {
    const std::string file = SlabVolumeWriter::SliceFile(pattern, y);
    EXPECT_EQ(itksys::SystemTools::GetFilenameName(file), "slice_00" + std::to_string(y) + ".tif");
    auto reader = itk::ImageFileReader<itk::Image<float, 2>>::New();
    reader->SetFileName(file);
    reader->Update();
    const auto * slice = reader->GetOutput();
    ASSERT_EQ(slice->GetLargestPossibleRegion().GetSize(0), 7u);
    ASSERT_EQ(slice->GetLargestPossibleRegion().GetSize(1), 5u);
    for (long z = 0; z < 5; ++z)
      for (long x = 0; x < 7; ++x)
        EXPECT_EQ(slice->GetPixel({ { x, z } }), volume->GetPixel({ { x, y, z } })) << x << " " << y << " " << z;
  }
  EXPECT_FALSE(itksys::SystemTools::FileExists(SlabVolumeWriter::SliceFile(pattern, 10)));
}

TEST(SlabVolumeWriter, NamesOfSliceStacks)
{
  EXPECT_TRUE(SlabVolumeWriter::IsSliceStack("out/slice_%04d.tif"));
  EXPECT_TRUE(SlabVolumeWriter::IsSliceStack("s%d.TIFF"));
  EXPECT_FALSE(SlabVolumeWriter::IsSliceStack("slice.tif"));
  EXPECT_FALSE(SlabVolumeWriter::IsSliceStack("slice_%04d_%d.tif"));
  EXPECT_FALSE(SlabVolumeWriter::IsSliceStack("slice_%s.tif"));
  EXPECT_FALSE(SlabVolumeWriter::IsSliceStack("dir%d/slice.tif"));
  EXPECT_FALSE(SlabVolumeWriter::IsSliceStack("slice_%04d.png"));
  EXPECT_TRUE(SlabVolumeWriter::WritesSlabs("v.MHA"));
  EXPECT_TRUE(SlabVolumeWriter::WritesSlabs("v.nhdr"));
  EXPECT_FALSE(SlabVolumeWriter::WritesSlabs("v.nii"));
  EXPECT_FALSE(SlabVolumeWriter::WritesSlabs("v.tif"));
}

TEST(SlabVolumeWriterBadInput, NothingUnderTheOutputsNameUntilEveryRowIsWritten)
{
  Folder folder("partial");
  const auto volume = Volume();
  for (const char * name : { "v.mha", "v.nrrd", "slice_%02d.tif" })
  {
    const std::string path = folder / name;
    {
      SlabVolumeWriter writer(path, volume);
      writer.Write(Slab(volume, 0, 6));
      try
      {
        writer.Commit();
        FAIL() << name << ": committed with rows missing";
      }
      catch (const itk::ExceptionObject & e)
      {
        EXPECT_NE(std::string(e.GetDescription()).find("row 6 of the volume was never written"), std::string::npos)
          << e.GetDescription();
      }
      EXPECT_THROW(writer.Write(Slab(volume, 5, 2)), itk::ExceptionObject) << "row 5 twice";
    }
    // Nothing left: neither the output, nor its hidden partial folder, nor a slice.
    EXPECT_FALSE(itksys::SystemTools::FileExists(path)) << name;
    EXPECT_FALSE(itksys::SystemTools::FileExists(SlabVolumeWriter::SliceFile(path, 0))) << name;
    itksys::Directory listing;
    listing.Load(folder / ".");
    for (unsigned long i = 0; i < listing.GetNumberOfFiles(); ++i)
    {
      const std::string entry = listing.GetFile(i);
      EXPECT_TRUE(entry == "." || entry == "..") << name << " left " << entry;
    }
  }
  // A slab that is not whole along x and z, and a format that cannot take slabs.
  SlabVolumeWriter writer(folder / "w.mha", volume);
  auto part = Slab(volume, 0, 2);
  auto region = part->GetBufferedRegion();
  region.SetSize(2, 3);
  part->SetBufferedRegion(region);
  EXPECT_THROW(writer.Write(part), itk::ExceptionObject);
  try
  {
    SlabVolumeWriter nifti(folder / "v.nii", volume);
    FAIL() << "a NIfTI output was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("MetaImage (.mha, .mhd), NRRD (.nrrd, .nhdr) or a TIFF stack"),
              std::string::npos)
      << e.GetDescription();
  }
}
