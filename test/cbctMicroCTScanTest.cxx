// The micro-CT scan readers, NikonScan (.xtekct) and BrukerScan (SkyScan .log), on files written
// here: each field to its geometry parameter, the angle files, the conversions to line integrals
// with known values, the errors for missing or invalid fields (tests named Bad*: label badinput),
// Nikon's geometry against an independent model of CIL's lab frame, and simulated scans written as
// 16-bit TIFF files, read back and reconstructed like the direct simulation.
#include "cbctBrukerScan.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctKeyValueFile.h"
#include "cbctNikonScan.h"
#include "cbctScanImporter.h"
#include "cbctTestHelpers.h"

#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>
#include <itkTIFFImageIO.h>
#include <itksys/SystemTools.hxx>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace cbct;
using namespace cbct::test;

namespace
{

constexpr double Pi = 3.14159265358979323846;
constexpr double Degree = Pi / 180.;

using CountsType = itk::Image<unsigned short, 2>;
using FieldType = itk::Image<float, 2>;

/** A fresh folder in the running test's folder (cbctTestFolder.h: removed when the test ends). */
class TemporaryFolder
{
public:
  explicit TemporaryFolder(const std::string & name)
    : m_Path(cbct::test::FreshSubfolder(name).string())
  {}
  TemporaryFolder(const TemporaryFolder &) = delete;
  TemporaryFolder &
  operator=(const TemporaryFolder &) = delete;
  std::string
  operator/(const std::string & name) const
  {
    return m_Path + "/" + name;
  }
  const std::string &
  Path() const
  {
    return m_Path;
  }

private:
  std::string m_Path;
};

void
WriteText(const std::string & path, const std::string & text)
{
  std::ofstream file(path, std::ios::binary);
  file << text;
  ASSERT_TRUE(file.good()) << path;
}

/** Writes `image` as a TIFF file with ITK's TIFFImageIO. */
template <typename TImage>
void
WriteTiff(const std::string & path, const TImage * image)
{
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetImageIO(itk::TIFFImageIO::New());
  writer->SetFileName(path);
  writer->SetInput(image);
  writer->Update();
}

CountsType::Pointer
Counts(unsigned long columns, unsigned long rows, const std::function<unsigned short(unsigned long, unsigned long)> & value)
{
  auto image = CountsType::New();
  image->SetRegions(CountsType::SizeType{ { columns, rows } });
  image->Allocate();
  for (unsigned long j = 0; j < rows; ++j)
    for (unsigned long i = 0; i < columns; ++i)
      image->SetPixel({ { static_cast<long>(i), static_cast<long>(j) } }, value(i, j));
  return image;
}

/** Runs `action`, which must throw an itk::ExceptionObject whose description holds every one of `parts`. */
void
ExpectError(const std::function<void()> & action, const std::vector<std::string> & parts)
{
  try
  {
    action();
    ADD_FAILURE() << "no exception; expected one mentioning '" << parts.front() << "'";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    for (const std::string & part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
}

/** Key = value lines in a section, in order; a value of "-" removes the key. */
using Fields = std::vector<std::pair<std::string, std::string>>;

Fields
With(Fields fields, const Fields & changes)
{
  for (const auto & change : changes)
  {
    bool found = false;
    for (auto it = fields.begin(); it != fields.end(); ++it)
      if (it->first == change.first)
      {
        found = true;
        if (change.second == "-")
          fields.erase(it);
        else
          it->second = change.second;
        break;
      }
    if (!found && change.second != "-")
      fields.push_back(change);
  }
  return fields;
}

std::string
Section(const std::string & name, const Fields & fields)
{
  std::string text = "[" + name + "]\r\n";
  for (const auto & field : fields)
    text += field.first + "=" + field.second + "\r\n";
  return text;
}

// ---------------------------------------------------------------------------------------------
// Nikon

/** A small Nikon scan: 12 projections of 8 x 6 pixels. */
Fields
NikonFields()
{
  return { { "Name", "sample" },
           { "InputSeparator", "_" },
           { "Units", "mm" },
           { "Projections", "12" },
           { "WhiteLevel", "60000" },
           { "DetectorPixelsX", "8" },
           { "DetectorPixelsY", "6" },
           { "DetectorPixelSizeX", "0.2" },
           { "DetectorPixelSizeY", "0.25" },
           { "SrcToObject", "200" },
           { "SrcToDetector", "800" },
           { "InitialAngle", "10" },
           { "AngularStep", "2" },
           { "DetectorOffsetX", "0" },
           { "DetectorOffsetY", "0" } };
}

/** Writes `fields` as folder/sample.xtekct and `projections` empty-named TIFF placeholders
 * sample_0001.tif ... (a 1 x 1 image each: the geometry tests read no pixels). */
std::string
WriteNikonScan(const TemporaryFolder & folder, const Fields & fields, unsigned int projections, const std::string & extra = "")
{
  const std::string xtekct = folder / "sample.xtekct";
  WriteText(xtekct, Section("XTekCT", fields) + extra);
  auto tiny = Counts(1, 1, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1); });
  for (unsigned int k = 1; k <= projections; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "sample_%04u.tif", k);
    WriteTiff(folder / name, tiny.GetPointer());
  }
  return xtekct;
}

double
Wrapped(double degrees)
{
  return ThreeDCircularProjectionGeometry::WrapAngle(degrees * Degree);
}

TEST(NikonScan, RecognizesItsFileAndFolder)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, NikonFields(), 12);
  EXPECT_TRUE(NikonScan::Recognizes(xtekct));
  EXPECT_TRUE(NikonScan::Recognizes(folder.Path()));
  EXPECT_FALSE(NikonScan::Recognizes(folder / "sample_0001.tif"));
  EXPECT_FALSE(NikonScan::Recognizes(folder / "absent.xtekct"));
  TemporaryFolder empty("empty");
  EXPECT_FALSE(NikonScan::Recognizes(empty.Path()));
  // The folder and the file open the same scan.
  EXPECT_EQ(NikonScan::Open(folder.Path())->XtekctFile(), NikonScan::Open(xtekct)->XtekctFile());
}

TEST(NikonScan, FieldsGiveTheGeometry)
{
  TemporaryFolder folder("scan");
  auto scan = NikonScan::Open(WriteNikonScan(folder, NikonFields(), 12));
  ASSERT_EQ(scan->ProjectionFiles().size(), 12u);
  for (unsigned int k = 0; k < 12; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "sample_%04u.tif", k + 1);
    EXPECT_EQ(scan->ProjectionFiles()[k], folder / name);
  }
  auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), 12u);
  for (unsigned int k = 0; k < 12; ++k)
  {
    const auto & p = geometry->GetParameters(k);
    EXPECT_DOUBLE_EQ(p.sourceToIsocenterDistance, 200.);
    EXPECT_DOUBLE_EQ(p.sourceToDetectorDistance, 800.);
    // Stage angle InitialAngle + k * AngularStep; the gantry turns the other way, 180 degrees apart.
    EXPECT_NEAR(p.gantryAngle, Wrapped(180. - (10. + 2. * k)), 1e-12) << k;
    EXPECT_EQ(p.projectionOffsetX, 0.);
    EXPECT_EQ(p.projectionOffsetY, 0.);
    EXPECT_EQ(p.sourceOffsetX, 0.);
    EXPECT_EQ(p.sourceOffsetY, 0.);
    EXPECT_EQ(p.inPlaneAngle, 0.);
    EXPECT_EQ(p.outOfPlaneAngle, 0.);
    EXPECT_NEAR(scan->StageAngles()[k], 10. + 2. * k, 1e-12);
  }
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[0], 0.2);
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[1], 0.25);
  EXPECT_DOUBLE_EQ(scan->DetectorOrigin()[0], -3.5 * 0.2);
  EXPECT_DOUBLE_EQ(scan->DetectorOrigin()[1], -2.5 * 0.25);
  EXPECT_DOUBLE_EQ(scan->WhiteLevel(), 60000.);
  EXPECT_FALSE(scan->Log().empty());
  // The geometry handed out is a copy.
  geometry->Clear();
  EXPECT_EQ(scan->Geometry()->GetNumberOfProjections(), 12u);
}

