// ScanImporter: the vendor table's detection order, --format, the errors when nothing matches, and
// the reading of a scan's projection files into one stack (order, grid, conversion, raw type kept,
// mismatched files refused), over a small ScannerScan of MetaImage files the test writes.
#include "cbctScanImporter.h"
#include "cbctScanSeries.h"
#include "cbctTestFolder.h"

#include <gtest/gtest.h>
#include <itkImageFileWriter.h>
#include <itksys/SystemTools.hxx>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

namespace
{

using cbct::ScanImporter;
using cbct::ScannerScan;

/** A fresh directory in the running test's folder (cbctTestFolder.h: removed when the test ends). */
std::string
MakeDirectory(const std::string & name)
{
  return cbct::test::FreshSubfolder(name).string();
}

void
Touch(const std::string & path)
{
  std::ofstream(path) << "mark\n";
}

/** Writes a 2D image of `nu` x `nv` pixels of T, value(u, v), with a spacing and origin of its own
 * (which the importer must not use: the scan's grid is the vendor's). */
template <typename T, typename TValue>
void
WriteProjection(const std::string & path, unsigned int nu, unsigned int nv, TValue value)
{
  using ImageType = itk::Image<T, 2>;
  auto image = ImageType::New();
  typename ImageType::RegionType region;
  region.SetSize({ { nu, nv } });
  image->SetRegions(region);
  typename ImageType::SpacingType spacing;
  spacing.Fill(0.25);
  image->SetSpacing(spacing);
  image->Allocate();
  for (unsigned int v = 0; v < nv; ++v)
    for (unsigned int u = 0; u < nu; ++u)
      image->SetPixel({ { u, v } }, static_cast<T>(value(u, v)));
  auto writer = itk::ImageFileWriter<ImageType>::New();
  writer->SetFileName(path);
  writer->SetInput(image);
  writer->Update();
}

/** A scan of the test's own: files in a given order, a circular geometry of one projection per file,
 * a detector grid, and readings I turned into -log(I / I0). */
class TestScan : public ScannerScan
{
public:
  using Self = TestScan;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(TestScan, ScannerScan);

  std::string
  Format() const override
  {
    return "test scan (MetaImage)";
  }
  const std::vector<std::string> &
  ProjectionFiles() const override
  {
    return m_Files;
  }
  cbct::ThreeDCircularProjectionGeometry::Pointer
  Geometry() const override
  {
    auto geometry = cbct::ThreeDCircularProjectionGeometry::New();
    for (std::size_t p = 0; p < m_Files.size() + m_ExtraProjections; ++p)
      geometry->AddProjection(1000., 1500., 2. * static_cast<double>(p));
    return geometry;
  }
  std::array<double, 2>
  DetectorSpacing() const override
  {
    return m_Spacing;
  }
  std::array<double, 2>
  DetectorOrigin() const override
  {
    return m_Origin;
  }
  void
  ToLineIntegrals(ProjectionsType * readings) const override
  {
    ++m_Conversions;
    const std::size_t count = readings->GetBufferedRegion().GetNumberOfPixels();
    float * pixels = readings->GetBufferPointer();
    for (std::size_t i = 0; i < count; ++i)
      pixels[i] = static_cast<float>(-std::log(std::max(pixels[i], 1.f) / m_I0));
    this->AddToLog("test: -log(I / " + std::to_string(m_I0) + ")");
  }

