// The Elekta HIS ImageIO: pixels and header fields read back from files of known contents, one and
// several frames, through ITK's object factory; damaged files refused with a message naming the
// file and the field.
#include "cbctElektaTestFiles.h"
#include "cbctTestFolder.h"
#include "cbctHisImageIO.h"
#include "cbctHisImageIOFactory.h"

#include <gtest/gtest.h>
#include <itkImageFileReader.h>
#include <itkMetaDataObject.h>

namespace
{
using cbct::test::HisSpec;

class HisImageIOTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    cbct::HisImageIOFactory::RegisterOneFactory();
    m_Folder = cbct::test::CurrentTestFolder();
  }
  std::string
  Write(const std::string & name, const HisSpec & spec)
  {
    const std::string path = (m_Folder / name).string();
    cbct::test::WriteHis(path, spec);
    return path;
  }
  std::string
  WriteBytes(const std::string & name, const std::string & bytes)
  {
    const std::string path = (m_Folder / name).string();
    cbct::test::WriteBytes(path, bytes);
    return path;
  }
  /** The message of the exception reading `path` throws (through ITK's reader); "" if none. */
  static std::string
  ReadError(const std::string & path)
  {
    auto reader = itk::ImageFileReader<itk::Image<unsigned short, 2>>::New();
    reader->SetFileName(path);
    try
    {
      reader->Update();
    }
    catch (const itk::ExceptionObject & e)
    {
      return e.GetDescription();
    }
    return std::string();
  }
  std::filesystem::path m_Folder;
};

template <typename T>
T
MetaValue(const itk::MetaDataDictionary & dictionary, const std::string & key)
{
  T value{};
  EXPECT_TRUE(itk::ExposeMetaData<T>(dictionary, key, value)) << key;
  return value;
}

TEST_F(HisImageIOTest, ReadsPixelsAndHeaderFields)
{
  HisSpec spec;
  spec.width = 5;
  spec.height = 3;
  spec.ulx = 2;
  spec.uly = 7;
  spec.correction = 3;
  spec.integrationTime = 33333.5;
  spec.imageHeaderSize = 32;
  spec.pixels = { 0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004, 65535, 40000, 12345, 7, 65534 };
  const std::string path = Write("one.his", spec);

  auto reader = itk::ImageFileReader<itk::Image<unsigned short, 2>>::New();
  reader->SetFileName(path);
  reader->Update();
  EXPECT_STREQ(reader->GetImageIO()->GetNameOfClass(), "HisImageIO");
  const auto * image = reader->GetOutput();
  const auto size = image->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], 5u);
  ASSERT_EQ(size[1], 3u);
  for (unsigned int y = 0; y < 3; ++y)
    for (unsigned int x = 0; x < 5; ++x)
      EXPECT_EQ(image->GetPixel({ { x, y } }), spec.pixels[5 * y + x]) << x << "," << y;
  // 409.6 mm panel over 5 x 3 pixels, centred.
  EXPECT_NEAR(image->GetSpacing()[0], 409.6 / 5, 1e-12);
  EXPECT_NEAR(image->GetSpacing()[1], 409.6 / 3, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[0], -2 * 409.6 / 5, 1e-9);
  EXPECT_NEAR(image->GetOrigin()[1], -1 * 409.6 / 3, 1e-9);

  const auto & d = image->GetMetaDataDictionary();
  EXPECT_EQ(MetaValue<int>(d, "HIS_FileType"), 0x7000);
  EXPECT_EQ(MetaValue<int>(d, "HIS_HeaderSize"), 68);
  EXPECT_EQ(MetaValue<int>(d, "HIS_HeaderVersion"), 100);
  EXPECT_EQ(MetaValue<unsigned int>(d, "HIS_FileSize"), 68u + 32u + 30u);
  EXPECT_EQ(MetaValue<int>(d, "HIS_ImageHeaderSize"), 32);
  EXPECT_EQ(MetaValue<int>(d, "HIS_ULX"), 2);
  EXPECT_EQ(MetaValue<int>(d, "HIS_ULY"), 7);
  EXPECT_EQ(MetaValue<int>(d, "HIS_BRX"), 6);
  EXPECT_EQ(MetaValue<int>(d, "HIS_BRY"), 9);
  EXPECT_EQ(MetaValue<int>(d, "HIS_NumberOfFrames"), 1);
  EXPECT_EQ(MetaValue<int>(d, "HIS_Correction"), 3);
  EXPECT_EQ(MetaValue<double>(d, "HIS_IntegrationTime"), 33333.5);
  EXPECT_EQ(MetaValue<int>(d, "HIS_TypeOfNumbers"), 4);
}

TEST_F(HisImageIOTest, SeveralFramesAreA3DImage)
{
  HisSpec spec;
  spec.width = 4;
  spec.height = 2;
  spec.frames = 3;
  spec.imageHeaderSize = 0;
  const std::string path = Write("stack.HIS", spec);
  auto reader = itk::ImageFileReader<itk::Image<float, 3>>::New();
  reader->SetFileName(path);
  reader->Update();
  const auto * image = reader->GetOutput();
  const auto size = image->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], 4u);
  ASSERT_EQ(size[1], 2u);
  ASSERT_EQ(size[2], 3u);
  for (unsigned int f = 0; f < 3; ++f)
    for (unsigned int y = 0; y < 2; ++y)
      for (unsigned int x = 0; x < 4; ++x)
        EXPECT_EQ(image->GetPixel({ { x, y, f } }), static_cast<float>(x + 10 * y + 100 * f));
  EXPECT_EQ(image->GetSpacing()[2], 1.);
  EXPECT_EQ(image->GetOrigin()[2], 0.);
}

