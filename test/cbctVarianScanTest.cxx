// VarianScan: each Varian header field turned into RTK's geometry (dictionaries filled by hand, as
// the XIM/HND ImageIOs fill them), the XML settings, and the air normalisation's values.
#include "cbctVarianScan.h"

#include <gtest/gtest.h>
#include <itkMetaDataObject.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace cbct;
namespace fs = std::filesystem;

namespace
{
constexpr double Pi = 3.14159265358979323846;

/** The properties of a TrueBeam half-fan frame, as the XIM reader stores them (cm, degrees). */
itk::MetaDataDictionary
XimProperties(double kvSourceRtn, double lat = -16., double lng = 0.5)
{
  itk::MetaDataDictionary d;
  itk::EncapsulateMetaData<double>(d, "KVSourceRtn", kvSourceRtn);
  itk::EncapsulateMetaData<double>(d, "GantryRtn", kvSourceRtn - 90.);
  itk::EncapsulateMetaData<double>(d, "KVSourceVrt", 100.);
  itk::EncapsulateMetaData<double>(d, "KVDetectorVrt", -50.);
  itk::EncapsulateMetaData<double>(d, "KVDetectorLat", lat);
  itk::EncapsulateMetaData<double>(d, "KVDetectorLng", lng);
  itk::EncapsulateMetaData<double>(d, "KVNormChamber", 250000.);
  itk::EncapsulateMetaData<double>(d, "PixelWidth", 0.0388);
  itk::EncapsulateMetaData<double>(d, "PixelHeight", 0.0388);
  itk::EncapsulateMetaData<int>(d, "KVKiloVolts", 125);
  return d;
}

/** An OBI HND header (dSAD, dSFD and the resolution in mm; dIDUPos* in cm). */
itk::MetaDataDictionary
HndHeader(double angle, double posLat = -14.8)
{
  itk::MetaDataDictionary d;
  itk::EncapsulateMetaData<double>(d, "dCTProjectionAngle", angle);
  itk::EncapsulateMetaData<double>(d, "dSAD", 1000.);
  itk::EncapsulateMetaData<double>(d, "dSFD", 1500.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLat", posLat);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLng", 0.2);
  itk::EncapsulateMetaData<double>(d, "dIDUPosVrt", -50.);
  itk::EncapsulateMetaData<double>(d, "dCTNormChamber", 3000.);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionX", 0.388);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionY", 0.388);
  itk::EncapsulateMetaData<double>(d, "dXRayKV", 125.);
  return d;
}

/** A fresh empty folder under the system's temporary folder, removed at the end of the test. */
struct TemporaryFolder
{
  fs::path path;
  explicit TemporaryFolder(const std::string & name)
  {
    path = fs::temp_directory_path() / ("cbctVarianScanTest-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TemporaryFolder() { fs::remove_all(path); }
};

void
WriteText(const fs::path & file, const std::string & text)
{
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::string
MessageOf(const std::function<void()> & f)
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

using Stack = ScannerScan::ProjectionsType;

Stack::Pointer
StackOf(unsigned int nu, unsigned int nv, unsigned int count, float value)
{
  auto stack = Stack::New();
  stack->SetRegions(Stack::RegionType(Stack::SizeType{ { nu, nv, count } }));
  stack->Allocate();
  stack->FillBuffer(value);
  return stack;
}

VarianScan::AirImageType::Pointer
AirOf(unsigned int nu, unsigned int nv, float value)
{
  auto air = VarianScan::AirImageType::New();
  air->SetRegions(VarianScan::AirImageType::RegionType(VarianScan::AirImageType::SizeType{ { nu, nv } }));
  air->Allocate();
  air->FillBuffer(value);
  return air;
}
} // namespace

TEST(VarianScanXim, EachFieldBecomesTheRtkParameter)
{
  const auto r = VarianScan::FromXimProperties(XimProperties(30.), "Proj_00001.xim", {});
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9);  // 10 * KVSourceVrt
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-9);   // 10 * (KVSourceVrt + |KVDetectorVrt|)
  EXPECT_NEAR(r.gantryAngleDegrees, 150., 1e-12);         // 180 - KVSourceRtn
  EXPECT_NEAR(r.projectionOffsetX, -160., 1e-9);          // 10 * KVDetectorLat, sign kept
  EXPECT_NEAR(r.projectionOffsetY, 5., 1e-9);             // 10 * KVDetectorLng
  EXPECT_NEAR(r.spacingU, 0.388, 1e-12);                  // 10 * PixelWidth
  EXPECT_NEAR(r.spacingV, 0.388, 1e-12);
  EXPECT_NEAR(r.normChamber, 250000., 0.);
  EXPECT_NEAR(r.kiloVolts, 125., 0.);
  EXPECT_NEAR(r.vendorAngleDegrees, 30., 0.);
}

