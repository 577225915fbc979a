// Elekta XVI: the dBase III table reader, XVI 5 (_Frames.xml) and XVI 4.5 (IMAGE.DBF/FRAME.DBF)
// scans turned into RTK geometry (angles, flex-map offsets per frame, frames left out), the detector
// grid, and RTK's lookup table from readings to line integrals (with flood and dark fields).
#include "cbctDBaseTable.h"
#include "cbctElektaTestFiles.h"
#include "cbctTestFolder.h"
#include "cbctElektaXVIScan.h"
#include "cbctScanImporter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace
{
using cbct::test::DbfField;
using cbct::test::HisSpec;
using cbct::test::XviFrame;
namespace fs = std::filesystem;

constexpr double Pi = 3.14159265358979323846;

/** The running test's folder (cbctTestFolder.h: removed when the test ends). */
fs::path
TestFolder()
{
  return cbct::test::CurrentTestFolder();
}

std::string
ErrorOf(const std::function<void()> & action)
{
  try
  {
    action();
  }
  catch (const itk::ExceptionObject & e)
  {
    return e.GetDescription();
  }
  return std::string();
}

bool
LogHas(const cbct::ScannerScan & scan, const std::string & text)
{
  for (const std::string & line : scan.Log())
    if (line.find(text) != std::string::npos)
      return true;
  return false;
}

std::string
LogText(const cbct::ScannerScan & scan)
{
  std::string all;
  for (const std::string & line : scan.Log())
    all += line + "\n";
  return all;
}

/** Degrees in [0, 360) as the geometry keeps them (radians in [0, 2 pi)). */
double
Wrapped(double degrees)
{
  double d = std::fmod(degrees, 360.);
  return d < 0 ? d + 360. : d;
}

// ---- dBase III tables

TEST(DBaseTable, ReadsFieldsAndRecordsSkippingDeletedOnes)
{
  const fs::path folder = TestFolder();
  const std::string path = (folder / "T.DBF").string();
  cbct::test::WriteBytes(path, cbct::test::DbfBytes({ { "NAME", 'C', 8 }, { "VALUE", 'N', 9, 3 } },
                                                    { { "first", "1.500" }, { "gone", "2" }, { " third", "-0.25" } },
                                                    { false, true, false }));
  const cbct::DBaseTable table = cbct::DBaseTable::Read(path);
  ASSERT_EQ(table.Fields().size(), 2u);
  EXPECT_EQ(table.Fields()[0].name, "NAME");
  EXPECT_EQ(table.Fields()[0].type, 'C');
  EXPECT_EQ(table.Fields()[0].length, 8u);
  EXPECT_EQ(table.Fields()[1].name, "VALUE");
  EXPECT_EQ(table.Fields()[1].type, 'N');
  EXPECT_EQ(table.Fields()[1].decimals, 3u);
  EXPECT_EQ(table.Fields()[1].offset, 9u);
  ASSERT_EQ(table.NumberOfRecords(), 2u);
  EXPECT_EQ(table.GetString(0, "NAME"), "first");
  EXPECT_EQ(table.GetString(1, "name"), "third"); // case of a field name does not matter
  EXPECT_EQ(table.GetNumber(0, "VALUE"), 1.5);
  EXPECT_EQ(table.GetNumber(1, "VALUE"), -0.25);
  EXPECT_TRUE(table.HasField("Value"));
  EXPECT_FALSE(table.HasField("OTHER"));
  EXPECT_NE(ErrorOf([&] { table.GetString(0, "OTHER"); }).find("has no field OTHER"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { table.GetString(5, "NAME"); }).find("has no record 6"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { table.GetNumber(0, "NAME"); }).find("is 'first'; expected a finite number"),
            std::string::npos);
}

TEST(DBaseTable, DamagedTablesAreRefused)
{
  const fs::path folder = TestFolder();
  const std::string good = cbct::test::DbfBytes({ { "A", 'C', 4 }, { "B", 'N', 6 } }, { { "x", "1" }, { "y", "2" } });
  const auto refuse = [&](const std::string & name, const std::string & bytes, const std::string & expected) {
    const std::string path = (folder / name).string();
    cbct::test::WriteBytes(path, bytes);
    const std::string message = ErrorOf([&] { cbct::DBaseTable::Read(path); });
    EXPECT_NE(message.find("dBase table " + path), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << name << ": " << message;
  };
  refuse("short.dbf", good.substr(0, 20), "shorter than the 32-byte table header");
  std::string lying = good;
  cbct::test::Put32(lying, 4, 1000000);
  refuse("lying.dbf", lying, "1000000 records of 11 bytes");
  std::string truncated = good.substr(0, good.size() - 8); // the last record cut
  refuse("truncated.dbf", truncated, "records of 11 bytes need 22 bytes");
  std::string pastEnd = good;
  cbct::test::Put16(pastEnd, 8, 60000);
  refuse("header.dbf", pastEnd, "header size 60000 is past the end");
  std::string recordSize = good;
  cbct::test::Put16(recordSize, 10, 12);
  refuse("recordsize.dbf", recordSize, "record size is 12; the fields need 11");
  std::string noEnd = good;
  noEnd[32 + 2 * 32] = 'Z'; // the 0x0D mark overwritten
  refuse("noend.dbf", noEnd, "runs past the header's end");
  std::string flag = good;
  flag[32 + 2 * 32 + 1] = 'Q';
  refuse("flag.dbf", flag, "record 1 has deletion flag 0x51");
  std::string version = good;
  version[0] = 0x30; // Visual FoxPro
  refuse("version.dbf", version, "version byte is 0x30");
  std::string zero = good;
  zero[32 + 16] = 0;
  refuse("zero.dbf", zero, "field A has length 0");
}

// ---- XVI 5: _Frames.xml

/** A scan folder img_<uid> with one 8 x 4 HIS file per frame (numbered by Seq) and _Frames.xml. */
fs::path
WriteXvi5Scan(const fs::path & root, const std::vector<XviFrame> & frames, std::uint16_t correction = 0)
{
  const fs::path folder = root / "img_1.3.46.423632.test";
  fs::create_directories(folder);
  for (const XviFrame & f : frames)
  {
    HisSpec spec;
    spec.width = 8;
    spec.height = 4;
    spec.correction = correction;
    char name[32];
    std::snprintf(name, sizeof name, "%05ld", f.seq);
    cbct::test::WriteHis(folder / (std::string(name) + ".1.3.46.423632.test.his"), spec);
  }
  cbct::test::WriteBytes(folder / "_Frames.xml", cbct::test::FramesXml(frames));
  return folder;
}

TEST(ElektaXVIScan, Xvi5FramesBecomeRTKGeometryWithTheFlexMap)
{
  const fs::path root = TestFolder();
  std::vector<XviFrame> frames = { { 1, -179.5, 115.25, 0.5 },  { 2, -90.0, 114.75, -0.25 },
                                   { 3, -45.0, 115.0, 0.0 },    { 4, 0.0, 116.0, 1.0 },
                                   { 5, 45.0, 115.0, 0.0 },     { 6, 178.25, 113.5, -1.5 } };
  frames[2].inactive = true;
  frames[4].exposed = false;
  const fs::path folder = WriteXvi5Scan(root, frames);

  EXPECT_TRUE(cbct::ElektaXVIScan::Recognizes(folder.string()));
  EXPECT_TRUE(cbct::ElektaXVIScan::Recognizes((folder / "_Frames.xml").string()));
  EXPECT_FALSE(cbct::ElektaXVIScan::Recognizes(root.string()));
  const auto scan = cbct::ElektaXVIScan::Open(folder.string());
  EXPECT_EQ(scan->Format(), "Elekta XVI 5 (HIS + _Frames.xml)");

  // Seq 3 (inactive) and 5 (not exposed) are left out with their files.
  const std::vector<long> kept = { 1, 2, 4, 6 };
  ASSERT_EQ(scan->ProjectionFiles().size(), kept.size());
  const auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), kept.size());
  for (std::size_t k = 0; k < kept.size(); ++k)
  {
    const XviFrame & f = frames[kept[k] - 1];
    char name[32];
    std::snprintf(name, sizeof name, "%05ld.", f.seq);
    EXPECT_EQ(fs::path(scan->ProjectionFiles()[k]).filename().string().rfind(name, 0), 0u)
      << scan->ProjectionFiles()[k];
    const auto & p = geometry->GetParameters(static_cast<unsigned int>(k));
    EXPECT_EQ(p.sourceToIsocenterDistance, 1000.);
    EXPECT_EQ(p.sourceToDetectorDistance, 1536.);
    EXPECT_NEAR(p.gantryAngle * 180. / Pi, Wrapped(f.angle), 1e-9) << "Seq " << f.seq;
    EXPECT_NEAR(p.projectionOffsetX, -f.uCentre, 1e-12) << "Seq " << f.seq;
    EXPECT_NEAR(p.projectionOffsetY, -f.vCentre, 1e-12) << "Seq " << f.seq;
    EXPECT_EQ(p.sourceOffsetX, 0.);
    EXPECT_EQ(p.sourceOffsetY, 0.);
    EXPECT_EQ(p.outOfPlaneAngle, 0.);
    EXPECT_EQ(p.inPlaneAngle, 0.);
  }
  // -179.5 deg is 180.5 deg in RTK's [0, 360).
  EXPECT_NEAR(geometry->GetParameters(0).gantryAngle, 180.5 * Pi / 180., 1e-12);

  EXPECT_NEAR(scan->DetectorSpacing()[0], 409.6 / 8, 1e-12);
  EXPECT_NEAR(scan->DetectorSpacing()[1], 409.6 / 4, 1e-12);
  EXPECT_NEAR(scan->DetectorOrigin()[0], -3.5 * 409.6 / 8, 1e-9);
  EXPECT_NEAR(scan->DetectorOrigin()[1], -1.5 * 409.6 / 4, 1e-9);
  EXPECT_TRUE(LogHas(*scan, "marked Inactive: Seq 3")) << LogText(*scan);
  EXPECT_TRUE(LogHas(*scan, "not Exposed: Seq 5")) << LogText(*scan);
  EXPECT_TRUE(LogHas(*scan, "ProjectionOffsetX = -UCentre")) << LogText(*scan);

  // The same scan opened through its _Frames.xml.
  const auto again = cbct::ElektaXVIScan::Open((folder / "_Frames.xml").string());
  EXPECT_EQ(again->ProjectionFiles().size(), kept.size());
}

