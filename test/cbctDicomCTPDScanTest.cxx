// The DICOM-CT-PD reader (DicomDataSet, DicomCTPDFile, DicomCTPDImageIO, DicomCTPDScan) on files GDCM
// writes here: the geometry of flying-focal-spot scans (cylindrical and flat, both pixel layouts, both
// VR encodings, signed and unsigned values) against the format's own definition of where the focal
// spot and each detector element are, each pixel at its element; the ImageIO through ITK's factory;
// and damaged or impossible files refused naming the tag (tests named Bad*/Truncated*: label
// badinput). The helical scan imported and reconstructed: cbctDicomCTPDHelicalImportTest.
#include "cbctDicomCTPDFile.h"
#include "cbctDicomCTPDImageIO.h"
#include "cbctDicomCTPDScan.h"
#include "cbctDicomCTPDTestFiles.h"
#include "cbctDicomDataSet.h"
#include "cbctTestHelpers.h"
#include "cbctScanImporter.h"

#include <itkGDCMImageIO.h>
#include <itkGDCMImageIOFactory.h>
#include <itkImageFileReader.h>
#include <itkMetaDataObject.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;

template <typename F>
std::string
MessageOf(F && f)
{
  try
  {
    f();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return "(no exception)";
}

std::string
ReadBytes(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void
WriteBytes(const std::string & path, const std::string & bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/** A point of the format's left-handed frame (x = -rho sin phi, y = rho cos phi, z) in RTK's world
 * (x, z, y): the mapping DicomCTPDScan documents. */
std::array<double, 3>
ToRTK(double x, double y, double z)
{
  return { x, z, y };
}

/** Where the format puts the focal spot of `p` (cylindrical coordinates, then its Cartesian frame). */
std::array<double, 3>
FormatSource(const CTPDProjection & p)
{
  const double rho = double(p.rho0) + p.drho, phi = double(p.phi0) + p.dphi;
  return ToRTK(-rho * std::sin(phi), rho * std::cos(phi), double(p.z0) + p.dz);
}

/** Where the format puts the centre of detector element (column, row) (from 1) of `p`: on the arc of
 * radius d0 about the focal centre (CYLINDRICAL; columns at arc lengths from the central element,
 * growing with phi), or on the plane at d0 from it, normal to the line to the isocentre (FLAT); rows at
 * z0 + (central row - row) x width (row 1 the farthest from the table). */
std::array<double, 3>
FormatElement(const CTPDProjection & p, double column, double row)
{
  const double phi = p.phi0, rho = p.rho0, d0 = p.d0;
  const double fx = -rho * std::sin(phi), fy = rho * std::cos(phi);
  const double along = (column - p.centralColumn) * p.columnSpacing;
  const double z = double(p.z0) + (double(p.centralRow) - row) * p.rowSpacing;
  if (p.shape == "CYLINDRICAL")
  {
    const double gamma = along / d0;
    return ToRTK(fx + d0 * std::sin(phi + gamma), fy - d0 * std::cos(phi + gamma), z);
  }
  return ToRTK(fx + d0 * std::sin(phi) + along * std::cos(phi), fy - d0 * std::cos(phi) + along * std::sin(phi), z);
}

/** A small valid projection whose stored values name their element: column x 100 + row. */
CTPDProjection
NamedElements(unsigned int columns = 8, unsigned int rows = 4)
{
  CTPDProjection p;
  p.columns = columns;
  p.rows = rows;
  p.centralColumn = 0.5f * (columns + 1) - 0.25f;
  p.centralRow = 0.5f * (rows + 1) + 0.5f;
  p.stored.assign(std::size_t(columns) * rows, 0);
  for (unsigned int c = 1; c <= columns; ++c)
    for (unsigned int r = 1; r <= rows; ++r)
      p.stored[StoredIndex(p, c, r)] = static_cast<std::uint16_t>(100 * c + r);
  return p;
}

/** A folder of `count` projections of `base`, each with its own view, written by `write`. */
std::string
FolderOf(const std::string & name, const std::vector<CTPDProjection> & views)
{
  const std::string folder = FreshSubfolder(name).string();
  for (std::size_t k = 0; k < views.size(); ++k)
  {
    std::ostringstream file;
    file << folder << "/proj" << std::setw(5) << std::setfill('0') << k << ".dcm";
    WriteCTPD(file.str(), views[k]);
  }
  return folder;
}

} // namespace

// Flying-focal-spot scans on cylindrical and flat detectors, in both pixel layouts and both VR
// encodings, signed and unsigned: the imported geometry puts the source and every corner and the
// centre of the detector where the format's definition does, and each pixel lands at its element.
TEST(DicomCTPDScan, GeometryAndPixelsFollowTheFormatsDefinition)
{
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1., 1.);
  struct Case
  {
    std::string shape;
    bool rowsFastest, implicitVR, signedPixels;
  };
  for (const Case & c : { Case{ "CYLINDRICAL", true, false, false }, Case{ "CYLINDRICAL", false, true, true },
                          Case{ "FLAT", true, true, false }, Case{ "FLAT", false, false, true } })
  {
    const std::string what = c.shape + (c.rowsFastest ? ", Mayo layout" : ", row by row") +
                             (c.implicitVR ? ", implicit VR" : ", explicit VR") + (c.signedPixels ? ", signed" : "");
    std::vector<CTPDProjection> views;
    for (int k = 0; k < 6; ++k)
    {
      CTPDProjection p = NamedElements();
      p.shape = c.shape;
      p.rowsFastest = c.rowsFastest;
      p.implicitVR = c.implicitVR;
      p.signedPixels = c.signedPixels;
      p.stored.assign(std::size_t(p.columns) * p.rows, 0);
      for (unsigned int col = 1; col <= p.columns; ++col)
        for (unsigned int row = 1; row <= p.rows; ++row)
          p.stored[StoredIndex(p, col, row)] =
            static_cast<std::uint16_t>(c.signedPixels ? -int(100 * col + row) : int(100 * col + row));
      p.rho0 = 595.f;
      p.d0 = 1085.6f;
      p.phi0 = static_cast<float>(3. * uniform(random));
      p.z0 = static_cast<float>(50. * uniform(random));
      p.dphi = static_cast<float>(k % 2 == 0 ? 1.1e-3 : -1.1e-3); // FFSXYZ: alternate focal spots
      p.drho = static_cast<float>(k % 2 == 0 ? 1.2 : -1.2);
      p.dz = static_cast<float>(k % 4 < 2 ? 0.3 : -0.3);
      p.ffs = "FFSXYZ";
      p.instance = k + 1;
      p.columnSpacing = 1.2858f;
      p.rowSpacing = 1.0947f;
      views.push_back(p);
    }
    const std::string folder = FolderOf(c.shape + (c.rowsFastest ? "1" : "0") + (c.implicitVR ? "i" : "e"), views);
    const DicomCTPDScan::Pointer scan = DicomCTPDScan::Open(folder);
    const auto geometry = scan->Geometry();
    ASSERT_EQ(geometry->GetNumberOfProjections(), views.size()) << what;
    EXPECT_EQ(geometry->IsCylindrical(), c.shape == "CYLINDRICAL") << what;
    const auto spacing = scan->DetectorSpacing();
    const auto origin = scan->DetectorOrigin();
    double worst = 0.;
    for (unsigned int k = 0; k < views.size(); ++k)
    {
      const CTPDProjection & p = views[k];
      const auto source = geometry->GetSourcePosition(k);
      const auto expected = FormatSource(p);
      for (unsigned int d = 0; d < 3; ++d)
        worst = std::max(worst, std::abs(source[d] - expected[d]));
      for (const auto & [column, row] : std::vector<std::pair<unsigned int, unsigned int>>{
             { 1, 1 }, { p.columns, 1 }, { 1, p.rows }, { p.columns, p.rows }, { 5, 3 } })
      {
        const double u = origin[0] + (column - 1) * spacing[0];
        const double v = origin[1] + (p.rows - row) * spacing[1];
        const auto point = geometry->GetDetectorPoint(k, u, v);
        const auto element = FormatElement(p, column, row);
        for (unsigned int d = 0; d < 3; ++d)
          worst = std::max(worst, std::abs(point[d] - element[d]));
      }
    }
    EXPECT_LE(worst, 2e-3) << what << ": mm between the import's and the format's positions";

    const ImageType::Pointer stack = ScanImporter::ReadLineIntegrals(scan);
    std::size_t wrong = 0;
    for (unsigned int k = 0; k < views.size(); ++k)
      for (unsigned int j = 0; j < views[k].rows; ++j)
        for (unsigned int i = 0; i < views[k].columns; ++i)
        {
          const int named = 100 * int(i + 1) + int(views[k].rows - j);
          const double expected = (c.signedPixels ? -named : named) * 0.0009765625 - 1.;
          wrong += stack->GetPixel({ { i, j, k } }) == static_cast<float>(expected) ? 0 : 1;
        }
    EXPECT_EQ(wrong, 0u) << what;
  }
}

// The ImageIO alone, through ITK's factory: the stored values and the header's fields in the
// metadata dictionary; other DICOM files are not claimed.
TEST(DicomCTPDScan, ImageIOReadsOneProjectionWithItsFields)
{
  CTPDProjection p = NamedElements(6, 3);
  p.photons = { 1.f, 2.f, 3.f, 4.f, 5.f, 6.f };
  p.phi0 = 1.25f;
  const std::string file = TestFile("one.dcm");
  WriteCTPD(file, p);
  auto reader = itk::ImageFileReader<itk::Image<unsigned short, 2>>::New();
  reader->SetFileName(file);
  reader->Update();
  const auto * image = reader->GetOutput();
  EXPECT_NE(dynamic_cast<DicomCTPDImageIO *>(reader->GetImageIO()), nullptr);
  ASSERT_EQ(image->GetLargestPossibleRegion().GetSize()[0], 6u);
  ASSERT_EQ(image->GetLargestPossibleRegion().GetSize()[1], 3u);
  EXPECT_EQ(image->GetPixel({ { 0, 0 } }), 100 + 3); // column 1, the last row
  EXPECT_EQ(image->GetPixel({ { 5, 2 } }), 600 + 1); // column 6, row 1
  const auto & dictionary = reader->GetImageIO()->GetMetaDataDictionary();
  double angle = 0.;
  EXPECT_TRUE(itk::ExposeMetaData<double>(dictionary, "DetectorFocalCenterAngularPosition", angle));
  EXPECT_DOUBLE_EQ(angle, 1.25);
  std::vector<float> photons;
  EXPECT_TRUE(itk::ExposeMetaData<std::vector<float>>(dictionary, "PhotonStatistics", photons));
  EXPECT_EQ(photons, p.photons);

  // A DICOM file without the format's tags is left to other readers.
  const std::string plain = TestFile("plain.dcm");
  WriteCTPD(plain, p, [](gdcm::DataSet & set) {
    set.Remove(gdcm::Tag(0x7029, 0x1010));
    set.Remove(gdcm::Tag(0x7031, 0x1001));
  });
  EXPECT_FALSE(DicomCTPDImageIO::New()->CanReadFile(plain.c_str()));
  EXPECT_TRUE(DicomCTPDImageIO::New()->CanReadFile(file.c_str()));
}

// ITK's own DICOM reader (itk::GDCMImageIO, registered in the apps through ITK's ITKImageIO group)
// claims every DICOM file and reads it in its own orientation, rescaled: the importer reads a
// DICOM-CT-PD scan with the format's reader even when GDCMImageIO is asked first.
TEST(DicomCTPDScan, ImporterReadsWithTheFormatsReaderBeforeITKsDicomReader)
{
  const auto gdcm = itk::GDCMImageIOFactory::New();
  itk::ObjectFactoryBase::RegisterFactory(gdcm, itk::ObjectFactoryBase::InsertionPositionEnum::INSERT_AT_FRONT);
  const std::string folder = FolderOf("scan", { NamedElements(8, 4), NamedElements(8, 4) });
  ASSERT_TRUE(itk::GDCMImageIO::New()->CanReadFile((folder + "/proj00000.dcm").c_str()));
  const ScannerScan::Pointer scan = ScanImporter::Open(folder);
  const ImageType::Pointer stack = ScanImporter::ReadLineIntegrals(scan);
  ASSERT_EQ(stack->GetLargestPossibleRegion().GetSize()[0], 8u);
  EXPECT_EQ(stack->GetPixel({ { 2, 0, 1 } }), static_cast<float>((300 + 4) * 0.0009765625 - 1.)); // column 3, row 4
  itk::ObjectFactoryBase::UnRegisterFactory(gdcm);
}

// Every length of a cut file is refused with a message (no crash, no allocation of what the file
// claims): inside the preamble, the meta information, any element, the pixels.
TEST(DicomCTPDScanBadInput, TruncatedFilesAreRefusedAtEveryLength)
{
  const std::string whole = TestFile("whole.dcm");
  CTPDProjection p = NamedElements();
  p.photons.assign(p.columns, 1000.f);
  WriteCTPD(whole, p);
  const std::string bytes = ReadBytes(whole);
  const std::string cut = TestFile("cut.dcm");
  for (std::size_t length = 0; length < bytes.size(); length += 7)
  {
    WriteBytes(cut, bytes.substr(0, length));
    // Cut inside an element: "is cut short"; between two: the elements after the cut are missing.
    const std::string message = MessageOf([&] { DicomCTPDFile::Read(cut); });
    EXPECT_TRUE(message.find("is cut short") != std::string::npos || message.find("; expected") != std::string::npos)
      << length << " bytes: " << message;
  }
  WriteBytes(cut, bytes.substr(0, bytes.size() - 10));
  const std::string pixels = MessageOf([&] { DicomCTPDScan::Open(cut); });
  EXPECT_NE(pixels.find("is cut short: it ends at byte " + std::to_string(bytes.size() - 10) + ", inside Pixel Data (7FE0,0010)"),
            std::string::npos)
    << pixels;
}

// Each tag the geometry needs, missing, is named.
TEST(DicomCTPDScanBadInput, MissingTagsAreNamed)
{
  const std::vector<std::pair<std::uint16_t, std::uint16_t>> tags{
    { 0x7029, 0x1010 }, { 0x7029, 0x1011 }, { 0x7029, 0x1002 }, { 0x7029, 0x1006 }, { 0x7029, 0x100B },
    { 0x7031, 0x1001 }, { 0x7031, 0x1002 }, { 0x7031, 0x1003 }, { 0x7031, 0x1031 }, { 0x7031, 0x1033 },
    { 0x0028, 0x1052 }, { 0x0028, 0x1053 }, { 0x0028, 0x0010 }, { 0x0028, 0x0100 }, { 0x7FE0, 0x0010 }
  };
  for (const auto & named : tags)
  {
    // Plain copies, not structured bindings: clang 14 (the sanitized build's) refuses a lambda that
    // captures a binding.
    const std::uint16_t group = named.first, element = named.second;
    const std::string file = TestFile("missing.dcm");
    WriteCTPD(file, NamedElements(), [&](gdcm::DataSet & set) { set.Remove(gdcm::Tag(group, element)); });
    std::ostringstream tag;
    tag << '(' << std::hex << std::uppercase << std::setfill('0') << std::setw(4) << group << ',' << std::setw(4)
        << element << ')';
    const std::string message = MessageOf([&] { DicomCTPDFile::Read(file); });
    EXPECT_NE(message.find(tag.str()), std::string::npos) << tag.str() << ": " << message;
    EXPECT_NE(message.find("missing"), std::string::npos) << tag.str() << ": " << message;
  }
}

// Sizes that disagree with each other or with the file, and values no scanner has.
TEST(DicomCTPDScanBadInput, InconsistentSizesAndImpossibleValuesAreRefused)
{
  struct Case
  {
    std::string expected;
    std::function<void(CTPDProjection &)> change;
    std::function<void(gdcm::DataSet &)> edit;
  };
  const auto floats = [](std::uint16_t g, std::uint16_t e, std::vector<float> v) {
    return [=](gdcm::DataSet & set) { ctpd::PutFloats(set, g, e, v); };
  };
  const std::vector<Case> cases{
    { "(0028,0010) Rows x (0028,0011) Columns of DICOM-CT-PD file",
      nullptr, [](gdcm::DataSet & set) { ctpd::PutShort(set, 0x0028, 0x0010, 9); } },
    { "(7FE0,0010) Pixel Data of DICOM-CT-PD file", nullptr,
      [](gdcm::DataSet & set) {
        std::vector<std::uint16_t> short_(30, 1);
        ctpd::Put(set, 0x7FE0, 0x0010, gdcm::VR::OW, short_.data(), 60);
      } },
    { "(7033,1065) PhotonStatistics", [](CTPDProjection & p) { p.photons.assign(5, 1.f); }, nullptr },
    { "PhotonStatistics of DICOM-CT-PD file", [](CTPDProjection & p) { p.photons.assign(p.columns, -1.f); }, nullptr },
    { "(7031,1031) ConstantRadialDistance of DICOM-CT-PD file", [](CTPDProjection & p) { p.d0 = 300.f; }, nullptr },
    { "(7029,1002) DetectorElementTransverseSpacing", [](CTPDProjection & p) { p.columnSpacing = 0.f; }, nullptr },
    { "(7031,1001) DetectorFocalCenterAngularPosition", nullptr, floats(0x7031, 0x1001, { std::nanf("") }) },
    { "(7031,1003) DetectorFocalCenterRadialDistance", [](CTPDProjection & p) { p.rho0 = -1.f; }, nullptr },
    { "(7031,1033) DetectorCentralElement", [](CTPDProjection & p) { p.centralColumn = 40.f; }, nullptr },
    { "(7031,1033) DetectorCentralElement", nullptr, floats(0x7031, 0x1033, { 4.f }) },
    { "(7029,100B) DetectorShape", [](CTPDProjection & p) { p.shape = "SPHERICAL"; }, nullptr },
    { "(7039,1009) LogFlag", [](CTPDProjection & p) { p.logFlag = "NO"; }, nullptr },
    { "(0028,1053) RescaleSlope", [](CTPDProjection & p) { p.slope = "0"; }, nullptr },
    { "(0028,1053) RescaleSlope", [](CTPDProjection & p) { p.slope = "abc"; }, nullptr },
    { "(7033,100B) SourceAngularPositionShift", [](CTPDProjection & p) { p.dphi = 2.f; }, nullptr },
    { "(0028,0100) BitsAllocated", nullptr, [](gdcm::DataSet & set) { ctpd::PutShort(set, 0x0028, 0x0100, 8); } },
    { "(0028,0008) NumberOfFrames", nullptr,
      [](gdcm::DataSet & set) { ctpd::PutText(set, 0x0028, 0x0008, gdcm::VR::IS, "2"); } },
    { "(7037,100A) TypeofProjectionGeometry", nullptr,
      [](gdcm::DataSet & set) { ctpd::PutText(set, 0x7037, 0x100A, gdcm::VR::CS, "PARALLEL"); } },
    { "(7029,1010) NumberofDetectorRows", nullptr,
      [](gdcm::DataSet & set) { ctpd::PutFloats(set, 0x7029, 0x1010, { 4.f }); } },
  };
  for (const Case & c : cases)
  {
    CTPDProjection p = NamedElements();
    if (c.change)
      c.change(p);
    const std::string file = TestFile("bad.dcm");
    WriteCTPD(file, p, c.edit);
    const std::string message = MessageOf([&] { DicomCTPDScan::Open(file); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.expected << ": " << message;
    EXPECT_NE(message.find("expected"), std::string::npos) << c.expected << ": " << message;
  }
}

// A folder whose files disagree on the detector, a syntax the reader does not decode, an element
// claiming more bytes than the file has, and a folder without DICOM files.
TEST(DicomCTPDScanBadInput, DisagreeingFilesAndForeignEncodingsAreRefused)
{
  std::vector<CTPDProjection> views{ NamedElements(), NamedElements() };
  views[1].instance = 2;
  views[1].columnSpacing = 1.7f;
  const std::string mixed = FolderOf("mixed", views);
  const std::string disagree = MessageOf([&] { DicomCTPDScan::Open(mixed); });
  EXPECT_NE(disagree.find("(7029,1002) DetectorElementTransverseSpacing of DICOM-CT-PD file"), std::string::npos) << disagree;
  EXPECT_NE(disagree.find("every projection of a scan has the same detector"), std::string::npos) << disagree;

  const std::string good = TestFile("good.dcm");
  WriteCTPD(good, NamedElements());
  std::string bytes = ReadBytes(good);
  const auto syntax = bytes.find("1.2.840.10008.1.2.1");
  ASSERT_NE(syntax, std::string::npos);
  std::string bigEndian = bytes;
  bigEndian[syntax + 18] = '2';
  const std::string big = TestFile("big.dcm");
  WriteBytes(big, bigEndian);
  const std::string endian = MessageOf([&] { DicomCTPDFile::Read(big); });
  EXPECT_NE(endian.find("Transfer Syntax UID (0002,0010) is 1.2.840.10008.1.2.2; expected"), std::string::npos) << endian;

  // PhotonStatistics (FL, 2-byte length) rewritten as an OB element claiming 2^31 bytes.
  CTPDProjection p = NamedElements();
  p.photons.assign(p.columns, 7.f);
  WriteCTPD(good, p);
  bytes = ReadBytes(good);
  const std::string tag("\x33\x70\x65\x10" "FL", 6);
  const auto at = bytes.find(tag);
  ASSERT_NE(at, std::string::npos);
  const std::string huge = bytes.substr(0, at) + std::string("\x33\x70\x65\x10" "OB\0\0\0\0\0\x80", 12) + bytes.substr(at + 8);
  WriteBytes(big, huge);
  const std::string claim = MessageOf([&] { DicomCTPDFile::Read(big); });
  EXPECT_NE(claim.find("is cut short"), std::string::npos) << claim;
  EXPECT_NE(claim.find("2147483648 bytes"), std::string::npos) << claim;

  const std::string empty = FreshSubfolder("empty").string();
  WriteBytes(empty + "/notes.txt", "not a projection");
  const std::string none = MessageOf([&] { DicomCTPDScan::Open(empty); });
  EXPECT_NE(none.find("holds no DICOM file"), std::string::npos) << none;
  EXPECT_FALSE(DicomCTPDScan::Recognizes(empty));
}
