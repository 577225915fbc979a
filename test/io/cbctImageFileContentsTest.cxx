// ImageFileContents: every format ITK writes here, whole and cut short; the header's promise against
// the data in the file, for attached, detached, listed and compressed data.
#include "cbctImageFileContents.h"
#include "cbctTestFolder.h"

#include <gtest/gtest.h>
#include <itkImage.h>
#include <itkImageFileWriter.h>
#include <itkImageIOFactory.h>
#include <itkImageRegionIterator.h>
#include <itkMetaImageIO.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <zlib.h>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace
{
using FloatImage = itk::Image<float, 3>;
using ByteImage = itk::Image<unsigned char, 2>;

/** A fresh directory for this test's files. */
std::string
WorkDirectory()
{
  return cbct::test::CurrentTestFolder().string() + "/";
}

template <typename TImage>
typename TImage::Pointer
Ramp(const typename TImage::SizeType & size)
{
  auto image = TImage::New();
  image->SetRegions(size);
  image->Allocate();
  unsigned int state = 12345u;
  for (itk::ImageRegionIterator<TImage> it(image, image->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    state = state * 1103515245u + 12345u; // noise: compressed data stay large
    it.Set(static_cast<typename TImage::PixelType>(state >> 24));
  }
  return image;
}

template <typename TImage>
void
Write(const TImage * image, const std::string & path, bool compress, itk::ImageIOBase * io = nullptr)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetInput(image);
  writer->SetFileName(path);
  writer->SetUseCompression(compress);
  if (io != nullptr)
    writer->SetImageIO(io);
  writer->Update();
}

std::uint64_t
SizeOf(const std::string & path)
{
  struct stat s;
  return stat(path.c_str(), &s) == 0 ? static_cast<std::uint64_t>(s.st_size) : 0;
}

void
CutTo(const std::string & path, std::uint64_t bytes)
{
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(bytes)), 0) << path;
}

/** Inspects `path` whole (complete), then with `dataFile` cut to a third (incomplete, and the
 * message names the short file, what was found and what was expected). */
void
ExpectWholeThenShort(const std::string & path, const std::string & dataFile, const std::string & format,
                     std::uint64_t expectedPixelBytes)
{
  SCOPED_TRACE(path);
  const cbct::ImageFileContents whole = cbct::ImageFileContents::Inspect(path);
  EXPECT_EQ(whole.Format(), format);
  EXPECT_TRUE(whole.Measured());
  EXPECT_TRUE(whole.Complete()) << whole.Found() << " of " << whole.Expected();
  EXPECT_NO_THROW(whole.CheckComplete());
  if (expectedPixelBytes > 0)
  {
    EXPECT_EQ(whole.Expected(), expectedPixelBytes);
    EXPECT_GE(whole.Found(), expectedPixelBytes);
  }
  const std::uint64_t size = SizeOf(dataFile);
  ASSERT_GT(size, 100u);
  CutTo(dataFile, size / 3);
  const cbct::ImageFileContents cut = cbct::ImageFileContents::Inspect(path);
  EXPECT_TRUE(cut.Measured());
  EXPECT_FALSE(cut.Complete()) << cut.Found() << " of " << cut.Expected();
  EXPECT_LT(cut.Found(), cut.Expected());
  EXPECT_EQ(cut.ShortFile(), dataFile);
  try
  {
    cut.CheckComplete();
    ADD_FAILURE() << "no exception for a file cut short";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find(dataFile), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(cut.Found())), std::string::npos) << message;
    EXPECT_NE(message.find("expected"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(cut.Expected())), std::string::npos) << message;
    EXPECT_NE(message.find("cut short"), std::string::npos) << message;
  }
}

struct FloatFormat
{
  const char * name;
  const char * file;
  const char * dataFile; // cut short: the data file ("" for the file itself)
  bool compress;
  const char * format;
  bool pixelBytes; // Expected() counts pixel bytes (else bytes of file)
};

class WrittenFormats : public ::testing::TestWithParam<FloatFormat>
{};