TEST(NikonScan, SeparatorAndFolderOfTheProjections)
{
  // An empty InputSeparator: sample0001.tif ...; five digits are found too.
  TemporaryFolder folder("scan");
  auto tiny = Counts(1, 1, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1); });
  itksys::SystemTools::MakeDirectory(folder / "data");
  for (unsigned int k = 1; k <= 2; ++k)
    WriteTiff(folder / ("data/sample0000" + std::to_string(k) + ".tif"), tiny.GetPointer());
  WriteText(folder / "sample.xtekct", Section("XTekCT", With(NikonFields(), { { "Projections", "2" }, { "InputSeparator", "" }, { "InputFolderName", "data" } })));
  auto scan = NikonScan::Open(folder / "sample.xtekct");
  EXPECT_EQ(scan->ProjectionFiles()[1], folder / "data/sample00002.tif");
  // An InputFolderName that is no folder here (the acquisition PC's path): the .xtekct's folder.
  WriteText(folder / "sample.xtekct", Section("XTekCT", With(NikonFields(), { { "Projections", "2" }, { "InputFolderName", "D:\\scans\\sample" } })));
  WriteTiff(folder / "sample_0001.tif", tiny.GetPointer());
  WriteTiff(folder / "sample_0002.tif", tiny.GetPointer());
  EXPECT_EQ(NikonScan::Open(folder / "sample.xtekct")->ProjectionFiles()[0], folder / "sample_0001.tif");
}

TEST(NikonScan, CtDataAnglesByProjectionNumber)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { "Projections", "4" } }), 4);
  // Three header lines, rows out of order, irregular angles, tabs and spaces.
  WriteText(folder / "_ctdata.txt",
            "Nikon CT data\nFrames per projection\t1\nProjection\tAngle(deg)\tTime\n"
            "2\t7.25\t0.1\n1\t0.0\t0.0\n4 30.5 0.3\n3\t-12.75\t0.2\n");
  auto scan = NikonScan::Open(xtekct);
  const double expected[] = { 0.0, 7.25, -12.75, 30.5 };
  for (unsigned int k = 0; k < 4; ++k)
  {
    EXPECT_DOUBLE_EQ(scan->StageAngles()[k], expected[k]);
    EXPECT_NEAR(scan->Geometry()->GetParameters(k).gantryAngle, Wrapped(180. - expected[k]), 1e-12);
  }
}

TEST(NikonScan, AngFileAnglesAndCtDataFirst)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { "Projections", "3" } }), 3);
  WriteText(folder / "sample.ang", "Projection: Angle\r\n0003: 100.5\r\n0001: 90\r\n0002: 95.25\r\n");
  auto scan = NikonScan::Open(xtekct);
  EXPECT_DOUBLE_EQ(scan->StageAngles()[0], 90.);
  EXPECT_DOUBLE_EQ(scan->StageAngles()[1], 95.25);
  EXPECT_DOUBLE_EQ(scan->StageAngles()[2], 100.5);
  EXPECT_NEAR(scan->Geometry()->GetParameters(2).gantryAngle, Wrapped(180. - 100.5), 1e-12);

  // Tab-separated .ang rows read the same.
  WriteText(folder / "sample.ang", "header\n1\t1.5\n2\t2.5\n3\t3.5\n");
  EXPECT_DOUBLE_EQ(NikonScan::Open(xtekct)->StageAngles()[1], 2.5);

  // _ctdata.txt, when present, is preferred.
  WriteText(folder / "_ctdata.txt", "a\nb\nc\n1 -1\n2 -2\n3 -3\n");
  EXPECT_DOUBLE_EQ(NikonScan::Open(xtekct)->StageAngles()[2], -3.);
}

TEST(NikonScan, ObjectAndDetectorOffsets)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(
    folder,
    With(NikonFields(), { { "ObjectOffsetX", "1.5" }, { "DetectorOffsetX", "2" }, { "DetectorOffsetY", "-3" }, { "CentreOfRotationTop", "0.3" } }),
    12);
  const auto p = NikonScan::Open(xtekct)->Geometry()->GetParameters(5);
  // The axis 1.5 mm along u: source and detector -1.5 mm from it; the detector 2 mm further along u.
  EXPECT_DOUBLE_EQ(p.sourceOffsetX, -1.5);
  EXPECT_DOUBLE_EQ(p.projectionOffsetX, 0.5);
  EXPECT_DOUBLE_EQ(p.projectionOffsetY, -3.);
  EXPECT_EQ(p.sourceOffsetY, 0.);
  // ObjectOffsetX given: the centre of rotation fields are not used for the offset, but without
  // ObjectRoll they still give the roll (as CIL reads them).
  EXPECT_NEAR(p.inPlaneAngle, ThreeDCircularProjectionGeometry::WrapAngle(-std::atan2(0.3, 1.5)), 1e-12);
}

TEST(NikonScan, CentreOfRotationTopAndBottom)
{
  TemporaryFolder folder("scan");
  const std::string xtekct =
    WriteNikonScan(folder, With(NikonFields(), { { "CentreOfRotationTop", "0.8" }, { "CentreOfRotationBottom", "0.4" } }), 12);
  const auto p = NikonScan::Open(xtekct)->Geometry()->GetParameters(0);
  // The mean detector-plane offset 0.6 mm brought to the object plane (x 200 / 800).
  EXPECT_NEAR(p.sourceOffsetX, -0.15, 1e-12);
  EXPECT_NEAR(p.projectionOffsetX, -0.15, 1e-12);
  // The roll from the difference over the detector's height (6 x 0.25 mm).
  EXPECT_NEAR(p.inPlaneAngle, ThreeDCircularProjectionGeometry::WrapAngle(-std::atan2(0.4, 1.5)), 1e-12);
  EXPECT_NEAR(p.outOfPlaneAngle, 0., 1e-15);
}

TEST(NikonScan, RollAndTilt)
{
  TemporaryFolder folder("scan");
  const std::string roll = WriteNikonScan(folder, With(NikonFields(), { { "ObjectRoll", "2" } }), 12);
  auto p = NikonScan::Open(roll)->Geometry()->GetParameters(0);
  EXPECT_NEAR(p.inPlaneAngle, 2. * Degree, 1e-12);
  EXPECT_NEAR(p.outOfPlaneAngle, 0., 1e-15);
  WriteText(folder / "sample.xtekct", Section("XTekCT", With(NikonFields(), { { "ObjectTilt", "3" } })));
  p = NikonScan::Open(roll)->Geometry()->GetParameters(0);
  EXPECT_NEAR(p.inPlaneAngle, 0., 1e-15);
  EXPECT_NEAR(p.outOfPlaneAngle, ThreeDCircularProjectionGeometry::WrapAngle(-3. * Degree), 1e-12);
}

/** Nikon's scan in CIL's lab frame, written independently of the reader: the source at the origin,
 * the beam along +y, z up, x to the right seen from the source; the detector's columns run along -x
 * and its rows along -z (CIL's panel origin top-right); the axis through (-ObjectOffsetX, SrcToObject,
 * 0) along Tilt(-ObjectTilt) Roll(ObjectRoll) z; the object turned by 180 - stage angle about it
 * (right hand). Returns the detector coordinates (mm from the detector's centre, along columns and
 * rows) of the lab point `x`. */
struct NikonLab
{
  double sod, sdd, objectOffsetX, detectorOffsetX, detectorOffsetY, roll, tilt;

