// cbct-slices: a PNG of the three central orthogonal slices of a volume, side by side.
#include "cbctAppSupport.h"

#include <itkImage.h>
#include <itkImageRegionConstIterator.h>

#include <algorithm>

namespace
{
using ImageType = itk::Image<float, 3>;
using PngImageType = itk::Image<unsigned char, 2>;
using namespace cbct::apps;

struct Options
{
  std::string input;
  std::string output;
  double minimum = std::numeric_limits<double>::quiet_NaN();
  double maximum = std::numeric_limits<double>::quiet_NaN();
  std::string point;
  long long gap = 4;
  long long zoom = 1;
};

/** The `fraction` quantile of the volume's finite values (from at most about 4 million samples). */
double
Quantile(const ImageType * image, double fraction)
{
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  const std::size_t step = std::max<std::size_t>(1, count / 4000000);
  const float * buffer = image->GetBufferPointer();
  std::vector<float> samples;
  samples.reserve(count / step + 1);
  for (std::size_t i = 0; i < count; i += step)
    if (std::isfinite(buffer[i]))
      samples.push_back(buffer[i]);
  if (samples.empty())
    return 0.;
  const auto k = static_cast<std::size_t>(fraction * (samples.size() - 1));
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(k), samples.end());
  return samples[k];
}

double
Extreme(const ImageType * image, bool largest)
{
  double value = largest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  itk::ImageRegionConstIterator<ImageType> it(image, image->GetBufferedRegion());
  for (; !it.IsAtEnd(); ++it)
    if (std::isfinite(it.Get()))
      value = largest ? std::max<double>(value, it.Get()) : std::min<double>(value, it.Get());
  return std::isfinite(value) ? value : 0.;
}