TEST_P(WrittenFormats, WholeIsCompleteAndCutShortIsNot)
{
  const FloatFormat & f = GetParam();
  const std::string directory = WorkDirectory();
  FloatImage::SizeType size{ { 32, 24, 10 } };
  auto image = Ramp<FloatImage>(size);
  const std::string path = directory + f.file;
  Write(image.GetPointer(), path, f.compress);
  const std::string data = std::string(f.dataFile).empty() ? path : directory + f.dataFile;
  ExpectWholeThenShort(path, data, f.format, f.pixelBytes ? 32u * 24u * 10u * 4u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
  Formats,
  WrittenFormats,
  ::testing::Values(FloatFormat{ "MetaImageLocal", "a.mha", "", false, "MetaImage", true },
                    FloatFormat{ "MetaImageLocalCompressed", "a.mha", "", true, "MetaImage", true },
                    FloatFormat{ "MetaImageDetached", "a.mhd", "a.raw", false, "MetaImage", true },
                    FloatFormat{ "MetaImageDetachedCompressed", "a.mhd", "a.zraw", true, "MetaImage", true },
                    FloatFormat{ "NrrdAttached", "a.nrrd", "", false, "Nrrd", true },
                    FloatFormat{ "NrrdAttachedGzip", "a.nrrd", "", true, "Nrrd", true },
                    FloatFormat{ "NrrdDetached", "a.nhdr", "a.raw", false, "Nrrd", true },
                    FloatFormat{ "NrrdDetachedGzip", "a.nhdr", "a.raw.gz", true, "Nrrd", true },
                    FloatFormat{ "Nifti", "a.nii", "", false, "Nifti", true },
                    FloatFormat{ "NiftiGzip", "a.nii.gz", "", false, "Nifti", true },
                    FloatFormat{ "NiftiPair", "a.hdr", "a.img", false, "Nifti", true },
                    FloatFormat{ "Tiff", "a.tif", "", false, "TIFF", false },
                    FloatFormat{ "TiffCompressed", "a.tif", "", true, "TIFF", false },
                    FloatFormat{ "Vtk", "a.vtk", "", false, "VTK", true },
                    FloatFormat{ "Gipl", "a.gipl", "", false, "Gipl", true },
                    FloatFormat{ "Hdf5", "a.hdf5", "", false, "HDF5", false },
                    FloatFormat{ "Mrc", "a.mrc", "", false, "MRC", true }),
  [](const ::testing::TestParamInfo<FloatFormat> & info) { return std::string(info.param.name); });

TEST(ImageFileContents, TwoDimensionalFormats)
{
  const std::string directory = WorkDirectory();
  ByteImage::SizeType size{ { 64, 48 } };
  auto image = Ramp<ByteImage>(size);
  for (const char * name : { "b.png", "b.jpg", "b.bmp" })
  {
    const std::string path = directory + name;
    Write(image.GetPointer(), path, false);
    const std::string format = name == std::string("b.png") ? "PNG" : name == std::string("b.jpg") ? "JPEG" : "BMP";
    ExpectWholeThenShort(path, path, format, 0);
  }
}

TEST(ImageFileContents, AsciiMetaImageCountsValues)
{
  const std::string directory = WorkDirectory();
  FloatImage::SizeType size{ { 8, 6, 4 } };
  auto image = Ramp<FloatImage>(size);
  auto io = itk::MetaImageIO::New();
  io->SetFileType(itk::IOFileEnum::ASCII);
  const std::string path = directory + "ascii.mha";
  Write(image.GetPointer(), path, false, io);
  const auto whole = cbct::ImageFileContents::Inspect(path);
  EXPECT_EQ(whole.Unit(), "values");
  EXPECT_EQ(whole.Expected(), 8u * 6u * 4u);
  EXPECT_TRUE(whole.Complete());
  CutTo(path, SizeOf(path) - 200); // the last values
  const auto cut = cbct::ImageFileContents::Inspect(path);
  EXPECT_FALSE(cut.Complete());
  EXPECT_LT(cut.Found(), 8u * 6u * 4u);
}

/** A MetaImage header for 4 x 3 x 2 float pixels whose data are in `dataFile`. */
std::string
MetaHeader(const std::string & dataFile, const std::string & extra = "")
{
  return "ObjectType = Image\nNDims = 3\nDimSize = 4 3 2\nElementType = MET_FLOAT\nElementByteOrderMSB = False\n" + extra +
         "ElementDataFile = " + dataFile + "\n";
}

void
WriteText(const std::string & path, const std::string & text)
{
  std::ofstream out(path, std::ios::binary);
  out << text;
}

TEST(ImageFileContents, MetaImageListAndPatternSumTheirFiles)
{
  const std::string directory = WorkDirectory();
  // One slice (4 x 3 floats, 48 bytes) per file.
  WriteText(directory + "s0.raw", std::string(48, '\1'));
  WriteText(directory + "s1.raw", std::string(48, '\2'));
  WriteText(directory + "list.mhd", MetaHeader("LIST 2D") + "s0.raw\ns1.raw\n");
  auto list = cbct::ImageFileContents::Inspect(directory + "list.mhd");
  EXPECT_EQ(list.Expected(), 96u);
  EXPECT_EQ(list.Found(), 96u);
  EXPECT_TRUE(list.Complete());
  ASSERT_EQ(list.Files().size(), 3u);
  EXPECT_EQ(list.Files()[2], directory + "s1.raw");
  WriteText(directory + "pattern.mhd", MetaHeader("s%d.raw 0 1 1 2"));
  EXPECT_TRUE(cbct::ImageFileContents::Inspect(directory + "pattern.mhd").Complete());
  CutTo(directory + "s1.raw", 20);
  auto cut = cbct::ImageFileContents::Inspect(directory + "pattern.mhd");
  EXPECT_FALSE(cut.Complete());
  EXPECT_EQ(cut.Found(), 68u);
  EXPECT_EQ(cut.ShortFile(), directory + "s1.raw");
}

TEST(ImageFileContents, MetaImageHeaderSizeAndMissingDataFile)
{
  const std::string directory = WorkDirectory();
  WriteText(directory + "skip.raw", std::string(100 + 96, '\0'));
  WriteText(directory + "skip.mhd", MetaHeader("skip.raw", "HeaderSize = 100\n"));
  EXPECT_TRUE(cbct::ImageFileContents::Inspect(directory + "skip.mhd").Complete());
  WriteText(directory + "skip2.mhd", MetaHeader("skip.raw", "HeaderSize = 120\n"));
  auto cut = cbct::ImageFileContents::Inspect(directory + "skip2.mhd");
  EXPECT_FALSE(cut.Complete());
  EXPECT_EQ(cut.Found(), 76u);
  // HeaderSize -1: the data are the file's last bytes.
  WriteText(directory + "end.mhd", MetaHeader("skip.raw", "HeaderSize = -1\n"));
  EXPECT_TRUE(cbct::ImageFileContents::Inspect(directory + "end.mhd").Complete());

  WriteText(directory + "missing.mhd", MetaHeader("nowhere.raw"));
  try
  {
    cbct::ImageFileContents::Inspect(directory + "missing.mhd");
    ADD_FAILURE() << "no exception for a missing data file";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("nowhere.raw"), std::string::npos) << message;
    EXPECT_NE(message.find("missing.mhd"), std::string::npos) << message;
  }
}