  std::array<double, 3>
  AxisPoint() const
  {
    return { -objectOffsetX, sod, 0. };
  }
  std::array<double, 3>
  AxisDirection() const
  {
    const double r = roll * Degree, t = -tilt * Degree;
    const std::array<double, 3> rolled{ std::sin(r), 0., std::cos(r) };
    return { rolled[0], std::cos(t) * rolled[1] - std::sin(t) * rolled[2], std::sin(t) * rolled[1] + std::cos(t) * rolled[2] };
  }
  std::array<double, 2>
  Project(const std::array<double, 3> & x) const
  {
    const double t = sdd / x[1];
    const std::array<double, 3> p{ t * x[0], sdd, t * x[2] };
    const std::array<double, 3> centre{ -detectorOffsetX, sdd, -detectorOffsetY };
    return { -(p[0] - centre[0]), -(p[2] - centre[2]) };
  }
};

/** Rodrigues' rotation of `v` by `angle` (right hand) about the unit vector `axis`. */
std::array<double, 3>
Rotate(const std::array<double, 3> & v, const std::array<double, 3> & axis, double angle)
{
  const double c = std::cos(angle), s = std::sin(angle);
  const double dot = axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2];
  const std::array<double, 3> cross{ axis[1] * v[2] - axis[2] * v[1], axis[2] * v[0] - axis[0] * v[2], axis[0] * v[1] - axis[1] * v[0] };
  std::array<double, 3> r;
  for (int i = 0; i < 3; ++i)
    r[i] = v[i] * c + cross[i] * s + axis[i] * dot * (1. - c);
  return r;
}

TEST(NikonScan, MatchesAnIndependentModelOfTheLabFrame)
{
  struct Case
  {
    std::string name;
    Fields changes;
    NikonLab lab;
  };
  // Each field alone, then together.
  const std::vector<Case> cases = {
    { "plain", {}, { 200., 800., 0., 0., 0., 0., 0. } },
    { "object offset", { { "ObjectOffsetX", "1.2" } }, { 200., 800., 1.2, 0., 0., 0., 0. } },
    { "detector offsets", { { "DetectorOffsetX", "-0.7" }, { "DetectorOffsetY", "0.4" } }, { 200., 800., 0., -0.7, 0.4, 0., 0. } },
    { "roll", { { "ObjectRoll", "1.5" } }, { 200., 800., 0., 0., 0., 1.5, 0. } },
    { "tilt", { { "ObjectTilt", "-2" } }, { 200., 800., 0., 0., 0., 0., -2. } },
    { "centre of rotation", { { "CentreOfRotationTop", "0.5" }, { "CentreOfRotationBottom", "0.3" } }, { 200., 800., 0.1, 0., 0., -std::atan2(0.2, 1.5) / Degree, 0. } },
    { "all",
      { { "ObjectOffsetX", "-0.9" }, { "DetectorOffsetX", "0.6" }, { "DetectorOffsetY", "-0.3" }, { "ObjectRoll", "-1" }, { "ObjectTilt", "2.5" }, { "InitialAngle", "-33" }, { "AngularStep", "31" } },
      { 200., 800., -0.9, 0.6, -0.3, -1., 2.5 } },
  };
  std::mt19937 random(27);
  std::uniform_real_distribution<double> coordinate(-20., 20.);
  for (const Case & c : cases)
  {
    SCOPED_TRACE(c.name);
    TemporaryFolder folder("scan");
    auto scan = NikonScan::Open(WriteNikonScan(folder, With(NikonFields(), c.changes), 12));
    auto geometry = scan->Geometry();
    const auto axisPoint = c.lab.AxisPoint();
    const auto axis = c.lab.AxisDirection();
    for (int trial = 0; trial < 5; ++trial)
    {
      const std::array<double, 3> world{ coordinate(random), coordinate(random), coordinate(random) };
      // The lab position of `world` at the first projection, from the reader's frame of projection 0:
      // frame (u, v, towards the source) = lab (-x, -z, -y) about the axis point.
      // RTK's rotation Rz(-inplane) Rx(-outofplane) Ry(-gantry), written out.
      const auto & p0 = geometry->GetParameters(0);
      const double g = p0.gantryAngle, o = p0.outOfPlaneAngle, i = p0.inPlaneAngle;
      auto ry = [](const std::array<double, 3> & v, double a) {
        return std::array<double, 3>{ std::cos(a) * v[0] + std::sin(a) * v[2], v[1], -std::sin(a) * v[0] + std::cos(a) * v[2] };
      };
      auto rx = [](const std::array<double, 3> & v, double a) {
        return std::array<double, 3>{ v[0], std::cos(a) * v[1] - std::sin(a) * v[2], std::sin(a) * v[1] + std::cos(a) * v[2] };
      };
      auto rz = [](const std::array<double, 3> & v, double a) {
        return std::array<double, 3>{ std::cos(a) * v[0] - std::sin(a) * v[1], std::sin(a) * v[0] + std::cos(a) * v[1], v[2] };
      };
      const auto frame0 = rz(rx(ry(world, -g), -o), -i);
      const std::array<double, 3> relative0{ -frame0[0], -frame0[2], -frame0[1] };
      const double theta0 = (180. - scan->StageAngles()[0]) * Degree;
      for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
      {
        const double theta = (180. - scan->StageAngles()[k]) * Degree;
        const auto relative = Rotate(relative0, axis, theta - theta0);
        const std::array<double, 3> lab{ axisPoint[0] + relative[0], axisPoint[1] + relative[1], axisPoint[2] + relative[2] };
        const auto expected = c.lab.Project(lab);
        const auto & m = geometry->GetMatrix(k);
        const double h[3] = { m[0][0] * world[0] + m[0][1] * world[1] + m[0][2] * world[2] + m[0][3],
                              m[1][0] * world[0] + m[1][1] * world[1] + m[1][2] * world[2] + m[1][3],
                              m[2][0] * world[0] + m[2][1] * world[1] + m[2][2] * world[2] + m[2][3] };
        EXPECT_NEAR(h[0] / h[2], expected[0], 1e-9) << "projection " << k;
        EXPECT_NEAR(h[1] / h[2], expected[1], 1e-9) << "projection " << k;
      }
    }
  }
}

TEST(NikonScan, WhiteLevelGivesLineIntegrals)
{
  TemporaryFolder folder("scan");
  auto scan = NikonScan::Open(WriteNikonScan(
    folder, With(NikonFields(), { { "Projections", "1" }, { "DetectorPixelsX", "3" }, { "DetectorPixelsY", "2" }, { "WhiteLevel", "1000" } }), 1));
  auto readings = ScannerScan::ProjectionsType::New();
  readings->SetRegions(ScannerScan::ProjectionsType::SizeType{ { 3, 2, 1 } });
  readings->Allocate();
  const float values[6] = { 1000.f, static_cast<float>(1000. * std::exp(-2.)), 0.f, -5.f, std::nanf(""), 2000.f };
  std::copy(values, values + 6, readings->GetBufferPointer());
  scan->ToLineIntegrals(readings);
  const float * li = readings->GetBufferPointer();
  EXPECT_NEAR(li[0], 0., 1e-6);
  EXPECT_NEAR(li[1], 2., 1e-5);
  EXPECT_NEAR(li[2], std::log(1000. / 0.5), 1e-5); // 0: half a count
  EXPECT_NEAR(li[3], std::log(1000. / 0.5), 1e-5); // negative: half a count
  EXPECT_NEAR(li[4], std::log(1000. / 0.5), 1e-5); // NaN: half a count, never NaN
  EXPECT_NEAR(li[5], -std::log(2.), 1e-6);         // above the white level: kept, negative
  EXPECT_NE(scan->Log().back().find("3 readings <= 0 or not finite clamped"), std::string::npos) << scan->Log().back();
}