TEST(ElektaXVIScan, Xvi5FilesWithoutNumbersAreMatchedInOrder)
{
  const fs::path folder = TestFolder() / "img_1.2.3";
  fs::create_directories(folder);
  for (const char * name : { "a.his", "b.his", "c.his" })
    cbct::test::WriteHis(folder / name, HisSpec());
  cbct::test::WriteBytes(folder / "_Frames.xml",
                         cbct::test::FramesXml({ { 1, 10., 1., 2. }, { 2, 20., 3., 4. }, { 3, 30., 5., 6. } }));
  const auto scan = cbct::ElektaXVIScan::Open(folder.string());
  ASSERT_EQ(scan->ProjectionFiles().size(), 3u);
  EXPECT_EQ(fs::path(scan->ProjectionFiles()[1]).filename(), "b.his");
  EXPECT_NEAR(scan->Geometry()->GetParameters(1).gantryAngle, 20. * Pi / 180., 1e-12);
  EXPECT_NEAR(scan->Geometry()->GetParameters(2).projectionOffsetY, -6., 1e-12);

  // One file more than frames: no way to pair them.
  cbct::test::WriteHis(folder / "d.his", HisSpec());
  EXPECT_NE(ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); }).find("4 .his projection files and 3 frames"),
            std::string::npos);
}

