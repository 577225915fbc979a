// A real-like micro-CT scan calibrated end to end: a Nikon scan written as 16-bit TIFF files whose
// .xtekct says the centre of rotation is 0, while the rotation axis really stands 13 pixels (of a
// 1536-pixel detector) off the centre and leans 3 pixels over the detector's height. The object is
// off centre and leaves the detector at some angles, the flat field is imperfect (a smooth gain
// pattern and a few defective columns that the white level does not correct) and the counts carry
// Poisson noise. The scan is read back as cbct-import reads it (ScanImporter), calibrated as
// cbct-import --calibrate does (GeometryCalibration with the apps' settings) and reconstructed by FDK;
// the reconstruction is compared with the one through the true geometry (the vendor's own, written
// from the same fields) and with the best that a manual sweep of the centre of rotation reaches.
//
// The detector is downsampled for CI (192 pixels of 1.6 mm: the axis 1.6 pixels off, leaning 0.375
// pixel); CBCT_MICROCT_PIXELS and CBCT_MICROCT_VIEWS set the full size by hand (e.g. 1536 and 720, with
// CBCT_KEEP_TEST_FILES=1 to keep the scan for cbct-import --calibrate and cbct-fdk).
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctGeometryCalibration.h"
#include "cbctNikonScan.h"
#include "cbctScanImporter.h"
#include "cbctTestFolder.h"
#include "cbctTestHelpers.h"

#include <itkImageFileWriter.h>
#include <itkImageRegionConstIteratorWithIndex.h>
#include <itkTIFFImageIO.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr double Pi = 3.14159265358979323846;
using CountsType = itk::Image<unsigned short, 2>;

// The full-size scanner: a 1536 x 1536 detector of 0.2 mm, 800 mm from the source, the object 120 mm
// from it (6.7 times magnified: 30 micrometre voxels, a field of view of 23 mm radius).
constexpr unsigned int FullPixels = 1536;
constexpr double FullPixelMm = 0.2;
constexpr double SID = 120.;
constexpr double SDD = 800.;
// The truth, in full-size detector pixels: where the axis projects (at the middle row), and how much it
// moves from the bottom row to the top.
constexpr double TrueOffsetFullPixels = 13.;
constexpr double TrueLeanFullPixels = 3.;
constexpr double WhiteLevel = 30000.;

unsigned int
FromEnvironment(const char * name, unsigned int fallback)
{
  const char * value = std::getenv(name);
  return value && std::atoi(value) > 0 ? static_cast<unsigned int>(std::atoi(value)) : fallback;
}

void
WriteText(const std::string & path, const std::string & text)
{
  std::ofstream file(path, std::ios::binary);
  file << text;
  ASSERT_TRUE(file.good()) << path;
}

/** The scan's .xtekct: the geometry and, as the vendor's file says, centres of rotation top and bottom
 * (mm at the detector). */
std::string
Xtekct(unsigned int pixels, unsigned int views, double corTop, double corBottom)
{
  const double pixel = FullPixels * FullPixelMm / pixels;
  auto number = [](double v) {
    char text[64];
    std::snprintf(text, sizeof(text), "%.9g", v);
    return std::string(text);
  };
  return "[XTekCT]\r\nName=sample\r\nInputSeparator=_\r\nUnits=mm\r\nProjections=" + std::to_string(views) +
         "\r\nWhiteLevel=" + number(WhiteLevel) + "\r\nDetectorPixelsX=" + std::to_string(pixels) +
         "\r\nDetectorPixelsY=" + std::to_string(pixels) + "\r\nDetectorPixelSizeX=" + number(pixel) +
         "\r\nDetectorPixelSizeY=" + number(pixel) + "\r\nSrcToObject=" + number(SID) +
         "\r\nSrcToDetector=" + number(SDD) + "\r\nInitialAngle=0\r\nAngularStep=" + number(360. / views) +
         "\r\nDetectorOffsetX=0\r\nDetectorOffsetY=0\r\nCentreOfRotationTop=" + number(corTop) +
         "\r\nCentreOfRotationBottom=" + number(corBottom) + "\r\n";
}