TEST(NikonScan, ItkReadsTheFirstStoredRowAsRowZero)
{
  // The readers take row 0 as the top of the detector, the first row a TIFF stores (its default
  // orientation, top-left). A 2 x 2 16-bit TIFF written byte by byte: rows (1, 3) then (2, 4).
  TemporaryFolder folder("tiff");
  std::string tiff = std::string("II*\0", 4);
  auto u16 = [&tiff](unsigned v) { tiff += static_cast<char>(v & 0xff); tiff += static_cast<char>(v >> 8); };
  auto u32 = [&tiff](unsigned v) { for (int b = 0; b < 4; ++b) tiff += static_cast<char>((v >> (8 * b)) & 0xff); };
  u32(8);
  const unsigned entries = 9, data = 8 + 2 + entries * 12 + 4;
  u16(entries);
  auto entry = [&](unsigned tag, unsigned type, unsigned value) { u16(tag); u16(type); u32(1); if (type == 3) { u16(value); u16(0); } else u32(value); };
  entry(256, 3, 2);    // ImageWidth
  entry(257, 3, 2);    // ImageLength
  entry(258, 3, 16);   // BitsPerSample
  entry(259, 3, 1);    // no compression
  entry(262, 3, 1);    // BlackIsZero
  entry(273, 4, data); // StripOffsets
  entry(277, 3, 1);    // SamplesPerPixel
  entry(278, 3, 2);    // RowsPerStrip
  entry(279, 4, 8);    // StripByteCounts
  u32(0);
  u16(1); u16(3); u16(2); u16(4);
  WriteText(folder / "rows.tif", tiff);
  auto reader = itk::ImageFileReader<FieldType>::New();
  reader->SetImageIO(itk::TIFFImageIO::New());
  reader->SetFileName(folder / "rows.tif");
  reader->Update();
  const FieldType * image = reader->GetOutput();
  EXPECT_EQ(image->GetPixel({ { 0, 0 } }), 1.f);
  EXPECT_EQ(image->GetPixel({ { 1, 0 } }), 3.f);
  EXPECT_EQ(image->GetPixel({ { 0, 1 } }), 2.f);
  EXPECT_EQ(image->GetPixel({ { 1, 1 } }), 4.f);
}

// Missing and invalid fields: one message naming the file and the key.

TEST(NikonScanBad, MissingFieldNamesFileAndKey)
{
  for (const char * key : { "SrcToDetector", "SrcToObject", "Projections", "DetectorPixelsX", "DetectorPixelSizeY", "WhiteLevel", "Name" })
  {
    SCOPED_TRACE(key);
    TemporaryFolder folder("scan");
    const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { key, "-" } }), 12);
    ExpectError([&] { NikonScan::Open(xtekct); }, { xtekct, std::string("[XTekCT] ") + key, "missing" });
  }
  TemporaryFolder folder("steps");
  const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { "AngularStep", "-" } }), 12);
  ExpectError([&] { NikonScan::Open(xtekct); }, { "AngularStep", "missing" });
}

TEST(NikonScanBad, InvalidValuesNameFileKeyAndValue)
{
  const std::vector<std::pair<Fields, std::vector<std::string>>> cases = {
    { { { "SrcToDetector", "abc" } }, { "[XTekCT] SrcToDetector is 'abc'", "decimal number" } },
    { { { "SrcToDetector", "150" } }, { "SrcToDetector is '150'", "> SrcToObject" } },
    { { { "SrcToObject", "0" } }, { "SrcToObject is '0'" } },
    { { { "Projections", "0" } }, { "Projections is '0'", "integer from 1" } },
    { { { "Projections", "12.5" } }, { "Projections is '12.5'" } },
    { { { "DetectorPixelSizeX", "-0.2" } }, { "DetectorPixelSizeX is '-0.2'" } },
    { { { "WhiteLevel", "0" } }, { "WhiteLevel is '0'" } },
    { { { "WhiteLevel", "nan" } }, { "WhiteLevel is 'nan'" } },
    { { { "Units", "inch" } }, { "Units is 'inch'", "mm" } },
    { { { "ObjectRoll", "60" } }, { "ObjectRoll is '60'" } },
    { { { "InitialAngle", "1e999" } }, { "InitialAngle is '1e999'" } },
  };
  for (const auto & c : cases)
  {
    SCOPED_TRACE(c.second.front());
    TemporaryFolder folder("scan");
    const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), c.first), 12);
    auto parts = c.second;
    parts.push_back(xtekct);
    ExpectError([&] { NikonScan::Open(xtekct); }, parts);
  }
}

TEST(NikonScanBad, KeyGivenTwiceWithDifferentValues)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, NikonFields(), 12, "SrcToObject=250\r\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { xtekct, "SrcToObject", "twice", "'200'", "'250'" });
}

TEST(NikonScanBad, MissingProjectionFiles)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, NikonFields(), 11);
  ExpectError([&] { NikonScan::Open(xtekct); }, { folder / "sample_0012.tif", "does not exist", "12 projections" });
  const std::string renamed = WriteNikonScan(folder, With(NikonFields(), { { "Name", "other" } }), 0);
  ExpectError([&] { NikonScan::Open(renamed); }, { folder / "other_0001.tif", "does not exist" });
}

