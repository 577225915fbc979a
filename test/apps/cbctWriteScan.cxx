// cbctWriteScan: writes a scanner's scan folder for the apps' tests and the import benchmark, from the
// formats' definitions (test/cbctVarianTestFiles.h, test/cbctElektaTestFiles.h), not through the
// library's readers.
//
//   cbctWriteScan elekta LINEINTEGRALS GEOMETRY DIR
//       an Elekta XVI 5 scan (HIS + _Frames.xml) whose line integrals are those of LINEINTEGRALS (an image
//       of u x v x projections) on the geometry of GEOMETRY (RTK XML; SID 1000 mm, SDD 1536 mm, no tilt,
//       a detector of 409.6 mm / N pixels centred on the axis, as XVI's): r = 65536 - round(65536 exp(-p)).
//   cbctWriteScan varian LINEINTEGRALS GEOMETRY DIR
//       a Varian TrueBeam scan (Scan.xml, Acquisitions/1/Proj_*.xim, an air scan under Calibrations/):
//       counts round(50000 exp(-p)), air 50000, one norm-chamber reading; fields from the geometry
//       (KVSourceRtn = 180 - angle, KVSourceVrt = SID / 10, KVDetectorVrt = -(SDD - SID) / 10,
//       KVDetectorLat = ProjectionOffsetX / 10, PixelWidth = spacing / 10), the detector centred.
//   cbctWriteScan varian-lone DIR [FIELD=VALUE ...]
//       two lone projections, each alone in its folder (no Calibrations/, no Scan.xml or
//       ProjectionInfo.xml): DIR/xim/Proj_00042.xim, a TrueBeam half-fan XIM (KVSourceVrt 100 cm,
//       KVDetectorVrt -50 cm, KVDetectorLat -16 cm), and DIR/hnd/Proj_00117.hnd, an OBI half-fan HND with
//       the header fields of a real one (dSAD 100 cm, dSFD 99999999: unknown, dIDUPosVrt -50 cm,
//       dIDUPosLat 148 mm); 128 x 96 pixels of 3.104 mm (an OBI panel binned 8 x 8), integer readings
//       above 65535 among them. FIELD=VALUE sets an HND header field (e.g. dSAD=99999999). Beside each:
//       expected.mha, its readings as stored (float; every value below 2^24, so exact), on the
//       centred detector grid.
//   cbctWriteScan dicomctpd LINEINTEGRALS GEOMETRY DIR
//       a DICOM-CT-PD scan (one file per projection, written through GDCM; built when GDCM is found) of
//       a cone-beam orbit without source offset across the axis or tilt (a helix of cbct-simulate
//       --helical on a cylinder centred on the source, --detector-radius = --sdd, or a flat panel):
//       phi0 = -gantry angle, rho0 = SID, d0 = SDD, z0 = SourceOffsetY, the central element from the
//       detector offsets and the image's origin, values round((p + 1) x 1024) (RescaleSlope 2^-10,
//       RescaleIntercept -1), the Mayo data's pixel layout (each detector column's rows together).
//   cbctWriteScan varian-bench DIR COUNT WIDTH HEIGHT
//       a Varian TrueBeam scan of COUNT compressed XIMs of WIDTH x HEIGHT over 360 degrees, whose pixels
//       look like a patient's (a smooth field with noise: the compressed stream has differences of 1,
//       2 and 4 bytes), for timing cbct-import.
#ifdef CBCT_WRITE_DICOMCTPD
#include "../cbctDicomCTPDTestFiles.h"
#endif
#include "../cbctElektaTestFiles.h"
#include "../cbctVarianTestFiles.h"

#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"

#include <itkImage.h>
#include <itkImageFileReader.h>
#include <itkImageFileWriter.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <random>