TEST(ElektaXVIScan, BadXvi5ScansAreRefused)
{
  const fs::path root = TestFolder();
  const fs::path folder = WriteXvi5Scan(root, { { 1, 0., 0., 0. }, { 2, 90., 0., 0. } });
  const std::string xml = (folder / "_Frames.xml").string();
  const auto refuse = [&](const std::string & contents, const std::string & expected) {
    cbct::test::WriteBytes(xml, contents);
    const std::string message = ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); });
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  };
  std::string text = cbct::test::FramesXml({ { 1, 0., 0., 0. }, { 2, 90., 0., 0. } });
  std::string badAngle = text;
  badAngle.replace(badAngle.find("<GantryAngle>90"), 15, "<GantryAngle>9x");
  refuse(badAngle, "<Frame> 2 (Seq 2) <GantryAngle> is '9x'; expected a finite number");
  refuse(text.substr(0, text.size() / 2), "_Frames.xml " + xml + ": ");
  std::string noU = text;
  noU.erase(noU.find("<UCentre>"), noU.find("</UCentre>") + 10 - noU.find("<UCentre>"));
  refuse(noU, "has no <UCentre>");
  std::string badFlag = text;
  badFlag.replace(badFlag.find("<Inactive>False"), 15, "<Inactive>Maybe");
  refuse(badFlag, "<Inactive> is 'Maybe'; expected True or False");
  refuse(cbct::test::FramesXml({}), "has no <Frame> element");
  std::string longText = text;
  longText.replace(longText.find("<GantryAngle>90"), 15, "<GantryAngle>" + std::string(5000, ' ') + "90");
  refuse(longText, "is longer than 4096 characters");
  refuse(cbct::test::FramesXml({ { 1, 0., 0., 0. }, { 1, 90., 0., 0. } }), "two frames with Seq 1");
  // An active, exposed frame whose file is missing.
  refuse(cbct::test::FramesXml({ { 1, 0., 0., 0. }, { 2, 90., 0., 0. }, { 3, 180., 0., 0. } }),
         "no .his file numbered 3 for the exposed, active frame Seq 3");
  // Every frame left out.
  std::vector<XviFrame> none = { { 1, 0., 0., 0. }, { 2, 90., 0., 0. } };
  none[0].inactive = true;
  none[1].exposed = false;
  refuse(cbct::test::FramesXml(none), "every frame is inactive or not exposed");
}