TEST(NikonScanBad, AngleFilesThatDoNotFit)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { "Projections", "3" } }), 3);
  const std::string ctdata = folder / "_ctdata.txt";
  WriteText(ctdata, "h\nh\nh\n1 0\n2 1\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { ctdata, "lists 2 projections", "has 3", "projection 3 is missing" });
  WriteText(ctdata, "h\n1 0\n2 1\n2 1\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { ctdata, "projection 2 a second time" });
  WriteText(ctdata, "h\n1 0\n4 1\n3 1\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { ctdata, "projection 4", "from 1 to 3" });
  WriteText(ctdata, "h\n1 0\n2 x\n3 1\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { ctdata, "line 3", "projection number and an angle" });
  WriteText(ctdata, "h\n1 0\n2 nan\n3 1\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { ctdata, "line 3" });
}

TEST(NikonScanBad, FolderWithTwoDescriptions)
{
  TemporaryFolder folder("scan");
  WriteNikonScan(folder, NikonFields(), 12);
  WriteText(folder / "second.xtekct", Section("XTekCT", NikonFields()));
  ExpectError([&] { NikonScan::Open(folder.Path()); }, { folder.Path(), "2 .xtekct files" });
  TemporaryFolder empty("empty");
  ExpectError([&] { NikonScan::Open(empty.Path()); }, { empty.Path(), "no .xtekct file" });
}

TEST(NikonScanBad, NoSectionOrNotText)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = folder / "sample.xtekct";
  WriteText(xtekct, "SrcToObject=200\n");
  ExpectError([&] { NikonScan::Open(xtekct); }, { xtekct, "no [XTekCT] section" });
  static const char withNul[] = "[XTekCT]\nName=a\0b\n";
  WriteText(xtekct, std::string(withNul, sizeof(withNul) - 1));
  ExpectError([&] { NikonScan::Open(xtekct); }, { xtekct, "NUL byte" });
}

TEST(NikonScanBad, ReadingsOfAnotherSize)
{
  TemporaryFolder folder("scan");
  auto scan = NikonScan::Open(WriteNikonScan(folder, NikonFields(), 12));
  auto readings = ScannerScan::ProjectionsType::New();
  readings->SetRegions(ScannerScan::ProjectionsType::SizeType{ { 8, 5, 12 } });
  readings->Allocate();
  ExpectError([&] { scan->ToLineIntegrals(readings); }, { "8 x 5 x 12", "8 x 6 x 12", "DetectorPixelsY" });
}

/** Damaged versions of a description: every prefix `step` bytes apart, then 200 copies with one to
 * three random bytes changed (a fixed `seed`, so each run tries the same files). */
std::vector<std::string>
DamagedVersions(const std::string & text, std::size_t step, unsigned int seed)
{
  std::mt19937 random(seed);
  std::vector<std::string> damaged;
  for (std::size_t length = 0; length < text.size(); length += step)
    damaged.push_back(text.substr(0, length));
  for (int trial = 0; trial < 200; ++trial)
  {
    std::string t = text;
    for (int flips = 0; flips <= trial % 3; ++flips)
      t[random() % t.size()] = static_cast<char>(random() % 256);
    damaged.push_back(t);
  }
  return damaged;
}

TEST(NikonScanBad, DamagedDescriptionsGiveOneClearError)
{
  // Every prefix of a valid description, and random bytes changed: Open() succeeds or throws an
  // itk::ExceptionObject, never anything else.
  TemporaryFolder folder("scan");
  const std::string text = Section("XTekCT", With(NikonFields(), { { "Projections", "2" } }));
  WriteNikonScan(folder, With(NikonFields(), { { "Projections", "2" } }), 2);
  const std::string xtekct = folder / "sample.xtekct";
  const std::vector<std::string> damaged = DamagedVersions(text, 3, 5);
  int opened = 0;
  for (const std::string & t : damaged)
  {
    WriteText(xtekct, t);
    try
    {
      auto scan = NikonScan::Open(xtekct);
      ++opened;
      EXPECT_EQ(scan->Geometry()->GetNumberOfProjections(), scan->ProjectionFiles().size());
      for (unsigned int k = 0; k < scan->Geometry()->GetNumberOfProjections(); ++k)
        EXPECT_TRUE(std::isfinite(scan->Geometry()->GetParameters(k).gantryAngle));
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_FALSE(std::string(e.GetDescription()).empty());
    }
  }
  EXPECT_GT(opened, 0);
  EXPECT_LT(opened, static_cast<int>(damaged.size()));
}

// ---------------------------------------------------------------------------------------------
// Bruker SkyScan

Fields
BrukerSystem()
{
  return { { "Scanner", "SkyScan1173" }, { "Camera Pixel Size (um)", "50.0" }, { "CameraXYRatio", "1.0000" } };
}

Fields
BrukerAcquisition()
{
  return { { "Filename Prefix", "scan_" },  { "Number of Files", "5" },          { "Number of Rows", "6" },
           { "Number of Columns", "8" },    { "Camera binning", "2x1" },         { "Image Pixel Size (um)", "25" },
           { "Object to Source (mm)", "150" }, { "Camera to Source (mm)", "300" }, { "Optical Axis (line)", "2" },
           { "Depth (bits)", "16" },        { "Rotation Step (deg)", "0.5" },    { "Use 360 Rotation", "NO" },
           { "Flat Field Correction", "ON" }, { "Rotation Direction", "CC" } };
}

std::string
WriteBrukerScan(const TemporaryFolder & folder, const Fields & system, const Fields & acquisition, unsigned int files)
{
  const std::string log = folder / "scan_.log";
  WriteText(log, Section("System", system) + Section("Acquisition", acquisition) +
                   "TS modified at July20,12:15:07 --- 5 of 5 projections\r\n" + Section("Reconstruction", { { "Postalignment", "6.00" } }));
  auto tiny = Counts(1, 1, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1); });
  for (unsigned int k = 0; k < files; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "scan_%04u.tif", k);
    WriteTiff(folder / name, tiny.GetPointer());
  }
  return log;
}

TEST(BrukerScan, RecognizesItsLogAndFolder)
{
  TemporaryFolder folder("scan");
  const std::string log = WriteBrukerScan(folder, BrukerSystem(), BrukerAcquisition(), 5);
  EXPECT_TRUE(BrukerScan::Recognizes(log));
  EXPECT_TRUE(BrukerScan::Recognizes(folder.Path()));
  WriteText(folder / "other.log", "an application's log\n[System] only\n");
  EXPECT_FALSE(BrukerScan::Recognizes(folder / "other.log"));
  EXPECT_TRUE(BrukerScan::Recognizes(folder.Path()));
  EXPECT_EQ(BrukerScan::Open(folder.Path())->LogFile(), log);
  EXPECT_FALSE(BrukerScan::Recognizes(folder / "scan_0000.tif"));
}

TEST(BrukerScan, FieldsGiveTheGeometry)
{
  TemporaryFolder folder("scan");
  auto scan = BrukerScan::Open(WriteBrukerScan(folder, BrukerSystem(), BrukerAcquisition(), 5));
  ASSERT_EQ(scan->ProjectionFiles().size(), 5u);
  EXPECT_EQ(scan->ProjectionFiles()[0], folder / "scan_0000.tif");
  EXPECT_EQ(scan->ProjectionFiles()[4], folder / "scan_0004.tif");
  // Camera pixel 50 um, binned 2 x 1.
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[0], 0.1);
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[1], 0.05);
  EXPECT_DOUBLE_EQ(scan->DetectorOrigin()[0], -0.35);
  EXPECT_DOUBLE_EQ(scan->DetectorOrigin()[1], -0.125);
  auto geometry = scan->Geometry();
  for (unsigned int k = 0; k < 5; ++k)
  {
    const auto & p = geometry->GetParameters(k);
    EXPECT_DOUBLE_EQ(p.sourceToIsocenterDistance, 150.);
    EXPECT_DOUBLE_EQ(p.sourceToDetectorDistance, 300.);
    EXPECT_NEAR(p.gantryAngle, 0.5 * k * Degree, 1e-12);
    // The source's perpendicular meets row 2 of 6: 0.5 rows above the middle (2.5).
    EXPECT_NEAR(p.projectionOffsetY, 0.5 * 0.05, 1e-12);
    EXPECT_NEAR(geometry->GetPrincipalPointV(k), scan->DetectorOrigin()[1] + 2. * 0.05, 1e-12);
    EXPECT_EQ(p.projectionOffsetX, 0.);
    EXPECT_EQ(p.sourceOffsetX, 0.);
  }
  EXPECT_TRUE(scan->FlatFile().empty());
  EXPECT_TRUE(scan->DarkFile().empty());
  EXPECT_DOUBLE_EQ(scan->FullScale(), 65535.);

  // Clockwise: the angles run the other way.
  WriteBrukerScan(folder, BrukerSystem(), With(BrukerAcquisition(), { { "Rotation Direction", "CW" } }), 5);
  EXPECT_NEAR(BrukerScan::Open(folder.Path())->Geometry()->GetParameters(3).gantryAngle, Wrapped(-1.5), 1e-12);
}

TEST(BrukerScan, PixelSizeFromTheImagePixelSize)
{
  TemporaryFolder folder("scan");
  auto scan = BrukerScan::Open(
    WriteBrukerScan(folder, With(BrukerSystem(), { { "Camera Pixel Size (um)", "-" } }), With(BrukerAcquisition(), { { "Optical Axis (line)", "-" } }), 5));
  // 25 um in the object plane, magnified 300 / 150 onto the detector.
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[0], 0.05);
  EXPECT_DOUBLE_EQ(scan->DetectorSpacing()[1], 0.05);
  // No optical axis: the middle row.
  EXPECT_EQ(scan->Geometry()->GetParameters(0).projectionOffsetY, 0.);
}

