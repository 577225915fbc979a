// VarianScan: each Varian header field turned into RTK's geometry (dictionaries filled by hand, as
// the XIM/HND ImageIOs fill them, then folders of XIM/HND files written by cbctVarianTestFiles.h), the
// XML settings, the air normalisation's values, the errors; and an end-to-end check: a
// simulated half-fan TrueBeam scan written as XIM counts, read back through VarianScan and
// ScanImporter, reconstructed by FDK as the direct simulation is.
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctMissingAirScanError.h"
#include "cbctScanImporter.h"
#include "cbctTestHelpers.h"
#include "cbctVarianScan.h"
#include "cbctVarianTestFiles.h"

#include <gtest/gtest.h>
#include <itkMetaDataObject.h>
#include <itkMultiThreaderBase.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
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

/** An OBI HND header as real OBI projections hold it: dSAD and dIDUPosVrt in cm, dSFD Varian's mark
 * for unknown (99999999), dIDUPosLat/Lng and the resolution in mm. */
itk::MetaDataDictionary
HndHeader(double angle, double posLat = -148.)
{
  itk::MetaDataDictionary d;
  itk::EncapsulateMetaData<double>(d, "dCTProjectionAngle", angle);
  itk::EncapsulateMetaData<double>(d, "dSAD", 100.);
  itk::EncapsulateMetaData<double>(d, "dSFD", 99999999.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLat", posLat);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLng", 2.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosVrt", -50.);
  itk::EncapsulateMetaData<double>(d, "dCTNormChamber", 3000.);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionX", 0.388);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionY", 0.388);
  itk::EncapsulateMetaData<double>(d, "dXRayKV", 125.);
  return d;
}

/** A fresh empty folder in the running test's folder (cbctTestFolder.h: removed when the test ends). */
struct TemporaryFolder
{
  fs::path path;
  explicit TemporaryFolder(const std::string & name)
    : path(test::FreshSubfolder(name))
  {}
};

void
WriteHndFile(const fs::path & file, const test::HndContents & contents)
{
  fs::create_directories(file.parent_path());
  test::WriteHnd(file.string(), contents);
}

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

TEST(VarianScanXim, PlaceholdersFallBackToScanXmlOrAreRefused)
{
  // Varian's mark for unknown (99999999) is no distance: Scan.xml's SAD and SID (mm) are used instead.
  const VarianScan::XmlSettings scanXml{ { "SAD", "1000" }, { "SID", "1540" } };
  auto d = XimProperties(10.);
  itk::EncapsulateMetaData<double>(d, "KVSourceVrt", 99999999.);
  auto r = VarianScan::FromXimProperties(d, "f.xim", scanXml);
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-12);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1540., 1e-12);
  std::string message = MessageOf([&] { VarianScan::FromXimProperties(d, "/tb/Proj_1.xim", {}); });
  EXPECT_NE(message.find("/tb/Proj_1.xim: header field KVSourceVrt is 99999999 (Varian's mark for unknown) (and no "
                         "Scan.xml SAD"),
            std::string::npos)
    << message;
  d = XimProperties(10.);
  itk::EncapsulateMetaData<double>(d, "KVDetectorVrt", 0.); // the panel at the isocenter: no position
  EXPECT_NEAR(VarianScan::FromXimProperties(d, "f.xim", scanXml).sourceToDetectorDistance, 1540., 1e-12);
  message = MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", {}); });
  EXPECT_NE(message.find("KVDetectorVrt is 0 (and no Scan.xml SID"), std::string::npos) << message;
  // Needed fields that hold the mark are refused, naming them.
  for (const char * key : { "KVDetectorLat", "KVDetectorLng", "PixelWidth", "KVSourceRtn" })
  {
    d = XimProperties(10.);
    itk::EncapsulateMetaData<double>(d, key, 99999999.);
    message = MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", {}); });
    EXPECT_NE(message.find(std::string(key) + " is 99999999 (Varian's mark for unknown)"), std::string::npos)
      << message;
  }
  // Distances in another unit: KVSourceVrt in mm (10 m), Scan.xml's SID in cm (150 mm).
  d = XimProperties(10.);
  itk::EncapsulateMetaData<double>(d, "KVSourceVrt", 1000.);
  message = MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", {}); });
  EXPECT_NE(message.find("source-to-isocenter distance 10000 mm (10 x KVSourceVrt 1000 cm)"), std::string::npos)
    << message;
  d.Erase("KVSourceVrt");
  const VarianScan::XmlSettings inCm{ { "SAD", "1000" }, { "SID", "150" } };
  message = MessageOf([&] { VarianScan::FromXimProperties(d, "f.xim", inCm); });
  EXPECT_NE(message.find("source-to-detector distance 150 mm (Scan.xml SID 150 mm)"), std::string::npos) << message;
}

TEST(VarianScanHnd, HeaderFieldsWithoutProjectionInfo)
{
  const auto r = VarianScan::FromHndHeader(HndHeader(123.5), "Proj_00003.hnd", {});
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9); // 10 * dSAD (cm)
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-9);  // 10 * (dSAD + |dIDUPosVrt|) (cm); dSFD unknown
  EXPECT_NEAR(r.gantryAngleDegrees, 123.5, 0.);          // dCTProjectionAngle as is
  EXPECT_NEAR(r.projectionOffsetX, -148., 1e-9);         // no FanType: dIDUPosLat (mm), sign kept
  EXPECT_NEAR(r.projectionOffsetY, 2., 1e-9);            // dIDUPosLng (mm)
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
  info["FanType"] = "HalfFan"; // half fan without DetectorPosLat: the HND's dIDUPosLat (mm)
  info.erase("DetectorPosLat");
  r = VarianScan::FromHndHeader(HndHeader(10., -140.), "p.hnd", info);
  EXPECT_NEAR(r.projectionOffsetX, 1.5 - 140., 1e-9);
  // CalibratedSAD without CalibratedSID: the imager's position below the isocenter is added to it.
  info.erase("CalibratedSID");
  r = VarianScan::FromHndHeader(HndHeader(10.), "p.hnd", info);
  EXPECT_NEAR(r.sourceToDetectorDistance, 999.2 + 500., 1e-9);
}