TEST_F(HisImageIOTest, FileSizeLargerThanNeededIsRead)
{
  HisSpec spec;
  std::string bytes = cbct::test::HisBytes(spec) + std::string(10, 'x');
  const std::string path = WriteBytes("trailing.his", bytes);
  EXPECT_EQ(ReadError(path), "");
}

TEST_F(HisImageIOTest, ClaimsHisFilesByExtension)
{
  auto io = cbct::HisImageIO::New();
  EXPECT_TRUE(io->CanReadFile("/some/where/00001.1.2.3.his"));
  EXPECT_TRUE(io->CanReadFile("/some/where/FRAME.HIS"));
  EXPECT_FALSE(io->CanReadFile("/some/where/projection.mha"));
  EXPECT_FALSE(io->CanReadFile("/some/where/his"));
  EXPECT_FALSE(io->CanWriteFile("out.his"));
}

TEST_F(HisImageIOTest, TruncatedPixelsAreRefused)
{
  HisSpec spec;
  std::string bytes = cbct::test::HisBytes(spec);
  bytes.resize(bytes.size() - 3);
  const std::string path = WriteBytes("truncated.his", bytes);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, TruncatedHeaderIsRefused)
{
  const std::string path = WriteBytes("short.his", cbct::test::HisBytes(HisSpec()).substr(0, 30));
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path), std::string::npos) << message;
  EXPECT_NE(message.find("shorter than the 68-byte header"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, DamagedImageHeaderSizePastTheEndIsRefused)
{
  HisSpec spec;
  std::string bytes = cbct::test::HisBytes(spec);
  cbct::test::Put16(bytes, 10, 60000);
  const std::string path = WriteBytes("header_past_end.his", bytes);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path), std::string::npos) << message;
  EXPECT_NE(message.find("image header size 60000"), std::string::npos) << message;
  EXPECT_NE(message.find("past the end"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, BadFrameCountIsRefused)
{
  HisSpec spec;
  spec.numberOfFrames = 1000; // the file holds one frame
  const std::string path = Write("lying.his", spec);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path), std::string::npos) << message;
  EXPECT_NE(message.find("1000 frame(s) of 4 x 3"), std::string::npos) << message;

  spec.numberOfFrames = 0;
  const std::string none = Write("none.his", spec);
  EXPECT_NE(ReadError(none).find("number of frames is 0"), std::string::npos) << ReadError(none);
}

TEST_F(HisImageIOTest, BadNegativeWidthIsRefused)
{
  HisSpec spec;
  spec.ulx = 10;
  spec.brx = 5;
  const std::string path = Write("negative.his", spec);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path), std::string::npos) << message;
  EXPECT_NE(message.find("ULX..BRX = 10..5"), std::string::npos) << message;
  EXPECT_NE(message.find("expected BRX >= ULX"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, BadHugeSizeIsRefusedBeforeAllocation)
{
  HisSpec spec;
  spec.brx = 65535;
  spec.bry = 65535;
  spec.numberOfFrames = 65535; // 65536^2 x 65535 x 2 bytes claimed by a file of a few bytes
  const std::string path = Write("huge.his", spec);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("65535 frame(s) of 65536 x 65536"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, BadMagicAndHeaderSizeAreRefused)
{
  HisSpec spec;
  spec.fileType = 0x1234;
  const std::string path = Write("magic.his", spec);
  EXPECT_NE(ReadError(path).find("file type is 0x1234; expected 0x7000"), std::string::npos) << ReadError(path);
  spec.fileType = 0x7000;
  spec.headerSize = 100;
  const std::string header = Write("header.his", spec);
  EXPECT_NE(ReadError(header).find("header size is 100; expected 68"), std::string::npos) << ReadError(header);
}

TEST_F(HisImageIOTest, BadHisFileThatStartsLikeAPngGetsTheHisMessage)
{
  // HisImageIO is asked before ITK's readers: behind them, ITK's PNG reader took this file and
  // libpng aborted the process (cbctFuzzHisFile's first find).
  std::string bytes = cbct::test::HisBytes(HisSpec());
  bytes.replace(0, 8, "\x89PNG\r\n\x1a\n", 8);
  const std::string path = WriteBytes("png.his", bytes);
  const std::string message = ReadError(path);
  EXPECT_NE(message.find("HIS file " + path + ": file type is 0x5089"), std::string::npos) << message;
}

TEST_F(HisImageIOTest, WriteIsRefused)
{
  auto io = cbct::HisImageIO::New();
  io->SetFileName((m_Folder / "out.his").string());
  unsigned short pixel = 0;
  EXPECT_THROW(io->Write(&pixel), itk::ExceptionObject);
}

TEST_F(HisImageIOTest, FactoryRegistersOnce)
{
  cbct::HisImageIOFactory::RegisterOneFactory();
  cbct::HisImageIOFactory::RegisterOneFactory();
  int count = 0;
  for (auto * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
    count += dynamic_cast<cbct::HisImageIOFactory *>(factory) != nullptr ? 1 : 0;
  EXPECT_EQ(count, 1);
}
} // namespace