  std::vector<std::string> m_Files;
  std::size_t m_ExtraProjections = 0;
  std::array<double, 2> m_Spacing{ { 0.8, 0.6 } };
  std::array<double, 2> m_Origin{ { -10., 5. } };
  float m_I0 = 4000.f;
  mutable int m_Conversions = 0;

protected:
  TestScan() = default;
};

/** A vendor of the table whose Recognizes() looks for the file `mark` in the folder and whose
 * Open() makes a TestScan of the folder's p*.mha files (sorted). */
ScanImporter::Vendor
MarkVendor(const std::string & name, const std::string & mark, std::vector<std::string> * opened = nullptr)
{
  ScanImporter::Vendor vendor;
  vendor.name = name;
  vendor.description = name + " scanner";
  vendor.looksFor = "a folder with a file " + mark;
  vendor.recognizes = [mark](const std::string & path) {
    return itksys::SystemTools::FileExists(path + "/" + mark, true);
  };
  vendor.open = [name, opened](const std::string & path) -> ScannerScan::Pointer {
    if (opened)
      opened->push_back(name);
    auto scan = TestScan::New();
    scan->m_Files = { path + "/p0.mha" };
    return scan;
  };
  return vendor;
}

TEST(ScanImporter, DetectionFollowsTheTableOrder)
{
  const std::string dir = MakeDirectory("order");
  WriteProjection<unsigned short>(dir + "/p0.mha", 4, 3, [](unsigned, unsigned) { return 1; });
  Touch(dir + "/B.mark");
  std::vector<std::string> opened;
  const std::vector<ScanImporter::Vendor> vendors{ MarkVendor("alpha", "A.mark", &opened),
                                                   MarkVendor("beta", "B.mark", &opened),
                                                   MarkVendor("gamma", "B.mark", &opened) };
  // Only beta and gamma recognise it: the first of them in the table opens it.
  ScanImporter::Open(dir, "", vendors);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened.back(), "beta");
  // Now alpha recognises it too, and comes first.
  Touch(dir + "/A.mark");
  ScanImporter::Open(dir, "", vendors);
  ASSERT_EQ(opened.size(), 2u);
  EXPECT_EQ(opened.back(), "alpha");
  // The order of the table, not of the names: reversed, gamma comes first.
  const std::vector<ScanImporter::Vendor> reversed{ vendors[2], vendors[1], vendors[0] };
  ScanImporter::Open(dir, "", reversed);
  ASSERT_EQ(opened.size(), 3u);
  EXPECT_EQ(opened.back(), "gamma");
}

TEST(ScanImporter, FormatForcesOneVendorWhateverItRecognises)
{
  const std::string dir = MakeDirectory("format");
  WriteProjection<unsigned short>(dir + "/p0.mha", 4, 3, [](unsigned, unsigned) { return 1; });
  Touch(dir + "/A.mark");
  std::vector<std::string> opened;
  const std::vector<ScanImporter::Vendor> vendors{ MarkVendor("alpha", "A.mark", &opened),
                                                   MarkVendor("beta", "B.mark", &opened) };
  ScanImporter::Open(dir, "BeTa", vendors); // beta does not recognise it; forced, it opens it
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened.back(), "beta");
}

TEST(ScanImporter, OptionsReachTheVendorThatTakesThem)
{
  const std::string dir = MakeDirectory("options");
  WriteProjection<unsigned short>(dir + "/p0.mha", 4, 3, [](unsigned, unsigned) { return 1; });
  Touch(dir + "/A.mark");
  std::vector<std::string> opened;
  ScanImporter::Vendor taking = MarkVendor("alpha", "A.mark", &opened);
  std::vector<ScanImporter::Options> received;
  taking.openWithOptions = [&received, open = taking.open](const std::string & path,
                                                           const ScanImporter::Options & options) {
    received.push_back(options);
    return open(path);
  };
  ScanImporter::Options options;
  options.airScanFallback = true;
  options.fallbackI0 = 139000.;
  ScanImporter::Open(dir, "", { taking }, options);
  ASSERT_EQ(received.size(), 1u);
  EXPECT_TRUE(received[0].airScanFallback);
  EXPECT_EQ(received[0].fallbackI0, 139000.);
  ScanImporter::Open(dir, "", { taking }); // no options given: the defaults
  ASSERT_EQ(received.size(), 2u);
  EXPECT_FALSE(received[1].airScanFallback);
  EXPECT_EQ(received[1].fallbackI0, 0.);
  // A vendor without openWithOptions is opened by `open`, the options unused.
  ScanImporter::Open(dir, "", { MarkVendor("beta", "A.mark", &opened) }, options);
  ASSERT_EQ(opened.size(), 3u);
  EXPECT_EQ(opened.back(), "beta");
}