TEST(VarianScanXim, GantryAngleTurnsOppositeToKVSourceRtn)
{
  // RTK's gantry angle 0 puts the source on +z and moves it towards +x as the angle grows; with
  // 180 - KVSourceRtn, KVSourceRtn 180 is RTK's 0 and KVSourceRtn 170 RTK's 10 degrees.
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (double rtn : { 180., 170., 90. })
  {
    const auto r = VarianScan::FromXimProperties(XimProperties(rtn, 0., 0.), "f.xim", {});
    geometry->AddProjection(r.sourceToIsocenterDistance, r.sourceToDetectorDistance, r.gantryAngleDegrees,
                            r.projectionOffsetX, r.projectionOffsetY);
  }
  auto s0 = geometry->GetSourcePosition(0);
  EXPECT_NEAR(s0[0], 0., 1e-9);
  EXPECT_NEAR(s0[2], 1000., 1e-9);
  auto s1 = geometry->GetSourcePosition(1);
  EXPECT_NEAR(s1[0], 1000. * std::sin(10. * Pi / 180.), 1e-9);
  EXPECT_NEAR(s1[2], 1000. * std::cos(10. * Pi / 180.), 1e-9);
  auto s2 = geometry->GetSourcePosition(2);
  EXPECT_NEAR(s2[0], 1000., 1e-9); // KVSourceRtn 90 -> RTK 90: source on +x
  EXPECT_NEAR(s2[2], 0., 1e-9);
  // Angles beyond 180 wrap into [0, 360).
  const auto r = VarianScan::FromXimProperties(XimProperties(270.), "f.xim", {});
  EXPECT_NEAR(r.gantryAngleDegrees, -90., 1e-12);
  geometry->AddProjection(1000., 1500., r.gantryAngleDegrees);
  EXPECT_NEAR(geometry->GetGantryAngle(3), 1.5 * Pi, 1e-12);
}

TEST(VarianScanXim, HalfFanShiftMovesTheDetectorAlongU)
{
  // KVDetectorLat -16 cm -> ProjectionOffsetX -160 mm: the detector's centre at u = -160 mm in RTK's
  // detector frame, so the principal point (the source's foot) is at +160 mm of the panel's centre.
  const auto r = VarianScan::FromXimProperties(XimProperties(180., -16.), "f.xim", {});
  auto geometry = ThreeDCircularProjectionGeometry::New();
  geometry->AddProjection(r.sourceToIsocenterDistance, r.sourceToDetectorDistance, r.gantryAngleDegrees,
                          r.projectionOffsetX, r.projectionOffsetY);
  EXPECT_NEAR(geometry->GetPrincipalPointU(0), 160., 1e-9);
  // At gantry 0 the detector's u axis is world +x: its centre (0, 0) lies at x = -160 mm.
  const auto centre = geometry->GetDetectorPoint(0, 0., 0.);
  EXPECT_NEAR(centre[0], -160., 1e-9);
  EXPECT_NEAR(centre[2], -500., 1e-9);
}

TEST(VarianScanXim, NumbersOfAnyTypeAreRead)
{
  auto d = XimProperties(10.);
  itk::EncapsulateMetaData<int>(d, "KVSourceVrt", 100);
  itk::EncapsulateMetaData<float>(d, "KVDetectorVrt", -50.f);
  itk::EncapsulateMetaData<unsigned int>(d, "KVNormChamber", 12345u);
  itk::EncapsulateMetaData<std::string>(d, "KVDetectorLat", " -15.5 ");
  const auto r = VarianScan::FromXimProperties(d, "f.xim", {});
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-6);
  EXPECT_NEAR(r.normChamber, 12345., 0.);
  EXPECT_NEAR(r.projectionOffsetX, -155., 1e-9);
}

TEST(VarianScanXim, ScanXmlDistancesWhereTheHeaderHasNone)
{
  auto d = XimProperties(10.);
  d.Erase("KVSourceVrt");
  d.Erase("KVDetectorVrt");
  const VarianScan::XmlSettings scanXml{ { "SAD", "1000.5" }, { "SID", "1540" } };
  const auto r = VarianScan::FromXimProperties(d, "f.xim", scanXml);
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000.5, 1e-12);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1540., 1e-12);
  EXPECT_NE(MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", {}); }).find("KVSourceVrt"), std::string::npos);
}