TEST(VarianScanHnd, RealObiHeaderGivesTheGeometryInMillimetres)
{
  // The fields of a real lone OBI half-fan projection: dSAD 100 (cm), dSFD 99999999 (Varian's mark for
  // unknown), dIDUPosVrt -50 (cm: the imager 500 mm below the isocenter), dIDUPosLat 148. dIDUPosLat
  // is in mm: ProjectionInfo.xml gives the same imager shift as DetectorPosLat, which RTK's
  // rtkVarianObiGeometryReader adds in mm, sign kept, to CalibratedDetectorOffsetX for a half fan; an
  // OBI's half-fan shift is 148 mm (in cm, 1.48 m, the panel would miss the rotation axis).
  itk::MetaDataDictionary d;
  itk::EncapsulateMetaData<double>(d, "dCTProjectionAngle", 271.25);
  itk::EncapsulateMetaData<double>(d, "dSAD", 100.);
  itk::EncapsulateMetaData<double>(d, "dSFD", 99999999.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosVrt", -50.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLat", 148.);
  itk::EncapsulateMetaData<double>(d, "dIDUPosLng", 0.);
  itk::EncapsulateMetaData<double>(d, "dCTNormChamber", 2800.);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionX", 0.388);
  itk::EncapsulateMetaData<double>(d, "dIDUResolutionY", 0.388);
  const auto r = VarianScan::FromHndHeader(d, "Proj_00117.hnd", {});
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-9);
  EXPECT_NEAR(r.projectionOffsetX, 148., 1e-9);
  EXPECT_NEAR(r.projectionOffsetY, 0., 0.);
  EXPECT_NEAR(r.gantryAngleDegrees, 271.25, 0.);
  // Without the imager's position, a known dSFD (cm) gives the distance.
  d.Erase("dIDUPosVrt");
  itk::EncapsulateMetaData<double>(d, "dSFD", 153.);
  EXPECT_NEAR(VarianScan::FromHndHeader(d, "p.hnd", {}).sourceToDetectorDistance, 1530., 1e-9);
}