TEST(BrukerScan, FlatAndDarkFields)
{
  TemporaryFolder folder("scan");
  const std::string log = WriteBrukerScan(folder, BrukerSystem(), With(BrukerAcquisition(), { { "Number of Files", "1" } }), 1);
  WriteTiff(folder / "scan_flat.tif", Counts(8, 6, [](unsigned long i, unsigned long j) { return static_cast<unsigned short>(i == 7 && j == 5 ? 90 : 40000 + 100 * i + j); }).GetPointer());
  WriteTiff(folder / "scan_dark.tif", Counts(8, 6, [](unsigned long i, unsigned long) { return static_cast<unsigned short>(100 + i); }).GetPointer());
  auto scan = BrukerScan::Open(log);
  EXPECT_EQ(scan->FlatFile(), folder / "scan_flat.tif");
  EXPECT_EQ(scan->DarkFile(), folder / "scan_dark.tif");
  auto readings = ScannerScan::ProjectionsType::New();
  readings->SetRegions(ScannerScan::ProjectionsType::SizeType{ { 8, 6, 1 } });
  readings->Allocate();
  // reading = dark + (flat - dark) exp(-l) with l = 0.1 i + 0.2 j.
  for (unsigned long j = 0; j < 6; ++j)
    for (unsigned long i = 0; i < 8; ++i)
    {
      const double flat = 40000. + 100. * i + j, dark = 100. + i;
      readings->SetPixel({ { static_cast<long>(i), static_cast<long>(j), 0 } }, static_cast<float>(dark + (flat - dark) * std::exp(-(0.1 * i + 0.2 * j))));
    }
  readings->SetPixel({ { 3, 4, 0 } }, 50.f); // below the dark field
  scan->ToLineIntegrals(readings);
  for (unsigned long j = 0; j < 6; ++j)
    for (unsigned long i = 0; i < 8; ++i)
    {
      const float value = readings->GetPixel({ { static_cast<long>(i), static_cast<long>(j), 0 } });
      if (i == 7 && j == 5)
        EXPECT_EQ(value, 0.f) << "the flat's dead pixel (flat 90 < dark 107)";
      else if (i == 3 && j == 4)
        EXPECT_NEAR(value, std::log((40000. + 300. + 4. - 103.) / 0.5), 1e-4) << "clamped to half a count";
      else
        EXPECT_NEAR(value, 0.1 * i + 0.2 * j, 2e-5) << i << ", " << j;
    }
  EXPECT_NE(scan->Log().back().find("1 readings - dark <= 0"), std::string::npos) << scan->Log().back();
  EXPECT_NE(scan->Log().back().find("1 pixels with flat - dark <= 0"), std::string::npos) << scan->Log().back();
}

TEST(BrukerScan, BitDepthWithoutFlatField)
{
  TemporaryFolder folder("scan");
  auto scan = BrukerScan::Open(WriteBrukerScan(folder, BrukerSystem(), With(BrukerAcquisition(), { { "Number of Files", "1" }, { "Depth (bits)", "12" } }), 1));
  EXPECT_DOUBLE_EQ(scan->FullScale(), 4095.);
  auto readings = ScannerScan::ProjectionsType::New();
  readings->SetRegions(ScannerScan::ProjectionsType::SizeType{ { 8, 6, 1 } });
  readings->Allocate();
  readings->FillBuffer(static_cast<float>(4095. * std::exp(-1.5)));
  readings->SetPixel({ { 0, 0, 0 } }, 0.f);
  scan->ToLineIntegrals(readings);
  EXPECT_NEAR(readings->GetPixel({ { 1, 1, 0 } }), 1.5, 1e-5);
  EXPECT_NEAR(readings->GetPixel({ { 0, 0, 0 } }), std::log(4095. / 0.5), 1e-5);
}

TEST(BrukerScanBad, MissingAndInvalidFields)
{
  const std::vector<std::pair<Fields, std::vector<std::string>>> cases = {
    { { { "Camera to Source (mm)", "-" } }, { "[Acquisition] Camera to Source (mm) is missing" } },
    { { { "Object to Source (mm)", "-" } }, { "[Acquisition] Object to Source (mm) is missing" } },
    { { { "Number of Files", "-" } }, { "Number of Files is missing" } },
    { { { "Filename Prefix", "-" } }, { "Filename Prefix is missing" } },
    { { { "Rotation Step (deg)", "-" } }, { "Rotation Step (deg) is missing" } },
    { { { "Number of Rows", "0" } }, { "Number of Rows is '0'" } },
    { { { "Camera to Source (mm)", "100" } }, { "Camera to Source (mm) is '100'", "> Object to Source" } },
    { { { "Camera binning", "2by2" } }, { "Camera binning is '2by2'", "AxB" } },
    { { { "Rotation Step (deg)", "0" } }, { "Rotation Step (deg) is '0'" } },
    { { { "Rotation Direction", "sideways" } }, { "Rotation Direction is 'sideways'", "CC or CW" } },
    { { { "Number of connected scans", "2" } }, { "Number of connected scans is '2'" } },
    { { { "Depth (bits)", "12.5" } }, { "Depth (bits) is '12.5'" } },
    { { { "Optical Axis (line)", "1e6" } }, { "Optical Axis (line) is '1000000'" } },
  };
  for (const auto & c : cases)
  {
    SCOPED_TRACE(c.second.front());
    TemporaryFolder folder("scan");
    const std::string log = WriteBrukerScan(folder, BrukerSystem(), With(BrukerAcquisition(), c.first), 5);
    auto parts = c.second;
    parts.push_back(log);
    ExpectError([&] { BrukerScan::Open(log); }, parts);
  }
  TemporaryFolder folder("pixel");
  const std::string log = WriteBrukerScan(folder, With(BrukerSystem(), { { "Camera Pixel Size (um)", "-" } }),
                                          With(BrukerAcquisition(), { { "Image Pixel Size (um)", "-" } }), 5);
  ExpectError([&] { BrukerScan::Open(log); }, { log, "Camera Pixel Size (um)", "Image Pixel Size (um)" });
}

TEST(BrukerScanBad, DamagedLogsGiveOneClearError)
{
  // Every prefix of a valid log, and random bytes changed: Open() succeeds or throws an
  // itk::ExceptionObject; a scan that opens has a finite geometry and grid.
  TemporaryFolder folder("scan");
  const std::string log = WriteBrukerScan(folder, BrukerSystem(), BrukerAcquisition(), 5);
  std::string text;
  {
    std::ifstream in(log, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::vector<std::string> damaged = DamagedVersions(text, 5, 9);
  int opened = 0;
  for (const std::string & t : damaged)
  {
    WriteText(log, t);
    try
    {
      auto scan = BrukerScan::Open(log);
      ++opened;
      EXPECT_EQ(scan->Geometry()->GetNumberOfProjections(), scan->ProjectionFiles().size());
      EXPECT_TRUE(std::isfinite(scan->DetectorSpacing()[0]) && scan->DetectorSpacing()[0] > 0.);
      EXPECT_TRUE(std::isfinite(scan->DetectorOrigin()[1]));
      for (unsigned int k = 0; k < scan->Geometry()->GetNumberOfProjections(); ++k)
        EXPECT_TRUE(std::isfinite(scan->Geometry()->GetParameters(k).projectionOffsetY));
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_FALSE(std::string(e.GetDescription()).empty());
    }
  }
  EXPECT_GT(opened, 0);
  EXPECT_LT(opened, static_cast<int>(damaged.size()));
}

TEST(NikonScanBad, DamagedAngleFilesGiveOneClearError)
{
  TemporaryFolder folder("scan");
  const std::string xtekct = WriteNikonScan(folder, With(NikonFields(), { { "Projections", "3" } }), 3);
  const std::string text = "Header\nFrames\t1\nProjection\tAngle\n1\t0.5\t0\n2\t1.5\t0\n3\t2.5\t0\n";
  std::mt19937 random(3);
  int opened = 0, trials = 0;
  for (std::size_t length = 0; length <= text.size(); ++length, ++trials)
  {
    WriteText(folder / "_ctdata.txt", text.substr(0, length));
    try
    {
      auto scan = NikonScan::Open(xtekct);
      ++opened;
      for (double angle : scan->StageAngles())
        EXPECT_TRUE(std::isfinite(angle));
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("_ctdata.txt"), std::string::npos) << e.GetDescription();
    }
  }
  for (int trial = 0; trial < 100; ++trial, ++trials)
  {
    std::string t = text;
    t[random() % t.size()] = static_cast<char>(random() % 256);
    WriteText(folder / "_ctdata.txt", t);
    try
    {
      auto scan = NikonScan::Open(xtekct);
      for (double angle : scan->StageAngles())
        EXPECT_TRUE(std::isfinite(angle));
      ++opened;
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("_ctdata.txt"), std::string::npos) << e.GetDescription();
    }
  }
  EXPECT_GT(opened, 0);
  EXPECT_LT(opened, trials);
}