namespace
{
namespace fs = std::filesystem;
using ImageType = itk::Image<float, 3>;
constexpr double Pi = 3.14159265358979323846;

struct Input
{
  ImageType::Pointer projections;
  cbct::ThreeDCircularProjectionGeometry::Pointer geometry;
};

Input
ReadInput(const std::string & projections, const std::string & geometry)
{
  auto reader = itk::ImageFileReader<ImageType>::New();
  reader->SetFileName(projections);
  reader->Update();
  auto geometryReader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
  geometryReader->SetFilename(geometry);
  geometryReader->GenerateOutputInformation();
  Input input{ reader->GetOutput(), geometryReader->GetGeometry() };
  if (input.geometry->GetNumberOfProjections() != input.projections->GetLargestPossibleRegion().GetSize(2))
    throw std::runtime_error("the geometry's projections are not the image's");
  return input;
}

void
WriteText(const fs::path & path, const std::string & text)
{
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

int
WriteElekta(const Input & in, const fs::path & dir)
{
  const auto size = in.projections->GetLargestPossibleRegion().GetSize();
  fs::create_directories(dir);
  std::vector<cbct::test::XviFrame> frames;
  const float * pixels = in.projections->GetBufferPointer();
  for (unsigned int k = 0; k < size[2]; ++k)
  {
    cbct::test::HisSpec spec;
    spec.width = static_cast<unsigned int>(size[0]);
    spec.height = static_cast<unsigned int>(size[1]);
    for (std::size_t i = 0; i < size[0] * size[1]; ++i)
    {
      const double intensity = std::round(65536. * std::exp(-static_cast<double>(pixels[k * size[0] * size[1] + i])));
      spec.pixels.push_back(static_cast<std::uint16_t>(std::clamp(65536. - intensity, 0., 65535.)));
    }
    char name[64];
    std::snprintf(name, sizeof name, "%05u.1.3.46.423632.test.his", k + 1);
    cbct::test::WriteHis(dir / name, spec);
    const auto & p = in.geometry->GetParameters(k);
    double angle = p.gantryAngle * 180. / Pi;
    if (angle > 180.)
      angle -= 360.;
    frames.push_back({ static_cast<long>(k + 1), angle, -p.projectionOffsetX, -p.projectionOffsetY });
  }
  WriteText(dir / "_Frames.xml", cbct::test::FramesXml(frames));
  return 0;
}

#ifdef CBCT_WRITE_DICOMCTPD
int
WriteDicomCTPD(const Input & in, const fs::path & dir)
{
  const auto size = in.projections->GetLargestPossibleRegion().GetSize();
  const auto spacing = in.projections->GetSpacing();
  const auto origin = in.projections->GetOrigin();
  const double radius = in.geometry->GetRadiusCylindricalDetector();
  fs::create_directories(dir);
  const float * pixels = in.projections->GetBufferPointer();
  // The reader's grid is centred: the image's own origin becomes part of the detector offsets.
  const double shiftU = origin[0] + 0.5 * (size[0] - 1.) * spacing[0];
  const double shiftV = origin[1] + 0.5 * (size[1] - 1.) * spacing[1];
  for (unsigned int k = 0; k < size[2]; ++k)
  {
    const auto & g = in.geometry->GetParameters(k);
    if (g.sourceOffsetX != 0. || g.inPlaneAngle != 0. || g.outOfPlaneAngle != 0. || g.sourceToDetectorDistance == 0. ||
        (radius != 0. && std::abs(radius - g.sourceToDetectorDistance) > 1e-9 * radius))
      throw std::runtime_error("projection " + std::to_string(k) +
                               ": a source offset across the axis, a tilt, parallel beam or a cylinder not centred on "
                               "the source, which this writer does not write");
    cbct::test::CTPDProjection p;
    p.columns = static_cast<unsigned int>(size[0]);
    p.rows = static_cast<unsigned int>(size[1]);
    p.columnSpacing = static_cast<float>(spacing[0]);
    p.rowSpacing = static_cast<float>(spacing[1]);
    p.shape = radius != 0. ? "CYLINDRICAL" : "FLAT";
    p.phi0 = static_cast<float>(-g.gantryAngle);
    p.rho0 = static_cast<float>(g.sourceToIsocenterDistance);
    p.d0 = static_cast<float>(g.sourceToDetectorDistance);
    p.z0 = static_cast<float>(g.sourceOffsetY);
    p.centralColumn = static_cast<float>(0.5 * (size[0] + 1.) - (g.projectionOffsetX + shiftU) / spacing[0]);
    p.centralRow = static_cast<float>(0.5 * (size[1] + 1.) + (g.projectionOffsetY + shiftV - g.sourceOffsetY) / spacing[1]);
    p.instance = static_cast<int>(k + 1);
    if (size[2] > 1) // views per turn, from the first step
    {
      const double step = std::abs(std::remainder(in.geometry->GetParameters(1).gantryAngle - g.gantryAngle, 2. * Pi));
      p.angularSteps = step > 0. ? static_cast<unsigned int>(std::lround(2. * Pi / step)) : 1u;
    }
    p.stored.assign(size[0] * size[1], 0);
    for (unsigned int j = 0; j < size[1]; ++j)
      for (unsigned int i = 0; i < size[0]; ++i)
      {
        const double value = std::round((double(pixels[(k * size[1] + j) * size[0] + i]) + 1.) * 1024.);
        p.stored[cbct::test::StoredIndex(p, i + 1, static_cast<unsigned int>(size[1]) - j)] =
          static_cast<std::uint16_t>(std::clamp(value, 0., 65535.));
      }
    char name[64];
    std::snprintf(name, sizeof name, "%06u.dcm", k + 1);
    cbct::test::WriteCTPD((dir / name).string(), p);
  }
  return 0;
}
#endif

/** Scan.xml of a TrueBeam scan with this fan and bowtie. */
std::string
ScanXml(const std::string & fan)
{
  return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Scan xmlns=\"http://baden.varian.com/cr.xsd\" Version=\"2.7.0.0\">\n"
         "  <Acquisitions><SAD>1000</SAD><SID>1500</SID><Fan>" +
         fan + "</Fan>\n    <Bowtie>" + fan + " Bowtie</Bowtie><KV>125</KV></Acquisitions>\n</Scan>\n";
}

std::vector<cbct::test::XimProperty>
XimFields(double kvSourceRtn, double sid, double sdd, double lat, double lng, double pixelMm)
{
  using P = cbct::test::XimProperty;
  return { P::Real("GantryRtn", kvSourceRtn - 90.),  P::Real("KVSourceRtn", kvSourceRtn),
           P::Real("KVSourceVrt", sid / 10.),        P::Real("KVDetectorVrt", -(sdd - sid) / 10.),
           P::Real("KVDetectorLat", lat / 10.),      P::Real("KVDetectorLng", lng / 10.),
           P::Real("KVKiloVolts", 125.),             P::Int("KVNormChamber", 240000),
           P::Real("PixelWidth", pixelMm / 10.),     P::Real("PixelHeight", pixelMm / 10.) };
}

void
WriteAir(const fs::path & dir, const std::string & fan, int width, int height, double pixelMm, std::int32_t counts)
{
  cbct::test::XimContents air;
  air.width = width;
  air.height = height;
  air.pixels.assign(std::size_t(width) * height, counts);
  air.properties = XimFields(0., 1000., 1500., 0., 0., pixelMm);
  const fs::path file = dir / "Calibrations" / ("AIR-" + fan + "-Bowtie-125KV") / "Current" / "FilterBowtie.xim";
  fs::create_directories(file.parent_path());
  cbct::test::WriteXim(file.string(), air);
}

int
WriteVarian(const Input & in, const fs::path & dir)
{
  const auto size = in.projections->GetLargestPossibleRegion().GetSize();
  const double pixelMm = in.projections->GetSpacing()[0];
  const bool halfFan = std::abs(in.geometry->GetParameters(0).projectionOffsetX) > 10.;
  const std::string fan = halfFan ? "Half" : "Full";
  WriteText(dir / "Scan.xml", ScanXml(fan));
  constexpr std::int32_t air = 50000;
  WriteAir(dir, fan, static_cast<int>(size[0]), static_cast<int>(size[1]), pixelMm, air);
  const float * pixels = in.projections->GetBufferPointer();
  for (unsigned int k = 0; k < size[2]; ++k)
  {
    const auto & p = in.geometry->GetParameters(k);
    cbct::test::XimContents c;
    c.width = static_cast<std::int32_t>(size[0]);
    c.height = static_cast<std::int32_t>(size[1]);
    for (std::size_t i = 0; i < size[0] * size[1]; ++i)
      c.pixels.push_back(static_cast<std::int32_t>(std::round(air * std::exp(-double(pixels[k * size[0] * size[1] + i])))));
    c.properties = XimFields(180. - p.gantryAngle * 180. / Pi, p.sourceToIsocenterDistance, p.sourceToDetectorDistance,
                             p.projectionOffsetX, p.projectionOffsetY, pixelMm);
    const fs::path file = dir / "Acquisitions" / "1" / ("Proj_" + std::to_string(k) + ".xim");
    fs::create_directories(file.parent_path());
    cbct::test::WriteXim(file.string(), c);
  }
  return 0;
}

/** Writes `pixels` (width x height) as a float image of one slice on the centred grid of `pitch` mm. */
void
WriteExpected(const fs::path & file, const std::vector<std::uint32_t> & pixels, int width, int height, double pitch)
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::SizeType{ { static_cast<itk::SizeValueType>(width),
                                                                  static_cast<itk::SizeValueType>(height), 1 } }));
  ImageType::SpacingType spacing;
  spacing[0] = spacing[1] = pitch;
  spacing[2] = 1.;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -0.5 * (width - 1) * pitch;
  origin[1] = -0.5 * (height - 1) * pitch;
  origin[2] = 0.;
  image->SetOrigin(origin);
  image->Allocate();
  for (std::size_t i = 0; i < pixels.size(); ++i)
    image->GetBufferPointer()[i] = static_cast<float>(pixels[i]);
  auto writer = itk::ImageFileWriter<ImageType>::New();
  writer->SetFileName(file.string());
  writer->SetInput(image);
  writer->Update();
}