TEST(ImageFileContents, PatternFormatsAreCheckedNotPrinted)
{
  const std::string directory = WorkDirectory();
  // A pattern from a file is never given to printf: %s or %n is refused.
  for (const char * pattern : { "s%s.raw 0 1 1 2", "s%n.raw 0 1 1 2", "s%d%d.raw 0 1 1 2", "s%d.raw 0 1 0 2" })
  {
    WriteText(directory + "bad.mhd", MetaHeader(pattern));
    EXPECT_THROW(cbct::ImageFileContents::Inspect(directory + "bad.mhd"), itk::ExceptionObject) << pattern;
  }
  WriteText(directory + "s007.raw", std::string(48, '\0'));
  WriteText(directory + "s008.raw", std::string(48, '\0'));
  WriteText(directory + "padded.mhd", MetaHeader("s%03d.raw 7 8 1 2"));
  EXPECT_TRUE(cbct::ImageFileContents::Inspect(directory + "padded.mhd").Complete());
}

TEST(ImageFileContents, NrrdLineAndByteSkips)
{
  const std::string directory = WorkDirectory();
  const std::string header = "NRRD0004\ntype: float\ndimension: 3\nsizes: 4 3 2\nendian: little\nencoding: raw\n";
  WriteText(directory + "d.raw", "comment line\n" + std::string(10 + 96, '\0'));
  WriteText(directory + "skips.nhdr", header + "line skip: 1\nbyte skip: 10\ndata file: d.raw\n");
  auto whole = cbct::ImageFileContents::Inspect(directory + "skips.nhdr");
  EXPECT_TRUE(whole.Complete()) << whole.Found();
  EXPECT_EQ(whole.Found(), 96u);
  WriteText(directory + "more.nhdr", header + "line skip: 1\nbyte skip: 11\ndata file: d.raw\n");
  EXPECT_FALSE(cbct::ImageFileContents::Inspect(directory + "more.nhdr").Complete());
}