TEST(ElektaXVIScan, BadProjectionFilesAreRefused)
{
  const fs::path root = TestFolder();
  const fs::path folder = WriteXvi5Scan(root, { { 1, 0., 0., 0. }, { 2, 90., 0., 0. } });
  HisSpec other;
  other.width = 6;
  cbct::test::WriteHis(folder / "00002.1.3.46.423632.test.his", other);
  std::string message = ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); });
  EXPECT_NE(message.find("is 6 x 3 pixels"), std::string::npos) << message;
  HisSpec stack;
  stack.width = 8;
  stack.height = 4;
  stack.frames = 2;
  cbct::test::WriteHis(folder / "00002.1.3.46.423632.test.his", stack);
  message = ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); });
  EXPECT_NE(message.find("holds 2 frames"), std::string::npos) << message;
  cbct::test::WriteBytes(folder / "00002.1.3.46.423632.test.his", "not a his file");
  message = ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); });
  EXPECT_NE(message.find("HIS file " + (folder / "00002.1.3.46.423632.test.his").string()), std::string::npos)
    << message;
  EXPECT_NE(ErrorOf([&] { cbct::ElektaXVIScan::Open((root / "missing").string()); }).find("does not exist"),
            std::string::npos);
}

// ---- XVI 4.5: IMAGE.DBF and FRAME.DBF three folders above the scan