int
WriteVarianLone(const fs::path & dir, const std::vector<std::string> & fields)
{
  constexpr int width = 128, height = 96;
  constexpr double pitch = 3.104; // mm: an OBI's 0.388 mm binned 8 x 8
  // Readings that look like a projection (brighter at the edges), some above 65535 (32-bit files).
  std::vector<std::uint32_t> pixels(std::size_t(width) * height);
  for (int v = 0; v < height; ++v)
    for (int u = 0; u < width; ++u)
    {
      const double x = (u - 0.5 * width) / (0.4 * width);
      pixels[std::size_t(v) * width + u] =
        static_cast<std::uint32_t>(x * x < 1. ? 20000. + 60000. * x * x + 7 * v : 139000. - 3 * u);
    }

  cbct::test::XimContents xim;
  xim.width = width;
  xim.height = height;
  xim.pixels.assign(pixels.begin(), pixels.end());
  xim.properties = XimFields(37.5, 1000., 1500., -160., 0., pitch);
  fs::create_directories(dir / "xim");
  cbct::test::WriteXim((dir / "xim" / "Proj_00042.xim").string(), xim);
  WriteExpected(dir / "xim" / "expected.mha", pixels, width, height, pitch);

  cbct::test::HndContents hnd;
  hnd.width = width;
  hnd.height = height;
  hnd.pixels = pixels;
  cbct::test::SetTypicalHndHeader(hnd, 271.25); // dSAD 100, dSFD 99999999, dIDUPosVrt -50, dIDUPosLat 148
  hnd.reals["dIDUResolutionX"] = pitch;
  hnd.reals["dIDUResolutionY"] = pitch;
  for (const std::string & field : fields)
  {
    const auto equals = field.find('=');
    if (equals == std::string::npos)
      throw std::runtime_error("expected FIELD=VALUE, not '" + field + "'");
    hnd.reals[field.substr(0, equals)] = std::stod(field.substr(equals + 1));
  }
  fs::create_directories(dir / "hnd");
  cbct::test::WriteHnd((dir / "hnd" / "Proj_00117.hnd").string(), hnd);
  WriteExpected(dir / "hnd" / "expected.mha", pixels, width, height, pitch);
  return 0;
}