TEST(ScanImporter, BadUnknownFormatListsTheNames)
{
  const std::string dir = MakeDirectory("unknown");
  const std::vector<ScanImporter::Vendor> vendors{ MarkVendor("alpha", "A.mark"), MarkVendor("beta", "B.mark") };
  try
  {
    ScanImporter::Open(dir, "siemens", vendors);
    FAIL() << "an unknown format was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("'siemens'"), std::string::npos) << message;
    EXPECT_NE(message.find("alpha, beta"), std::string::npos) << message;
  }
}

TEST(ScanImporter, BadNothingRecognisedSaysWhatWasLookedFor)
{
  const std::string dir = MakeDirectory("nothing");
  Touch(dir + "/readme.txt");
  const std::vector<ScanImporter::Vendor> vendors{ MarkVendor("alpha", "A.mark"), MarkVendor("beta", "B.mark") };
  try
  {
    ScanImporter::Open(dir, "", vendors);
    FAIL() << "a folder no vendor recognises was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("no scanner scan recognised in " + dir), std::string::npos) << message;
    EXPECT_NE(message.find("alpha (alpha scanner): a folder with a file A.mark"), std::string::npos) << message;
    EXPECT_NE(message.find("beta (beta scanner): a folder with a file B.mark"), std::string::npos) << message;
    EXPECT_LT(message.find("alpha"), message.find("beta")) << message;
  }
  EXPECT_THROW(ScanImporter::Open(dir + "/no-such-folder", "", vendors), itk::ExceptionObject);
  EXPECT_THROW(ScanImporter::Open("", "", vendors), itk::ExceptionObject);
}

TEST(ScanImporter, BadVendorErrorsAreNamedAndScansChecked)
{
  const std::string dir = MakeDirectory("vendorerror");
  WriteProjection<unsigned short>(dir + "/p0.mha", 4, 3, [](unsigned, unsigned) { return 1; });
  ScanImporter::Vendor failing = MarkVendor("alpha", "A.mark");
  failing.open = [](const std::string & path) -> ScannerScan::Pointer {
    itkGenericExceptionMacro(<< "calibration file " << path << "/air.mha is missing");
  };
  try
  {
    ScanImporter::Open(dir, "alpha", { failing });
    FAIL() << "the vendor's error was lost";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("alpha: calibration file " + dir + "/air.mha is missing"), std::string::npos) << message;
    EXPECT_EQ(message.find("ITK ERROR: ITK ERROR"), std::string::npos) << message;
  }
  // A geometry of another number of projections than files.
  ScanImporter::Vendor lying = MarkVendor("alpha", "A.mark");
  lying.open = [dir](const std::string &) -> ScannerScan::Pointer {
    auto scan = TestScan::New();
    scan->m_Files = { dir + "/p0.mha" };
    scan->m_ExtraProjections = 2;
    return scan;
  };
  try
  {
    ScanImporter::Open(dir, "alpha", { lying });
    FAIL() << "3 projections for 1 file were accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("1 projection files but 3 projections"), std::string::npos) << message;
  }
  // A detector spacing that is no spacing.
  ScanImporter::Vendor flat = MarkVendor("alpha", "A.mark");
  flat.open = [dir](const std::string &) -> ScannerScan::Pointer {
    auto scan = TestScan::New();
    scan->m_Files = { dir + "/p0.mha" };
    scan->m_Spacing = { { 0.8, std::nan("") } };
    return scan;
  };
  EXPECT_THROW(ScanImporter::Open(dir, "alpha", { flat }), itk::ExceptionObject);
}

/** The reading value of pixel (u, v) of projection p: distinct for every pixel and projection. */
unsigned short
Reading(unsigned int u, unsigned int v, unsigned int p)
{
  return static_cast<unsigned short>(100 + u + 10 * v + 100 * p);
}

/** A TestScan of `count` files of 5 x 3 unsigned short, listed in the reverse order of their names
 * (so that the stack follows ProjectionFiles(), not the file names). */