TEST(ElektaXVIScan, Xvi45DatabaseBecomesRTKGeometry)
{
  const fs::path root = TestFolder();
  const std::string uid = "1.3.46.423632.135428.1351013645.166";
  const fs::path folder = root / "patient_007" / "IMAGES" / ("img_" + uid);
  fs::create_directories(folder);
  cbct::test::WriteBytes(root / "IMAGE.DBF", cbct::test::ImageDbf({ { "1.2.other", "41" }, { uid, "42" } }));
  // Frames of two scans interleaved: only IMA_DBID 42's, in record order.
  cbct::test::WriteBytes(root / "FRAME.DBF", cbct::test::FrameDbf({ { "41", 5., 9., 9. },
                                                                     { "42", -180.0, 0.0, 1.25 },
                                                                     { "41", 6., 9., 9. },
                                                                     { "42", -120.5, 0.5, 1.0 },
                                                                     { "42", 60.25, -0.75, 0.875 } }));
  for (int i = 1; i <= 3; ++i)
  {
    HisSpec spec;
    spec.width = 8;
    spec.height = 4;
    cbct::test::WriteHis(folder / ("0000" + std::to_string(i) + "." + uid + ".his"), spec);
  }
  EXPECT_TRUE(cbct::ElektaXVIScan::Recognizes(folder.string()));
  const auto scan = cbct::ElektaXVIScan::Open(folder.string());
  EXPECT_EQ(scan->Format(), "Elekta XVI 4.5 (HIS + IMAGE.DBF/FRAME.DBF)");
  ASSERT_EQ(scan->ProjectionFiles().size(), 3u);
  const double angles[] = { -180.0, -120.5, 60.25 };
  const double u[] = { 0.0, 0.5, -0.75 };
  const double v[] = { 1.25, 1.0, 0.875 };
  for (unsigned int k = 0; k < 3; ++k)
  {
    // A copy of the parameters: Geometry() returns a new geometry, gone at the end of this statement.
    const auto p = scan->Geometry()->GetParameters(k);
    EXPECT_EQ(p.sourceToIsocenterDistance, 1000.);
    EXPECT_EQ(p.sourceToDetectorDistance, 1536.);
    EXPECT_NEAR(p.gantryAngle * 180. / Pi, Wrapped(angles[k]), 1e-9) << k;
    EXPECT_NEAR(p.projectionOffsetX, -u[k], 1e-12) << k;
    EXPECT_NEAR(p.projectionOffsetY, -v[k], 1e-12) << k;
  }
  EXPECT_TRUE(LogHas(*scan, "DICOM_UID " + uid + " has DBID 42")) << LogText(*scan);

  // A frame more in the table than files.
  cbct::test::WriteBytes(root / "FRAME.DBF", cbct::test::FrameDbf({ { "42", 0., 0., 0. }, { "42", 1., 0., 0. },
                                                                     { "42", 2., 0., 0. }, { "42", 3., 0., 0. } }));
  EXPECT_NE(ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); }).find("has 3 .his projection files but"),
            std::string::npos);
  // The scan's UID missing from IMAGE.DBF.
  cbct::test::WriteBytes(root / "IMAGE.DBF", cbct::test::ImageDbf({ { "1.2.other", "41" } }));
  EXPECT_NE(ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); }).find("has no record with DICOM_UID " + uid),
            std::string::npos);
  // No tables at all.
  fs::remove(root / "IMAGE.DBF");
  EXPECT_FALSE(cbct::ElektaXVIScan::Recognizes(folder.string()));
  EXPECT_NE(ErrorOf([&] { cbct::ElektaXVIScan::Open(folder.string()); }).find("has no _Frames.xml (XVI 5)"),
            std::string::npos);
}

// ---- readings to line integrals

TEST(ElektaXVIScan, LookupTableIsRTKs)
{
  // RTK: p = ln(65536) - ln(65536 - r) for r in 1..65534; r = 0 and r = 65535 as r = 1.
  const double air = std::log(65536.) - std::log(65535.);
  const auto p = [](double r) {
    return cbct::ElektaXVIScan::LineIntegral(cbct::ElektaXVIScan::IntensityFromReading(r), 65536., 0.);
  };
  EXPECT_NEAR(p(1.), air, 1e-15);
  EXPECT_NEAR(p(0.), air, 1e-15);
  EXPECT_NEAR(p(65535.), air, 1e-15);
  EXPECT_NEAR(p(32768.), std::log(2.), 1e-15);
  EXPECT_NEAR(p(65534.), std::log(32768.), 1e-12);
  EXPECT_NEAR(p(49152.), std::log(4.), 1e-15);
  // Out of the table: clamped, never NaN.
  EXPECT_NEAR(p(-7.), air, 1e-15);
  EXPECT_NEAR(p(70000.), air, 1e-15);
  EXPECT_NEAR(p(std::numeric_limits<double>::quiet_NaN()), air, 1e-15);
  EXPECT_NEAR(p(std::numeric_limits<double>::infinity()), air, 1e-15);
  // Differences below one count are taken as one.
  EXPECT_NEAR(cbct::ElektaXVIScan::LineIntegral(500., 40000., 1000.), std::log(39000.), 1e-12);
  EXPECT_NEAR(cbct::ElektaXVIScan::LineIntegral(1000., 900., 1000.), 0., 1e-15);
  EXPECT_TRUE(std::isfinite(cbct::ElektaXVIScan::LineIntegral(std::numeric_limits<double>::quiet_NaN(), 1., 0.)));
}