int
WriteVarianBench(const fs::path & dir, int count, int width, int height)
{
  WriteText(dir / "Scan.xml", ScanXml("Full"));
  constexpr double pixelMm = 0.388;
  WriteAir(dir, "Full", width, height, pixelMm, 50000);
  std::mt19937 random(27);
  std::normal_distribution<double> noise(0., 30.);
  cbct::test::XimContents c;
  c.width = width;
  c.height = height;
  c.pixels.resize(std::size_t(width) * height);
  for (int k = 0; k < count; ++k)
  {
    // A body's shadow that moves with the angle, some structure, and quantum noise.
    const double angle = 360. * k / count;
    const double centre = width * (0.5 + 0.1 * std::sin(angle * Pi / 180.));
    for (int v = 0; v < height; ++v)
      for (int u = 0; u < width; ++u)
      {
        const double x = (u - centre) / (0.35 * width);
        const double body = x * x < 1. ? 3. * std::sqrt(1. - x * x) : 0.;
        const double structure = 0.2 * std::sin(u * 0.05) * std::cos(v * 0.03 + angle * Pi / 180.);
        const double counts = 50000. * std::exp(-(body + structure)) + noise(random);
        c.pixels[std::size_t(v) * width + u] = static_cast<std::int32_t>(std::max(1., std::round(counts)));
      }
    c.properties = XimFields(180. - angle, 1000., 1500., 0., 0., pixelMm);
    const fs::path file = dir / "Acquisitions" / "1" / ("Proj_" + std::to_string(k) + ".xim");
    fs::create_directories(file.parent_path());
    cbct::test::WriteXim(file.string(), c);
  }
  return 0;
}

} // namespace