TestScan::Pointer
WriteScan(const std::string & dir, unsigned int count)
{
  auto scan = TestScan::New();
  for (unsigned int p = 0; p < count; ++p)
  {
    const std::string file = dir + "/proj" + std::to_string(1000 + count - 1 - p) + ".mha";
    WriteProjection<unsigned short>(file, 5, 3, [p](unsigned u, unsigned v) { return Reading(u, v, p); });
    scan->m_Files.push_back(file);
  }
  return scan;
}

TEST(ScanImporter, LineIntegralsAreStackedInOrderOnTheScansGrid)
{
  const std::string dir = MakeDirectory("lineintegrals");
  const unsigned int count = 37; // more files than threads: the parallel reading
  auto scan = WriteScan(dir, count);
  auto stack = ScanImporter::ReadLineIntegrals(scan);
  ASSERT_NE(stack.GetPointer(), nullptr);
  const auto size = stack->GetLargestPossibleRegion().GetSize();
  EXPECT_EQ(size[0], 5u);
  EXPECT_EQ(size[1], 3u);
  EXPECT_EQ(size[2], count);
  EXPECT_EQ(stack->GetLargestPossibleRegion().GetIndex(), (itk::Index<3>{ { 0, 0, 0 } }));
  EXPECT_DOUBLE_EQ(stack->GetSpacing()[0], 0.8);
  EXPECT_DOUBLE_EQ(stack->GetSpacing()[1], 0.6);
  EXPECT_DOUBLE_EQ(stack->GetSpacing()[2], 1.);
  EXPECT_DOUBLE_EQ(stack->GetOrigin()[0], -10.);
  EXPECT_DOUBLE_EQ(stack->GetOrigin()[1], 5.);
  EXPECT_DOUBLE_EQ(stack->GetOrigin()[2], 0.);
  EXPECT_TRUE(stack->GetDirection().GetVnlMatrix().is_identity());
  EXPECT_EQ(scan->m_Conversions, 1);
  ASSERT_EQ(scan->Log().size(), 1u);
  EXPECT_EQ(scan->Log().front(), "test: -log(I / 4000.000000)");
  for (unsigned int p = 0; p < count; ++p)
    for (unsigned int v = 0; v < 3; ++v)
      for (unsigned int u = 0; u < 5; ++u)
      {
        const double expected = -std::log(Reading(u, v, p) / 4000.);
        const float got = stack->GetPixel({ { u, v, p } });
        ASSERT_NEAR(got, expected, 1e-6) << "pixel " << u << ", " << v << " of projection " << p;
      }
}

TEST(ScanImporter, LineIntegralsIntoTheCallersMemory)
{
  // StackMemory: asked once the stack's grid is known, the stack's pixels then live in the caller's
  // memory (cbct-import: the output file, mapped), with the values of the stack that allocates its own.
  const std::string dir = MakeDirectory("stackmemory");
  const unsigned int count = 11;
  auto scan = WriteScan(dir, count);
  const auto own = ScanImporter::ReadLineIntegrals(scan);
  std::vector<float> memory(5 * 3 * count + 1, -7.f);
  int asked = 0;
  const auto stack = ScanImporter::ReadLineIntegrals(scan, [&](const ScanImporter::ProjectionsType * empty) {
    ++asked;
    const auto size = empty->GetLargestPossibleRegion().GetSize();
    EXPECT_EQ(size[0] * size[1] * size[2], 5u * 3u * count);
    EXPECT_DOUBLE_EQ(empty->GetSpacing()[0], 0.8);
    EXPECT_DOUBLE_EQ(empty->GetOrigin()[1], 5.);
    return memory.data();
  });
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(stack->GetBufferPointer(), memory.data());
  for (std::size_t i = 0; i < 5 * 3 * count; ++i)
    ASSERT_EQ(memory[i], own->GetBufferPointer()[i]) << i;
  EXPECT_EQ(memory.back(), -7.f); // nothing written past the stack
  // No memory given back: refused, not a crash.
  EXPECT_THROW(ScanImporter::ReadLineIntegrals(scan, [](const ScanImporter::ProjectionsType *) { return nullptr; }),
               itk::ExceptionObject);
}