TEST(VarianScanHnd, PlaceholdersAndImpossibleDistancesAreRefused)
{
  // Each: the field set to a value, the words the message must hold (the file, the field, what is wrong).
  struct Case
  {
    const char * field;
    double value;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases{
    { "dSAD", 99999999., { "dSAD is 99999999 (Varian's mark for unknown)", "in cm" } },
    { "dSAD", std::numeric_limits<double>::quiet_NaN(), { "dSAD is not a finite number" } },
    { "dSAD", 1000., { "source-to-isocenter distance 10000 mm (10 x dSAD 1000 cm)", "500 to 2000 mm" } },
    { "dSAD", 10., { "source-to-isocenter distance 100 mm (10 x dSAD 10 cm)" } },
    { "dSAD", -100., { "source-to-isocenter distance -1000 mm" } },
    { "dSAD", 0., { "source-to-isocenter distance 0 mm" } },
    { "dIDUPosVrt", -500., { "source-to-detector distance 6000 mm", "dIDUPosVrt -500 cm", "at most 1500 mm more" } },
    { "dIDUPosLat", 99999999., { "dIDUPosLat is 99999999 (Varian's mark for unknown)" } },
    { "dIDUPosLng", 99999999., { "dIDUPosLng is 99999999 (Varian's mark for unknown)" } },
    { "dIDUResolutionX",
      99999999.,
      { "dIDUResolutionX is 99999999 (Varian's mark for unknown)", "pixel pitch in mm" } },
    { "dIDUResolutionY", 0., { "dIDUResolutionY (mm) is 0" } },
    { "dCTProjectionAngle", 99999999., { "dCTProjectionAngle is 99999999" } },
  };
  for (const Case & c : cases)
  {
    auto d = HndHeader(10.);
    itk::EncapsulateMetaData<double>(d, c.field, c.value);
    const std::string message = MessageOf([&] { VarianScan::FromHndHeader(d, "/obi/Proj_00004.hnd", {}); });
    EXPECT_NE(message.find("/obi/Proj_00004.hnd"), std::string::npos) << c.field << ": " << message;
    for (const std::string & word : c.words)
      EXPECT_NE(message.find(word), std::string::npos) << c.field << " " << c.value << ": '" << word << "' not in "
                                                        << message;
  }
  // No distance to the imager at all: its position 0 or unknown, and dSFD unknown (or 0).
  for (const double vrt : { 0., 99999999. })
    for (const double sfd : { 99999999., 0. })
    {
      auto d = HndHeader(10.);
      itk::EncapsulateMetaData<double>(d, "dIDUPosVrt", vrt);
      itk::EncapsulateMetaData<double>(d, "dSFD", sfd);
      const std::string message = MessageOf([&] { VarianScan::FromHndHeader(d, "p.hnd", {}); });
      EXPECT_NE(message.find("no source-to-detector distance"), std::string::npos) << message;
      EXPECT_NE(message.find("dIDUPosVrt is"), std::string::npos) << message;
      EXPECT_NE(message.find("dSFD is"), std::string::npos) << message;
    }
  // ProjectionInfo.xml's values are checked too (a CalibratedSID in cm, taken as mm: 150 mm).
  const VarianScan::XmlSettings inCm{ { "CalibratedSAD", "100" }, { "CalibratedSID", "150" } };
  const std::string message = MessageOf([&] { VarianScan::FromHndHeader(HndHeader(10.), "p.hnd", inCm); });
  EXPECT_NE(message.find("ProjectionInfo.xml CalibratedSAD 100 mm"), std::string::npos) << message;
  // ProjectionInfo.xml's own mark for unknown is no value: the header's fields are used.
  const VarianScan::XmlSettings unknown{ { "CalibratedSAD", "99999999" }, { "CalibratedSID", "99999999" } };
  const auto r = VarianScan::FromHndHeader(HndHeader(10.), "p.hnd", unknown);
  EXPECT_NEAR(r.sourceToIsocenterDistance, 1000., 1e-9);
  EXPECT_NEAR(r.sourceToDetectorDistance, 1500., 1e-9);
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

TEST(VarianScanAir, ManyReadingsAsTheDoubleFormulaWhateverTheThreads)
{
  // The conversion runs in float (one quotient and a vectorised logarithm per reading) on several
  // threads: each value must be p = ln(a N_k / R) computed in double, to float rounding, over readings
  // from below one count to 2^30 (and NaN, infinities), two air frames interpolated in angle, and the
  // same on one thread as on four.
  constexpr unsigned int nu = 37, nv = 11, count = 9;
  VarianScan::AirFrame a, b;
  auto airA = AirOf(nu, nv, 0.f), airB = AirOf(nu, nv, 0.f);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> logCounts(-1., 30. * std::log(2.));
  for (unsigned int i = 0; i < nu * nv; ++i)
  {
    airA->GetBufferPointer()[i] = static_cast<float>(std::exp(logCounts(random)));
    airB->GetBufferPointer()[i] = static_cast<float>(std::exp(logCounts(random)));
  }
  a.image = airA;
  a.normChamber = 240000.;
  a.angleDegrees = 10.;
  b.image = airB;
  b.normChamber = 230000.;
  b.angleDegrees = 200.;
  std::vector<double> norms, angles;
  for (unsigned int k = 0; k < count; ++k)
  {
    norms.push_back(200000. + 5000. * k);
    angles.push_back(-30. + 45. * k);
  }
  auto readings = StackOf(nu, nv, count, 0.f);
  float * r = readings->GetBufferPointer();
  for (std::size_t i = 0; i < std::size_t(nu) * nv * count; ++i)
    r[i] = static_cast<float>(std::exp(logCounts(random)));
  r[3] = std::numeric_limits<float>::quiet_NaN();
  r[4] = std::numeric_limits<float>::infinity();
  r[5] = -std::numeric_limits<float>::infinity();
  r[6] = 0.f;
  std::vector<double> expected(std::size_t(nu) * nv * count);
  for (unsigned int k = 0; k < count; ++k)
  {
    // The frames around this angle: 10 and 200 degrees, the weight of the upper one.
    const double angle = std::fmod(std::fmod(angles[k], 360.) + 360., 360.);
    const bool between = angle >= 10. && angle < 200.;
    const double w = between ? (angle - 10.) / 190. : std::fmod(angle - 200. + 360., 360.) / 170.;
    const auto & lo = between ? a : b;
    const auto & hi = between ? b : a;
    for (unsigned int i = 0; i < nu * nv; ++i)
    {
      const double airLo = std::max(1., double(lo.image->GetBufferPointer()[i])) / lo.normChamber;
      const double airHi = std::max(1., double(hi.image->GetBufferPointer()[i])) / hi.normChamber;
      const std::size_t j = std::size_t(k) * nu * nv + i;
      const double reading = r[j] >= 1.f ? r[j] : 1.; // NaN, -inf, 0 and values below 1 count as 1
      expected[j] = std::log(((1. - w) * airLo + w * airHi) * norms[k] / reading);
    }
  }
  std::vector<float> results[2];
  const int threads[2] = { 1, 4 };
  const int before = itk::MultiThreaderBase::GetGlobalDefaultNumberOfThreads();
  for (int t = 0; t < 2; ++t)
  {
    auto copy = StackOf(nu, nv, count, 0.f);
    std::copy(r, r + expected.size(), copy->GetBufferPointer());
    itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(threads[t]);
    const std::size_t clamped = VarianScan::NormaliseWithAir(copy, norms, angles, { a, b });
    EXPECT_GE(clamped, 4u); // NaN, -inf, 0 and the draws below one count
    results[t].assign(copy->GetBufferPointer(), copy->GetBufferPointer() + expected.size());
  }
  itk::MultiThreaderBase::SetGlobalDefaultNumberOfThreads(before);
  double worst = 0.;
  for (std::size_t j = 0; j < expected.size(); ++j)
  {
    if (j == 4) // +inf: ln(0) in double; finite here (ln of the smallest float, about -88 - ln a)
    {
      EXPECT_TRUE(std::isfinite(results[0][j]) && results[0][j] < -60.f) << results[0][j];
      continue;
    }
    ASSERT_TRUE(std::isfinite(results[0][j])) << j;
    // Float rounding: a few ulp of the value, or of the reading's and air's ratio for values near 0.
    const double error = std::abs(results[0][j] - expected[j]) / (4e-7 + 3e-7 * std::abs(expected[j]));
    worst = std::max(worst, error);
    ASSERT_LE(error, 1.) << "pixel " << j << ": " << results[0][j] << " for " << expected[j];
  }
  EXPECT_EQ(results[0], results[1]); // bit for bit on 1 and 4 threads
  std::cout << "worst error against the double formula: " << worst << " of the bound" << std::endl;
}

TEST(VarianScanAir, BadSizesAndNormsAreRefused)
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

// ------------------------------------------------------------------------------------------------
// Folders of files

namespace
{
using test::XimContents;
using test::XimProperty;

/** One TrueBeam frame: its geometry fields (cm, degrees), norm chamber and counts. */
struct Frame
{
  double kvSourceRtn = 0.;
  double sourceVrt = 100.;
  double detectorVrt = -50.;
  double lat = -16.;
  double lng = 0.;
  std::int32_t normChamber = 240000;
  std::vector<std::int32_t> pixels;
};

constexpr int FrameWidth = 6, FrameHeight = 4;

void
WriteFrame(const fs::path & file,
           const Frame & f,
           int width = FrameWidth,
           int height = FrameHeight,
           double pixelCm = 0.0388)
{
  XimContents c;
  c.width = width;
  c.height = height;
  c.pixels = f.pixels.empty() ? std::vector<std::int32_t>(std::size_t(width) * height, 1000) : f.pixels;
  c.properties = { XimProperty::Real("GantryRtn", f.kvSourceRtn - 90.),
                   XimProperty::Real("KVSourceRtn", f.kvSourceRtn),
                   XimProperty::Real("KVSourceVrt", f.sourceVrt),
                   XimProperty::Real("KVDetectorVrt", f.detectorVrt),
                   XimProperty::Real("KVDetectorLat", f.lat),
                   XimProperty::Real("KVDetectorLng", f.lng),
                   XimProperty::Real("KVKiloVolts", 125.),
                   XimProperty::Int("KVNormChamber", f.normChamber),
                   XimProperty::Real("PixelWidth", pixelCm),
                   XimProperty::Real("PixelHeight", pixelCm) };
  fs::create_directories(file.parent_path());
  test::WriteXim(file.string(), c);
}

const char * const HalfFanScanXml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                    "<Scan xmlns=\"http://baden.varian.com/cr.xsd\" Version=\"2.7.0.0\">\n"
                                    "  <Acquisitions><SAD>1000</SAD><SID>1500</SID><Fan>Half</Fan>\n"
                                    "    <Bowtie>Half Bowtie</Bowtie><KV>125</KV></Acquisitions>\n</Scan>\n";

/** A half-fan 125 kV bowtie calibration (the one to pick) and decoys of another kV, fan and filter. */
void
WriteCalibrations(const fs::path & root, std::int32_t airCounts, std::int32_t airNorm)
{
  Frame air;
  air.normChamber = airNorm;
  air.pixels.assign(FrameWidth * FrameHeight, airCounts);
  WriteFrame(root / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Current" / "FilterBowtie.xim", air);
  Frame decoy = air;
  decoy.pixels.assign(FrameWidth * FrameHeight, 7);
  WriteFrame(root / "Calibrations" / "AIR-Half-Bowtie-100KV" / "Current" / "FilterBowtie.xim", decoy);
  WriteFrame(root / "Calibrations" / "AIR-Full-Bowtie-125KV" / "Current" / "FilterBowtie.xim", decoy);
  WriteFrame(root / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Current" / "Filter.xim", decoy);
  WriteFrame(root / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Archive" / "FilterBowtie.xim", decoy);
}

bool
LogHas(const ScannerScan * scan, const std::string & text)
{
  for (const auto & line : scan->Log())
    if (line.find(text) != std::string::npos)
      return true;
  return false;
}

/** The stacked counts of the scan's files as float, read through ITK's factory by ScanImporter
 * (ReadLineIntegrals would convert them too; these tests convert them themselves). */
ScannerScan::ProjectionsType::Pointer
ReadStack(const ScannerScan * scan)
{
  const auto raw = ScanImporter::ReadRaw(scan);
  auto stack = ScannerScan::ProjectionsType::New();
  ScanImporter::VisitRaw(raw, [&](auto * image) {
    stack->SetRegions(image->GetLargestPossibleRegion());
    stack->Allocate();
    const auto n = image->GetLargestPossibleRegion().GetNumberOfPixels();
    for (std::size_t i = 0; i < n; ++i)
      stack->GetBufferPointer()[i] = static_cast<float>(image->GetBufferPointer()[i]);
  });
  return stack;
}
} // namespace

TEST(VarianScanFolder, TrueBeamGeometryPerProjection)
{
  TemporaryFolder folder("truebeam");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  WriteCalibrations(folder.path, 50000, 250000);
  // KVSourceRtn increasing (Varian's clockwise), distances and offsets varying per projection;
  // names unpadded so that text order (Proj_10 before Proj_2) would be wrong.
  const fs::path acquisition = folder.path / "Acquisitions" / "733061622";
  for (int k = 0; k < 12; ++k)
  {
    Frame f;
    f.kvSourceRtn = 30. * k + 5.;
    f.sourceVrt = 100. + 0.1 * k;
    f.detectorVrt = -50. - 0.2 * k;
    f.lat = -16. + 0.05 * k;
    f.lng = 0.01 * k;
    WriteFrame(acquisition / ("Proj_" + std::to_string(k) + ".xim"), f);
  }
  ASSERT_TRUE(VarianScan::Recognizes(folder.path.string()));
  auto scan = VarianScan::Open(folder.path.string());
  EXPECT_EQ(scan->Format(), "Varian TrueBeam/ProBeam (XIM)");
  ASSERT_EQ(scan->ProjectionFiles().size(), 12u);
  auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), 12u);
  for (unsigned int k = 0; k < 12; ++k)
  {
    EXPECT_EQ(fs::path(scan->ProjectionFiles()[k]).filename().string(), "Proj_" + std::to_string(k) + ".xim");
    const auto & p = geometry->GetParameters(k);
    EXPECT_NEAR(p.sourceToIsocenterDistance, 1000. + k, 1e-9);
    EXPECT_NEAR(p.sourceToDetectorDistance, 1000. + k + 500. + 2. * k, 1e-9);
    EXPECT_NEAR(p.gantryAngle, ThreeDCircularProjectionGeometry::WrapAngle((175. - 30. * k) * Pi / 180.), 1e-12);
    EXPECT_NEAR(p.projectionOffsetX, -160. + 0.5 * k, 1e-9);
    EXPECT_NEAR(p.projectionOffsetY, 0.1 * k, 1e-9);
  }
  EXPECT_NEAR(scan->DetectorSpacing()[0], 0.388, 1e-12);
  EXPECT_NEAR(scan->DetectorSpacing()[1], 0.388, 1e-12);
  EXPECT_NEAR(scan->DetectorOrigin()[0], -2.5 * 0.388, 1e-12);
  EXPECT_NEAR(scan->DetectorOrigin()[1], -1.5 * 0.388, 1e-12);
  // The air scan chosen by kV, fan and filter, under Current/.
  ASSERT_EQ(scan->AirScanFiles().size(), 1u);
  EXPECT_EQ(fs::path(scan->AirScanFiles()[0]).lexically_relative(folder.path).generic_string(),
            "Calibrations/AIR-Half-Bowtie-125KV/Current/FilterBowtie.xim");
  EXPECT_TRUE(LogHas(scan, "180 - KVSourceRtn"));
  EXPECT_TRUE(LogHas(scan, "increasing (RTK angle decreasing)"));
  EXPECT_TRUE(LogHas(scan, "10 * KVDetectorLat"));
  EXPECT_TRUE(LogHas(scan, "Air scan: "));
  // The acquisition folder itself, and one file, read the same geometry.
  auto fromAcquisition = VarianScan::Open(acquisition.string());
  ASSERT_EQ(fromAcquisition->Geometry()->GetNumberOfProjections(), 12u);
  EXPECT_NEAR(fromAcquisition->Geometry()->GetParameters(7).projectionOffsetX, -156.5, 1e-9);
  EXPECT_EQ(fromAcquisition->AirScanFiles(), scan->AirScanFiles());
  auto one = VarianScan::Open((acquisition / "Proj_3.xim").string());
  ASSERT_EQ(one->Geometry()->GetNumberOfProjections(), 1u);
  EXPECT_NEAR(one->Geometry()->GetParameters(0).sourceToIsocenterDistance, 1003., 1e-9);
  EXPECT_EQ(one->AirScanFiles(), scan->AirScanFiles());
}

TEST(VarianScanFolder, EmptyFramesAreLeftOut)
{
  // A XIM declaring 0 x 0 pixels (TrueBeam may end an acquisition with one) is left out, logged; the
  // frames around it keep their geometry.
  TemporaryFolder folder("emptyframe");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  WriteCalibrations(folder.path, 50000, 250000);
  const fs::path acquisition = folder.path / "Acquisitions" / "2";
  for (int k = 0; k < 4; ++k)
  {
    Frame f;
    f.kvSourceRtn = 10. * k;
    const fs::path file = acquisition / ("Proj_0000" + std::to_string(k) + ".xim");
    WriteFrame(file, f);
    if (k == 1 || k == 3)
    {
      XimContents c;
      c.width = 1;
      c.height = 2;
      c.pixels = { 0, 0 };
      auto bytes = test::MakeXim(c);
      test::PutValue<std::int32_t>(bytes.bytes, bytes.widthAt, 0);
      test::PutValue<std::int32_t>(bytes.bytes, bytes.heightAt, 0);
      test::WriteBytes(file.string(), bytes.bytes);
    }
  }
  auto scan = VarianScan::Open(folder.path.string());
  ASSERT_EQ(scan->ProjectionFiles().size(), 2u);
  EXPECT_EQ(fs::path(scan->ProjectionFiles()[1]).filename().string(), "Proj_00002.xim");
  EXPECT_NEAR(scan->Geometry()->GetParameters(1).gantryAngle, 160. * Pi / 180., 1e-12);
  EXPECT_TRUE(LogHas(scan, "Proj_00003.xim left out"));
}

TEST(VarianScanFolder, AirNormalisationValuesFromFiles)
{
  TemporaryFolder folder("air");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  WriteCalibrations(folder.path, 50000, 250000);
  const fs::path acquisition = folder.path / "Acquisitions" / "1";
  const std::int32_t norms[3] = { 200000, 250000, 300000 };
  for (int k = 0; k < 3; ++k)
  {
    Frame f;
    f.kvSourceRtn = 120. * k;
    f.normChamber = norms[k];
    f.pixels.assign(FrameWidth * FrameHeight, 10000);
    f.pixels[1] = 0;        // a dead pixel: clamped to one count
    f.pixels[2] = 60000;    // brighter than the air: a negative line integral, kept
    WriteFrame(acquisition / ("Proj_" + std::to_string(k) + ".xim"), f);
  }
  auto scan = VarianScan::Open(folder.path.string());
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  const float * p = stack->GetBufferPointer();
  const std::size_t frame = FrameWidth * FrameHeight;
  for (int k = 0; k < 3; ++k)
  {
    // -log(R * N_air / (A * N_k))
    EXPECT_NEAR(p[k * frame], -std::log(10000. * 250000. / (50000. * norms[k])), 1e-5) << k;
    EXPECT_NEAR(p[k * frame + 1], -std::log(1. * 250000. / (50000. * norms[k])), 1e-5) << k;
    EXPECT_NEAR(p[k * frame + 2], -std::log(60000. * 250000. / (50000. * norms[k])), 1e-5) << k;
  }
  for (std::size_t i = 0; i < 3 * frame; ++i)
    ASSERT_TRUE(std::isfinite(p[i])) << i;
  EXPECT_TRUE(LogHas(scan, "3 readings below 1 count taken as 1"));
}

TEST(VarianScanFolder, MissingCalibrationNamesWhatWasLookedFor)
{
  TemporaryFolder folder("nocal");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  // Only a calibration of the wrong kV.
  Frame air;
  WriteFrame(folder.path / "Calibrations" / "AIR-Half-Bowtie-100KV" / "Current" / "FilterBowtie.xim", air);
  for (int k = 0; k < 2; ++k)
  {
    Frame f;
    f.kvSourceRtn = 90. * k;
    f.normChamber = 100000 * (k + 1);
    f.pixels.assign(FrameWidth * FrameHeight, 1000 * (k + 1));
    WriteFrame(folder.path / "Acquisitions" / "9" / ("Proj_0000" + std::to_string(k) + ".xim"), f);
  }
  const std::string message = MessageOf([&] { VarianScan::Open(folder.path.string()); });
  EXPECT_NE(message.find((folder.path / "Calibrations").string() + "/AIR-*"), std::string::npos) << message;
  EXPECT_NE(message.find("125 kV"), std::string::npos) << message;
  EXPECT_NE(message.find("FilterBowtie*.xim"), std::string::npos) << message;
  EXPECT_EQ(message.find("airScanFallback"), std::string::npos) << message; // the front ends name their options
  EXPECT_THROW(VarianScan::Open(folder.path.string()), MissingAirScanError);
  // With the fallback asked for: logged, and I0 the brightest normalised reading.
  VarianScan::Options options;
  options.airScanFallback = true;
  auto scan = VarianScan::Open(folder.path.string(), options);
  EXPECT_TRUE(scan->AirScanFiles().empty());
  EXPECT_TRUE(LogHas(scan, "Air scan: none found"));
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  // R * Nmean / N_k: 1000 * 150000 / 100000 = 1500 and 2000 * 150000 / 200000 = 1500: both read 0.
  for (std::size_t i = 0; i < 2 * FrameWidth * FrameHeight; ++i)
    ASSERT_NEAR(stack->GetBufferPointer()[i], 0., 1e-6) << i;
  EXPECT_TRUE(LogHas(scan, "I0 1500"));
  // The same through ScanImporter (as the apps open it): refused without its options, still a
  // MissingAirScanError (the apps and the binding add how their users ask for the fallback); with
  // them, I0 given: ln(3000 / 1500) everywhere.
  const std::string imported = MessageOf([&] { ScanImporter::Open(folder.path.string()); });
  EXPECT_NE(imported.find("FilterBowtie*.xim"), std::string::npos) << imported;
  EXPECT_THROW(ScanImporter::Open(folder.path.string()), MissingAirScanError);
  ScanImporter::Options importOptions;
  importOptions.airScanFallback = true;
  importOptions.fallbackI0 = 3000.;
  const auto viaImporter = ScanImporter::Open(folder.path.string(), "", importOptions);
  const auto lineIntegrals = ScanImporter::ReadLineIntegrals(viaImporter);
  for (std::size_t i = 0; i < 2 * FrameWidth * FrameHeight; ++i)
    ASSERT_NEAR(lineIntegrals->GetBufferPointer()[i], std::log(2.), 1e-6) << i;
  EXPECT_TRUE(LogHas(viaImporter, "I0 3000"));
}

TEST(VarianScanFolder, BadFileMissingKeyNamesTheFile)
{
  TemporaryFolder folder("nokey");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  WriteCalibrations(folder.path, 50000, 250000);
  Frame f;
  WriteFrame(folder.path / "Acquisitions" / "1" / "Proj_00000.xim", f);
  XimContents c; // a frame without KVSourceRtn
  c.width = FrameWidth;
  c.height = FrameHeight;
  c.pixels.assign(FrameWidth * FrameHeight, 5);
  c.properties = { XimProperty::Real("KVSourceVrt", 100.), XimProperty::Real("KVDetectorVrt", -50.),
                   XimProperty::Real("KVDetectorLat", 0.),  XimProperty::Int("KVNormChamber", 1000),
                   XimProperty::Real("PixelWidth", 0.0388), XimProperty::Real("PixelHeight", 0.0388) };
  const fs::path bad = folder.path / "Acquisitions" / "1" / "Proj_00001.xim";
  test::WriteXim(bad.string(), c);
  const std::string message = MessageOf([&] { VarianScan::Open(folder.path.string()); });
  EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
  EXPECT_NE(message.find("KVSourceRtn is missing"), std::string::npos) << message;
}

TEST(VarianScanFolder, ObiProjectionInfoAndHnd)
{
  TemporaryFolder folder("obi");
  WriteText(folder.path / "ProjectionInfo.xml",
            "<?xml version=\"1.0\"?>\n<ProjectionInfo><Geometry><CalibratedSAD>1000.5</CalibratedSAD>"
            "<CalibratedSID>1499</CalibratedSID><CalibratedDetectorOffsetX>1.25</CalibratedDetectorOffsetX>"
            "<CalibratedDetectorOffsetY>-0.5</CalibratedDetectorOffsetY><DetectorPosLat>-148</DetectorPosLat>"
            "<FanType>HalfFan</FanType></Geometry></ProjectionInfo>\n");
  for (int k = 0; k < 4; ++k)
  {
    test::HndContents c;
    c.width = 5;
    c.height = 3;
    c.pixels.assign(15, 2000u + k);
    test::SetTypicalHndHeader(c, 300. - 20. * k); // decreasing angles
    c.reals["dCTNormChamber"] = 1000. * (k + 1);
    WriteHndFile(folder.path / "Scan0" / ("Proj_0000" + std::to_string(k) + ".hnd"), c);
  }
  ASSERT_TRUE(VarianScan::Recognizes(folder.path.string()));
  // No air scan in an OBI export: an error unless the fallback is asked for.
  const std::string message = MessageOf([&] { VarianScan::Open(folder.path.string()); });
  EXPECT_NE(message.find("no air scan"), std::string::npos) << message;
  EXPECT_NE(message.find(".hnd"), std::string::npos) << message;
  VarianScan::Options options;
  options.airScanFallback = true;
  options.fallbackI0 = 139000.;
  auto scan = VarianScan::Open(folder.path.string(), options);
  EXPECT_EQ(scan->Format(), "Varian OBI (HND)");
  auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), 4u);
  for (unsigned int k = 0; k < 4; ++k)
  {
    const auto & p = geometry->GetParameters(k);
    EXPECT_NEAR(p.sourceToIsocenterDistance, 1000.5, 1e-12);
    EXPECT_NEAR(p.sourceToDetectorDistance, 1499., 1e-12);
    EXPECT_NEAR(p.gantryAngle, (300. - 20. * k) * Pi / 180., 1e-12);
    EXPECT_NEAR(p.projectionOffsetX, 1.25 - 148., 1e-12);
    EXPECT_NEAR(p.projectionOffsetY, -0.5, 1e-12);
  }
  EXPECT_NEAR(scan->DetectorSpacing()[0], 0.388, 1e-12);
  EXPECT_TRUE(LogHas(scan, "decreasing"));
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  // log(I0 / (R * Nmean / N_k)), Nmean = 2500.
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(stack->GetBufferPointer()[15 * k + 7],
                std::log(139000. / ((2000. + k) * 2500. / (1000. * (k + 1)))),
                1e-5);
  // Without ProjectionInfo.xml: the HND's own fields (dSAD and dIDUPosVrt in cm, dSFD unknown,
  // dIDUPosLat in mm).
  fs::remove(folder.path / "ProjectionInfo.xml");
  auto bare = VarianScan::Open(folder.path.string(), options);
  EXPECT_NEAR(bare->Geometry()->GetParameters(0).sourceToIsocenterDistance, 1000., 1e-12);
  EXPECT_NEAR(bare->Geometry()->GetParameters(0).sourceToDetectorDistance, 1500., 1e-12);
  EXPECT_NEAR(bare->Geometry()->GetParameters(0).projectionOffsetX, 148., 1e-12);
}

TEST(VarianScanFolder, ObiAirScanFromCalibration)
{
  TemporaryFolder folder("obiair");
  for (int k = 0; k < 2; ++k)
  {
    test::HndContents c;
    c.width = 4;
    c.height = 2;
    c.pixels.assign(8, 3000u);
    test::SetTypicalHndHeader(c, 10. * k);
    c.reals["dCTNormChamber"] = 2000.;
    WriteHndFile(folder.path / ("Proj_" + std::to_string(k) + ".hnd"), c);
  }
  test::HndContents air;
  air.width = 4;
  air.height = 2;
  air.pixels.assign(8, 12000u);
  test::SetTypicalHndHeader(air, 0.);
  air.reals["dCTNormChamber"] = 4000.;
  WriteHndFile(folder.path / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Current" / "FilterBowtie.hnd", air);
  auto scan = VarianScan::Open(folder.path.string());
  ASSERT_EQ(scan->AirScanFiles().size(), 1u);
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  // -log(R * N_air / (A * N_k)) = -log(3000 * 4000 / (12000 * 2000)) = log 2.
  for (std::size_t i = 0; i < 16; ++i)
    ASSERT_NEAR(stack->GetBufferPointer()[i], std::log(2.), 1e-6) << i;
}

TEST(VarianScanFolder, AirFramesOfTheScansDirectionInterpolated)
{
  // TrueBeam 2.7 keeps air frames per direction of rotation and angle: a clockwise scan (KVSourceRtn
  // increasing) uses the _CW_ frames, interpolated in KVSourceRtn; the _CC_ frame is not used.
  TemporaryFolder folder("cwcc");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  const fs::path current = folder.path / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Current";
  Frame cw0, cw180, cc;
  cw0.kvSourceRtn = 0.;
  cw0.normChamber = 100000;
  cw0.pixels.assign(FrameWidth * FrameHeight, 40000);
  cw180.kvSourceRtn = 180.;
  cw180.normChamber = 200000;
  cw180.pixels.assign(FrameWidth * FrameHeight, 120000);
  cc.kvSourceRtn = 90.;
  cc.pixels.assign(FrameWidth * FrameHeight, 3);
  WriteFrame(current / "FilterBowtie_CW_000.xim", cw0);
  WriteFrame(current / "FilterBowtie_CW_180.xim", cw180);
  WriteFrame(current / "FilterBowtie_CC_090.xim", cc);
  for (int k = 0; k < 3; ++k)
  {
    Frame f;
    f.kvSourceRtn = 45. + 90. * k; // 45, 135, 225
    f.normChamber = 100000;
    f.pixels.assign(FrameWidth * FrameHeight, 10000);
    WriteFrame(folder.path / "Acquisitions" / "5" / ("Proj_" + std::to_string(k) + ".xim"), f);
  }
  auto scan = VarianScan::Open(folder.path.string());
  ASSERT_EQ(scan->AirScanFiles().size(), 2u);
  for (const auto & file : scan->AirScanFiles())
    EXPECT_NE(file.find("_CW_"), std::string::npos) << file;
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  // Air per norm unit: 0.4 at 0 degrees, 0.6 at 180; at 45: 0.45, at 135: 0.55, at 225: 0.55 (between
  // 180 and 360 = 0). Line integral log(air / (R / N)) with R / N = 0.1.
  const std::size_t frame = FrameWidth * FrameHeight;
  EXPECT_NEAR(stack->GetBufferPointer()[0], std::log(0.45 / 0.1), 1e-5);
  EXPECT_NEAR(stack->GetBufferPointer()[frame], std::log(0.55 / 0.1), 1e-5);
  EXPECT_NEAR(stack->GetBufferPointer()[2 * frame], std::log(0.55 / 0.1), 1e-5);
  EXPECT_TRUE(LogHas(scan, "interpolated in angle"));
}

// ------------------------------------------------------------------------------------------------
// End to end: a simulated half-fan TrueBeam scan, written as XIM counts and read back.

TEST(VarianScanEndToEnd, HalfFanTrueBeamScanReconstructsAsTheDirectSimulation)
{
  using test::ImageType;
  constexpr unsigned int Count = 90, Columns = 100, Rows = 64;
  constexpr double PixelMm = 1.6;
  // Shepp-Logan densities scaled to attenuation per mm (line integrals up to ~2.5) so that counts
  // through the head stay far from zero; the comparison divides the scale out again.
  constexpr double Scale = 0.02;
  auto phantom = test::SheppLogan();

  // The scan's fields: KVSourceRtn every 4 degrees (increasing), SID, SDD and the half-fan shift
  // varying a little per projection, norm chamber varying per projection.
  std::vector<Frame> frames(Count);
  auto direct = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < Count; ++k)
  {
    Frame & f = frames[k];
    f.kvSourceRtn = 4. * k + 1.;
    f.sourceVrt = 100. + 0.05 * std::cos(0.3 * k);
    f.detectorVrt = -50. - 0.05 * std::sin(0.2 * k);
    f.lat = -5. + 0.02 * std::sin(0.5 * k);
    f.lng = 0.01 * std::cos(0.4 * k);
    f.normChamber = static_cast<std::int32_t>(std::lround(240000. * (1. + 0.05 * std::sin(0.7 * k))));
    // The direct simulation's geometry, from the same numbers by RTK's conversions.
    direct->AddProjection(10. * f.sourceVrt, 10. * (f.sourceVrt - f.detectorVrt), 180. - f.kvSourceRtn, 10. * f.lat,
                          10. * f.lng);
  }
  auto projector = PhantomProjectionSource<ImageType>::New();
  test::CentredGrid(projector, ImageType::SizeType{ { Columns, Rows, Count } }, PixelMm, PixelMm, 1.);
  auto origin = projector->GetOrigin();
  origin[2] = 0.;
  projector->SetOrigin(origin);
  projector->SetGeometry(direct);
  projector->SetPhantom(phantom);
  projector->Update();
  ImageType::Pointer lineIntegrals = projector->GetOutput();

  // Counts: an air image with a bowtie-like profile (large counts: XIM holds int32, and rounding to
  // whole counts must stay far below the comparison's threshold), scaled by each frame's norm chamber.
  TemporaryFolder folder("endtoend");
  WriteText(folder.path / "Scan.xml", HalfFanScanXml);
  const std::int32_t airNorm = 250000;
  std::vector<std::int32_t> air(Columns * Rows);
  for (unsigned int j = 0; j < Rows; ++j)
    for (unsigned int i = 0; i < Columns; ++i)
    {
      const double x = (i - 0.5 * (Columns - 1.)) / (0.5 * Columns);
      air[j * Columns + i] = static_cast<std::int32_t>(std::lround(4.0e6 * (1. - 0.3 * x * x) * (1. + 0.001 * j)));
    }
  {
    XimContents c;
    c.width = Columns;
    c.height = Rows;
    c.pixels = air;
    c.properties = { XimProperty::Real("KVSourceRtn", 0.), XimProperty::Int("KVNormChamber", airNorm),
                     XimProperty::Real("KVKiloVolts", 125.), XimProperty::Real("PixelWidth", PixelMm / 10.),
                     XimProperty::Real("PixelHeight", PixelMm / 10.) };
    const fs::path file = folder.path / "Calibrations" / "AIR-Half-Bowtie-125KV" / "Current" / "FilterBowtie.xim";
    fs::create_directories(file.parent_path());
    test::WriteXim(file.string(), c);
  }
  const float * p = lineIntegrals->GetBufferPointer();
  for (unsigned int k = 0; k < Count; ++k)
  {
    Frame & f = frames[k];
    f.pixels.resize(Columns * Rows);
    for (std::size_t i = 0; i < f.pixels.size(); ++i)
      f.pixels[i] = static_cast<std::int32_t>(
        std::lround(air[i] * double(f.normChamber) / airNorm * std::exp(-Scale * p[k * Columns * Rows + i])));
    char name[32];
    std::snprintf(name, sizeof(name), "Proj_%05u.xim", k);
    WriteFrame(folder.path / "Acquisitions" / "733061622" / name, f, Columns, Rows, PixelMm / 10.);
  }

  // Read back: the scan, its geometry, the files stacked and converted (ScanImporter).
  auto scan = ScanImporter::Open(folder.path.string()); // detection: the Varian reader recognises it
  EXPECT_EQ(scan->Format(), "Varian TrueBeam/ProBeam (XIM)");
  for (const auto & line : scan->Log())
    std::cout << "  log: " << line << std::endl;
  auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), Count);
  for (unsigned int k = 0; k < Count; ++k)
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        ASSERT_NEAR(geometry->GetMatrix(k)(r, c),
                    direct->GetMatrix(k)(r, c),
                    1e-9 * (1. + std::abs(direct->GetMatrix(k)(r, c))));
  ImageType::Pointer readBack = ScanImporter::ReadLineIntegrals(scan);
  ASSERT_EQ(readBack->GetLargestPossibleRegion().GetSize(), lineIntegrals->GetLargestPossibleRegion().GetSize());
  EXPECT_NEAR(readBack->GetSpacing()[0], PixelMm, 1e-9);
  EXPECT_NEAR(readBack->GetOrigin()[0], lineIntegrals->GetOrigin()[0], 1e-9);
  EXPECT_NEAR(readBack->GetOrigin()[1], lineIntegrals->GetOrigin()[1], 1e-9);
  double largest = 0.;
  {
    float * q = readBack->GetBufferPointer();
    const std::size_t n = readBack->GetLargestPossibleRegion().GetNumberOfPixels();
    for (std::size_t i = 0; i < n; ++i)
    {
      ASSERT_TRUE(std::isfinite(q[i])) << i;
      q[i] = static_cast<float>(q[i] / Scale);
      largest = std::max(largest, std::abs(double(q[i]) - p[i]));
    }
  }
  std::cout << "largest line-integral difference after counts and back: " << largest << std::endl;
  EXPECT_LT(largest, 1e-3);

  auto reconstruct = [](const ThreeDCircularProjectionGeometry * g, const ImageType * projections) {
    auto zero = test::ZeroVolume(64, 2.);
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(projections);
    fdk->SetGeometry(g);
    fdk->GetWeightFilter()->SetDisplacedDetectorWeighting(true);
    fdk->Update();
    ImageType::Pointer volume = fdk->GetOutput();
    volume->DisconnectPipeline();
    return volume;
  };
  auto expected = reconstruct(direct, lineIntegrals);
  auto actual = reconstruct(geometry, readBack);
  double sum = 0., peak = 0.;
  const std::size_t n = expected->GetLargestPossibleRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < n; ++i)
  {
    sum += std::abs(double(actual->GetBufferPointer()[i]) - expected->GetBufferPointer()[i]);
    peak = std::max(peak, double(expected->GetBufferPointer()[i]));
  }
  const double mae = sum / n;
  std::cout << "FDK of the Varian files vs FDK of the direct simulation: MAE " << mae << " (peak " << peak << ")"
            << std::endl;
  EXPECT_LT(mae, 1e-3); // NaN fails
  EXPECT_GT(peak, 0.5); // the head is there (Shepp-Logan's skull reads about 1 or more)
  // And the reconstruction is the phantom's: the half-fan geometry is right, not only the same twice.
  auto truth = test::VoxelizedPhantom(phantom, 64, 2., 2);
  ImageType::RegionType central(ImageType::IndexType{ { 8, 16, 8 } }, ImageType::SizeType{ { 48, 32, 48 } });
  const auto q = test::Compare(actual, truth, central);
  std::cout << "against the phantom (central region): MAE " << q.meanAbsoluteError << ", PSNR " << q.psnr << " dB"
            << std::endl;
  EXPECT_LT(q.meanAbsoluteError, 0.1);
}