TEST(VarianScanXim, MissingKeyNamesTheFileAndTheKey)
{
  for (const char * key : { "KVSourceRtn", "KVDetectorLat", "KVNormChamber", "PixelWidth" })
  {
    auto d = XimProperties(10.);
    d.Erase(key);
    const std::string message = MessageOf([&] { VarianScan::FromXimProperties(d, "/data/Proj_00007.xim", {}); });
    EXPECT_NE(message.find("/data/Proj_00007.xim"), std::string::npos) << message;
    EXPECT_NE(message.find(key), std::string::npos) << message;
  }
  auto d = XimProperties(10.);
  itk::EncapsulateMetaData<std::string>(d, "KVSourceRtn", "ninety");
  const std::string message = MessageOf([&] { VarianScan::FromXimProperties(d, "a.xim", {}); });
  EXPECT_NE(message.find("KVSourceRtn is not a finite number"), std::string::npos) << message;
}

TEST(VarianScanXim, BadDistancesAreRefused)
{
  auto d = XimProperties(10.);
  itk::EncapsulateMetaData<double>(d, "KVSourceVrt", 0.);
  EXPECT_THROW(VarianScan::FromXimProperties(d, "f.xim", {}), itk::ExceptionObject);
  d = XimProperties(10.);
  itk::EncapsulateMetaData<double>(d, "PixelWidth", 0.);
  EXPECT_NE(MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", {}); }).find("PixelWidth"), std::string::npos);
}

TEST(VarianScanHnd, HeaderFieldsWithoutProjectionInfo)
{
  const auto r = VarianScan::FromHndHeader(HndHeader(123.5), "Proj_00003.hnd", {});
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9); // dSAD (mm)
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-9);  // dSFD (mm)
  EXPECT_NEAR(r.gantryAngleDegrees, 123.5, 0.);          // dCTProjectionAngle as is
  EXPECT_NEAR(r.projectionOffsetX, -148., 1e-9);         // no FanType: 10 * dIDUPosLat
  EXPECT_NEAR(r.projectionOffsetY, 2., 1e-9);            // 10 * dIDUPosLng
  EXPECT_NEAR(r.spacingU, 0.388, 0.);                    // dIDUResolutionX (mm)
  EXPECT_NEAR(r.normChamber, 3000., 0.);
}

TEST(VarianScanHnd, ProjectionInfoCalibratedValuesAsRtk)
{
  VarianScan::XmlSettings info{ { "CalibratedSAD", "999.2" },          { "CalibratedSID", "1497.6" },
                                { "CalibratedDetectorOffsetX", "1.5" }, { "CalibratedDetectorOffsetY", "-0.7" },
                                { "DetectorPosLat", "-148.3" },         { "FanType", "HalfFan" } };
  auto r = VarianScan::FromHndHeader(HndHeader(10.), "p.hnd", info);
  EXPECT_NEAR(r.sourceToIsocenterDistance, 999.2, 1e-12);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1497.6, 1e-12);
  EXPECT_NEAR(r.projectionOffsetX, 1.5 - 148.3, 1e-12); // CalibratedDetectorOffsetX + DetectorPosLat
  EXPECT_NEAR(r.projectionOffsetY, -0.7, 1e-12);
  info["FanType"] = "FullFan"; // full fan: the lateral position is not added (RTK)
  r = VarianScan::FromHndHeader(HndHeader(10.), "p.hnd", info);
  EXPECT_NEAR(r.projectionOffsetX, 1.5, 1e-12);
  info["FanType"] = "HalfFan"; // half fan without DetectorPosLat: the HND's dIDUPosLat
  info.erase("DetectorPosLat");
  r = VarianScan::FromHndHeader(HndHeader(10., -14.), "p.hnd", info);
  EXPECT_NEAR(r.projectionOffsetX, 1.5 - 140., 1e-9);
}

TEST(VarianScanHnd, MissingKeyNamesTheFileAndTheKey)
{
  for (const char * key : { "dCTProjectionAngle", "dSAD", "dCTNormChamber", "dIDUResolutionX" })
  {
    auto d = HndHeader(10.);
    d.Erase(key);
    const std::string message = MessageOf([&] { VarianScan::FromHndHeader(d, "/obi/Proj_00012.hnd", {}); });
    EXPECT_NE(message.find("/obi/Proj_00012.hnd"), std::string::npos) << message;
    EXPECT_NE(message.find(key), std::string::npos) << message;
  }
}