TEST(ScanImporter, RawKeepsTheFilesTypeAndValues)
{
  const std::string dir = MakeDirectory("raw");
  const unsigned int count = 9;
  auto scan = WriteScan(dir, count);
  const ScanImporter::RawProjections raw = ScanImporter::ReadRaw(scan);
  EXPECT_EQ(raw.componentType, itk::IOComponentEnum::USHORT);
  EXPECT_EQ(scan->m_Conversions, 0);
  auto * image = dynamic_cast<itk::Image<unsigned short, 3> *>(raw.image.GetPointer());
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->GetLargestPossibleRegion().GetSize(), (itk::Size<3>{ { 5, 3, count } }));
  EXPECT_DOUBLE_EQ(image->GetSpacing()[0], 0.8);
  EXPECT_DOUBLE_EQ(image->GetOrigin()[1], 5.);
  for (unsigned int p = 0; p < count; ++p)
    for (unsigned int v = 0; v < 3; ++v)
      for (unsigned int u = 0; u < 5; ++u)
        ASSERT_EQ(image->GetPixel({ { u, v, p } }), Reading(u, v, p));
  int visits = 0;
  ScanImporter::VisitRaw(raw, [&](auto * visited) {
    using Pixel = typename std::remove_pointer_t<decltype(visited)>::PixelType;
    EXPECT_TRUE((std::is_same_v<Pixel, unsigned short>));
    EXPECT_EQ(static_cast<const void *>(visited), static_cast<const void *>(image));
    ++visits;
  });
  EXPECT_EQ(visits, 1);
}

TEST(ScanImporter, RawOfSignedAndFloatFiles)
{
  const std::string dir = MakeDirectory("types");
  auto scan = TestScan::New();
  scan->m_Files = { dir + "/a.mha", dir + "/b.mha" };
  WriteProjection<short>(scan->m_Files[0], 2, 2, [](unsigned u, unsigned v) { return -300 + static_cast<int>(u + 2 * v); });
  WriteProjection<short>(scan->m_Files[1], 2, 2, [](unsigned u, unsigned) { return 7 * static_cast<int>(u); });
  const auto raw = ScanImporter::ReadRaw(scan);
  ASSERT_EQ(raw.componentType, itk::IOComponentEnum::SHORT);
  auto * image = dynamic_cast<itk::Image<short, 3> *>(raw.image.GetPointer());
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->GetPixel({ { 1, 1, 0 } }), -297);
  EXPECT_EQ(image->GetPixel({ { 1, 0, 1 } }), 7);

  WriteProjection<float>(scan->m_Files[0], 2, 2, [](unsigned u, unsigned) { return 0.5 + u; });
  WriteProjection<float>(scan->m_Files[1], 2, 2, [](unsigned, unsigned v) { return 2.25 * v; });
  const auto floats = ScanImporter::ReadRaw(scan);
  ASSERT_EQ(floats.componentType, itk::IOComponentEnum::FLOAT);
  auto * floatImage = dynamic_cast<itk::Image<float, 3> *>(floats.image.GetPointer());
  ASSERT_NE(floatImage, nullptr);
  EXPECT_FLOAT_EQ(floatImage->GetPixel({ { 1, 1, 0 } }), 1.5f);
  EXPECT_FLOAT_EQ(floatImage->GetPixel({ { 0, 1, 1 } }), 2.25f);
}