TEST(ImageFileContents, UnreadableFilesThrowNamingThem)
{
  const std::string directory = WorkDirectory();
  WriteText(directory + "garbage.mha", "these are not projections\n");
  try
  {
    cbct::ImageFileContents::Inspect(directory + "garbage.mha");
    ADD_FAILURE() << "no exception";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("garbage.mha"), std::string::npos) << e.GetDescription();
  }
}


// NDims outside 1..10 made ITK 5.2's MetaIO write past its arrays (found by cbctFuzzProjectionFile):
// refused before ITK reads the header, naming the key, the file and the range.
TEST(ImageFileContents, MetaImageDimensionsOutOfRangeAreRefused)
{
  const std::string directory = WorkDirectory();
  for (const std::string dimensions : { "0", "11", "-2", "two" })
  {
    const std::string path = directory + "ndims_" + dimensions + ".mha";
    WriteText(path, "ObjectType = Image\nNDims = " + dimensions +
                      "\nDimSize = 2 2\nElementType = MET_SHORT\nElementDataFile = LOCAL\n1 2 3 4\n");
    try
    {
      cbct::ImageFileContents::Inspect(path);
      ADD_FAILURE() << "NDims = " << dimensions << " accepted";
    }
    catch (const itk::ExceptionObject & e)
    {
      const std::string message = e.GetDescription();
      EXPECT_NE(message.find("NDims in " + path + " is '" + dimensions + "'; expected a number of dimensions from 1 to 10"),
                std::string::npos)
        << message;
    }
  }
}

// ITK 5.2's MetaIO copies a header key it does not know into a 255-byte name with strcpy: a key of 255
// characters or more overflowed it (found by cbctFuzzProjectionFile). Such a key is refused before ITK
// reads the header; 254 characters are still read.
TEST(ImageFileContents, MetaImageKeyLongerThanMetaIOTakesIsRefused)
{
  const std::string directory = WorkDirectory();
  const std::string rest = "NDims = 3\nDimSize = 2 1 1\nElementType = MET_SHORT\nElementDataFile = LOCAL\n1 2\n";
  const std::string fits = directory + "key_254.mha";
  WriteText(fits, "ObjectType = Image\n" + std::string(254, 'K') + " = v\n" + rest);
  EXPECT_EQ(cbct::ImageFileContents::Inspect(fits).Pixels(), 2u);
  const std::string tooLong = directory + "key_255.mha";
  WriteText(tooLong, "ObjectType = Image\n" + std::string(255, 'K') + " = v\n" + rest);
  try
  {
    cbct::ImageFileContents::Inspect(tooLong);
    ADD_FAILURE() << "a key of 255 characters accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("line 2 of the header of " + tooLong + " is a key of 255 characters"), std::string::npos)
      << message;
    EXPECT_NE(message.find("expected a header field name of at most 254 characters"), std::string::npos) << message;
  }
}