TEST(BrukerScanBad, MissingProjectionFile)
{
  TemporaryFolder folder("scan");
  const std::string log = WriteBrukerScan(folder, BrukerSystem(), BrukerAcquisition(), 4);
  ExpectError([&] { BrukerScan::Open(log); }, { folder / "scan_0004.tif", "does not exist", log });
}

TEST(BrukerScanBad, FlatFieldOfAnotherSizeOrTruncated)
{
  TemporaryFolder folder("scan");
  const std::string log = WriteBrukerScan(folder, BrukerSystem(), With(BrukerAcquisition(), { { "Number of Files", "1" } }), 1);
  const std::string flat = folder / "scan_flat.tif";
  WriteTiff(flat, Counts(7, 6, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1000); }).GetPointer());
  auto readings = ScannerScan::ProjectionsType::New();
  readings->SetRegions(ScannerScan::ProjectionsType::SizeType{ { 8, 6, 1 } });
  readings->Allocate();
  readings->FillBuffer(10.f);
  ExpectError([&] { BrukerScan::Open(log)->ToLineIntegrals(readings); }, { "flat field", flat, "7 x 6", "8 x 6" });

  // The same flat cut short: refused before ITK's reader fills the missing part with zeros.
  WriteTiff(flat, Counts(8, 6, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1000); }).GetPointer());
  std::string bytes;
  {
    std::ifstream in(flat, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // ITK writes the pixels before the directory: cut inside them, keeping the header's offset valid
  // would need the directory, so cut the pixel data out of the middle instead.
  const std::size_t cut = 8 + 40;
  WriteText(flat, bytes.substr(0, cut) + bytes.substr(cut + 60));
  ExpectError([&] { BrukerScan::Open(log)->ToLineIntegrals(readings); }, { "flat field", flat });
}

// ---------------------------------------------------------------------------------------------
// End to end: simulated scans written as 16-bit TIFF files, read back and reconstructed.

constexpr unsigned int E2EVoxels = 64;
constexpr double E2EVoxelMm = 2.;
constexpr unsigned int E2EPixels = 110;
constexpr double E2EPixelMm = 2.6;
constexpr unsigned int E2EProjections = 90;
/** The Shepp-Logan head's relative densities times this: attenuation per mm near water's, so that its
 * line integrals (up to about 2.5) fit 16-bit counts. */
constexpr double E2EDensity = 0.02;

ImageType::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections)
{
  auto zero = ZeroVolume(E2EVoxels, E2EVoxelMm);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** The line integrals of the scaled phantom on the scan's detector grid. */
ImageType::Pointer
SimulateLineIntegrals(const ThreeDCircularProjectionGeometry * geometry, const ScannerScan * scan)
{
  auto phantom = SheppLogan();
  phantom->ScaleDensities(E2EDensity);
  auto source = PhantomProjectionSource<ImageType>::New();
  source->SetSize(ImageType::SizeType{ { E2EPixels, E2EPixels, geometry->GetNumberOfProjections() } });
  ImageType::SpacingType spacing;
  spacing[0] = scan->DetectorSpacing()[0];
  spacing[1] = scan->DetectorSpacing()[1];
  spacing[2] = 1.;
  ImageType::PointType origin;
  origin[0] = scan->DetectorOrigin()[0];
  origin[1] = scan->DetectorOrigin()[1];
  origin[2] = 0.;
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  return source->GetOutput();
}

/** Projection k of `lineIntegrals` as counts: round(dark + (flat - dark) exp(-l)), in [0, 65535]. */
CountsType::Pointer
ToCounts(const ImageType * lineIntegrals,
         unsigned int k,
         const std::function<double(unsigned long, unsigned long)> & flat,
         const std::function<double(unsigned long, unsigned long)> & dark)
{
  return Counts(E2EPixels, E2EPixels, [&](unsigned long i, unsigned long j) {
    const double l = lineIntegrals->GetPixel({ { static_cast<long>(i), static_cast<long>(j), static_cast<long>(k) } });
    const double counts = dark(i, j) + (flat(i, j) - dark(i, j)) * std::exp(-l);
    return static_cast<unsigned short>(std::min(65535., std::max(0., std::round(counts))));
  });
}

/** The scan's files read with ITK's TIFFImageIO, stacked on the scan's detector grid, converted: the
 * same as ScanImporter::ReadLineIntegrals(), written out to check it. */
ImageType::Pointer
ReadScan(const ScannerScan * scan)
{
  const auto & files = scan->ProjectionFiles();
  auto stack = ImageType::New();
  stack->SetRegions(ImageType::SizeType{ { E2EPixels, E2EPixels, files.size() } });
  ImageType::SpacingType spacing;
  spacing[0] = scan->DetectorSpacing()[0];
  spacing[1] = scan->DetectorSpacing()[1];
  spacing[2] = 1.;
  ImageType::PointType origin;
  origin[0] = scan->DetectorOrigin()[0];
  origin[1] = scan->DetectorOrigin()[1];
  origin[2] = 0.;
  stack->SetSpacing(spacing);
  stack->SetOrigin(origin);
  stack->Allocate();
  const std::size_t slice = static_cast<std::size_t>(E2EPixels) * E2EPixels;
  for (std::size_t k = 0; k < files.size(); ++k)
  {
    auto reader = itk::ImageFileReader<FieldType>::New();
    reader->SetImageIO(itk::TIFFImageIO::New());
    reader->SetFileName(files[k]);
    reader->Update();
    const auto size = reader->GetOutput()->GetBufferedRegion().GetSize();
    EXPECT_EQ(size[0], E2EPixels);
    EXPECT_EQ(size[1], E2EPixels);
    std::copy(reader->GetOutput()->GetBufferPointer(), reader->GetOutput()->GetBufferPointer() + slice, stack->GetBufferPointer() + k * slice);
  }
  scan->ToLineIntegrals(stack);
  return stack;
}

/** The reconstructions' mean absolute difference in the phantom's relative densities (Shepp-Logan's
 * peak 2), over the whole volume. */
double
MeanAbsoluteDifference(const ImageType * a, const ImageType * b)
{
  const Quality q = Compare(a, b, a->GetLargestPossibleRegion(), 2. * E2EDensity);
  return q.meanAbsoluteError / E2EDensity;
}

TEST(NikonScan, SimulatedScanReadBackReconstructsAsTheSimulation)
{
  TemporaryFolder folder("scan");
  // Fields with an axis offset (centre of rotation) and a detector offset, stage angles 4 k - 2.
  const double whiteLevel = 60000., sid = 300., sdd = 600., objectOffsetX = 0.8, detectorOffsetX = 1.3;
  const Fields fields = { { "Name", "phantom" },
                          { "Projections", std::to_string(E2EProjections) },
                          { "WhiteLevel", "60000" },
                          { "DetectorPixelsX", std::to_string(E2EPixels) },
                          { "DetectorPixelsY", std::to_string(E2EPixels) },
                          { "DetectorPixelSizeX", "2.6" },
                          { "DetectorPixelSizeY", "2.6" },
                          { "SrcToObject", "300" },
                          { "SrcToDetector", "600" },
                          { "ObjectOffsetX", "0.8" },
                          { "DetectorOffsetX", "1.3" },
                          { "InitialAngle", "0" },
                          { "AngularStep", "4" } };
  std::string ctdata = "Projection data\nFrames\t1\nProjection\tAngle(deg)\tTime\n";
  std::vector<double> stage(E2EProjections);
  for (unsigned int k = 0; k < E2EProjections; ++k)
  {
    stage[k] = 4. * k - 2.;
    ctdata += std::to_string(k + 1) + "\t" + std::to_string(stage[k]) + "\t0\n";
  }
  WriteText(folder / "phantom.xtekct", Section("XTekCT", fields));
  WriteText(folder / "_ctdata.txt", ctdata);

  // The direct simulation's geometry, from the fields as the documentation states.
  auto direct = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < E2EProjections; ++k)
    direct->AddProjection(sid, sdd, 180. - stage[k], detectorOffsetX - objectOffsetX, 0., 0., 0., -objectOffsetX, 0.);

  // A scan object for the detector grid (the files do not exist yet: write a first one to open it).
  auto placeholder = Counts(1, 1, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1); });
  for (unsigned int k = 0; k < E2EProjections; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "phantom_%04u.tif", k + 1);
    WriteTiff(folder / name, placeholder.GetPointer());
  }
  auto grid = NikonScan::Open(folder / "phantom.xtekct");
  const ImageType::Pointer lineIntegrals = SimulateLineIntegrals(direct, grid);
  for (unsigned int k = 0; k < E2EProjections; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "phantom_%04u.tif", k + 1);
    WriteTiff(folder / name,
              ToCounts(lineIntegrals, k, [&](unsigned long, unsigned long) { return whiteLevel; }, [](unsigned long, unsigned long) { return 0.; })
                .GetPointer());
  }

  // Opened and read through ScanImporter, which picks the reader from the folder among all vendors.
  ScannerScan::Pointer scan = ScanImporter::Open(folder.Path());
  ASSERT_NE(dynamic_cast<NikonScan *>(scan.GetPointer()), nullptr);
  auto geometry = scan->Geometry();
  ASSERT_EQ(geometry->GetNumberOfProjections(), E2EProjections);
  for (unsigned int k = 0; k < E2EProjections; ++k)
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        ASSERT_NEAR(geometry->GetMatrix(k)[r][c], direct->GetMatrix(k)[r][c], 1e-9 * (1. + std::abs(direct->GetMatrix(k)[r][c])));

  const ImageType::Pointer read = ScanImporter::ReadLineIntegrals(scan);
  EXPECT_EQ(RelativeDifference(read, ReadScan(scan)), 0.) << "ScanImporter reads what ITK's TIFFImageIO reads";
  const double quantisation = RelativeDifference(read, lineIntegrals);
  std::cout << "line integrals read back: relative L2 difference " << quantisation << std::endl;
  EXPECT_LT(quantisation, 1e-3);
  const ImageType::Pointer reference = Reconstruct(direct, lineIntegrals);
  const double mae = MeanAbsoluteDifference(Reconstruct(geometry, read), reference);
  std::cout << "FDK of the read scan vs of the simulation: MAE " << mae << " (relative densities)" << std::endl;
  EXPECT_LT(mae, 1e-3);

  // The comparison notices a wrong sense of rotation: the gantry turning with the stage instead.
  auto wrongSense = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < E2EProjections; ++k)
    wrongSense->AddProjection(sid, sdd, 180. + stage[k], detectorOffsetX - objectOffsetX, 0., 0., 0., -objectOffsetX, 0.);
  const double wrong = MeanAbsoluteDifference(Reconstruct(wrongSense, read), reference);
  std::cout << "with the sense of rotation reversed: MAE " << wrong << std::endl;
  EXPECT_GT(wrong, 100. * mae);
}