TEST(ScanImporter, MixedTypesAreReadAsLineIntegralsButNotRaw)
{
  const std::string dir = MakeDirectory("mixed");
  auto scan = TestScan::New();
  scan->m_Files = { dir + "/a.mha", dir + "/b.mha" };
  WriteProjection<unsigned short>(scan->m_Files[0], 3, 2, [](unsigned, unsigned) { return 2000; });
  WriteProjection<int>(scan->m_Files[1], 3, 2, [](unsigned, unsigned) { return 1000; });
  auto stack = ScanImporter::ReadLineIntegrals(scan);
  EXPECT_NEAR(stack->GetPixel({ { 2, 1, 0 } }), std::log(2.), 1e-6);
  EXPECT_NEAR(stack->GetPixel({ { 2, 1, 1 } }), std::log(4.), 1e-6);
  try
  {
    ScanImporter::ReadRaw(scan);
    FAIL() << "raw files of two types were stacked";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find(scan->m_Files[1]), std::string::npos) << message;
    EXPECT_NE(message.find("same one"), std::string::npos) << message;
  }
}

TEST(ScanImporter, BadMismatchedSizesAreRefused)
{
  const std::string dir = MakeDirectory("sizes");
  auto scan = WriteScan(dir, 6);
  WriteProjection<unsigned short>(scan->m_Files[4], 5, 4, [](unsigned, unsigned) { return 1; });
  for (bool raw : { false, true })
    try
    {
      if (raw)
        ScanImporter::ReadRaw(scan);
      else
        ScanImporter::ReadLineIntegrals(scan);
      FAIL() << "a projection of another size was stacked";
    }
    catch (const itk::ExceptionObject & e)
    {
      const std::string message = e.GetDescription();
      EXPECT_NE(message.find("projection file " + scan->m_Files[4] + " has 5 x 4 pixels"), std::string::npos) << message;
      EXPECT_NE(message.find(scan->m_Files[0] + ", has 5 x 3"), std::string::npos) << message;
    }
  EXPECT_EQ(scan->m_Conversions, 0);
}

TEST(ScanImporter, BadProjectionFilesAreNamed)
{
  const std::string dir = MakeDirectory("badfiles");
  auto scan = WriteScan(dir, 4);
  // A missing file.
  scan->m_Files[2] = dir + "/missing.mha";
  try
  {
    ScanImporter::ReadLineIntegrals(scan);
    FAIL() << "a missing file was read";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(dir + "/missing.mha"), std::string::npos) << e.GetDescription();
  }
  // A file cut short (MetaImage reads it as zeros without complaint; the importer checks first).
  scan = WriteScan(dir, 4);
  {
    const std::string file = scan->m_Files[3];
    const auto length = itksys::SystemTools::FileLength(file);
    std::ifstream in(file, std::ios::binary);
    std::string bytes(length, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(length));
    in.close();
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(length - 7));
  }
  try
  {
    ScanImporter::ReadLineIntegrals(scan);
    FAIL() << "a truncated file was read";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find(scan->m_Files[3]), std::string::npos) << message;
    EXPECT_NE(message.find("cut short"), std::string::npos) << message;
  }
  // A file that holds several projections.
  scan = WriteScan(dir, 2);
  {
    using VolumeType = itk::Image<unsigned short, 3>;
    auto volume = VolumeType::New();
    VolumeType::RegionType region;
    region.SetSize({ { 5, 3, 2 } });
    volume->SetRegions(region);
    volume->Allocate(true);
    auto writer = itk::ImageFileWriter<VolumeType>::New();
    writer->SetFileName(scan->m_Files[1]);
    writer->SetInput(volume);
    writer->Update();
  }
  try
  {
    ScanImporter::ReadLineIntegrals(scan);
    FAIL() << "a file of two slices was read as one projection";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find(scan->m_Files[1] + " holds 5 x 3 x 2 pixels"), std::string::npos) << message;
  }
  // No files at all.
  scan->m_Files.clear();
  EXPECT_THROW(ScanImporter::ReadLineIntegrals(scan), itk::ExceptionObject);
  EXPECT_THROW(ScanImporter::ReadRaw(nullptr), itk::ExceptionObject);
}