/** A Shepp-Logan head of 20 mm scale, 9 mm off the axis (it leaves the 23 mm field of view at some
 * angles), with steel-like beads: the structure a real sample has at several heights. */
GeometricPhantom::Pointer
Sample()
{
  auto head = GeometricPhantom::New();
  head->SetToSheppLogan(20.);
  head->ScaleDensities(0.1);
  auto sample = GeometricPhantom::New();
  for (auto e : head->GetEllipsoids())
  {
    e.center[0] += 9.;
    e.center[2] -= 2.;
    sample->AddEllipsoid(e);
  }
  for (const auto & bead : { std::array<double, 4>{ 12., 8., -3., 0.5 }, std::array<double, 4>{ 4., -10., 5., 0.4 },
                             std::array<double, 4>{ 9., 1., 6., 0.6 } })
  {
    GeometricPhantom::Ellipsoid e;
    e.density = 0.5;
    e.center = { bead[0], bead[1], bead[2] };
    e.semiAxes = { bead[3], bead[3], bead[3] };
    sample->AddEllipsoid(e);
  }
  return sample;
}

/** The flat field the white level does not describe: a smooth gain of +-3 % across the detector and
 * three columns whose gain is off by 1 to 2 % (rings). */
double
Gain(unsigned int i, unsigned int j, unsigned int pixels)
{
  const double x = (i + 0.5) / pixels - 0.5, y = (j + 0.5) / pixels - 0.5;
  double g = 1. + 0.03 * std::cos(2.1 * x + 0.7) * std::cos(1.7 * y - 0.3) - 0.02 * (x * x + y * y);
  for (const auto & column : { std::pair<double, double>{ 0.31, 0.02 }, { 0.52, -0.015 }, { 0.77, 0.01 } })
    if (i == static_cast<unsigned int>(column.first * pixels))
      g *= 1. + column.second;
  return g;
}

ImageType::Pointer
Reconstruct(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, unsigned int voxels,
            double spacing)
{
  auto zero = ZeroVolume(voxels, spacing);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** The normalised mean absolute difference sum |a - b| / sum |b| in a cylinder of `radius` mm about the
 * axis, over the middle `heightFraction` of the volume's height (NaN when a value is NaN). */
double
NormalisedMeanAbsoluteDifference(const ImageType * a, const ImageType * b, double radius, double heightFraction)
{
  const auto size = b->GetLargestPossibleRegion().GetSize();
  double difference = 0., norm = 0.;
  const double halfHeight = 0.5 * heightFraction * size[1] * b->GetSpacing()[1];
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> it(b, b->GetLargestPossibleRegion()); !it.IsAtEnd(); ++it)
  {
    ImageType::PointType p;
    b->TransformIndexToPhysicalPoint(it.GetIndex(), p);
    if (p[0] * p[0] + p[2] * p[2] > radius * radius || std::abs(p[1]) > halfHeight)
      continue;
    const double d = static_cast<double>(a->GetPixel(it.GetIndex())) - it.Get();
    if (std::isnan(d))
      return std::numeric_limits<double>::quiet_NaN();
    difference += std::abs(d);
    norm += std::abs(it.Get());
  }
  return difference / norm;
}

