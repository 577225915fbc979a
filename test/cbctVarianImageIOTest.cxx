// The Varian projection readers (XimImageIO, HndImageIO) and their decoder, on files written from the
// formats' definitions by cbctVarianTestFiles.h: known pixels (differences of 1, 2 and 4 bytes,
// negative, wrapping), every property or header field in the dictionary with its type, the grid;
// damaged files (cut short anywhere, sizes that lie, codes that do not exist) refused with a message
// naming the file; and the readers found by a plain itk::ImageFileReader, which this test registers
// nothing for (the library registers them when it loads).
#include "cbctHndImageIO.h"
#include "cbctHndImageIOFactory.h"
#include "cbctImageFileContents.h"
#include "cbctScannerImageIOFactories.h"
#include "cbctTestFolder.h"
#include "cbctVarianCompressedPixels.h"
#include "cbctVarianTestFiles.h"
#include "cbctXimImageIO.h"
#include "cbctXimImageIOFactory.h"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkMetaDataObject.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{
using namespace cbct::test;
using ::testing::HasSubstr;

using Int32Image = itk::Image<std::int32_t, 2>;
using UInt32Image = itk::Image<std::uint32_t, 2>;
using UInt16Image = itk::Image<std::uint16_t, 2>;
using FloatImage = itk::Image<float, 2>;

using cbct::test::TestFile; // the running test's folder, removed when it ends

template <typename TImage>
typename TImage::Pointer
ReadThroughItk(const std::string & path)
{
  auto reader = itk::ImageFileReader<TImage>::New();
  reader->SetFileName(path);
  reader->Update();
  return reader->GetOutput();
}

template <typename TImage, typename TValue>
std::vector<TValue>
Pixels(const TImage * image)
{
  const auto n = image->GetLargestPossibleRegion().GetNumberOfPixels();
  return std::vector<TValue>(image->GetBufferPointer(), image->GetBufferPointer() + n);
}

/** The message of the exception reading `path` with `io` throws (ReadImageInformation() then
 * Read()), or "" when none does. */