TEST(ScanImporter, EveryVendorOfTheTableIsComplete)
{
  for (const auto & vendor : ScanImporter::Vendors())
  {
    EXPECT_FALSE(vendor.name.empty());
    EXPECT_FALSE(vendor.description.empty()) << vendor.name;
    EXPECT_FALSE(vendor.looksFor.empty()) << vendor.name;
    EXPECT_TRUE(static_cast<bool>(vendor.recognizes)) << vendor.name;
    EXPECT_TRUE(static_cast<bool>(vendor.open)) << vendor.name;
    for (char c : vendor.name)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c))) << vendor.name << " (--format compares lower case)";
  }
  // An empty folder is recognised by no vendor of the library: the error lists every one.
  const std::string dir = MakeDirectory("empty");
  try
  {
    ScanImporter::Open(dir);
    FAIL() << "an empty folder was taken for a scan";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    for (const auto & vendor : ScanImporter::Vendors())
      EXPECT_NE(message.find(vendor.looksFor), std::string::npos) << message;
  }
}

} // namespace

namespace
{

TEST(ScanSeries, ScansReadAsOneEachConvertedByItsOwnReader)
{
  const std::string dir = MakeDirectory("series");
  auto first = WriteScan(dir, 3);
  auto second = TestScan::New();
  for (unsigned int p = 0; p < 4; ++p)
  {
    const std::string file = dir + "/second" + std::to_string(p) + ".mha";
    WriteProjection<unsigned short>(file, 5, 3, [p](unsigned u, unsigned v) { return Reading(u, v, 10 + p); });
    second->m_Files.push_back(file);
  }
  second->m_I0 = 8000.f; // another calibration: each part must be converted with its own
  auto series = cbct::ScanSeries::New();
  series->AddScan(first, "first");
  series->AddScan(second, "second");
  ASSERT_EQ(series->ProjectionFiles().size(), 7u);
  EXPECT_EQ(series->ProjectionFiles()[3], second->m_Files[0]);
  EXPECT_EQ(series->Format(), "2 scans: test scan (MetaImage)");
  const auto geometry = series->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), 7u);
  // TestScan's angles are 2p degrees within each scan.
  EXPECT_NEAR(geometry->GetGantryAngle(2), 4. * 3.14159265358979323846 / 180., 1e-12);
  EXPECT_NEAR(geometry->GetGantryAngle(4), 2. * 3.14159265358979323846 / 180., 1e-12);
  auto stack = ScanImporter::ReadLineIntegrals(series);
  ASSERT_EQ(stack->GetLargestPossibleRegion().GetSize(2), 7u);
  for (unsigned int p = 0; p < 7; ++p)
  {
    const unsigned int k = p < 3 ? p : 10 + (p - 3);
    const double i0 = p < 3 ? 4000. : 8000.;
    for (unsigned int v = 0; v < 3; ++v)
      for (unsigned int u = 0; u < 5; ++u)
        ASSERT_NEAR(stack->GetPixel({ { u, v, p } }), -std::log(Reading(u, v, k) / i0), 1e-6) << p;
  }
  EXPECT_EQ(first->m_Conversions, 1);
  EXPECT_EQ(second->m_Conversions, 1);
  ASSERT_EQ(series->Log().size(), 2u);
  EXPECT_EQ(series->Log()[0], "first: test: -log(I / 4000.000000)");
  EXPECT_EQ(series->Log()[1], "second: test: -log(I / 8000.000000)");
}

TEST(ScanSeries, BadDetectorGridsAreRefused)
{
  const std::string dir = MakeDirectory("seriesgrid");
  auto first = WriteScan(dir, 2);
  auto other = WriteScan(dir, 2);
  other->m_Spacing = { { 0.8, 0.61 } };
  auto series = cbct::ScanSeries::New();
  series->AddScan(first, "a");
  try
  {
    series->AddScan(other, "b");
    FAIL() << "a scan of another detector grid was added";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    EXPECT_NE(message.find("scan b has a detector of 0.8 x 0.61 mm"), std::string::npos) << message;
  }
  EXPECT_EQ(series->GetNumberOfScans(), 1u);
  EXPECT_THROW(ScanImporter::Open(std::vector<std::string>{}), itk::ExceptionObject);
}

} // namespace