TEST(BrukerScan, SimulatedScanReadBackReconstructsAsTheSimulation)
{
  TemporaryFolder folder("scan");
  const double sid = 300., sdd = 600., step = 4., opticalAxis = 51.;
  const Fields acquisition = { { "Filename Prefix", "phantom_" },
                               { "Number of Files", std::to_string(E2EProjections) },
                               { "Number of Rows", std::to_string(E2EPixels) },
                               { "Number of Columns", std::to_string(E2EPixels) },
                               { "Camera binning", "2x2" },
                               { "Object to Source (mm)", "300" },
                               { "Camera to Source (mm)", "600" },
                               { "Optical Axis (line)", "51" },
                               { "Depth (bits)", "16" },
                               { "Rotation Step (deg)", "4" },
                               { "Rotation Direction", "CW" } };
  WriteText(folder / "phantom_.log", Section("System", { { "Camera Pixel Size (um)", "1300" } }) + Section("Acquisition", acquisition));
  const double pixel = 2.6;
  auto direct = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < E2EProjections; ++k)
    direct->AddProjection(sid, sdd, -step * k, 0., ((E2EPixels - 1) / 2. - opticalAxis) * pixel);

  auto flat = [](unsigned long i, unsigned long j) { return 50000. + 40. * static_cast<double>((i * 7 + j * 3) % 11); };
  auto dark = [](unsigned long i, unsigned long j) { return 200. + static_cast<double>((i + 2 * j) % 5); };
  WriteTiff(folder / "phantom_flat.tif", Counts(E2EPixels, E2EPixels, [&](unsigned long i, unsigned long j) { return static_cast<unsigned short>(flat(i, j)); }).GetPointer());
  WriteTiff(folder / "phantom_dark.tif", Counts(E2EPixels, E2EPixels, [&](unsigned long i, unsigned long j) { return static_cast<unsigned short>(dark(i, j)); }).GetPointer());
  auto placeholder = Counts(1, 1, [](unsigned long, unsigned long) { return static_cast<unsigned short>(1); });
  for (unsigned int k = 0; k < E2EProjections; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "phantom_%04u.tif", k);
    WriteTiff(folder / name, placeholder.GetPointer());
  }
  auto grid = BrukerScan::Open(folder.Path());
  ASSERT_DOUBLE_EQ(grid->DetectorSpacing()[0], pixel);
  const ImageType::Pointer lineIntegrals = SimulateLineIntegrals(direct, grid);
  for (unsigned int k = 0; k < E2EProjections; ++k)
  {
    char name[64];
    std::snprintf(name, sizeof(name), "phantom_%04u.tif", k);
    WriteTiff(folder / name, ToCounts(lineIntegrals, k, flat, dark).GetPointer());
  }

  ScannerScan::Pointer scan = ScanImporter::Open(folder.Path());
  const auto * bruker = dynamic_cast<const BrukerScan *>(scan.GetPointer());
  ASSERT_NE(bruker, nullptr);
  EXPECT_EQ(bruker->FlatFile(), folder / "phantom_flat.tif");
  EXPECT_EQ(bruker->DarkFile(), folder / "phantom_dark.tif");
  auto geometry = scan->Geometry();
  for (unsigned int k = 0; k < E2EProjections; ++k)
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        ASSERT_NEAR(geometry->GetMatrix(k)[r][c], direct->GetMatrix(k)[r][c], 1e-9 * (1. + std::abs(direct->GetMatrix(k)[r][c])));
  const ImageType::Pointer read = ScanImporter::ReadLineIntegrals(scan);
  EXPECT_EQ(RelativeDifference(read, ReadScan(scan)), 0.) << "ScanImporter reads what ITK's TIFFImageIO reads";
  const double quantisation = RelativeDifference(read, lineIntegrals);
  std::cout << "line integrals read back: relative L2 difference " << quantisation << std::endl;
  EXPECT_LT(quantisation, 1e-3);
  const double mae = MeanAbsoluteDifference(Reconstruct(geometry, read), Reconstruct(direct, lineIntegrals));
  std::cout << "FDK of the read scan vs of the simulation: MAE " << mae << " (relative densities)" << std::endl;
  EXPECT_LT(mae, 1e-3);
}

} // namespace