TEST(VarianScanXml, LeafElementsByLocalName)
{
  TemporaryFolder folder("xml");
  const fs::path file = folder.path / "Scan.xml";
  WriteText(file,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
            "<Scan xmlns=\"http://baden.varian.com/cr.xsd\" Version=\"2.7.0.0\">\n"
            "  <Acquisitions>\n    <SAD>1000</SAD>\n    <SID> 1500 </SID>\n    <Fan>Half</Fan>\n"
            "    <v:Bowtie xmlns:v=\"urn:x\">Half Bowtie</v:Bowtie>\n  </Acquisitions>\n"
            "  <Other><SID>1</SID></Other>\n</Scan>\n");
  const auto settings = VarianScan::ReadXmlSettings(file.string());
  EXPECT_EQ(settings.at("SAD"), "1000");
  EXPECT_EQ(settings.at("SID"), "1500"); // first occurrence, trimmed
  EXPECT_EQ(settings.at("Fan"), "Half");
  EXPECT_EQ(settings.at("Bowtie"), "Half Bowtie");
  EXPECT_EQ(settings.count("Acquisitions"), 0u); // not a leaf
}

TEST(VarianScanXml, DamagedXmlNamesTheFile)
{
  TemporaryFolder folder("badxml");
  const fs::path file = folder.path / "ProjectionInfo.xml";
  WriteText(file, "<ProjectionInfo><CalibratedSAD>1000</CalibratedSID>");
  const std::string message = MessageOf([&] { VarianScan::ReadXmlSettings(file.string()); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not well-formed"), std::string::npos) << message;
  // A number that is not one.
  WriteText(file, "<ProjectionInfo><CalibratedSAD>1000 mm</CalibratedSAD></ProjectionInfo>");
  const auto settings = VarianScan::ReadXmlSettings(file.string());
  const std::string bad = MessageOf([&] { VarianScan::FromHndHeader(HndHeader(0.), "p.hnd", settings); });
  EXPECT_NE(bad.find("CalibratedSAD"), std::string::npos) << bad;
  EXPECT_NE(MessageOf([&] { VarianScan::ReadXmlSettings((folder.path / "none.xml").string()); }).find("none.xml"),
            std::string::npos);
}

TEST(VarianScanLayout, RecognizesFoldersAndFiles)
{
  TemporaryFolder folder("layout");
  const fs::path trueBeam = folder.path / "tb";
  WriteText(trueBeam / "Scan.xml", "<Scan/>");
  fs::create_directories(trueBeam / "Acquisitions" / "123");
  EXPECT_TRUE(VarianScan::Recognizes(trueBeam.string()));
  const fs::path obi = folder.path / "obi";
  WriteText(obi / "ProjectionInfo.xml", "<ProjectionInfo/>");
  EXPECT_TRUE(VarianScan::Recognizes(obi.string()));
  const fs::path bare = folder.path / "bare";
  WriteText(bare / "Proj_00000.xim", "x");
  EXPECT_TRUE(VarianScan::Recognizes(bare.string()));
  EXPECT_TRUE(VarianScan::Recognizes((bare / "Proj_00000.xim").string()));
  const fs::path other = folder.path / "other";
  WriteText(other / "Scan.xml", "<Scan/>"); // Scan.xml alone is not enough
  WriteText(other / "image.tif", "x");
  EXPECT_FALSE(VarianScan::Recognizes(other.string()));
  EXPECT_FALSE(VarianScan::Recognizes((other / "image.tif").string()));
  EXPECT_FALSE(VarianScan::Recognizes((folder.path / "missing").string()));
  const std::string message = MessageOf([&] { VarianScan::Open((folder.path / "missing").string()); });
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST(VarianScanAir, NormChamberScaledLogRatio)
{
  // p = -log(R * N_air / (A * N_k)).
  auto stack = StackOf(3, 2, 2, 500.f);
  stack->GetBufferPointer()[1] = 100.f;
  stack->GetBufferPointer()[6] = 250.f; // projection 1, pixel 0
  VarianScan::AirFrame air;
  air.image = AirOf(3, 2, 1000.f);
  air.normChamber = 4.;
  air.file = "FilterBowtie.xim";
  const std::size_t clamped = VarianScan::NormaliseWithAir(stack, { 2., 1. }, { 0., 10. }, { air });
  EXPECT_EQ(clamped, 0u);
  const float * p = stack->GetBufferPointer();
  EXPECT_NEAR(p[0], -std::log(500. * 4. / (1000. * 2.)), 1e-6); // 0
  EXPECT_NEAR(p[1], -std::log(100. * 4. / (1000. * 2.)), 1e-6); // log 5
  EXPECT_NEAR(p[6], -std::log(250. * 4. / (1000. * 1.)), 1e-6); // 0
  EXPECT_NEAR(p[7], -std::log(500. * 4. / (1000. * 1.)), 1e-6); // -log 2
}

TEST(VarianScanAir, ReadingsBelowOneCountAreClampedNeverNaN)
{
  auto stack = StackOf(2, 1, 1, 0.f);
  stack->GetBufferPointer()[1] = -5.f;
  auto airImage = AirOf(2, 1, 800.f);
  airImage->GetBufferPointer()[1] = 0.f;
  VarianScan::AirFrame air;
  air.image = airImage;
  air.normChamber = 1.;
  const std::size_t clamped = VarianScan::NormaliseWithAir(stack, { 1. }, { 0. }, { air });
  EXPECT_EQ(clamped, 3u);
  const float * p = stack->GetBufferPointer();
  EXPECT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]));
  EXPECT_NEAR(p[0], std::log(800.), 1e-5); // reading 0 -> 1 count
  EXPECT_NEAR(p[1], 0., 1e-6);             // air 0 -> 1 count, reading -5 -> 1 count
}