/** The bytes of a file, and a file of bytes. */
std::string
ReadBytes(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void
WriteBytes(const std::string & path, const std::string & bytes)
{
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/** Inspect(path) must find the PNG file complete but damaged, and CheckComplete() say so, naming
 * the file and libpng's message `why`. */
void
ExpectDamagedPng(const std::string & path, const std::string & why)
{
  SCOPED_TRACE(path);
  const cbct::ImageFileContents contents = cbct::ImageFileContents::Inspect(path);
  EXPECT_EQ(contents.Format(), "PNG");
  EXPECT_TRUE(contents.Complete());
  EXPECT_FALSE(contents.Intact());
  EXPECT_EQ(contents.Damage(), why);
  try
  {
    contents.CheckComplete();
    ADD_FAILURE() << "no exception for a damaged PNG";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("PNG file " + path + " is damaged (libpng: " + why + "); expected a file whose chunks"),
              std::string::npos)
      << message;
  }
}

// ITK 5.2's PNG reader let libpng abort the process on a damaged chunk (found by
// cbctFuzzProjectionFile): a PNG is decoded whole first. A good one (8 and 16 bits) is intact and
// read; a damaged chunk type, a CRC mismatch in the pixel data or in an ancillary chunk, and pixel
// data that inflate to too few rows are damage, named with libpng's message.
TEST(ImageFileContents, DamagedPngIsFoundBeforeItkReadsIt)
{
  const std::string directory = WorkDirectory();
  const std::string good = directory + "good.png";
  Write(Ramp<ByteImage>(ByteImage::SizeType{ { 40, 30 } }).GetPointer(), good, true);
  const cbct::ImageFileContents whole = cbct::ImageFileContents::Inspect(good);
  EXPECT_TRUE(whole.Complete());
  EXPECT_TRUE(whole.Intact()) << whole.Damage();
  EXPECT_NO_THROW(whole.CheckComplete());
  ASSERT_EQ(whole.Dimensions().size(), 2u);
  EXPECT_EQ(whole.Dimensions()[0], 40u);
  EXPECT_EQ(whole.Dimensions()[1], 30u);
  using ShortImage = itk::Image<unsigned short, 2>;
  const std::string deep = directory + "deep.png";
  Write(Ramp<ShortImage>(ShortImage::SizeType{ { 20, 10 } }).GetPointer(), deep, false);
  EXPECT_TRUE(cbct::ImageFileContents::Inspect(deep).Intact()) << cbct::ImageFileContents::Inspect(deep).Damage();

  const std::string bytes = ReadBytes(good);
  ASSERT_EQ(bytes.compare(12, 4, "IHDR"), 0);
  std::string chunkType = bytes;
  chunkType[13] = '\0'; // IHDR -> I\0DR
  WriteBytes(directory + "chunk_type.png", chunkType);
  ExpectDamagedPng(directory + "chunk_type.png", "I[00]DR: invalid chunk type");

  const std::size_t idat = bytes.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  // The IDAT chunk's CRC changed (its data left as they are: changed data could fail to inflate first).
  const std::size_t idatLength = (static_cast<unsigned char>(bytes[idat - 2]) << 8) | static_cast<unsigned char>(bytes[idat - 1]);
  ASSERT_EQ(bytes[idat - 4], '\0');
  ASSERT_EQ(bytes[idat - 3], '\0');
  std::string crc = bytes;
  crc[idat + 4 + idatLength] = static_cast<char>(crc[idat + 4 + idatLength] ^ 0x40);
  WriteBytes(directory + "idat_crc.png", crc);
  ExpectDamagedPng(directory + "idat_crc.png", "IDAT: CRC error");

  // An ancillary chunk (tEXt) with a wrong CRC: libpng's default would only warn.
  const std::string text = std::string("\0\0\0\x0a", 4) + std::string("tEXtComment\0ab", 14) + std::string("\0\0\0\0", 4);
  const std::string withText = bytes.substr(0, idat - 4) + text + bytes.substr(idat - 4);
  WriteBytes(directory + "text_crc.png", withText);
  ExpectDamagedPng(directory + "text_crc.png", "tEXt: CRC error");

  // IHDR promising more rows than the pixel data hold (its CRC made right): not enough image data.
  std::string taller = bytes;
  taller[23] = static_cast<char>(60); // height 30 -> 60 (big-endian, its low byte)
  const auto crcOfIhdr = static_cast<std::uint32_t>(
    crc32(0L, reinterpret_cast<const Bytef *>(taller.data() + 12), 17));
  for (int i = 0; i < 4; ++i)
    taller[29 + i] = static_cast<char>((crcOfIhdr >> (24 - 8 * i)) & 0xFF);
  WriteBytes(directory + "taller.png", taller);
  ExpectDamagedPng(directory + "taller.png", "Not enough image data");
}

// A NIfTI header whose spacing is not finite made ITK 5.2's NiftiImageIO hand vnl a NaN matrix, on
// which it aborts the process (found by cbctFuzzProjectionFile): refused before ITK reads it.
TEST(ImageFileContents, NiftiWithNonFiniteSpacingIsRefused)
{
  const std::string directory = WorkDirectory();
  const std::string path = directory + "a.nii";
  Write(Ramp<FloatImage>(FloatImage::SizeType{ { 8, 8, 2 } }).GetPointer(), path, false);
  EXPECT_NO_THROW(cbct::ImageFileContents::Inspect(path));
  std::string bytes = ReadBytes(path);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(&bytes[80], &nan, sizeof(nan)); // pixdim[1]: the spacing along x
  WriteBytes(path, bytes);
  try
  {
    cbct::ImageFileContents::Inspect(path);
    ADD_FAILURE() << "a NaN spacing accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("pixdim[1] in the NIfTI header " + path + " is nan; expected a finite value"), std::string::npos)
      << message;
  }
}

// ITK 5.2's TIFF reader copies 20 characters of a DateTime tag whatever its length (a heap buffer
// overflow, found by cbctFuzzProjectionFile): a shorter one is refused before ITK reads the file.
// Made from a TIFF that ITK writes by renaming its Software tag (305, "InsightToolkit") DateTime (306).
TEST(ImageFileContents, TiffWithShortDateTimeIsRefused)
{
  const std::string directory = WorkDirectory();
  const std::string path = directory + "a.tif";
  Write(Ramp<FloatImage>(FloatImage::SizeType{ { 8, 8, 2 } }).GetPointer(), path, false);
  EXPECT_NO_THROW(cbct::ImageFileContents::Inspect(path));
  std::string bytes = ReadBytes(path);
  ASSERT_EQ(bytes.compare(0, 4, std::string("II*\0", 4)), 0);
  const auto get32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at])) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 1])) << 8) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 2])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + 3])) << 24);
  };
  const std::size_t directoryAt = get32(4);
  const std::size_t entries = static_cast<unsigned char>(bytes[directoryAt]) | (static_cast<unsigned char>(bytes[directoryAt + 1]) << 8);
  bool renamed = false;
  for (std::size_t e = 0; e < entries && !renamed; ++e)
  {
    const std::size_t at = directoryAt + 2 + 12 * e;
    if (static_cast<unsigned char>(bytes[at]) == 305 - 256 && bytes[at + 1] == 1)
    {
      bytes[at] = static_cast<char>(306 - 256);
      renamed = true;
    }
  }
  ASSERT_TRUE(renamed) << "no Software tag in the TIFF that ITK wrote";
  WriteBytes(path, bytes);
  try
  {
    cbct::ImageFileContents::Inspect(path);
    ADD_FAILURE() << "a DateTime of 14 characters accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("tag 306 (DateTime) of TIFF file " + path +
                           " is 'InsightToolkit' (14 characters); expected a date of 19 characters"),
              std::string::npos)
      << message;
  }
}

} // namespace