int
Slices(Options o)
{
  CheckImageOutput("--output", o.output);
  CheckOutputsAreNotInputs({ { "--output", o.output } }, { { "--input", o.input, true } });
  if (o.gap < 0 || o.gap > 1000)
    Bad("--gap", o.gap, "an integer from 0 to 1000 (pixels)");
  if (o.zoom < 1 || o.zoom > 16)
    Bad("--zoom", o.zoom, "an integer from 1 to 16");
  auto image = ReadImage<ImageType>("--input", o.input);
  const auto region = image->GetLargestPossibleRegion();
  const auto size = region.GetSize();

  // Where the slices cross: the middle voxel, or the voxel of --point.
  ImageType::IndexType at;
  for (unsigned int d = 0; d < 3; ++d)
    at[d] = region.GetIndex(d) + static_cast<itk::IndexValueType>(size[d] / 2);
  if (!o.point.empty())
  {
    const auto p = ParsePoint("--point", o.point, 3);
    ImageType::PointType point;
    for (unsigned int d = 0; d < 3; ++d)
      point[d] = p[d];
    if (!image->TransformPhysicalPointToIndex(point, at))
      Bad("--point", Quoted(o.point), "a point inside the volume");
  }

  // Window: --min (default 0) to --max (default the 99.9th percentile); when those give an empty
  // window, the volume's minimum and maximum.
  const bool userMin = !std::isnan(o.minimum), userMax = !std::isnan(o.maximum);
  if (userMin)
    CheckFinite("--min", o.minimum);
  if (userMax)
    CheckFinite("--max", o.maximum);
  double lo = userMin ? o.minimum : 0.;
  double hi = userMax ? o.maximum : Quantile(image, 0.999);
  if (userMin && userMax && !(hi > lo))
  {
    std::ostringstream expected;
    expected << "a value > --min (" << o.minimum << ")";
    Bad("--max", o.maximum, expected.str());
  }
  if (!(hi > lo))
  {
    lo = userMin ? lo : Extreme(image, false);
    hi = userMax ? hi : Extreme(image, true);
  }
  const double scale = hi > lo ? 255. / (hi - lo) : 0.;
  auto grey = [&](float v) -> unsigned char {
    if (!std::isfinite(v))
      return 0;
    const double g = (v - lo) * scale;
    return static_cast<unsigned char>(std::clamp(g + 0.5, 0., 255.));
  };

  // Tiles, each with its vertical axis pointing up (row 0 of the PNG is the top):
  //   axial x-z at the middle y (x to the right, z up), as the phantom's axial slices are drawn;
  //   coronal x-y at the middle z (x to the right, y up);
  //   sagittal z-y at the middle x (z to the right, y up).
  const auto nx = static_cast<itk::IndexValueType>(size[0]);
  const auto ny = static_cast<itk::IndexValueType>(size[1]);
  const auto nz = static_cast<itk::IndexValueType>(size[2]);
  const auto gap = static_cast<itk::IndexValueType>(o.gap);
  const itk::IndexValueType width = nx + gap + nx + gap + nz;
  const itk::IndexValueType height = std::max(nz, ny);
  auto png = PngImageType::New();
  png->SetRegions(PngImageType::SizeType{ { static_cast<itk::SizeValueType>(width), static_cast<itk::SizeValueType>(height) } });
  png->Allocate();
  png->FillBuffer(0);
  const auto i0 = region.GetIndex();
  auto voxel = [&](itk::IndexValueType x, itk::IndexValueType y, itk::IndexValueType z) {
    return grey(image->GetPixel(ImageType::IndexType{ { i0[0] + x, i0[1] + y, i0[2] + z } }));
  };
  auto put = [&](itk::IndexValueType column, itk::IndexValueType row, unsigned char value) {
    png->SetPixel(PngImageType::IndexType{ { column, row } }, value);
  };
  const itk::IndexValueType ax = at[0] - i0[0], ay = at[1] - i0[1], az = at[2] - i0[2];
  for (itk::IndexValueType r = 0; r < nz; ++r) // axial
    for (itk::IndexValueType x = 0; x < nx; ++x)
      put(x, r, voxel(x, ay, nz - 1 - r));
  for (itk::IndexValueType r = 0; r < ny; ++r) // coronal
    for (itk::IndexValueType x = 0; x < nx; ++x)
      put(nx + gap + x, r, voxel(x, ny - 1 - r, az));
  for (itk::IndexValueType r = 0; r < ny; ++r) // sagittal
    for (itk::IndexValueType z = 0; z < nz; ++z)
      put(2 * (nx + gap) + z, r, voxel(ax, ny - 1 - r, z));
  for (itk::IndexValueType r = 0; r < height; ++r) // separators
    for (itk::IndexValueType g = 0; g < gap; ++g)
    {
      put(nx + g, r, 64);
      put(2 * nx + gap + g, r, 64);
    }

  if (o.zoom > 1) // nearest neighbour: each pixel becomes zoom x zoom pixels
  {
    const auto z = static_cast<itk::IndexValueType>(o.zoom);
    auto zoomed = PngImageType::New();
    zoomed->SetRegions(PngImageType::SizeType{ { static_cast<itk::SizeValueType>(width * z), static_cast<itk::SizeValueType>(height * z) } });
    zoomed->Allocate();
    for (itk::IndexValueType r = 0; r < height * z; ++r)
      for (itk::IndexValueType c = 0; c < width * z; ++c)
        zoomed->SetPixel(PngImageType::IndexType{ { c, r } }, png->GetPixel(PngImageType::IndexType{ { c / z, r / z } }));
    png = zoomed;
  }
  const auto written = png->GetLargestPossibleRegion().GetSize();
  WriteImage("--output", png.GetPointer(), o.output);
  std::cout << "cbct-slices: wrote " << o.output << " (" << written[0] << " x " << written[1] << "): axial x-z at y index "
            << at[1] << ", coronal x-y at z index " << at[2] << ", sagittal z-y at x index " << at[0] << "; grey 0..255 = "
            << lo << " .. " << hi << std::endl;
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  int threads = 0;
  CLI::App app{ "Writes the three orthogonal slices of a volume through its centre side by side as an 8-bit grey "
                "image: axial (x-z plane, at the middle y; y is the rotation axis), coronal (x-y, middle z) and "
                "sagittal (z-y, middle x), each drawn with its second axis pointing up, one pixel per voxel (or --zoom).",
                "cbct-slices" };
  app.add_option("-i,--input", o.input, "Volume")->required();
  app.add_option("-o,--output", o.output, "Output image (.png)")->required();
  app.add_option("--min", o.minimum, "Value shown black (default 0)");
  app.add_option("--max", o.maximum, "Value shown white (default the 99.9th percentile)");
  app.add_option("--point", o.point, "X,Y,Z (mm) where the slices cross (default the volume's centre)");
  app.add_option("--gap", o.gap, "Voxels between the slices")->capture_default_str();
  app.add_option("--zoom", o.zoom, "Draw each voxel as N x N pixels")->capture_default_str();
  AddCommonOptions(app, threads);
  DescribeForSlicer("CBCT Orthogonal Slices", {
    { "--input", SlicerIo("image", "input", "Input") },
    { "--output", SlicerIo("file", "output", "Output", ".png") },
    { "--min", SlicerIn("Display") },
    { "--max", SlicerIn("Display") },
    { "--point", SlicerIn("Display", "double-vector") },
    { "--gap", SlicerRange("Display", "0", "1000", "1") },
    { "--zoom", SlicerRange("Display", "1", "64", "1") },
  });
  return Run(app, argc, argv, [&] {
    ApplyThreads(threads);
    return Slices(o);
  });
}