std::string
ReadError(itk::ImageIOBase * io, const std::string & path)
{
  try
  {
    io->SetFileName(path);
    io->ReadImageInformation();
    std::vector<unsigned char> buffer(io->GetImageSizeInBytes());
    io->Read(buffer.data());
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return std::string();
}

std::string
XimError(const Bytes & bytes, const std::string & name)
{
  const std::string path = TestFile(name);
  WriteBytes(path, bytes);
  return ReadError(cbct::XimImageIO::New(), path);
}

std::string
HndError(const Bytes & bytes, const std::string & name)
{
  const std::string path = TestFile(name);
  WriteBytes(path, bytes);
  return ReadError(cbct::HndImageIO::New(), path);
}

/** A 7 x 5 image whose differences need 1, 2 and 4 bytes, positive and negative, and whose sums
 * wrap around 32 bits; 7 columns: the lookup table ends in a partly used byte. */
XimContents
KnownXim()
{
  XimContents c;
  c.width = 7;
  c.height = 5;
  c.pixels = { 1000,  1001, 1003, 1002, 999,  1000, 1005, //
               1002,  1004, 1010, 900,  850,  1000, 1001, //
               -5000, 70000, 1012, 1013, 2147483647, -2147483647 - 1, 12, //
               1003,  1001, 999,  1004, 1006, 1005, 1009, //
               0,     -1,   -200,  40000, -40000, 5, 1000000000 };
  c.properties = TypicalXimProperties();
  c.histogram = { 1, 2, 3, 4 };
  return c;
}

XimContents
RandomXim(std::int32_t width, std::int32_t height, unsigned seed)
{
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<std::int32_t> small(-100, 100), medium(-30000, 30000), any(std::numeric_limits<std::int32_t>::min(),
                                                                                          std::numeric_limits<std::int32_t>::max());
  XimContents c;
  c.width = width;
  c.height = height;
  c.pixels.resize(std::size_t(width) * height);
  std::int32_t v = 3000;
  for (auto & p : c.pixels)
  {
    const int k = kind(random);
    v = k < 7 ? v + small(random) : k < 9 ? v + medium(random) : any(random);
    p = v;
  }
  c.properties = { XimProperty::Real("PixelWidth", 0.0388), XimProperty::Real("PixelHeight", 0.0388) };
  return c;
}

// ------------------------------------------------------------------------------------------------

TEST(VarianCompressedPixels, DecodesDifferencesOfOneTwoAndFourBytesWithWrapping)
{
  const XimContents c = KnownXim();
  const XimFile f = MakeXim(c);
  EXPECT_GT(f.compression.oneByte, 0u);
  EXPECT_GT(f.compression.twoBytes, 0u);
  EXPECT_GT(f.compression.fourBytes, 0u);
  std::vector<std::uint32_t> out(c.pixels.size(), 0xdeadbeef);
  cbct::VarianCompressedPixels::Decode(f.compression.lookupTable.data(), f.compression.lookupTable.size(), f.compression.buffer.data(),
                                       f.compression.buffer.size(), c.width, c.height, out.data(), "known");
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(static_cast<std::int32_t>(out[i]), c.pixels[i]) << "pixel " << i;
}

TEST(VarianCompressedPixels, RandomImagesOfEveryTableTail)
{
  // Widths 4..7 and heights 2..4: differences % 4 takes every value.
  unsigned seed = 1;
  for (std::int32_t width : { 1, 4, 5, 6, 7, 64 })
    for (std::int32_t height : { 2, 3, 4, 48 })
    {
      const XimContents c = RandomXim(width, height, seed++);
      const XimFile f = MakeXim(c);
      std::vector<std::uint32_t> out(c.pixels.size(), 0);
      cbct::VarianCompressedPixels::Decode(f.compression.lookupTable.data(), f.compression.lookupTable.size(),
                                           f.compression.buffer.data(), f.compression.buffer.size(), width, height, out.data(), "random");
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(static_cast<std::int32_t>(out[i]), c.pixels[i]) << width << " x " << height << ", pixel " << i;
    }
}

TEST(VarianCompressedPixels, BadCodeAndShortBufferRefused)
{
  const XimContents c = KnownXim();
  XimFile f = MakeXim(c);
  std::vector<std::uint32_t> out(c.pixels.size());
  Bytes table = f.compression.lookupTable;
  table[2] |= 0x30; // the code of difference 10 becomes 3
  try
  {
    cbct::VarianCompressedPixels::Decode(table.data(), table.size(), f.compression.buffer.data(), f.compression.buffer.size(), c.width,
                                         c.height, out.data(), "file.xim");
    FAIL() << "a code 3 was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_THAT(e.GetDescription(), HasSubstr("lookup-table code of pixel 10 after the first row of file.xim is 3"));
  }
  try
  {
    cbct::VarianCompressedPixels::Decode(f.compression.lookupTable.data(), f.compression.lookupTable.size(), f.compression.buffer.data(),
                                         f.compression.buffer.size() - 1, c.width, c.height, out.data(), "file.xim");
    FAIL() << "a short buffer was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_THAT(e.GetDescription(), HasSubstr("compressed pixel data of file.xim is " + std::to_string(f.compression.buffer.size() - 1)));
  }
}

// ------------------------------------------------------------------------------------------------
// XIM

TEST(XimImageIO, CompressedPixelsGridAndPixelType)
{
  const XimContents c = KnownXim();
  const std::string path = TestFile("known.xim");
  WriteXim(path, c);
  auto io = cbct::XimImageIO::New();
  ASSERT_TRUE(io->CanReadFile(path.c_str()));
  io->SetFileName(path);
  io->ReadImageInformation();
  EXPECT_TRUE(io->GetCompressed());
  EXPECT_EQ(io->GetComponentType(), itk::IOComponentEnum::INT);
  EXPECT_EQ(io->GetNumberOfDimensions(), 2u);

  const auto image = ReadThroughItk<Int32Image>(path);
  EXPECT_EQ(image->GetLargestPossibleRegion().GetSize()[0], 7u);
  EXPECT_EQ(image->GetLargestPossibleRegion().GetSize()[1], 5u);
  EXPECT_EQ((Pixels<Int32Image, std::int32_t>(image)), c.pixels);
  // PixelWidth/PixelHeight 0.0388 cm -> 0.388 mm; the detector's centre at (0, 0).
  EXPECT_NEAR(image->GetSpacing()[0], 0.388, 1e-12);
  EXPECT_NEAR(image->GetSpacing()[1], 0.388, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[0], -3. * 0.388, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[1], -2. * 0.388, 1e-12);
}

TEST(XimImageIO, ReadAsFloatThroughItkConversion)
{
  XimContents c = KnownXim();
  c.pixels[20] = 123456; // exactly representable in float, unlike the int32 extremes
  c.pixels[19] = -7;
  const std::string path = TestFile("float.xim");
  WriteXim(path, c);
  const auto image = ReadThroughItk<FloatImage>(path);
  EXPECT_EQ(image->GetPixel({ { 6, 2 } }), 123456.f);
  EXPECT_EQ(image->GetPixel({ { 5, 2 } }), -7.f);
  EXPECT_EQ(image->GetPixel({ { 1, 2 } }), 70000.f);
}

TEST(XimImageIO, UncompressedFourBytes)
{
  XimContents c = KnownXim();
  c.compressed = false;
  const std::string path = TestFile("raw4.xim");
  WriteXim(path, c);
  auto io = cbct::XimImageIO::New();
  io->SetFileName(path);
  io->ReadImageInformation();
  EXPECT_FALSE(io->GetCompressed());
  EXPECT_EQ(io->GetComponentType(), itk::IOComponentEnum::INT);
  EXPECT_EQ((Pixels<Int32Image, std::int32_t>(ReadThroughItk<Int32Image>(path))), c.pixels);
}

TEST(XimImageIO, UncompressedTwoBytesAreUnsigned16)
{
  XimContents c;
  c.width = 3;
  c.height = 2;
  c.pixels = { 0, 1, 32767, 32768, 65535, 40000 };
  c.compressed = false;
  c.bytesPerPixel = 2;
  c.properties = { XimProperty::Real("PixelWidth", 0.05), XimProperty::Real("PixelHeight", 0.1) };
  const std::string path = TestFile("raw2.xim");
  WriteXim(path, c);
  auto io = cbct::XimImageIO::New();
  io->SetFileName(path);
  io->ReadImageInformation();
  EXPECT_EQ(io->GetComponentType(), itk::IOComponentEnum::USHORT);
  const auto image = ReadThroughItk<UInt16Image>(path);
  EXPECT_EQ((Pixels<UInt16Image, std::uint16_t>(image)), (std::vector<std::uint16_t>{ 0, 1, 32767, 32768, 65535, 40000 }));
  EXPECT_NEAR(image->GetSpacing()[0], 0.5, 1e-12);
  EXPECT_NEAR(image->GetSpacing()[1], 1.0, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[0], -0.5, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[1], -0.5, 1e-12);
}

TEST(XimImageIO, EveryPropertyInTheDictionaryWithItsType)
{
  XimContents c = KnownXim();
  c.properties = TypicalXimProperties(33.25);
  c.properties.push_back(XimProperty::Text("Padded", std::string("abc\0\0", 5)));
  c.properties.push_back(XimProperty::Reals("Empty", {}));
  c.properties.push_back(XimProperty::Int("Negative", -17));
  const std::string path = TestFile("properties.xim");
  WriteXim(path, c);
  const auto image = ReadThroughItk<Int32Image>(path);
  const itk::MetaDataDictionary & d = image->GetMetaDataDictionary();

  double real = 0.;
  int integer = 0;
  std::string text;
  std::vector<double> reals;
  std::vector<int> integers;
  ASSERT_TRUE(itk::ExposeMetaData<double>(d, "GantryRtn", real));
  EXPECT_EQ(real, 33.25);
  ASSERT_TRUE(itk::ExposeMetaData<double>(d, "KVSourceRtn", real));
  EXPECT_EQ(real, 123.25);
  for (const auto & [name, value] : std::vector<std::pair<std::string, double>>{ { "KVSourceVrt", 100. },
                                                                                 { "KVDetectorVrt", -50. },
                                                                                 { "KVDetectorLat", -16. },
                                                                                 { "KVDetectorLng", 0.5 },
                                                                                 { "KVKiloVolts", 125. },
                                                                                 { "KVMilliAmperes", 15. },
                                                                                 { "PixelWidth", 0.0388 },
                                                                                 { "PixelHeight", 0.0388 } })
  {
    ASSERT_TRUE(itk::ExposeMetaData<double>(d, name, real)) << name;
    EXPECT_EQ(real, value) << name;
  }
  ASSERT_TRUE(itk::ExposeMetaData<int>(d, "KVNormChamber", integer));
  EXPECT_EQ(integer, 123456);
  EXPECT_FALSE(itk::ExposeMetaData<double>(d, "KVNormChamber", real)) << "an int32 property is stored as int";
  ASSERT_TRUE(itk::ExposeMetaData<int>(d, "Negative", integer));
  EXPECT_EQ(integer, -17);
  ASSERT_TRUE(itk::ExposeMetaData<std::string>(d, "AcquisitionSystemVersion", text));
  EXPECT_EQ(text, "2.7.304.16");
  ASSERT_TRUE(itk::ExposeMetaData<std::string>(d, "Padded", text));
  EXPECT_EQ(text, "abc");
  ASSERT_TRUE(itk::ExposeMetaData<std::vector<double>>(d, "MLCLeafsA", reals));
  EXPECT_EQ(reals, (std::vector<double>{ 1.5, -2.25, 3. }));
  ASSERT_TRUE(itk::ExposeMetaData<std::vector<double>>(d, "Empty", reals));
  EXPECT_TRUE(reals.empty());
  ASSERT_TRUE(itk::ExposeMetaData<std::vector<int>>(d, "DataOffset", integers));
  EXPECT_EQ(integers, (std::vector<int>{ 3, 1, 4 }));
}

TEST(XimImageIO, RecognisedByItsIdentifierNotItsName)
{
  const std::string other = TestFile("projection.dat");
  WriteXim(other, KnownXim());
  EXPECT_TRUE(cbct::XimImageIO::New()->CanReadFile(other.c_str()));
  const std::string fake = TestFile("fake.xim");
  WriteBytes(fake, Bytes(200, 'x'));
  EXPECT_FALSE(cbct::XimImageIO::New()->CanReadFile(fake.c_str()));
  EXPECT_FALSE(cbct::XimImageIO::New()->CanReadFile(TestFile("missing.xim").c_str()));
  EXPECT_EQ((Pixels<Int32Image, std::int32_t>(ReadThroughItk<Int32Image>(other))), KnownXim().pixels);
}

TEST(XimImageIO, BadIdentifierRefused)
{
  XimFile f = MakeXim(KnownXim());
  f.bytes[1] = 'X';
  const std::string message = XimError(f.bytes, "badid.xim");
  EXPECT_THAT(message, HasSubstr("format identifier of XIM file " + TestFile("badid.xim") + " is \"VXS.XI\\x00\\x00\""));
  // Through ITK's factory no reader claims it.
  EXPECT_THROW(ReadThroughItk<Int32Image>(TestFile("badid.xim")), itk::ExceptionObject);
}

TEST(XimImageIO, TruncatedAnywhereRefusedNamingTheFile)
{
  const XimFile f = MakeXim(KnownXim());
  for (std::size_t cut : { std::size_t(5), std::size_t(14), std::size_t(30), f.lookupTableSizeAt + 2, f.lookupTableAt + 3, f.pixelBufferSizeAt + 1,
                           f.pixelBufferAt + 9, f.uncompressedSizeAt + 3, f.histogramAt + 2, f.histogramAt + 9, f.propertiesAt + 2,
                           f.propertiesAt + 11, f.bytes.size() - 30, f.bytes.size() - 1 })
  {
    const Bytes cutBytes(f.bytes.begin(), f.bytes.begin() + cut);
    const std::string name = "cut" + std::to_string(cut) + ".xim";
    const std::string message = XimError(cutBytes, name);
    EXPECT_THAT(message, HasSubstr("XIM file " + TestFile(name) + " is cut short")) << "cut at " << cut;
    EXPECT_THAT(message, HasSubstr("it ends at byte " + std::to_string(cut) + ", inside its ")) << "cut at " << cut;
  }
  // Uncompressed too, inside the pixels.
  XimContents c = KnownXim();
  c.compressed = false;
  const XimFile raw = MakeXim(c);
  const std::string message = XimError(Bytes(raw.bytes.begin(), raw.bytes.begin() + raw.pixelBufferAt + 20), "cutraw.xim");
  EXPECT_THAT(message, HasSubstr("is cut short: it ends at byte 56, inside its pixel buffer (140 bytes from byte 36)"));
}

TEST(XimImageIO, DamagedLookupTableSizeRefused)
{
  XimFile f = MakeXim(KnownXim());
  PutValue<std::int32_t>(f.bytes, f.lookupTableSizeAt, 0x7fffffff); // past the end of the file
  EXPECT_THAT(XimError(f.bytes, "lut1.xim"), HasSubstr("lookup-table size of XIM file " + TestFile("lut1.xim") + " is 2147483647; expected 7 bytes"));
  PutValue<std::int32_t>(f.bytes, f.lookupTableSizeAt, 5); // shorter than 7 x 4 pixels need
  EXPECT_THAT(XimError(f.bytes, "lut2.xim"), HasSubstr("lookup-table size of XIM file " + TestFile("lut2.xim") + " is 5"));
  PutValue<std::int32_t>(f.bytes, f.lookupTableSizeAt, -4);
  EXPECT_THAT(XimError(f.bytes, "lut3.xim"), HasSubstr("lookup-table size of XIM file " + TestFile("lut3.xim") + " is -4; expected a size >= 0"));
}

TEST(XimImageIO, DamagedLookupTableCodeRefused)
{
  XimFile f = MakeXim(KnownXim());
  f.bytes[f.lookupTableAt] |= 0x03; // difference 0's code becomes 3
  EXPECT_THAT(XimError(f.bytes, "code3.xim"), HasSubstr("lookup-table code of pixel 0 after the first row of XIM file " + TestFile("code3.xim") + " is 3"));
  // A code that names more bytes than the buffer has (1 -> 4 bytes): the sizes disagree.
  XimFile g = MakeXim(KnownXim());
  unsigned char & byte = g.bytes[g.lookupTableAt];
  byte = static_cast<unsigned char>((byte & ~0x03u) | 0x02u);
  const std::string message = XimError(g.bytes, "code2.xim");
  EXPECT_THAT(message, HasSubstr("compressed pixel buffer size of XIM file " + TestFile("code2.xim")));
  EXPECT_THAT(message, HasSubstr("as its lookup table says"));
}

TEST(XimImageIO, DamagedCompressedSizeRefused)
{
  XimFile f = MakeXim(KnownXim());
  const auto real = static_cast<std::int32_t>(f.compression.buffer.size());
  PutValue<std::int32_t>(f.bytes, f.pixelBufferSizeAt, real - 3); // the following fields shift
  EXPECT_THAT(XimError(f.bytes, "csize1.xim"), HasSubstr("XIM file " + TestFile("csize1.xim")));
  PutValue<std::int32_t>(f.bytes, f.pixelBufferSizeAt, 1 << 30);
  EXPECT_THAT(XimError(f.bytes, "csize2.xim"), HasSubstr("compressed pixel buffer size of XIM file " + TestFile("csize2.xim") + " is 1073741824"));
  PutValue<std::int32_t>(f.bytes, f.pixelBufferSizeAt, 10);
  EXPECT_THAT(XimError(f.bytes, "csize3.xim"), HasSubstr("compressed pixel buffer size of XIM file " + TestFile("csize3.xim") + " is 10"));
}

TEST(XimImageIO, DamagedDimensionsRefused)
{
  // A width or height that lies: the lookup table no longer matches.
  for (const auto & [at, value, name] : std::vector<std::tuple<std::size_t, std::int32_t, std::string>>{
         { 12, 8, "wide.xim" }, { 12, 6, "narrow.xim" }, { 16, 6, "tall.xim" }, { 16, 4, "short.xim" } })
  {
    XimFile f = MakeXim(KnownXim());
    PutValue<std::int32_t>(f.bytes, at, value);
    EXPECT_THAT(XimError(f.bytes, name), HasSubstr("lookup-table size of XIM file " + TestFile(name) + " is 7")) << name;
  }
  // Huge dimensions: refused before anything of that size is allocated.
  XimFile f = MakeXim(KnownXim());
  PutValue<std::int32_t>(f.bytes, 12, 0x7fffffff);
  PutValue<std::int32_t>(f.bytes, 16, 0x7fffffff);
  EXPECT_THAT(XimError(f.bytes, "huge.xim"), HasSubstr("lookup-table size of XIM file " + TestFile("huge.xim") + " is 7"));
  PutValue<std::int32_t>(f.bytes, 12, -3);
  EXPECT_THAT(XimError(f.bytes, "negative.xim"), HasSubstr("width of XIM file " + TestFile("negative.xim") + " is -3"));
  // Uncompressed: the buffer size must be width x height x bytes per pixel.
  XimContents c = KnownXim();
  c.compressed = false;
  XimFile raw = MakeXim(c);
  PutValue<std::int32_t>(raw.bytes, 16, 50000);
  EXPECT_THAT(XimError(raw.bytes, "rawtall.xim"), HasSubstr("pixel buffer size of XIM file " + TestFile("rawtall.xim") + " is 140; expected 1400000 bytes"));
  // One row cannot be compressed (the first row and a pixel of the second are stored whole).
  XimFile one = MakeXim(KnownXim());
  PutValue<std::int32_t>(one.bytes, 16, 1);
  EXPECT_THAT(XimError(one.bytes, "onerow.xim"), HasSubstr("height of the compressed image of XIM file " + TestFile("onerow.xim") + " is 1"));
}

TEST(XimImageIO, DamagedHeaderFieldsRefused)
{
  XimFile f = MakeXim(KnownXim());
  PutValue<std::int32_t>(f.bytes, f.compressionAt, 2);
  EXPECT_THAT(XimError(f.bytes, "flag.xim"), HasSubstr("compression flag of XIM file " + TestFile("flag.xim") + " is 2"));
  XimContents c = KnownXim();
  c.compressed = false;
  XimFile raw = MakeXim(c);
  PutValue<std::int32_t>(raw.bytes, raw.bytesPerPixelAt, 3);
  EXPECT_THAT(XimError(raw.bytes, "bpp.xim"), HasSubstr("bytes per pixel of the uncompressed pixels of XIM file " + TestFile("bpp.xim") + " is 3"));
}

TEST(XimImageIO, DamagedPropertiesRefused)
{
  const XimFile f = MakeXim(KnownXim());
  Bytes count = f.bytes;
  PutValue<std::int32_t>(count, f.propertiesAt, 1000000);
  EXPECT_THAT(XimError(count, "count.xim"), HasSubstr("XIM file " + TestFile("count.xim") + " is cut short: it ends at byte " + std::to_string(f.bytes.size()) + ", inside its 1000000 properties of 12 bytes or more"));
  Bytes name = f.bytes;
  PutValue<std::int32_t>(name, f.propertiesAt + 4, 0x7ffffff0);
  EXPECT_THAT(XimError(name, "name.xim"), HasSubstr("inside its name of property 1 of 14"));
  Bytes type = f.bytes;
  const std::size_t typeAt = f.propertiesAt + 4 + 4 + std::strlen("GantryRtn");
  PutValue<std::int32_t>(type, typeAt, 3);
  EXPECT_THAT(XimError(type, "type.xim"), HasSubstr("type of property 1 (GantryRtn) of XIM file " + TestFile("type.xim") + " is 3"));
  // A double array whose length is not a multiple of 8.
  XimContents c = KnownXim();
  c.properties = { XimProperty::Real("PixelWidth", 0.04), XimProperty::Real("PixelHeight", 0.04), XimProperty::Reals("A", { 1., 2. }) };
  XimFile g = MakeXim(c);
  const std::size_t lengthAt = g.bytes.size() - 16 - 4;
  PutValue<std::int32_t>(g.bytes, lengthAt, 12);
  EXPECT_THAT(XimError(g.bytes, "array.xim"), HasSubstr("length of property 3 (A) of XIM file " + TestFile("array.xim") + " is 12; expected a multiple of 8"));
}

TEST(XimImageIO, BadOrMissingPixelSizeRefused)
{
  XimContents c = KnownXim();
  c.properties = { XimProperty::Real("PixelWidth", 0.04) };
  const std::string missing = TestFile("nopixelheight.xim");
  WriteXim(missing, c);
  EXPECT_THAT(ReadError(cbct::XimImageIO::New(), missing), HasSubstr("property PixelHeight of XIM file " + missing + " is missing"));
  c.properties = { XimProperty::Real("PixelWidth", 0.), XimProperty::Real("PixelHeight", 0.04) };
  const std::string zero = TestFile("zeropixelwidth.xim");
  WriteXim(zero, c);
  EXPECT_THAT(ReadError(cbct::XimImageIO::New(), zero), HasSubstr("property PixelWidth of XIM file " + zero + " is 0"));
  c.properties = { XimProperty::Real("PixelWidth", std::nan("")), XimProperty::Real("PixelHeight", 0.04) };
  const std::string nan = TestFile("nanpixelwidth.xim");
  WriteXim(nan, c);
  EXPECT_THAT(ReadError(cbct::XimImageIO::New(), nan), HasSubstr("property PixelWidth of XIM file " + nan + " is nan"));
}

// ------------------------------------------------------------------------------------------------
// HND and HNC

HndContents
KnownHnd()
{
  HndContents c;
  c.width = 6;
  c.height = 4;
  c.pixels = { 100,   101,        99,  100, 100, 5000,       //
               60000, 100,        3,   100, 100, 0xffffffffu, //
               0,     0x80000000u, 101, 102, 99,  7,          //
               1,     2,          3,   4,   5,   6 };
  SetTypicalHndHeader(c, 30.5);
  return c;
}

TEST(HndImageIO, CompressedPixelsHeaderFieldsAndGrid)
{
  const HndContents c = KnownHnd();
  const HndFile f = MakeHnd(c);
  EXPECT_GT(f.compression.oneByte, 0u);
  EXPECT_GT(f.compression.twoBytes, 0u);
  EXPECT_GT(f.compression.fourBytes, 0u);
  const std::string path = TestFile("known.hnd");
  WriteBytes(path, f.bytes);
  auto io = cbct::HndImageIO::New();
  ASSERT_TRUE(io->CanReadFile(path.c_str()));
  io->SetFileName(path);
  io->ReadImageInformation();
  EXPECT_EQ(io->GetComponentType(), itk::IOComponentEnum::UINT);

  const auto image = ReadThroughItk<UInt32Image>(path);
  EXPECT_EQ((Pixels<UInt32Image, std::uint32_t>(image)), c.pixels);
  EXPECT_NEAR(image->GetSpacing()[0], 0.388, 1e-12);
  EXPECT_NEAR(image->GetSpacing()[1], 0.388, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[0], -2.5 * 0.388, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[1], -1.5 * 0.388, 1e-12);

  const itk::MetaDataDictionary & d = image->GetMetaDataDictionary();
  for (const auto & [name, value] : c.reals)
  {
    double real = -1.;
    ASSERT_TRUE(itk::ExposeMetaData<double>(d, name, real)) << name;
    EXPECT_EQ(real, value) << name;
  }
  double zero = -1.;
  ASSERT_TRUE(itk::ExposeMetaData<double>(d, "dGating4DInfoTime", zero)); // every field, set or not
  EXPECT_EQ(zero, 0.);
  unsigned int integer = 0;
  ASSERT_TRUE(itk::ExposeMetaData<unsigned int>(d, "nPatientSer", integer));
  EXPECT_EQ(integer, 42u);
  ASSERT_TRUE(itk::ExposeMetaData<unsigned int>(d, "SizeX", integer));
  EXPECT_EQ(integer, 6u);
  ASSERT_TRUE(itk::ExposeMetaData<unsigned int>(d, "FileLength", integer));
  EXPECT_EQ(integer, f.bytes.size());
  std::string text;
  ASSERT_TRUE(itk::ExposeMetaData<std::string>(d, "sPatientID", text));
  EXPECT_EQ(text, "PHANTOM");
  ASSERT_TRUE(itk::ExposeMetaData<std::string>(d, "sFileType", text));
  EXPECT_EQ(text, "VARIAN_HND");
  EXPECT_EQ(io->GetMetaDataDictionary().GetKeys().size(), 60u); // the 60 header fields, nothing else
}

TEST(HndImageIO, HncUncompressedUnsigned16)
{
  HndContents c = KnownHnd();
  for (auto & p : c.pixels)
    p &= 0xffffu;
  const std::string path = TestFile("known.hnc");
  WriteHnc(path, c);
  auto io = cbct::HndImageIO::New();
  io->SetFileName(path);
  io->ReadImageInformation();
  EXPECT_FALSE(io->GetCompressed());
  EXPECT_EQ(io->GetComponentType(), itk::IOComponentEnum::USHORT);
  const auto image = ReadThroughItk<UInt16Image>(path);
  EXPECT_EQ((Pixels<UInt16Image, std::uint16_t>(image)), std::vector<std::uint16_t>(c.pixels.begin(), c.pixels.end()));
  double angle = 0.;
  ASSERT_TRUE(itk::ExposeMetaData<double>(image->GetMetaDataDictionary(), "dCTProjectionAngle", angle));
  EXPECT_EQ(angle, 30.5);
}

TEST(HndImageIO, RecognisedByExtension)
{
  const std::string upper = TestFile("UPPER.HND");
  WriteHnd(upper, KnownHnd());
  EXPECT_TRUE(cbct::HndImageIO::New()->CanReadFile(upper.c_str()));
  EXPECT_FALSE(cbct::HndImageIO::New()->CanReadFile(TestFile("missing.hnd").c_str()));
  const std::string other = TestFile("known.raw");
  WriteHnd(other, KnownHnd());
  EXPECT_FALSE(cbct::HndImageIO::New()->CanReadFile(other.c_str()));
  EXPECT_EQ((Pixels<UInt32Image, std::uint32_t>(ReadThroughItk<UInt32Image>(upper))), KnownHnd().pixels);
}

TEST(HndImageIO, TruncatedAnywhereRefusedNamingTheFile)
{
  const HndFile f = MakeHnd(KnownHnd());
  for (std::size_t cut : { std::size_t(0), std::size_t(100), std::size_t(600), std::size_t(1023), std::size_t(1024), std::size_t(1026),
                           f.pixelBufferAt + 3, f.pixelBufferAt + 30, f.bytes.size() - 1 })
  {
    const std::string name = "cut" + std::to_string(cut) + ".hnd";
    const std::string message = HndError(Bytes(f.bytes.begin(), f.bytes.begin() + cut), name);
    EXPECT_THAT(message, HasSubstr("HND file " + TestFile(name))) << "cut at " << cut;
    EXPECT_THAT(message, HasSubstr("cut short")) << "cut at " << cut;
  }
  HndContents c = KnownHnd();
  const Bytes hnc = MakeHnc(c);
  for (std::size_t cut : { std::size_t(10), std::size_t(511), std::size_t(512), hnc.size() - 1 })
  {
    const std::string name = "cut" + std::to_string(cut) + ".hnc";
    const std::string message = HndError(Bytes(hnc.begin(), hnc.begin() + cut), name);
    EXPECT_THAT(message, HasSubstr("HNC file " + TestFile(name) + " is cut short")) << "cut at " << cut;
  }
}

TEST(HndImageIO, DamagedDimensionsRefused)
{
  const HndField sizeX = HndFieldNamed("SizeX");
  const HndField sizeY = HndFieldNamed("SizeY");
  // Too large for the file: cut short. Too small: more data than the size allows.
  for (const auto & [field, value, name, expected] : std::vector<std::tuple<HndField, std::uint32_t, std::string, std::string>>{
         { sizeX, 7, "wide.hnd", "cut short" },
         { sizeY, 40, "tall.hnd", "cut short" },
         { sizeX, 3, "narrow.hnd", "SizeX and SizeY are too small for the file" },
         { sizeY, 2, "short.hnd", "SizeX and SizeY are too small for the file" },
         { sizeX, 0xffffffffu, "huge.hnd", "SizeX of HND file" },
         { sizeY, 1, "onerow.hnd", "height of the compressed image of HND file" },
         { sizeX, 0, "empty.hnd", "SizeX of HND file" } })
  {
    HndFile f = MakeHnd(KnownHnd());
    PutValue<std::uint32_t>(f.bytes, field.offset, value);
    EXPECT_THAT(HndError(f.bytes, name), HasSubstr(expected)) << name;
    EXPECT_THAT(HndError(f.bytes, name), HasSubstr(TestFile(name))) << name;
  }
  HndFile f = MakeHnd(KnownHnd());
  PutValue<std::uint32_t>(f.bytes, sizeX.offset, 0x10000);
  PutValue<std::uint32_t>(f.bytes, sizeY.offset, 0x10000);
  EXPECT_THAT(HndError(f.bytes, "huge2.hnd"), HasSubstr("inside its lookup table for 65536 x 65536 pixels"));
  // HNC: exactly 2 x SizeX x SizeY bytes after the header.
  Bytes hnc = MakeHnc(KnownHnd());
  PutValue<std::uint32_t>(hnc, sizeY.offset, 3);
  EXPECT_THAT(HndError(hnc, "short.hnc"), HasSubstr("pixel data of HNC file " + TestFile("short.hnc") + " is 48 bytes; expected 36 bytes"));
}

TEST(HndImageIO, DamagedCodesAndResolutionRefused)
{
  HndFile f = MakeHnd(KnownHnd());
  f.bytes[f.lookupTableAt + 1] |= 0xc0; // difference 7's code becomes 3
  EXPECT_THAT(HndError(f.bytes, "code3.hnd"), HasSubstr("lookup-table code of pixel 7 after the first row of HND file " + TestFile("code3.hnd") + " is 3"));
  HndContents c = KnownHnd();
  c.reals["dIDUResolutionY"] = -0.388;
  const std::string path = TestFile("resolution.hnd");
  WriteHnd(path, c);
  EXPECT_THAT(ReadError(cbct::HndImageIO::New(), path), HasSubstr("dIDUResolutionY of HND file " + path + " is -0.388"));
}

// ------------------------------------------------------------------------------------------------
// Registration and inspection

TEST(ScannerImageIOFactories, RegisteredOnceWhenTheLibraryLoads)
{
  const auto count = [](const char * name) {
    int n = 0;
    for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
      n += std::strcmp(factory->GetNameOfClass(), name) == 0;
    return n;
  };
  EXPECT_EQ(count("XimImageIOFactory"), 1);
  EXPECT_EQ(count("HndImageIOFactory"), 1);
  cbct::RegisterScannerImageIOFactories();
  cbct::RegisterScannerImageIOFactories();
  EXPECT_EQ(count("XimImageIOFactory"), 1);
  EXPECT_EQ(count("HndImageIOFactory"), 1);
  // Nothing but the library registered them: a plain reader opens all three kinds.
  const std::string xim = TestFile("plain.xim"), hnd = TestFile("plain.hnd"), hnc = TestFile("plain.hnc");
  WriteXim(xim, KnownXim());
  WriteHnd(hnd, KnownHnd());
  WriteHnc(hnc, KnownHnd());
  EXPECT_EQ(ReadThroughItk<FloatImage>(xim)->GetPixel({ { 0, 0 } }), 1000.f);
  EXPECT_EQ(ReadThroughItk<FloatImage>(hnd)->GetPixel({ { 1, 0 } }), 101.f);
  EXPECT_EQ(ReadThroughItk<FloatImage>(hnc)->GetPixel({ { 0, 1 } }), 60000.f);
}

TEST(ScannerImageIOFactories, ImageFileContentsInspectsThem)
{
  const std::string xim = TestFile("inspect.xim"), hnd = TestFile("inspect.hnd");
  WriteXim(xim, KnownXim());
  WriteHnd(hnd, KnownHnd());
  const auto x = cbct::ImageFileContents::InspectAndCheck(xim);
  EXPECT_EQ(x.Format(), "Xim");
  EXPECT_EQ(x.Dimensions(), (std::vector<std::uint64_t>{ 7, 5 }));
  EXPECT_EQ(x.ComponentBytes(), 4u);
  EXPECT_FALSE(x.Measured()); // the reader checks its sizes itself
  const auto h = cbct::ImageFileContents::InspectAndCheck(hnd);
  EXPECT_EQ(h.Format(), "Hnd");
  EXPECT_EQ(h.Dimensions(), (std::vector<std::uint64_t>{ 6, 4 }));
  // A damaged one is refused by Inspect() already, naming the file.
  XimFile f = MakeXim(KnownXim());
  PutValue<std::int32_t>(f.bytes, f.lookupTableSizeAt, 99);
  const std::string bad = TestFile("inspectbad.xim");
  WriteBytes(bad, f.bytes);
  try
  {
    cbct::ImageFileContents::Inspect(bad);
    FAIL() << "a damaged XIM was inspected";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_THAT(e.GetDescription(), HasSubstr("lookup-table size of XIM file " + bad + " is 99"));
  }
}

} // namespace