TEST(VarianScanFolder, ObiHncFiles)
{
  // HNC: HND's header fields in 512 bytes, uncompressed 16-bit pixels; read as an OBI scan too.
  TemporaryFolder folder("hnc");
  for (int k = 0; k < 3; ++k)
  {
    test::HndContents c;
    c.width = 4;
    c.height = 2;
    c.pixels.assign(8, 1000u + 100u * k);
    test::SetTypicalHndHeader(c, 90. + 5. * k);
    c.reals["dCTNormChamber"] = 500.;
    fs::create_directories(folder.path);
    test::WriteHnc((folder.path / ("Proj_" + std::to_string(k) + ".hnc")).string(), c);
  }
  ASSERT_TRUE(VarianScan::Recognizes(folder.path.string()));
  ASSERT_TRUE(VarianScan::Recognizes((folder.path / "Proj_0.hnc").string()));
  const std::string message = MessageOf([&] { VarianScan::Open(folder.path.string()); });
  EXPECT_NE(message.find("Filter*.hnc"), std::string::npos) << message;
  VarianScan::Options options;
  options.airScanFallback = true;
  auto scan = VarianScan::Open(folder.path.string(), options);
  EXPECT_EQ(scan->Format(), "Varian OBI (HNC)");
  ASSERT_EQ(scan->ProjectionFiles().size(), 3u);
  EXPECT_NEAR(scan->Geometry()->GetParameters(2).gantryAngle, 100. * Pi / 180., 1e-12);
  auto stack = ReadStack(scan);
  scan->ToLineIntegrals(stack);
  // I0 estimated: the brightest reading (1200) reads 0.
  EXPECT_NEAR(stack->GetBufferPointer()[16], 0., 1e-6);
  EXPECT_NEAR(stack->GetBufferPointer()[0], std::log(1200. / 1000.), 1e-6);
}

