// cbct-slices: a PNG of the three central orthogonal slices of a volume, side by side, labelled.
#include "cbctAppSupport.h"
#include "cbctDisplayWindow.h"

#include <itkImage.h>
#include <itkImageRegionConstIterator.h>
#include <itkRGBPixel.h>

#ifdef CBCT_SLICES_TEXT
#  include <vtkFreeTypeTools.h>
#  include <vtkImageData.h>
#  include <vtkNew.h>
#  include <vtkStdString.h>
#  include <vtkTextProperty.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace
{
using ImageType = itk::Image<float, 3>;
using PngImageType = itk::Image<itk::RGBPixel<unsigned char>, 2>;
using Colour = std::array<unsigned char, 3>;
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

/** An RGB picture being drawn: the slices, their labels, letters, scale bars and the value bar. */
struct Canvas
{
  int width = 0, height = 0;
  std::vector<unsigned char> rgb; // row 0 at the top

  Canvas(int w, int h, const Colour & background)
    : width(w)
    , height(h)
    , rgb(static_cast<std::size_t>(w) * h * 3)
  {
    for (std::size_t i = 0; i < rgb.size(); i += 3)
      std::copy(background.begin(), background.end(), rgb.begin() + static_cast<std::ptrdiff_t>(i));
  }
  void
  Blend(int x, int y, const Colour & c, double alpha = 1.)
  {
    if (x < 0 || y < 0 || x >= width || y >= height)
      return;
    unsigned char * p = &rgb[3 * (static_cast<std::size_t>(y) * width + x)];
    for (int k = 0; k < 3; ++k)
      p[k] = static_cast<unsigned char>(std::lround(p[k] + alpha * (c[k] - p[k])));
  }
  void
  Rectangle(int x, int y, int w, int h, const Colour & c)
  {
    for (int r = y; r < y + h; ++r)
      for (int q = x; q < x + w; ++q)
        Blend(q, r, c);
  }
};

/** Text drawn with VTK's FreeType renderer and its built-in font (no display needed), when
 * cbct-slices is built with VTK; without it the pictures have no text (the bars are still drawn). */
class TextPainter
{
public:
  explicit TextPainter(int fontSize)
    : m_FontSize(fontSize)
  {
#ifdef CBCT_SLICES_TEXT
    m_Property->SetFontSize(fontSize);
    m_Property->SetFontFamilyToArial();
    m_Property->SetColor(1., 1., 1.);
#endif
  }
  static constexpr bool
  Available()
  {
#ifdef CBCT_SLICES_TEXT
    return true;
#else
    return false;
#endif
  }
  /** Width of `text` in pixels (an estimate without VTK). */
  int
  Width(const std::string & text) const
  {
#ifdef CBCT_SLICES_TEXT
    vtkNew<vtkImageData> image;
    int size[2] = { 0, 0 };
    if (vtkFreeTypeTools::GetInstance()->RenderString(m_Property, vtkStdString(text), 72, image, size))
      return size[0];
#endif
    return static_cast<int>(text.size()) * m_FontSize * 3 / 5;
  }
  /** Draws `text` at (x, y) in `colour`; `alignX` / `alignY`: 0 left/top, 1 centre, 2 right/bottom of (x, y). */
  void
  Draw(Canvas & canvas, const std::string & text, int x, int y, const Colour & colour, int alignX = 0, int alignY = 0) const
  {
#ifdef CBCT_SLICES_TEXT
    vtkNew<vtkImageData> image;
    int size[2] = { 0, 0 };
    if (!vtkFreeTypeTools::GetInstance()->RenderString(m_Property, vtkStdString(text), 72, image, size))
      return;
    const int left = x - alignX * size[0] / 2, top = y - alignY * size[1] / 2;
    for (int r = 0; r < size[1]; ++r) // VTK's rows go upwards
      for (int c = 0; c < size[0]; ++c)
      {
        const auto * p = static_cast<const unsigned char *>(image->GetScalarPointer(c, size[1] - 1 - r, 0));
        if (p[3] > 0)
          canvas.Blend(left + c, top + r, colour, p[3] / 255.);
      }
#else
    (void)canvas, (void)text, (void)x, (void)y, (void)colour, (void)alignX, (void)alignY;
#endif
  }

private:
  int m_FontSize;
#ifdef CBCT_SLICES_TEXT
  vtkNew<vtkTextProperty> m_Property;
#endif
};

/** A round length for a scale bar: 1, 2 or 5 times a power of ten, at most `limit`. */
double
RoundLength(double limit)
{
  const double power = std::pow(10., std::floor(std::log10(limit)));
  for (const double m : { 5., 2., 1. })
    if (m * power <= limit)
      return m * power;
  return power;
}

std::string
Formatted(double value, int digits = 4)
{
  std::ostringstream text;
  text << std::setprecision(digits) << value;
  return text.str();
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

  // Window: --min and --max, each by default from the soft-tissue window (cbctDisplayWindow.h: the
  // histogram's dominant peak above the air and its spread); when those give an empty window, the
  // volume's minimum and maximum.
  const bool userMin = !std::isnan(o.minimum), userMax = !std::isnan(o.maximum);
  if (userMin)
    CheckFinite("--min", o.minimum);
  if (userMax)
    CheckFinite("--max", o.maximum);
  if (userMin && userMax && !(o.maximum > o.minimum))
  {
    std::ostringstream expected;
    expected << "a value > --min (" << o.minimum << ")";
    Bad("--max", o.maximum, expected.str());
  }
  const std::size_t count = image->GetBufferedRegion().GetNumberOfPixels();
  cbct::DisplayWindow soft;
  if (!userMin || !userMax)
    soft = cbct::SoftTissueWindow(image->GetBufferPointer(), count);
  double lo = userMin ? o.minimum : soft.lower;
  double hi = userMax ? o.maximum : soft.upper;
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

  // Tiles, each with its vertical axis pointing up (row 0 of the picture is the top):
  //   axial x-z at the middle y (x to the right, z up), as the phantom's axial slices are drawn;
  //   coronal x-y at the middle z (x to the right, y up);
  //   sagittal z-y at the middle x (z to the right, y up).
  // Each tile is labelled with its plane and position (mm), orientation letters in RTK's world axes
  // (y the rotation axis; no patient orientation is assumed) and a scale bar; a value bar on the
  // right gives the window's range.
  const auto i0 = region.GetIndex();
  const itk::IndexValueType n[3] = { static_cast<itk::IndexValueType>(size[0]), static_cast<itk::IndexValueType>(size[1]),
                                     static_cast<itk::IndexValueType>(size[2]) };
  const itk::IndexValueType ax = at[0] - i0[0], ay = at[1] - i0[1], az = at[2] - i0[2];
  const auto z = static_cast<int>(o.zoom);
  struct Tile
  {
    int axis, h, v; // the slice's normal, horizontal (rightwards) and vertical (upwards) axes
    const char * plane;
  };
  const Tile tiles[3] = { { 1, 0, 2, "axial x-z" }, { 2, 0, 1, "coronal x-y" }, { 0, 2, 1, "sagittal z-y" } };
  static const char * names[3] = { "x", "y", "z" };
  const auto & spacing = image->GetSpacing();
  ImageType::PointType centre;
  image->TransformIndexToPhysicalPoint(at, centre);

  const int fontSize = std::clamp(10 + 2 * z, 12, 22);
  const TextPainter text(fontSize);
  const Colour background{ { 26, 26, 51 } }, yellow{ { 255, 217, 51 } };
  const int line = fontSize * 3 / 2;                 // height of a line of text
  const int letterWidth = text.Width("-x") + fontSize / 2; // room beside a tile for its letters
  const int margin = fontSize / 2;
  std::vector<std::string> labels;
  std::vector<int> slotWidths;
  int tilesHeight = 0;
  for (const Tile & t : tiles)
  {
    labels.push_back(std::string(t.plane) + "  " + names[t.axis] + " = " + Formatted(centre[t.axis], 5) + " mm");
    slotWidths.push_back(std::max(static_cast<int>(n[t.h]) * z + 2 * letterWidth, text.Width(labels.back()) + margin));
    tilesHeight = std::max(tilesHeight, static_cast<int>(n[t.v]) * z);
  }
  std::vector<std::string> values;
  int valueWidth = 0;
  for (int k = 0; k <= 4; ++k)
  {
    values.push_back(Formatted(lo + k * (hi - lo) / 4.));
    valueWidth = std::max(valueWidth, text.Width(values.back()));
  }
  const int barWidth = std::max(12, fontSize);
  const int gap = static_cast<int>(o.gap) * z;
  const int top = margin + line + line; // the label, then the top letter
  int width = margin;
  for (const int w : slotWidths)
    width += w + gap;
  const int valueBarX = width + margin;
  width = valueBarX + barWidth + margin / 2 + valueWidth + margin;
  const int height = top + tilesHeight + line + line + margin; // the bottom letter, then the scale bar
  Canvas canvas(width, height, background);

  int slotX = margin;
  for (int k = 0; k < 3; ++k)
  {
    const Tile & t = tiles[k];
    const int w = static_cast<int>(n[t.h]) * z, h = static_cast<int>(n[t.v]) * z;
    const int x0 = slotX + (slotWidths[k] - w) / 2, y0 = top + (tilesHeight - h) / 2;
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c)
      {
        ImageType::IndexType index;
        index[t.axis] = i0[t.axis] + (t.axis == 0 ? ax : t.axis == 1 ? ay : az);
        index[t.h] = i0[t.h] + c / z;
        index[t.v] = i0[t.v] + n[t.v] - 1 - r / z;
        const unsigned char g = grey(image->GetPixel(index));
        canvas.Blend(x0 + c, y0 + r, Colour{ { g, g, g } });
      }
    text.Draw(canvas, labels[k], slotX + slotWidths[k] / 2, margin, yellow, 1, 0);
    const std::string hName = names[t.h], vName = names[t.v];
    text.Draw(canvas, "-" + hName, x0 - fontSize / 4, y0 + h / 2, yellow, 2, 1);
    text.Draw(canvas, "+" + hName, x0 + w + fontSize / 4, y0 + h / 2, yellow, 0, 1);
    text.Draw(canvas, "+" + vName, x0 + w / 2, y0 - fontSize / 4, yellow, 1, 2);
    text.Draw(canvas, "-" + vName, x0 + w / 2, y0 + h + fontSize / 4, yellow, 1, 0);
    // Scale bar below the tile's left corner: a round length of at most a third of its width.
    const double length = RoundLength(n[t.h] * spacing[t.h] / 3.);
    const int barPixels = std::max(1, static_cast<int>(std::lround(length / spacing[t.h] * z)));
    const int barY = top + tilesHeight + line + line / 2;
    canvas.Rectangle(x0, barY - 1, barPixels, std::max(2, fontSize / 6), yellow);
    text.Draw(canvas, Formatted(length) + " mm", x0 + barPixels + fontSize / 2, barY, yellow, 0, 1);
    slotX += slotWidths[k] + gap;
  }
  // Value bar: black (the window's lower end) at the bottom to white (upper) at the top.
  for (int r = 0; r < tilesHeight; ++r)
  {
    const auto g = static_cast<unsigned char>(std::lround(255. * (tilesHeight - 1 - r) / std::max(1, tilesHeight - 1)));
    canvas.Rectangle(valueBarX, top + r, barWidth, 1, Colour{ { g, g, g } });
  }
  for (int k = 0; k <= 4; ++k)
    text.Draw(canvas, values[k], valueBarX + barWidth + margin / 2, top + tilesHeight - 1 - k * (tilesHeight - 1) / 4, yellow,
              0, 1);

  auto png = PngImageType::New();
  png->SetRegions(PngImageType::SizeType{ { static_cast<itk::SizeValueType>(width), static_cast<itk::SizeValueType>(height) } });
  png->Allocate();
  auto * pixels = png->GetBufferPointer();
  for (std::size_t i = 0; i < static_cast<std::size_t>(width) * height; ++i)
    pixels[i].Set(canvas.rgb[3 * i], canvas.rgb[3 * i + 1], canvas.rgb[3 * i + 2]);
  WriteImage("--output", png.GetPointer(), o.output);
  std::cout << "cbct-slices: wrote " << o.output << " (" << width << " x " << height << "): axial x-z at y index " << at[1]
            << ", coronal x-y at z index " << at[2] << ", sagittal z-y at x index " << at[0] << "; grey 0..255 = " << lo
            << " .. " << hi << (userMin && userMax ? "" : " (soft-tissue window)")
            << (TextPainter::Available() ? "" : "; no labels (built without VTK)") << std::endl;
  return 0;
}
} // namespace

int
main(int argc, char ** argv)
{
  Options o;
  int threads = 0;
  CLI::App app{ "Writes the three orthogonal slices of a volume through its centre side by side as an RGB "
                "image: axial (x-z plane, at the middle y; y is the rotation axis), coronal (x-y, middle z) and "
                "sagittal (z-y, middle x), each drawn with its second axis pointing up, one pixel per voxel (or --zoom), "
                "labelled with its plane and position (mm), orientation letters in RTK's world axes and a scale bar, "
                "with a value bar of the window. The default window shows soft tissue: centred on the histogram's "
                "dominant peak above the air, as wide as its spread (bone saturates).",
                "cbct-slices" };
  app.add_option("-i,--input", o.input, "Volume")->required();
  app.add_option("-o,--output", o.output, "Output image (.png)")->required();
  app.add_option("--min", o.minimum, "Value shown black (default: the soft-tissue window's lower end)");
  app.add_option("--max", o.maximum, "Value shown white (default: the soft-tissue window's upper end)");
  app.add_option("--point", o.point, "X,Y,Z (mm) where the slices cross (default the volume's centre)");
  app.add_option("--gap", o.gap, "Extra voxels between the slices")->capture_default_str();
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