cbct::ScannerScan::ProjectionsType::Pointer
Stack(unsigned int width, unsigned int height, const std::vector<float> & values)
{
  auto image = cbct::ScannerScan::ProjectionsType::New();
  cbct::ScannerScan::ProjectionsType::SizeType size = { { width, height, values.size() / (width * height) } };
  image->SetRegions(size);
  image->Allocate();
  std::copy(values.begin(), values.end(), image->GetBufferPointer());
  return image;
}

TEST(ElektaXVIScan, ToLineIntegralsWithoutFloodUsesTheLookupTable)
{
  const fs::path root = TestFolder();
  const fs::path folder = WriteXvi5Scan(root, { { 1, 0., 0., 0. }, { 2, 90., 0., 0. } });
  const auto scan = cbct::ElektaXVIScan::Open(folder.string());
  std::vector<float> readings(8 * 4 * 2, 32768.f);
  readings[0] = 0.f;
  readings[1] = 65535.f;
  readings[2] = 49152.f;
  readings[3] = std::numeric_limits<float>::quiet_NaN();
  readings[40] = 65534.f;
  auto stack = Stack(8, 4, readings);
  scan->ToLineIntegrals(stack);
  const float * p = stack->GetBufferPointer();
  const double air = std::log(65536. / 65535.);
  EXPECT_NEAR(p[0], air, 1e-7);
  EXPECT_NEAR(p[1], air, 1e-7);
  EXPECT_NEAR(p[2], std::log(4.), 1e-6);
  EXPECT_NEAR(p[3], air, 1e-7);
  EXPECT_NEAR(p[4], std::log(2.), 1e-6);
  EXPECT_NEAR(p[40], std::log(32768.), 1e-5);
  for (std::size_t i = 0; i < readings.size(); ++i)
    ASSERT_TRUE(std::isfinite(p[i])) << i;
  EXPECT_TRUE(LogHas(*scan, "I0 = 65536 for every pixel")) << LogText(*scan);
  EXPECT_TRUE(LogHas(*scan, "3 reading(s) <= 0, >= 65535 or not finite")) << LogText(*scan);

  auto wrong = Stack(8, 4, std::vector<float>(8 * 4 * 3, 1.f));
  EXPECT_NE(ErrorOf([&] { scan->ToLineIntegrals(wrong); }).find("8 x 4 x 3"), std::string::npos);
}