// A lone projection file, as a user opens one: no Calibrations/ folder anywhere above it.

namespace
{
/** The readings of `scan` as ScanImporter::ReadRaw() stores them, as 64-bit integers (exact for every
 * integer pixel type a Varian file holds). */
std::vector<long long>
RawValues(const ScannerScan * scan)
{
  std::vector<long long> values;
  const auto raw = ScanImporter::ReadRaw(scan);
  ScanImporter::VisitRaw(raw, [&](auto * image) {
    const auto n = image->GetLargestPossibleRegion().GetNumberOfPixels();
    for (std::size_t i = 0; i < n; ++i)
      values.push_back(static_cast<long long>(image->GetBufferPointer()[i]));
  });
  return values;
}
} // namespace

TEST(VarianScanLoneFile, RawReadingsNeedNoAirScan)
{
  TemporaryFolder folder("lone");
  // A TrueBeam XIM and an OBI HND (the header of a real half-fan projection), each alone in its folder.
  Frame frame;
  frame.lat = 0.;
  frame.pixels = { 5, 70000, 1, 0, 123456, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 65535, 65536, 2000000000, 11, 12, 13, 14, 15, 16 };
  const fs::path xim = folder.path / "xim" / "Proj_00042.xim";
  WriteFrame(xim, frame);
  test::HndContents hnd;
  hnd.width = 5;
  hnd.height = 3;
  hnd.pixels = { 0, 1, 0xffffffffu, 0x80000000u, 139000, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  test::SetTypicalHndHeader(hnd, 271.25);
  hnd.reals["dCTNormChamber"] = 2800.;
  const fs::path hndFile = folder.path / "hnd" / "Proj_00117.hnd";
  WriteHndFile(hndFile, hnd);
  const std::vector<std::pair<fs::path, std::vector<long long>>> files{
    { xim, std::vector<long long>(frame.pixels.begin(), frame.pixels.end()) },
    { hndFile, std::vector<long long>(hnd.pixels.begin(), hnd.pixels.end()) }
  };
  for (const auto & entry : files)
  {
    // Named, not a structured binding: a lambda below captures it (clang 14 refuses to capture a binding).
    const fs::path & file = entry.first;
    const std::vector<long long> & stored = entry.second;
    SCOPED_TRACE(file.string());
    // For line integrals: a MissingAirScanError naming what was looked for, and no front end's option.
    EXPECT_THROW(VarianScan::Open(file.string()), MissingAirScanError);
    EXPECT_THROW(ScanImporter::Open(file.string()), MissingAirScanError);
    const std::string message = MessageOf([&] { ScanImporter::Open(file.string()); });
    EXPECT_NE(message.find("varian: VarianScan: no air scan: looked for " + file.parent_path().string() +
                           "/Calibrations/AIR-*"),
              std::string::npos)
      << message;
    EXPECT_EQ(message.find("airScanFallback"), std::string::npos) << message;
    EXPECT_EQ(message.find("--air-fallback"), std::string::npos) << message;

    // For the readings as stored: opened, the missing air scan logged, the pixels exactly as stored.
    ScanImporter::Options readingsOnly;
    readingsOnly.readingsOnly = true;
    const auto scan = ScanImporter::Open(file.string(), "", readingsOnly);
    EXPECT_TRUE(LogHas(scan, "the readings as stored need none"));
    EXPECT_EQ(RawValues(scan), stored);
    // Line integrals from that scan are still refused, with the same error.
    auto stack = ReadStack(scan);
    EXPECT_THROW(scan->ToLineIntegrals(stack), MissingAirScanError);
    EXPECT_NE(MessageOf([&] { scan->ToLineIntegrals(stack); }).find("Calibrations/AIR-*"), std::string::npos);
  }
  // The lone HND's geometry: the header's distances in cm, its lateral shift in mm.
  ScanImporter::Options readingsOnly;
  readingsOnly.readingsOnly = true;
  const auto obi = ScanImporter::Open(hndFile.string(), "", readingsOnly)->Geometry();
  ASSERT_EQ(obi->GetNumberOfProjections(), 1u);
  EXPECT_NEAR(obi->GetParameters(0).sourceToIsocenterDistance, 1000., 1e-9);
  EXPECT_NEAR(obi->GetParameters(0).sourceToDetectorDistance, 1500., 1e-9);
  EXPECT_NEAR(obi->GetParameters(0).projectionOffsetX, 148., 1e-9);
}

TEST(VarianScanLoneFile, DetectorBesideTheRotationAxisIsRefused)
{
  // An OBI's 1024 x 768 panel of 0.388 mm shifted 148 mm reaches the axis (a half fan); shifted 1480 mm
  // (the lateral shift read ten times too large) it lies wholly beside it, which no scanner does.
  TemporaryFolder folder("axis");
  auto panel = ScannerScan::ProjectionsType::New(); // the layout only: no pixel is read
  panel->SetRegions(ScannerScan::ProjectionsType::RegionType(ScannerScan::ProjectionsType::SizeType{ { 1024, 768, 1 } }));
  auto spacing = panel->GetSpacing();
  spacing[0] = spacing[1] = 0.388;
  panel->SetSpacing(spacing);
  auto origin = panel->GetOrigin();
  origin[0] = -0.5 * 1023 * 0.388;
  origin[1] = -0.5 * 767 * 0.388;
  panel->SetOrigin(origin);
  ScanImporter::Options readingsOnly;
  readingsOnly.readingsOnly = true;
  for (const double lat : { 148., -148., 1480. })
  {
    test::HndContents c;
    c.width = 4;
    c.height = 2;
    c.pixels.assign(8, 100u);
    test::SetTypicalHndHeader(c, 0.);
    c.reals["dIDUPosLat"] = lat;
    const fs::path file = folder.path / ("Proj_" + std::to_string(static_cast<int>(lat)) + ".hnd");
    WriteHndFile(file, c);
    const auto scan = ScanImporter::Open(file.string(), "", readingsOnly);
    const std::string message = MessageOf([&] { ScanImporter::CheckDetectorReachesAxis(scan, panel); });
    if (lat == 1480.)
    {
      EXPECT_NE(message.find("the detector misses the rotation axis"), std::string::npos) << message;
      EXPECT_NE(message.find("ProjectionOffsetX"), std::string::npos) << message;
    }
    else
      EXPECT_EQ(message, "(no exception)") << lat;
  }
}