TEST(MicroCTCalibration, NikonScanOffCentreAndLeaningCalibratesAsWellAsAManualSweep)
{
  const unsigned int pixels = FromEnvironment("CBCT_MICROCT_PIXELS", 192);
  const unsigned int views = FromEnvironment("CBCT_MICROCT_VIEWS", 240);
  const double pixel = FullPixels * FullPixelMm / pixels;
  const double magnification = SDD / SID;
  const std::string folder = FreshSubfolder("scan").string();

  // The truth as the vendor writes it: the centre of rotation at the top and the bottom row (mm at the
  // detector), which NikonScan turns into a stage offset and a roll; the file given to the user says 0.
  const double corMiddle = TrueOffsetFullPixels * FullPixelMm;
  const double corTop = corMiddle + 0.5 * TrueLeanFullPixels * FullPixelMm;
  const double corBottom = corMiddle - 0.5 * TrueLeanFullPixels * FullPixelMm;
  WriteText(folder + "/sample.xtekct", Xtekct(pixels, views, corTop, corBottom));
  auto placeholder = CountsType::New();
  placeholder->SetRegions(CountsType::SizeType{ { 1, 1 } });
  placeholder->Allocate();
  placeholder->FillBuffer(1);
  auto fileName = [&](unsigned int k) {
    char name[64];
    std::snprintf(name, sizeof(name), "/sample_%04u.tif", k + 1);
    return folder + name;
  };
  auto writeTiff = [&](unsigned int k, const CountsType * image) {
    auto writer = itk::ImageFileWriter<CountsType>::New();
    writer->SetImageIO(itk::TIFFImageIO::New());
    writer->SetFileName(fileName(k));
    writer->SetInput(image);
    writer->Update();
  };
  for (unsigned int k = 0; k < views; ++k)
    writeTiff(k, placeholder);
  ScannerScan::Pointer trueScan = NikonScan::Open(folder + "/sample.xtekct");
  const ThreeDCircularProjectionGeometry::Pointer truth = trueScan->Geometry();
  WriteText(folder + "/sample.xtekct", Xtekct(pixels, views, 0., 0.));

  // The counts: exact line integrals through the true geometry, the imperfect gain, Poisson noise
  // (Gaussian of the same variance: thousands of counts), 16 bits.
  ImageType::Pointer lineIntegrals;
  {
    auto source = PhantomProjectionSource<ImageType>::New();
    source->SetSize(ImageType::SizeType{ { pixels, pixels, views } });
    ImageType::SpacingType spacing;
    spacing[0] = trueScan->DetectorSpacing()[0];
    spacing[1] = trueScan->DetectorSpacing()[1];
    spacing[2] = 1.;
    ImageType::PointType origin;
    origin[0] = trueScan->DetectorOrigin()[0];
    origin[1] = trueScan->DetectorOrigin()[1];
    origin[2] = 0.;
    source->SetSpacing(spacing);
    source->SetOrigin(origin);
    source->SetGeometry(truth);
    source->SetPhantom(Sample());
    source->Update();
    lineIntegrals = source->GetOutput();
  }
  std::mt19937 random(35);
  std::normal_distribution<double> gaussian;
  auto counts = CountsType::New();
  counts->SetRegions(CountsType::SizeType{ { pixels, pixels } });
  counts->Allocate();
  bool leaves = false;
  for (unsigned int k = 0; k < views; ++k)
  {
    const float * l = lineIntegrals->GetBufferPointer() + static_cast<std::size_t>(k) * pixels * pixels;
    for (unsigned int j = 0; j < pixels; ++j)
    {
      leaves = leaves || l[j * pixels] > 0.05f || l[j * pixels + pixels - 1] > 0.05f;
      for (unsigned int i = 0; i < pixels; ++i)
      {
        const double expected = WhiteLevel * Gain(i, j, pixels) * std::exp(-l[j * pixels + i]);
        const double drawn = std::round(expected + std::sqrt(expected) * gaussian(random));
        counts->GetBufferPointer()[j * pixels + i] = static_cast<unsigned short>(std::clamp(drawn, 1., 65535.));
      }
    }
    writeTiff(k, counts);
  }
  lineIntegrals = nullptr;
  ASSERT_TRUE(leaves) << "the sample must leave the detector at some angles";

  // Read as cbct-import reads it; calibrated as cbct-import --calibrate does.
  ScannerScan::Pointer scan = ScanImporter::Open(folder);
  const ThreeDCircularProjectionGeometry::Pointer nominal = scan->Geometry();
  const ImageType::Pointer projections = ScanImporter::ReadLineIntegrals(scan);
  auto calibration = GeometryCalibration::New();
  calibration->SetProjections(projections);
  calibration->SetGeometry(nominal);
  calibration->SetComputeCurves(false);
  calibration->SetLog([](const std::string & line) { std::cout << "calibration: " << line << std::endl; });
  const GeometryCalibrationResult result = calibration->Compute();
  for (const std::string & line : result.Describe())
    std::cout << "calibrated: " << line << std::endl;

  // What the fit should find, in this detector's pixels: the axis' offset at the middle row and the
  // roll that leans it by 3 full-size pixels over the height.
  const double trueOffset = TrueOffsetFullPixels * pixels / FullPixels;
  // NikonScan's roll: -atan2(CentreOfRotationTop - CentreOfRotationBottom, the detector's height).
  const double trueRoll = ThreeDCircularProjectionGeometry::WrapAngle(truth->GetParameters(0).inPlaneAngle + Pi) * 180. / Pi - 180.;
  EXPECT_NEAR(trueRoll, -std::atan2(TrueLeanFullPixels, FullPixels) * 180. / Pi, 1e-9);
  const CalibrationParameter * offset = result.Find("offset");
  const CalibrationParameter * roll = result.Find("roll");
  ASSERT_NE(offset, nullptr);
  ASSERT_NE(roll, nullptr);
  std::cout << "offset " << offset->value << " pixels (truth " << trueOffset << "), roll " << roll->value
            << " degrees (truth " << trueRoll << ")" << std::endl;
  EXPECT_NEAR(offset->value, trueOffset, 0.1);
  EXPECT_NEAR(roll->value, trueRoll, 0.05);

  // The reconstructions: the field of view's cylinder, 30 micrometre voxels at full size.
  const unsigned int voxels = std::max(64u, pixels / 3);
  const double fieldRadius = 0.5 * pixels * pixel / magnification;
  const double spacing = 2. * fieldRadius / voxels;
  const ImageType::Pointer vendor = Reconstruct(truth, projections, voxels, spacing);
  auto error = [&](const ThreeDCircularProjectionGeometry * geometry) {
    return NormalisedMeanAbsoluteDifference(Reconstruct(geometry, projections, voxels, spacing), vendor,
                                            0.9 * fieldRadius, 0.7);
  };
  const double nominalError = error(nominal);
  const double calibratedError = error(result.geometry);
  // A manual sweep: the centre of rotation in the file (top = bottom) moved until the reconstruction
  // is closest to the vendor's: golden-section search within a pixel of the true offset, to 0.05 pixel
  // (better than a user judging by eye can do).
  auto sweepError = [&](double offsetPixels) {
    AxisCorrection c;
    c.offset = offsetPixels * pixel;
    return error(c.Apply(nominal));
  };
  double a = trueOffset - 1., b = trueOffset + 1.;
  const double golden = 0.5 * (std::sqrt(5.) - 1.);
  double x1 = b - golden * (b - a), x2 = a + golden * (b - a);
  double f1 = sweepError(x1), f2 = sweepError(x2);
  while (b - a > 0.05)
  {
    if (f1 < f2)
    {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - golden * (b - a);
      f1 = sweepError(x1);
    }
    else
    {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + golden * (b - a);
      f2 = sweepError(x2);
    }
  }
  const double sweepOffset = 0.5 * (a + b);
  const double sweptError = std::min(f1, f2);
  const double wrongSideError = sweepError(-trueOffset);
  std::cout << "normalised mean absolute difference to the true geometry's FDK: nominal " << nominalError
            << ", axis on the wrong side " << wrongSideError << ", best manual sweep " << sweptError << " (at "
            << sweepOffset << " pixels), calibrated " << calibratedError << std::endl;
  EXPECT_LT(calibratedError, nominalError);
  EXPECT_LE(calibratedError, sweptError) << "--calibrate must come as close as a manual sweep of the centre";
}

} // namespace