int
main(int argc, char ** argv)
{
  try
  {
    const std::string mode = argc > 1 ? argv[1] : "";
    if ((mode == "elekta" || mode == "varian") && argc == 5)
    {
      const Input input = ReadInput(argv[2], argv[3]);
      return mode == "elekta" ? WriteElekta(input, argv[4]) : WriteVarian(input, argv[4]);
    }
#ifdef CBCT_WRITE_DICOMCTPD
    if (mode == "dicomctpd" && argc == 5)
      return WriteDicomCTPD(ReadInput(argv[2], argv[3]), argv[4]);
#endif
    if (mode == "varian-bench" && argc == 6)
      return WriteVarianBench(argv[2], std::stoi(argv[3]), std::stoi(argv[4]), std::stoi(argv[5]));
    if (mode == "varian-lone" && argc >= 3)
      return WriteVarianLone(argv[2], std::vector<std::string>(argv + 3, argv + argc));
    std::cerr << "usage: cbctWriteScan elekta|varian|dicomctpd LINEINTEGRALS GEOMETRY DIR, varian-bench DIR COUNT WIDTH HEIGHT, "
                 "or varian-lone DIR [FIELD=VALUE ...]\n";
    return 2;
  }
  catch (const std::exception & e)
  {
    std::cerr << "cbctWriteScan: " << e.what() << std::endl;
    return 1;
  }
}
