// cbct-compare: quality of a reconstruction against the voxelized phantom (MAE and PSNR).
#include "cbctAppSupport.h"
#include "cbctCompareReport.h"
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
  std::vector<std::string> inputs; // -i: one or more volumes on the same grid
  std::string input;                // the one being compared
  std::string reference; // --reference: another volume instead of the phantom
  std::string phantom = "shepplogan";
  double phantomScale = 60.;
  double phantomDensity = 1.;
  double fieldOfView = 0.;
  long long supersampling = 2;
  double peak = 2.;
  std::string profile;
  double profileY = 0.;
  std::string report;          // --report DIR
  std::string window;          // --window MIN,MAX for the report's grey
  double differenceRange = 0.; // --difference-range for the report's colours (0: from the data)
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
CompareToPhantom(Options & o)
{
  ApplyThreads(o.threads);
  if (o.inputs.empty())
    Bad("--input", "missing", "one or more volumes");
  o.input = o.inputs.front();
  if (!o.profile.empty())
    CheckOutputDirectory("--profile", o.profile);
  if (!o.profile.empty() && o.inputs.size() > 1)
    Bad("--profile", Quoted(o.profile), "one --input (it writes one reconstruction's line); --report draws every input's");
  if (!o.report.empty())
    CheckReportDirectory(o.report);
  std::vector<double> window;
  if (!o.window.empty())
  {
    window = ParseNumbers("--window", o.window, { 2 }, "MIN,MAX (the report's grey from black to white)");
    if (!std::isfinite(window[0]) || !std::isfinite(window[1]) || !(window[1] > window[0]))
      Bad("--window", Quoted(o.window), "MIN,MAX, finite, with MAX > MIN");
  }
  if (!std::isfinite(o.differenceRange) || o.differenceRange < 0.)
    Bad("--difference-range", o.differenceRange, "a value > 0 (per mm), or 0 to take it from the differences");
  CheckFinite("--profile-y", o.profileY);
  for (const std::string & input : o.inputs)
    CheckReadableFile("--input", input, "image file");
  if (o.supersampling < 1 || o.supersampling > 16)
    Bad("--supersampling", o.supersampling, "an integer from 1 to 16");
  if (!std::isfinite(o.peak) || !(o.peak > 0.))
    Bad("--peak", o.peak, "a value > 0");
  if (!o.reference.empty())
    CheckReadableFile("--reference", o.reference, "image file");
  std::vector<InputOption> inputOptions{ { "--reference", o.reference, true }, { "--phantom", o.phantom, false } };
  for (const std::string & input : o.inputs)
    inputOptions.push_back({ "--input", input, true });
  CheckOutputsAreNotInputs({ { "--profile", o.profile } }, inputOptions);
  auto phantom = MakePhantom("--phantom", o.phantom, o.phantomScale);
  CheckFinite("--phantom-density", o.phantomDensity, "a finite factor");
  phantom->ScaleDensities(o.phantomDensity);
  if (!std::isfinite(o.fieldOfView) || o.fieldOfView < 0.)
    Bad("--fov-radius", o.fieldOfView, "a radius > 0 in mm, or 0 for the whole grid");
  std::vector<ImageType::Pointer> images;
  for (const std::string & input : o.inputs)
  {
    images.push_back(ReadImage<ImageType>("--input", input));
    CheckFiniteValues("--input", input, images.back().GetPointer(), "finite values everywhere (a NaN makes every error measure NaN)");
    const ImageType * first = images.front();
    const ImageType * last = images.back();
    if (last->GetLargestPossibleRegion() != first->GetLargestPossibleRegion() || last->GetSpacing() != first->GetSpacing() ||
        last->GetOrigin().EuclideanDistanceTo(first->GetOrigin()) > 1e-6 * first->GetSpacing()[0])
    {
      std::ostringstream grids;
      grids << "volumes on the first --input's grid (" << o.inputs.front() << ": "
            << first->GetLargestPossibleRegion().GetSize() << " voxels of " << first->GetSpacing() << " mm from "
            << first->GetOrigin() << "); " << input << " has " << last->GetLargestPossibleRegion().GetSize()
            << " voxels of " << last->GetSpacing() << " mm from " << last->GetOrigin();
      Bad("--input", Quoted(input), grids.str());
    }
  }
  const ImageType * image = images.front();

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
  std::vector<ReportEntry> entries;
  for (std::size_t k = 0; k < images.size(); ++k)
  {
    image = images[k];
    o.input = o.inputs[k];
    const Quality centralQuality = Compare(image, reference, central, o.peak, o.fieldOfView);
    const Quality wholeQuality = Compare(image, reference, whole, o.peak, o.fieldOfView);
    if (wholeQuality.voxels == 0)
      Bad("--fov-radius", o.fieldOfView, "a radius that takes in some voxel centres of the volume");
    if (images.size() > 1)
      std::cout << o.input << ":" << std::endl;
    Print(label.str(), centralQuality);
    Print(where, wholeQuality);
    ReportEntry entry;
    entry.name = o.input;
    entry.volume = image;
    entry.centralMae = centralQuality.meanAbsoluteError;
    entry.centralPsnr = centralQuality.psnr;
    entry.wholeMae = wholeQuality.meanAbsoluteError;
    entry.wholePsnr = wholeQuality.psnr;
    entry.centralVoxels = centralQuality.voxels;
    entry.wholeVoxels = wholeQuality.voxels;
    if (!o.report.empty())
      entry.provenance = ReadProvenance(o.input);
    entries.push_back(entry);
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
    if (k == 0)
    {
      SetSlicerReturnValue("centralMAE", centralQuality.meanAbsoluteError);
      SetSlicerReturnValue("centralPSNR", centralQuality.psnr);
      SetSlicerReturnValue("wholeMAE", wholeQuality.meanAbsoluteError);
      SetSlicerReturnValue("wholePSNR", wholeQuality.psnr);
    }
  }
  if (!o.report.empty())
  {
    ReportSettings settings;
    if (given)
      settings.referenceName = "the volume " + o.reference;
    else
    {
      std::ostringstream name;
      name << "the phantom " << o.phantom;
      if (o.phantom == "shepplogan")
        name << " (scale " << o.phantomScale << " mm)";
      if (o.phantomDensity != 1.)
        name << ", densities x " << o.phantomDensity;
      name << ", " << o.supersampling << "x" << o.supersampling << "x" << o.supersampling << " samples per voxel";
      settings.referenceName = name.str();
    }
    settings.centralLabel = label.str();
    // The planes cross where the --profile line runs: the voxel nearest to (0, --profile-y, 0) mm.
    ImageType::PointType point;
    point[0] = 0.;
    point[1] = o.profileY;
    point[2] = 0.;
    const auto nearest = image->TransformPhysicalPointToIndex(point);
    for (unsigned int d = 0; d < 3; ++d)
      settings.at[d] = std::clamp(nearest[d], whole.GetIndex(d),
                                  whole.GetIndex(d) + static_cast<itk::IndexValueType>(whole.GetSize(d)) - 1);
    // Grey: --window, or the reference's 0.1 % to 99.9 % quantiles; the difference's range: the
    // 99th percentile of |input - reference| over every input (one scale for all).
    std::vector<float> values(reference->GetBufferPointer(),
                              reference->GetBufferPointer() + whole.GetNumberOfPixels());
    std::sort(values.begin(), values.end());
    settings.low = window.empty() ? values[static_cast<std::size_t>(0.001 * (values.size() - 1))] : window[0];
    settings.high = window.empty() ? values[static_cast<std::size_t>(0.999 * (values.size() - 1))] : window[1];
    if (!(settings.high > settings.low))
      settings.high = settings.low + 1.;
    settings.differenceRange = o.differenceRange;
    if (settings.differenceRange == 0.)
    {
      std::vector<float> differences;
      for (const auto & entry : entries)
        for (std::size_t i = 0; i < whole.GetNumberOfPixels(); ++i)
          differences.push_back(std::abs(entry.volume->GetBufferPointer()[i] - reference->GetBufferPointer()[i]));
      const auto k = static_cast<std::size_t>(0.99 * (differences.size() - 1));
      std::nth_element(differences.begin(), differences.begin() + static_cast<std::ptrdiff_t>(k), differences.end());
      settings.differenceRange = differences[k] > 0.f ? differences[k] : 1e-3;
    }
    const auto [width, height] = WriteReport(o.report, reference, entries, settings);
    std::cout << "cbct-compare: wrote " << o.report << "/index.html and " << o.report << "/report.png (" << width << " x "
              << height << " pixels)" << std::endl;
  }
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
  app.add_option("-i,--input", o.inputs, "Reconstructed volume; several (on one grid) are each compared, and drawn "
                                         "side by side by --report")
    ->required();
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
  app.add_option("--profile-y", o.profileY, "y (mm) of the --profile line, and of the --report's line and axial plane")
    ->capture_default_str();
  app.add_option("--report", o.report, "Also write a report into this directory (made, or updated): index.html, one "
                                       "self-contained page with the metrics, the three planes of each input, the "
                                       "reference and their difference, the line profile and each input's provenance "
                                       "(from its header), and report.png, the same panels as one picture");
  app.add_option("--window", o.window, "MIN,MAX: the report's grey from black to white (default: the reference's 0.1 % "
                                       "and 99.9 % quantiles)");
  app.add_option("--difference-range", o.differenceRange, "The report's difference colours from -R (blue) to +R (red) "
                                                          "(0: the 99th percentile of every input's |difference|)")
    ->capture_default_str();
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
                      { "--report", SlicerIo("directory", "output", "Report") },
                      { "--window", SlicerIn("Report", "double-vector") },
                      { "--difference-range", SlicerRange("Report", "0", "1000", "0.01") },
                    },
                    {
                      { "centralMAE", "double", "Central MAE", "Mean absolute error over the central region" },
                      { "centralPSNR", "double", "Central PSNR (dB)", "PSNR over the central region" },
                      { "wholeMAE", "double", "Whole MAE", "Mean absolute error over the whole volume" },
                      { "wholePSNR", "double", "Whole PSNR (dB)", "PSNR over the whole volume" },
                    });
  return Run(app, argc, argv, [&] { return CompareToPhantom(o); });
}