TEST(ElektaXVIScan, FloodAndDarkFieldsAreAppliedUnlessTheFramesAreCorrected)
{
  const fs::path root = TestFolder();
  const fs::path folder = WriteXvi5Scan(root, { { 1, 0., 0., 0. } });
  // Stored convention r = 65536 - I: flood I0 = 40000 (two frames averaging to it), dark Id = 1000.
  HisSpec flood;
  flood.width = 8;
  flood.height = 4;
  flood.frames = 2;
  flood.pixels.assign(8 * 4, 65536 - 40100);
  flood.pixels.resize(2 * 8 * 4, 65536 - 39900);
  cbct::test::WriteHis(folder / "Flood.his", flood);
  HisSpec dark;
  dark.width = 8;
  dark.height = 4;
  dark.pixels.assign(8 * 4, 65536 - 1000);
  cbct::test::WriteHis(folder / "dark.his", dark);

  const auto scan = cbct::ElektaXVIScan::Open(folder.string());
  ASSERT_EQ(scan->ProjectionFiles().size(), 1u); // the fields are not projections
  EXPECT_EQ(fs::path(scan->FloodFile()).filename(), "Flood.his");
  EXPECT_EQ(fs::path(scan->DarkFile()).filename(), "dark.his");
  std::vector<float> readings(8 * 4, static_cast<float>(65536 - 20500)); // I = 20500
  readings[5] = static_cast<float>(65536 - 900);                          // I - Id < 1
  auto stack = Stack(8, 4, readings);
  scan->ToLineIntegrals(stack);
  EXPECT_NEAR(stack->GetBufferPointer()[0], std::log(39000. / 19500.), 1e-6);
  EXPECT_NEAR(stack->GetBufferPointer()[5], std::log(39000.), 1e-5);
  EXPECT_TRUE(LogHas(*scan, "from the flood field")) << LogText(*scan);
  EXPECT_TRUE(LogHas(*scan, "from the dark field")) << LogText(*scan);
  EXPECT_TRUE(LogHas(*scan, "1 pixel(s) with I - Id < 1")) << LogText(*scan);

  // Frames that XVI already offset and gain corrected (HIS_Correction 3): the fields are not applied.
  const fs::path corrected = WriteXvi5Scan(root / "corrected", { { 1, 0., 0., 0. } }, 3);
  cbct::test::WriteHis(corrected / "flood.his", flood);
  const auto scan2 = cbct::ElektaXVIScan::Open(corrected.string());
  auto stack2 = Stack(8, 4, std::vector<float>(8 * 4, 32768.f));
  scan2->ToLineIntegrals(stack2);
  EXPECT_NEAR(stack2->GetBufferPointer()[0], std::log(2.), 1e-6);
  EXPECT_TRUE(LogHas(*scan2, "not applied")) << LogText(*scan2);

  // A flood field of another size.
  HisSpec small;
  cbct::test::WriteHis(folder / "Flood.his", small);
  auto stack3 = Stack(8, 4, readings);
  const std::string message = ErrorOf([&] { scan->ToLineIntegrals(stack3); });
  EXPECT_NE(message.find("flood field " + (folder / "Flood.his").string() + " is 4 x 3 pixels"), std::string::npos)
    << message;
}

TEST(ElektaXVIScan, ImporterReadsAnXvi5ScanToLineIntegrals)
{
  // The whole path: detection among the vendors, HIS files through ITK's factory, the lookup table.
  const fs::path root = TestFolder();
  const fs::path folder = root / "img_1.2.3";
  fs::create_directories(folder);
  for (int seq = 1; seq <= 2; ++seq)
  {
    HisSpec spec;
    spec.width = 3;
    spec.height = 2;
    spec.pixels = { 0, 1, 16384, 32768, 49152, static_cast<std::uint16_t>(65534 - seq + 1) };
    cbct::test::WriteHis(folder / ("0000" + std::to_string(seq) + ".1.2.3.his"), spec);
  }
  cbct::test::WriteBytes(folder / "_Frames.xml", cbct::test::FramesXml({ { 1, -90., 115., 0. }, { 2, 90., 115., 0. } }));
  const auto scan = cbct::ScanImporter::Open(folder.string());
  EXPECT_EQ(scan->Format(), "Elekta XVI 5 (HIS + _Frames.xml)");
  const auto stack = cbct::ScanImporter::ReadLineIntegrals(scan);
  const auto size = stack->GetLargestPossibleRegion().GetSize();
  ASSERT_EQ(size[0], 3u);
  ASSERT_EQ(size[1], 2u);
  ASSERT_EQ(size[2], 2u);
  EXPECT_NEAR(stack->GetSpacing()[0], 409.6 / 3, 1e-9);
  EXPECT_NEAR(stack->GetOrigin()[1], -0.5 * 409.6 / 2, 1e-9);
  const double expected[] = { std::log(65536. / 65535.), std::log(65536. / 65535.), std::log(4. / 3.),
                              std::log(2.), std::log(4.), std::log(65536. / 2.) };
  for (unsigned int k = 0; k < 2; ++k)
    for (unsigned int i = 0; i < 6; ++i)
    {
      const double want = (k == 1 && i == 5) ? std::log(65536. / 3.) : expected[i];
      EXPECT_NEAR(stack->GetPixel({ { i % 3, i / 3, k } }), want, 1e-5) << k << " " << i;
    }
  EXPECT_NEAR(scan->Geometry()->GetParameters(0).projectionOffsetX, -115., 1e-12);
}
} // namespace
