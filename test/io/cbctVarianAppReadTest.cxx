// The apps' image reading (cbct::apps::ReadImage, as cbct-fdk --projections reads a file) of Varian
// projection files: a XIM, HND or HNC is inspected (ImageFileContents: its reader checks the sizes,
// Measured() is false) and read as a projection stack of one slice, every pixel and the centred
// detector grid of the file; a damaged one is refused naming the option and the file.
#include "cbctCheckedFiles.h"
#include "cbctVarianTestFiles.h"
#include "cbctTestFolder.h"

#include <gtest/gtest.h>

#include <string>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::test;

XimContents
SmallXim()
{
  XimContents c;
  c.width = 5;
  c.height = 3;
  c.pixels = { 100, 120, 90, -4, 5000, 101, 70000, 91, 0, 4990, 99, 118, 100000, 2, 4980 };
  c.properties = TypicalXimProperties();
  return c;
}

ImageType::Pointer
ReadProjections(const std::string & path)
{
  cbct::apps::InspectedImages().clear();
  return cbct::apps::ReadImage<ImageType>("--projections", path, cbct::apps::ImageRole::ProjectionStack);
}

TEST(VarianAppRead, XimAsAProjectionStack)
{
  const std::string path = cbct::test::TestFile("cbctVarianAppRead.xim");
  const XimContents c = SmallXim();
  WriteXim(path, c);
  const auto & contents = cbct::apps::InspectImage("--projections", path);
  EXPECT_EQ(contents.Format(), "Xim");
  EXPECT_FALSE(contents.Measured());
  const ImageType::Pointer image = ReadProjections(path);
  const auto size = image->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], 5u);
  ASSERT_EQ(size[1], 3u);
  ASSERT_EQ(size[2], 1u);
  for (unsigned int v = 0; v < 3; ++v)
    for (unsigned int u = 0; u < 5; ++u)
      EXPECT_EQ(image->GetPixel({ { u, v, 0 } }), static_cast<float>(c.pixels[5 * v + u])) << u << ", " << v;
  EXPECT_NEAR(image->GetSpacing()[0], 0.388, 1e-9);
  EXPECT_NEAR(image->GetSpacing()[1], 0.388, 1e-9);
  EXPECT_NEAR(image->GetOrigin()[0], -2. * 0.388, 1e-9);
  EXPECT_NEAR(image->GetOrigin()[1], -1. * 0.388, 1e-9);
}

TEST(VarianAppRead, HndAndHncAsProjectionStacks)
{
  HndContents c;
  c.width = 4;
  c.height = 3;
  c.pixels = { 7, 8, 9, 10, 11, 60000, 13, 14, 15, 16, 1, 18 };
  SetTypicalHndHeader(c);
  for (const char * name : { "cbctVarianAppRead.hnd", "cbctVarianAppRead.hnc" })
  {
    const std::string path = cbct::test::TestFile(name);
    if (std::string(name).back() == 'd')
      WriteHnd(path, c);
    else
      WriteHnc(path, c);
    const ImageType::Pointer image = ReadProjections(path);
    ASSERT_EQ(image->GetLargestPossibleRegion().GetSize()[0], 4u) << name;
    EXPECT_EQ(image->GetPixel({ { 1, 1, 0 } }), 60000.f) << name;
    EXPECT_EQ(image->GetPixel({ { 2, 2, 0 } }), 1.f) << name;
    EXPECT_NEAR(image->GetOrigin()[0], -1.5 * 0.388, 1e-9) << name;
  }
}

TEST(VarianAppRead, DamagedXimNamesTheOptionAndTheFile)
{
  const std::string path = cbct::test::TestFile("cbctVarianAppReadDamaged.xim");
  XimFile f = MakeXim(SmallXim());
  f.bytes.resize(f.lookupTableAt + 1);
  WriteBytes(path, f.bytes);
  try
  {
    ReadProjections(path);
    FAIL() << "a XIM cut short was read";
  }
  catch (const cbct::apps::Error & e)
  {
    const std::string message = e.what();
    EXPECT_NE(message.find("--projections"), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("cut short"), std::string::npos) << message;
  }
}

} // namespace
