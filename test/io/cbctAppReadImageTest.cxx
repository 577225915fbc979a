// The apps' image reading (cbct::apps::ReadImage): a 1D or 2D MetaImage is read at its dimension and given
// the missing axes of one voxel, since ITK 5.2's MetaImageIO, asked for a 3D region of a 2D file whose pixels need
// converting, frees a pointer it never allocated (ASCII MET_SHORT; found by cbctFuzzProjectionFile).
// Here that path must give every pixel, the spacing, origin and flips of the file, for ASCII and
// binary data, short and float pixels.
#include "cbctCheckedFiles.h"
#include "cbctTestFolder.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace
{
using ImageType = itk::Image<float, 3>;

/** A 2D MetaImage of 5 x 3 pixels with values 10 * v + u - 7 (u, v from 0), spacing (0.5, 2),
 * origin (-1, 4), u flipped by its direction (TransformMatrix -1 0 0 1). */
std::string
WriteFlat(const std::string & name, bool ascii, const std::string & type)
{
  const std::string path = cbct::test::TestFile(name);
  std::ofstream out(path, std::ios::binary);
  out << "ObjectType = Image\nNDims = 2\nBinaryData = " << (ascii ? "False" : "True")
      << "\nBinaryDataByteOrderMSB = False\nTransformMatrix = -1 0 0 1\nOffset = -1 4\nElementSpacing = 0.5 2\n"
      << "DimSize = 5 3\nElementType = " << type << "\nElementDataFile = LOCAL\n";
  for (int v = 0; v < 3; ++v)
    for (int u = 0; u < 5; ++u)
    {
      const int value = 10 * v + u - 7;
      if (ascii)
        out << value << (u == 4 ? "\n" : " ");
      else if (type == "MET_SHORT")
      {
        const short s = static_cast<short>(value);
        out.write(reinterpret_cast<const char *>(&s), sizeof s);
      }
      else
      {
        const float f = static_cast<float>(value);
        out.write(reinterpret_cast<const char *>(&f), sizeof f);
      }
    }
  return path;
}

void
ExpectTheFlatImage(const std::string & path)
{
  SCOPED_TRACE(path);
  cbct::apps::InspectedImages().clear();
  const ImageType::Pointer image = cbct::apps::ReadImage<ImageType>("--projections", path, cbct::apps::ImageRole::ProjectionStack);
  const auto size = image->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], 5u);
  ASSERT_EQ(size[1], 3u);
  ASSERT_EQ(size[2], 1u);
  // The canonical grid: u's flip undone (positive spacing, identity direction), every pixel where it was.
  EXPECT_EQ(image->GetSpacing()[0], 0.5);
  EXPECT_EQ(image->GetSpacing()[1], 2.);
  EXPECT_NEAR(image->GetOrigin()[0], -1. - 4 * 0.5, 1e-12);
  EXPECT_NEAR(image->GetOrigin()[1], 4., 1e-12);
  EXPECT_TRUE(image->GetDirection().GetVnlMatrix().is_identity());
  for (int v = 0; v < 3; ++v)
    for (int u = 0; u < 5; ++u)
    {
      const ImageType::IndexType at{ { 4 - u, v, 0 } }; // file pixel u now at 4 - u
      EXPECT_EQ(image->GetPixel(at), static_cast<float>(10 * v + u - 7)) << "file pixel (" << u << ", " << v << ")";
    }
}
} // namespace

TEST(AppReadImage, TwoDimensionalMetaImagesOfEveryEncoding)
{
  ExpectTheFlatImage(WriteFlat("ascii_short.mha", true, "MET_SHORT"));
  ExpectTheFlatImage(WriteFlat("ascii_float.mha", true, "MET_FLOAT"));
  ExpectTheFlatImage(WriteFlat("binary_short.mha", false, "MET_SHORT"));
  ExpectTheFlatImage(WriteFlat("binary_float.mha", false, "MET_FLOAT"));
}

// A 1D MetaImage is read as 1D and given two axes of one voxel, every pixel kept. (These well-formed
// files do not crash ITK 5.2 read into 3D; the malformed 1D ASCII MET_DOUBLE file that did is the fuzz
// regression input regressions/cbctFuzzProjectionFile/ascii_double_1d.mha, run by ctest.)
TEST(AppReadImage, OneDimensionalMetaImagesOfEveryEncoding)
{
  for (const bool ascii : { true, false })
    for (const std::string type : { "MET_DOUBLE", "MET_SHORT" })
    {
      const std::string path = cbct::test::TestFile(std::string("line_") + (ascii ? "ascii_" : "binary_") + type + ".mha");
      SCOPED_TRACE(path);
      {
        std::ofstream out(path, std::ios::binary);
        out << "ObjectType = Image\nNDims = 1\nBinaryData = " << (ascii ? "False" : "True")
            << "\nBinaryDataByteOrderMSB = False\nOffset = -3\nElementSpacing = 0.25\nDimSize = 4\nElementType = " << type
            << "\nElementDataFile = LOCAL\n";
        for (int u = 0; u < 4; ++u)
        {
          const int value = 3 * u - 5;
          if (ascii)
            out << value << (u == 3 ? "\n" : " ");
          else if (type == "MET_SHORT")
          {
            const short s = static_cast<short>(value);
            out.write(reinterpret_cast<const char *>(&s), sizeof s);
          }
          else
          {
            const double d = value;
            out.write(reinterpret_cast<const char *>(&d), sizeof d);
          }
        }
      }
      cbct::apps::InspectedImages().clear();
      const ImageType::Pointer image = cbct::apps::ReadImage<ImageType>("--projections", path, cbct::apps::ImageRole::ProjectionStack);
      const auto size = image->GetLargestPossibleRegion().GetSize();
      ASSERT_EQ(size[0], 4u);
      ASSERT_EQ(size[1], 1u);
      ASSERT_EQ(size[2], 1u);
      EXPECT_EQ(image->GetSpacing()[0], 0.25);
      EXPECT_NEAR(image->GetOrigin()[0], -3., 1e-12);
      for (int u = 0; u < 4; ++u)
        EXPECT_EQ(image->GetPixel(ImageType::IndexType{ { u, 0, 0 } }), static_cast<float>(3 * u - 5)) << "pixel " << u;
    }
}