TEST(VarianScanAir, FramesInterpolatedInAngle)
{
  // Frames at KVSourceRtn 350 and 80 (per norm unit 1000 and 1900): a projection at 35 lies half way
  // across 360, one at 80 takes the second frame, one at 5 a sixth of the way.
  VarianScan::AirFrame a, b;
  a.image = AirOf(1, 1, 2000.f);
  a.normChamber = 2.;
  a.angleDegrees = 350.;
  b.image = AirOf(1, 1, 1900.f);
  b.normChamber = 1.;
  b.angleDegrees = 80.;
  auto stack = StackOf(1, 1, 3, 100.f);
  VarianScan::NormaliseWithAir(stack, { 1., 1., 1. }, { 35., 80., -355. }, { b, a });
  const float * p = stack->GetBufferPointer();
  EXPECT_NEAR(p[0], std::log(1450. / 100.), 1e-5);
  EXPECT_NEAR(p[1], std::log(1900. / 100.), 1e-5);
  EXPECT_NEAR(p[2], std::log((1000. + (15. / 90.) * 900.) / 100.), 1e-5);
}

TEST(VarianScanAir, WrongSizesAndNormsAreRefused)
{
  VarianScan::AirFrame air;
  air.image = AirOf(2, 2, 1000.f);
  air.normChamber = 1.;
  air.file = "Calibrations/AIR-Full-Bowtie-100KV/Current/FilterBowtie.xim";
  auto stack = StackOf(3, 2, 1, 500.f);
  const std::string message = MessageOf([&] { VarianScan::NormaliseWithAir(stack, { 1. }, { 0. }, { air }); });
  EXPECT_NE(message.find("FilterBowtie.xim"), std::string::npos) << message;
  EXPECT_THROW(VarianScan::NormaliseWithAir(stack, { 1., 2. }, { 0., 0. }, { air }), itk::ExceptionObject);
  air.image = AirOf(3, 2, 1000.f);
  EXPECT_THROW(VarianScan::NormaliseWithAir(stack, { 0. }, { 0. }, { air }), itk::ExceptionObject);
  air.normChamber = 0.;
  EXPECT_THROW(VarianScan::NormaliseWithAir(stack, { 1. }, { 0. }, { air }), itk::ExceptionObject);
}

TEST(VarianScanAir, FallbackWithoutAirScan)
{
  // I0 given: p = log(I0 / (R * Nmean / N_k)); Nmean = 1.5.
  auto stack = StackOf(2, 1, 2, 1000.f);
  stack->GetBufferPointer()[3] = 0.f; // clamped to 1
  double i0 = VarianScan::NormaliseWithoutAir(stack, { 1., 2. }, 139000.);
  EXPECT_NEAR(i0, 139000., 0.);
  const float * p = stack->GetBufferPointer();
  EXPECT_NEAR(p[0], std::log(139000. / (1000. * 1.5 / 1.)), 1e-5);
  EXPECT_NEAR(p[2], std::log(139000. / (1000. * 1.5 / 2.)), 1e-5);
  EXPECT_NEAR(p[3], std::log(139000. / (1. * 1.5 / 2.)), 1e-5);
  // I0 estimated: the brightest scaled reading, which then reads 0.
  stack = StackOf(2, 1, 2, 1000.f);
  stack->GetBufferPointer()[1] = 400.f;
  i0 = VarianScan::NormaliseWithoutAir(stack, { 1., 2. }, 0.);
  EXPECT_NEAR(i0, 1500., 1e-9);
  p = stack->GetBufferPointer();
  EXPECT_NEAR(p[0], 0., 1e-6);
  EXPECT_NEAR(p[1], std::log(1500. / 600.), 1e-6);
  EXPECT_NEAR(p[2], std::log(2.), 1e-6);
}
