// cbct-compare: quality of a reconstruction against the voxelized phantom (MAE and PSNR).
#include "cbctAppSupport.h"
#include "cbctImageQuality.h"
#include "cbctPhantomVolumeSource.h"

#include <itkImage.h>
#include <itkImageRegionConstIterator.h>
#include <itkImageRegionConstIteratorWithIndex.h>

#include <algorithm>
#include <fstream>
#include <iomanip>

namespace
{
using ImageType = itk::Image<float, 3>;
using namespace cbct::apps;

struct Options
{
  std::string input;
  std::string reference; // --reference: another volume instead of the phantom
  std::string phantom = "shepplogan";
  double phantomScale = 60.;
  double phantomDensity = 1.;
  double fieldOfView = 0.;
  long long supersampling = 2;
  double peak = 2.;
  std::string profile;
  double profileY = 0.;
  int threads = 0;
};

using Quality = cbct::ImageQuality;

void
Print(const std::string & what, const Quality & q)
{
  std::cout << what << ": " << q.voxels << " voxels, MAE " << std::setprecision(5) << q.meanAbsoluteError << ", PSNR "
            << std::fixed << std::setprecision(2) << q.psnr << " dB" << std::defaultfloat << std::endl;
}

/** MAE and PSNR over `region`, or over its voxels within `radius` mm of the rotation axis (the y
 * axis: x^2 + z^2 <= radius^2) when radius > 0. NaN anywhere gives NaN. */
Quality
Compare(const ImageType * image, const ImageType * reference, const ImageType::RegionType & region, double peak,
        double radius)
{
  if (radius <= 0.)
    return cbct::CompareImages<ImageType>(image, reference, region, peak);
  double absolute = 0., squared = 0.;
  std::size_t n = 0;
  for (itk::ImageRegionConstIteratorWithIndex<ImageType> a(image, region); !a.IsAtEnd(); ++a)
  {
    ImageType::PointType p;
    image->TransformIndexToPhysicalPoint(a.GetIndex(), p);
    if (p[0] * p[0] + p[2] * p[2] > radius * radius)
      continue;
    const double d = static_cast<double>(a.Get()) - reference->GetPixel(a.GetIndex());
    absolute += std::abs(d);
    squared += d * d;
    ++n;
  }
  Quality q;
  q.voxels = n;
  if (n > 0)
  {
    q.meanAbsoluteError = absolute / n;
    q.psnr = 20. * std::log10(peak) - 10. * std::log10(squared / n);
  }
  return q;
}

/** The line along x through the voxel nearest to (0, profileY, 0) mm: "x_mm,reconstruction,truth"
 * lines after a header. */
void
WriteProfile(const Options & o, const ImageType * image, const ImageType * reference)
{
  ImageType::PointType point;
  point[0] = 0.;
  point[1] = o.profileY;
  point[2] = 0.;
  const ImageType::RegionType whole = image->GetLargestPossibleRegion();
  const auto index = image->TransformPhysicalPointToIndex(point);
  ImageType::IndexType start = whole.GetIndex();
  for (unsigned int d = 1; d < 3; ++d)
    start[d] = std::clamp(index[d], whole.GetIndex(d), whole.GetIndex(d) + static_cast<itk::IndexValueType>(whole.GetSize(d)) - 1);
  WriteAtomically("--profile", o.profile, [&](const std::string & temporary) {
  std::ofstream out(temporary);
  if (!out)
    throw Error("--profile " + o.profile + ": could not write the file");
  ImageType::PointType first;
  image->TransformIndexToPhysicalPoint(start, first);
  out << "# cbct-compare profile along x at y = " << first[1] << " mm, z = " << first[2] << " mm of " << o.input << "\n";
  out << "x_mm,reconstruction,truth\n";
  out << std::setprecision(7);
  for (itk::SizeValueType i = 0; i < whole.GetSize(0); ++i)
  {
    ImageType::IndexType at = start;
    at[0] = whole.GetIndex(0) + static_cast<itk::IndexValueType>(i);
    ImageType::PointType p;
    image->TransformIndexToPhysicalPoint(at, p);
    out << p[0] << "," << image->GetPixel(at) << "," << reference->GetPixel(at) << "\n";
  }
  out.close();
  if (!out)
    throw Error("--profile " + o.profile + ": could not write the file");
  });
}

int
CompareToPhantom(const Options & o)
{
  ApplyThreads(o.threads);
  if (!o.profile.empty())
    CheckOutputDirectory("--profile", o.profile);
  CheckFinite("--profile-y", o.profileY);
  CheckReadableFile("--input", o.input, "image file");
  if (o.supersampling < 1 || o.supersampling > 16)
    Bad("--supersampling", o.supersampling, "an integer from 1 to 16");
  if (!std::isfinite(o.peak) || !(o.peak > 0.))
    Bad("--peak", o.peak, "a value > 0");
  if (!o.reference.empty())
    CheckReadableFile("--reference", o.reference, "image file");
  CheckOutputsAreNotInputs({ { "--profile", o.profile } },
                           { { "--input", o.input, true }, { "--reference", o.reference, true }, { "--phantom", o.phantom, false } });
  auto phantom = MakePhantom("--phantom", o.phantom, o.phantomScale);
  CheckFinite("--phantom-density", o.phantomDensity, "a finite factor");
  phantom->ScaleDensities(o.phantomDensity);
  if (!std::isfinite(o.fieldOfView) || o.fieldOfView < 0.)
    Bad("--fov-radius", o.fieldOfView, "a radius > 0 in mm, or 0 for the whole grid");
  auto image = ReadImage<ImageType>("--input", o.input);
  CheckFiniteValues("--input", o.input, image.GetPointer(), "finite values everywhere (a NaN makes every error measure NaN)");

  ImageType::Pointer given;
  if (!o.reference.empty())
  {
    given = ReadImage<ImageType>("--reference", o.reference);
    const bool sameGrid = given->GetLargestPossibleRegion() == image->GetLargestPossibleRegion() &&
                          given->GetSpacing() == image->GetSpacing() &&
                          given->GetOrigin().EuclideanDistanceTo(image->GetOrigin()) <= 1e-6 * image->GetSpacing()[0];
    if (!sameGrid)
    {
      std::ostringstream grids;
      grids << "a volume on --input's grid (" << image->GetLargestPossibleRegion().GetSize() << " voxels of "
            << image->GetSpacing() << " mm from " << image->GetOrigin() << "); it has "
            << given->GetLargestPossibleRegion().GetSize() << " voxels of " << given->GetSpacing() << " mm from "
            << given->GetOrigin();
      Bad("--reference", Quoted(o.reference), grids.str());
    }
  }

  // The truth on the reconstruction's grid.
  auto truth = cbct::PhantomVolumeSource<ImageType>::New();
  truth->SetSize(image->GetLargestPossibleRegion().GetSize());
  truth->SetSpacing(image->GetSpacing());
  truth->SetOrigin(image->GetOrigin());
  truth->SetDirection(image->GetDirection());
  truth->SetPhantom(phantom);
  truth->SetSupersampling(static_cast<unsigned int>(o.supersampling));
  const ImageType * reference = given; // both start at index 0, as read from a file
  if (!given)
  {
    auto bar = ProgressBar::Attach(truth, "voxelizing the phantom");
    truth->Update();
    reference = truth->GetOutput();
  }

  // Central region: the middle half of the slices along y (the rotation axis), where FDK's cone-beam
  // approximation holds, and all of x and z.
  const ImageType::RegionType whole = image->GetLargestPossibleRegion();
  ImageType::RegionType central = whole;
  const auto ny = whole.GetSize(1);
  central.SetIndex(1, whole.GetIndex(1) + static_cast<itk::IndexValueType>(ny / 4));
  central.SetSize(1, std::max<itk::SizeValueType>(1, ny / 2));

  std::ostringstream label;
  label << "central region (y slices " << central.GetIndex(1) << ".." << central.GetIndex(1) + central.GetSize(1) - 1
        << " of " << ny << ")";
  std::string where = "whole volume";
  if (o.fieldOfView > 0.)
  {
    std::ostringstream within;
    within << ", within " << o.fieldOfView << " mm of the rotation axis";
    label << within.str();
    where += within.str();
  }
  const Quality centralQuality = Compare(image, reference, central, o.peak, o.fieldOfView);
  const Quality wholeQuality = Compare(image, reference, whole, o.peak, o.fieldOfView);
  if (wholeQuality.voxels == 0)
    Bad("--fov-radius", o.fieldOfView, "a radius that takes in some voxel centres of the volume");
  Print(label.str(), centralQuality);
  Print(where, wholeQuality);
  if (given)
  {
    // Relative L2 difference over the whole volume; NaN anywhere makes it NaN.
    double difference = 0., norm = 0.;
    itk::ImageRegionConstIterator<ImageType> a(image, whole), b(reference, whole);
    for (; !a.IsAtEnd(); ++a, ++b)
    {
      const double d = static_cast<double>(a.Get()) - b.Get();
      difference += d * d;
      norm += static_cast<double>(b.Get()) * b.Get();
    }
    const double relative = norm > 0. ? std::sqrt(difference / norm) : std::sqrt(difference);
    std::cout << "relative L2 difference from the reference: " << std::setprecision(6) << relative << std::endl;
  }
  if (!o.profile.empty())
    WriteProfile(o, image, reference);
  SetSlicerReturnValue("centralMAE", centralQuality.meanAbsoluteError);
  SetSlicerReturnValue("centralPSNR", centralQuality.psnr);
  SetSlicerReturnValue("wholeMAE", wholeQuality.meanAbsoluteError);
  SetSlicerReturnValue("wholePSNR", wholeQuality.psnr);
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  CLI::App app{ "Compares a reconstruction with the voxelized phantom on the reconstruction's grid: mean absolute "
                "error (MAE) and PSNR = 20 log10(peak) - 10 log10(MSE), over the central region (the middle half "
                "of the slices along y, the rotation axis, and all of x and z) and over the whole volume.",
                "cbct-compare" };
  app.add_option("-i,--input", o.input, "Reconstructed volume")->required();
  app.add_option("--reference", o.reference, "Compare with this volume (on the same grid) instead of the phantom, "
                                             "and print the relative L2 difference");
  app.add_option("--phantom", o.phantom, "'shepplogan' or an ellipsoid text file (see cbctGeometricPhantom.h)")
    ->capture_default_str();
  app.add_option("--phantom-scale", o.phantomScale, "Scale of the Shepp-Logan phantom (mm)")->capture_default_str();
  app.add_option("--phantom-density", o.phantomDensity, "Factor on every density of the phantom (as cbct-simulate's)")
    ->capture_default_str();
  app.add_option("--fov-radius", o.fieldOfView, "Measure only within this radius (mm) of the rotation axis, e.g. the "
                                                "field of view of a truncated detector (0: everywhere)")
    ->capture_default_str();
  app.add_option("--supersampling", o.supersampling, "Phantom samples per voxel along each axis")->capture_default_str();
  app.add_option("--peak", o.peak, "Peak value for the PSNR")->capture_default_str();
  app.add_option("--profile", o.profile, "Also write the line along x through (0, --profile-y, 0) mm as CSV: x_mm, "
                                         "reconstruction, truth (scripts/plot-profile.py draws it)");
  app.add_option("--profile-y", o.profileY, "y (mm) of the --profile line")->capture_default_str();
  AddCommonOptions(app, o.threads);
  DescribeForSlicer("CBCT Compare with Phantom",
                    {
                      { "--input", SlicerIo("image", "input", "Input") },
                      { "--reference", SlicerIo("image", "input", "Input") },
                      { "--phantom", SlicerIn("Phantom") },
                      { "--phantom-scale", SlicerRange("Phantom", "0", "10000", "1") },
                      { "--phantom-density", SlicerRange("Phantom", "-1000", "1000", "0.01") },
                      { "--fov-radius", SlicerRange("Phantom", "0", "10000", "1") },
                      { "--supersampling", SlicerRange("Phantom", "1", "16", "1") },
                      { "--peak", SlicerRange("Phantom", "0", "1000", "0.1") },
                      { "--profile", SlicerIo("file", "output", "Profile", ".csv") },
                      { "--profile-y", SlicerIn("Profile") },
                    },
                    {
                      { "centralMAE", "double", "Central MAE", "Mean absolute error over the central region" },
                      { "centralPSNR", "double", "Central PSNR (dB)", "PSNR over the central region" },
                      { "wholeMAE", "double", "Whole MAE", "Mean absolute error over the whole volume" },
                      { "wholePSNR", "double", "Whole PSNR (dB)", "PSNR over the whole volume" },
                    });
  return Run(app, argc, argv, [&] { return CompareToPhantom(o); });
}
