#ifndef cbctCompareReport_h
#define cbctCompareReport_h

// cbct-compare --report DIR: one self-contained HTML page (DIR/index.html: metrics, the slices as an
// embedded PNG, the line profile as inline SVG, each input's provenance) and the same panels as one
// PNG (DIR/report.png). The PNG is drawn here on an RGB canvas, its labels in the X11 misc-fixed 6x13
// bitmap font (cbctBitmapFont.h): no plotting or font library, so every build of the apps has it.
// The directory appears only complete: it is written in a hidden directory beside it and renamed
// into place, or, when DIR exists already, each file is renamed into it.
#include "cbctAppSupport.h"
#include "cbctBitmapFont.h"
#include "cbctProvenance.h"
#include "cbctSlicer.h"

#include <itkImage.h>
#include <itkImageFileWriter.h>
#include <itkRGBPixel.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace cbct::apps
{

using ReportVolume = itk::Image<float, 3>;
using Rgb = std::array<unsigned char, 3>;

/** An RGB picture, row 0 at the top. */
class Canvas
{
public:
  Canvas(int width, int height, Rgb background)
    : m_Width(width)
    , m_Height(height)
    , m_Pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), background)
  {}
  int
  Width() const
  {
    return m_Width;
  }
  int
  Height() const
  {
    return m_Height;
  }
  void
  Put(int x, int y, Rgb colour)
  {
    if (x >= 0 && y >= 0 && x < m_Width && y < m_Height)
      m_Pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_Width) + static_cast<std::size_t>(x)] = colour;
  }
  Rgb
  Get(int x, int y) const
  {
    return m_Pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(m_Width) + static_cast<std::size_t>(x)];
  }
  void
  Rectangle(int x0, int y0, int x1, int y1, Rgb colour) // outline, corners included
  {
    for (int x = x0; x <= x1; ++x)
    {
      Put(x, y0, colour);
      Put(x, y1, colour);
    }
    for (int y = y0; y <= y1; ++y)
    {
      Put(x0, y, colour);
      Put(x1, y, colour);
    }
  }
  void
  Line(int x0, int y0, int x1, int y1, Rgb colour) // Bresenham
  {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int error = dx + dy;
    for (;;)
    {
      Put(x0, y0, colour);
      if (x0 == x1 && y0 == y1)
        return;
      const int e2 = 2 * error;
      if (e2 >= dy)
      {
        error += dy;
        x0 += sx;
      }
      if (e2 <= dx)
      {
        error += dx;
        y0 += sy;
      }
    }
  }
  /** `text` with its top-left corner at (x, y); characters outside printable ASCII are drawn as '?'. */
  void
  Text(int x, int y, const std::string & text, Rgb colour)
  {
    for (char c : text)
    {
      const int code = static_cast<unsigned char>(c);
      const auto & glyph = BitmapFontGlyphs[(code >= 32 && code < 127 ? code : '?') - 32];
      for (int row = 0; row < BitmapFontHeight; ++row)
        for (int column = 0; column < BitmapFontWidth; ++column)
          if (glyph[row] & (1 << (BitmapFontWidth - 1 - column)))
            Put(x + column, y + row, colour);
      x += BitmapFontWidth;
    }
  }
  static int
  TextWidth(const std::string & text)
  {
    return static_cast<int>(text.size()) * BitmapFontWidth;
  }

  /** Writes the canvas as an 8-bit RGB PNG (ITK's PNG writer; `path` ends in .png). */
  void
  WritePng(const std::string & path) const
  {
    using PngImage = itk::Image<itk::RGBPixel<unsigned char>, 2>;
    auto image = PngImage::New();
    image->SetRegions(PngImage::SizeType{ { static_cast<itk::SizeValueType>(m_Width), static_cast<itk::SizeValueType>(m_Height) } });
    image->Allocate();
    auto * out = image->GetBufferPointer();
    for (std::size_t i = 0; i < m_Pixels.size(); ++i)
      for (unsigned int c = 0; c < 3; ++c)
        out[i][c] = m_Pixels[i][c];
    auto writer = itk::ImageFileWriter<PngImage>::New();
    writer->SetFileName(path);
    writer->SetInput(image);
    writer->Update();
  }

private:
  int m_Width, m_Height;
  std::vector<Rgb> m_Pixels;
};

/** A plane of a volume as drawn: `width` x `height` values, row 0 at the top. */
struct Plane
{
  int width = 0, height = 0;
  std::vector<float> values;
  float
  At(int x, int y) const
  {
    return values[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
  }
};

/** The three planes through voxel `at`, as cbct-slices draws them, each with its second axis up:
 * axial x-z (at y; z up), coronal x-y (at z; y up), sagittal z-y (at x; y up). */
inline std::array<Plane, 3>
ThreePlanes(const ReportVolume * volume, const ReportVolume::IndexType & at)
{
  const auto region = volume->GetLargestPossibleRegion();
  const auto i0 = region.GetIndex();
  const int nx = static_cast<int>(region.GetSize(0)), ny = static_cast<int>(region.GetSize(1)),
            nz = static_cast<int>(region.GetSize(2));
  auto voxel = [&](int x, int y, int z) {
    return volume->GetPixel(ReportVolume::IndexType{ { i0[0] + x, i0[1] + y, i0[2] + z } });
  };
  const int ax = static_cast<int>(at[0] - i0[0]), ay = static_cast<int>(at[1] - i0[1]), az = static_cast<int>(at[2] - i0[2]);
  std::array<Plane, 3> planes;
  planes[0] = { nx, nz, {} };
  for (int r = 0; r < nz; ++r)
    for (int x = 0; x < nx; ++x)
      planes[0].values.push_back(voxel(x, ay, nz - 1 - r));
  planes[1] = { nx, ny, {} };
  for (int r = 0; r < ny; ++r)
    for (int x = 0; x < nx; ++x)
      planes[1].values.push_back(voxel(x, ny - 1 - r, az));
  planes[2] = { nz, ny, {} };
  for (int r = 0; r < ny; ++r)
    for (int z = 0; z < nz; ++z)
      planes[2].values.push_back(voxel(ax, ny - 1 - r, z));
  return planes;
}

/** Grey from `low` (black) to `high` (white); non-finite values black. */
inline Rgb
Grey(float value, double low, double high)
{
  if (!std::isfinite(value) || !(high > low))
    return { 0, 0, 0 };
  const auto g = static_cast<unsigned char>(std::clamp((value - low) / (high - low) * 255. + 0.5, 0., 255.));
  return { g, g, g };
}

/** A difference in a blue-white-red map: -range blue, 0 white, +range red. */
inline Rgb
Diverging(float value, double range)
{
  if (!std::isfinite(value) || !(range > 0.))
    return { 0, 0, 0 };
  const double t = std::clamp(value / range, -1., 1.);
  const auto fade = static_cast<unsigned char>(255. * (1. - std::abs(t)) + 0.5);
  return t >= 0. ? Rgb{ 255, fade, fade } : Rgb{ fade, fade, 255 };
}

/** Draws `plane` at (x, y), each value `zoom` x `zoom` pixels. */
template <typename TColour>
void
DrawPlane(Canvas & canvas, int x, int y, const Plane & plane, int zoom, TColour colour)
{
  for (int r = 0; r < plane.height * zoom; ++r)
    for (int c = 0; c < plane.width * zoom; ++c)
      canvas.Put(x + c, y + r, colour(plane.At(c / zoom, r / zoom)));
}

inline std::string
Base64(const std::string & bytes)
{
  static const char * digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3)
  {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += { digits[(v >> 18) & 63], digits[(v >> 12) & 63], digits[(v >> 6) & 63], digits[v & 63] };
  }
  if (i + 1 == bytes.size())
  {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += { digits[(v >> 18) & 63], digits[(v >> 12) & 63], '=', '=' };
  }
  else if (i + 2 == bytes.size())
  {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += { digits[(v >> 18) & 63], digits[(v >> 12) & 63], digits[(v >> 6) & 63], '=' };
  }
  return out;
}

/** Text for the HTML page: the same four characters escaped as in Slicer's XML (XmlEscaped). */
inline std::string
HtmlEscaped(const std::string & text)
{
  return XmlEscaped(text);
}

/** One compared volume in a report. */
struct ReportEntry
{
  std::string name; // the input's path
  const ReportVolume * volume = nullptr;
  double centralMae = 0., centralPsnr = 0., wholeMae = 0., wholePsnr = 0.;
  std::size_t centralVoxels = 0, wholeVoxels = 0;
  std::vector<std::pair<std::string, std::string>> provenance;
};

/** What a report shows besides its entries. */
struct ReportSettings
{
  std::string referenceName;       // "the Shepp-Logan phantom, 2x2x2 samples per voxel" or a file
  std::string centralLabel;        // "central region (y slices 16..47 of 64)"
  ReportVolume::IndexType at{};    // where the planes cross; the profile runs along x through it
  double low = 0., high = 1.;      // grey window
  double differenceRange = 0.1;    // the difference map's +- range
};

/** Refuses, before any work, a --report DIR that is an existing file, lies in a missing directory, or
 * cannot be written. */
inline void
CheckReportDirectory(const std::string & directory)
{
  if (directory.empty())
    Bad("--report", "empty", "a directory to write the report into");
  if (itksys::SystemTools::FileExists(directory, true))
    Bad("--report", Quoted(directory), "a directory to write the report into (new or existing); it is an existing file");
  if (itksys::SystemTools::FileIsDirectory(directory))
  {
    if (access(directory.c_str(), W_OK | X_OK) != 0)
      Bad("--report", Quoted(directory), std::string("a directory this user can write into (") + std::strerror(errno) + ")");
    return;
  }
  std::string parent = itksys::SystemTools::GetFilenamePath(directory);
  if (parent.empty())
    parent = ".";
  if (!itksys::SystemTools::FileIsDirectory(parent))
    Bad("--report", Quoted(directory), "a directory in an existing directory (" + parent + " is not one)");
  if (access(parent.c_str(), W_OK | X_OK) != 0)
    Bad("--report", Quoted(directory),
        "a directory in a directory this user can write into (" + parent + ": " + std::strerror(errno) + ")");
}

/** The report's files written into a hidden directory beside DIR, moved into place by Commit(); the
 * destructor removes what was not. */
class ReportDirectory
{
public:
  explicit ReportDirectory(const std::string & directory)
    : m_Directory(directory)
  {
    while (m_Directory.size() > 1 && m_Directory.back() == '/')
      m_Directory.pop_back();
    std::string parent = itksys::SystemTools::GetFilenamePath(m_Directory);
    if (parent.empty())
      parent = ".";
    std::string pattern = parent + "/." + itksys::SystemTools::GetFilenameName(m_Directory) + ".partial-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()) == nullptr)
      throw Error("--report " + directory + ": could not make a directory beside it (" + std::strerror(errno) + ")");
    m_Temporary = buffer.data();
    // mkdtemp() makes it private (0700); the report gets a new directory's usual permissions.
    const mode_t mask = umask(0);
    umask(mask);
    chmod(m_Temporary.c_str(), 0777 & ~mask);
  }
  ~ReportDirectory()
  {
    if (m_Temporary.empty())
      return;
    for (const std::string & file : m_Files)
      std::remove((m_Temporary + "/" + file).c_str());
    rmdir(m_Temporary.c_str());
  }
  ReportDirectory(const ReportDirectory &) = delete;
  ReportDirectory &
  operator=(const ReportDirectory &) = delete;

  /** Where to write `file` (a plain name); remembered for Commit(). */
  std::string
  Path(const std::string & file)
  {
    m_Files.push_back(file);
    return m_Temporary + "/" + file;
  }

  /** Moves the directory into place (DIR new), or each file into DIR (DIR existing). */
  void
  Commit()
  {
    for (const std::string & file : m_Files)
    {
      const std::string path = m_Temporary + "/" + file;
      std::FILE * f = std::fopen(path.c_str(), "rb");
      if (f == nullptr)
        throw Error("--report " + m_Directory + ": " + file + " was not written");
      fsync(fileno(f));
      std::fclose(f);
    }
    if (!itksys::SystemTools::FileIsDirectory(m_Directory) && std::rename(m_Temporary.c_str(), m_Directory.c_str()) == 0)
    {
      m_Temporary.clear();
      return;
    }
    for (const std::string & file : m_Files)
      if (std::rename((m_Temporary + "/" + file).c_str(), (m_Directory + "/" + file).c_str()) != 0)
        throw Error("--report " + m_Directory + ": could not move " + file + " into place (" + std::strerror(errno) + ")");
    rmdir(m_Temporary.c_str());
    m_Temporary.clear();
  }

private:
  std::string m_Directory, m_Temporary;
  std::vector<std::string> m_Files;
};

/** A distinct colour for the i-th profile line (0: the reference, black). */
inline Rgb
LineColour(std::size_t i)
{
  static const Rgb colours[] = { { 0, 0, 0 },       { 31, 119, 180 }, { 255, 127, 14 }, { 44, 160, 44 },
                                 { 214, 39, 40 },   { 148, 103, 189 }, { 140, 86, 75 }, { 227, 119, 194 },
                                 { 127, 127, 127 }, { 188, 189, 34 }, { 23, 190, 207 } };
  return colours[i == 0 ? 0 : 1 + (i - 1) % 10];
}

inline std::string
HexColour(Rgb c)
{
  std::ostringstream out;
  out << "#" << std::hex << std::setfill('0') << std::setw(2) << int(c[0]) << std::setw(2) << int(c[1]) << std::setw(2)
      << int(c[2]);
  return out.str();
}

inline std::string
Number(double value, int digits = 4)
{
  std::ostringstream out;
  out << std::setprecision(digits) << value;
  return out.str();
}

/** The values of `volume` along x through `at`. */
inline std::vector<double>
ProfileAlongX(const ReportVolume * volume, ReportVolume::IndexType at)
{
  const auto region = volume->GetLargestPossibleRegion();
  std::vector<double> values;
  for (itk::SizeValueType i = 0; i < region.GetSize(0); ++i)
  {
    at[0] = region.GetIndex(0) + static_cast<itk::IndexValueType>(i);
    values.push_back(volume->GetPixel(at));
  }
  return values;
}

/** The report: DIR/report.png and DIR/index.html (which embeds the PNG). Returns the PNG's size. */
inline std::pair<int, int>
WriteReport(const std::string & directory, const ReportVolume * reference, const std::vector<ReportEntry> & entries,
            const ReportSettings & s)
{
  const auto region = reference->GetLargestPossibleRegion();
  const int nx = static_cast<int>(region.GetSize(0)), ny = static_cast<int>(region.GetSize(1)),
            nz = static_cast<int>(region.GetSize(2));
  const int zoom = std::clamp(160 / std::max({ nx, ny, nz }), 1, 8);
  const int margin = 8, gap = 6, line = BitmapFontHeight + 3;
  const int tileHeight = std::max(nz, ny) * zoom;
  const int tileWidths[3] = { nx * zoom, nx * zoom, nz * zoom };
  const int block = tileWidths[0] + tileWidths[1] + tileWidths[2] + 2 * gap;
  const int width = std::max(2 * margin + 2 * block + 3 * gap, 2 * margin + 90 * BitmapFontWidth);
  const int profileHeight = 220;
  const int rows = 1 + static_cast<int>(entries.size());
  const int height = margin + 2 * line + rows * (line + tileHeight + gap) + line + profileHeight + margin;
  Canvas canvas(width, height, { 255, 255, 255 });
  const Rgb black{ 0, 0, 0 }, grey{ 110, 110, 110 };

  ReportVolume::PointType point;
  reference->TransformIndexToPhysicalPoint(s.at, point);
  std::ostringstream where;
  where << std::setprecision(4) << "planes through (" << point[0] << ", " << point[1] << ", " << point[2] << ") mm";
  int y = margin;
  canvas.Text(margin, y, "cbct-compare: reconstruction, reference and difference; " + where.str(), black);
  y += line;
  const std::string headers[3] = { "axial x-z", "coronal x-y", "sagittal z-y" };
  int x = margin;
  for (int half = 0; half < 2; ++half)
  {
    for (int t = 0; t < 3; ++t)
    {
      canvas.Text(x, y, (half == 0 ? "" : "diff. ") + headers[t], grey);
      x += tileWidths[t] + gap;
    }
    x = margin + block + 3 * gap;
  }
  y += line;

  auto greyColour = [&](float v) { return Grey(v, s.low, s.high); };
  auto differenceColour = [&](float v) { return Diverging(v, s.differenceRange); };
  auto drawPlanes = [&](int left, const std::array<Plane, 3> & planes, auto colour) {
    int px = left;
    for (int t = 0; t < 3; ++t)
    {
      DrawPlane(canvas, px, y, planes[t], zoom, colour);
      px += tileWidths[t] + gap;
    }
  };
  // The reference, with the colour scales beside it.
  canvas.Text(margin, y, "reference: " + s.referenceName, black);
  y += line;
  drawPlanes(margin, ThreePlanes(reference, s.at), greyColour);
  {
    const int left = margin + block + 3 * gap, barWidth = std::min(block, 256), barHeight = 12;
    int by = y;
    canvas.Text(left, by, "grey: " + Number(s.low) + " (black) to " + Number(s.high) + " (white) per mm", black);
    by += line;
    for (int i = 0; i < barWidth; ++i)
      for (int j = 0; j < barHeight; ++j)
        canvas.Put(left + i, by + j, Grey(static_cast<float>(s.low + (s.high - s.low) * i / (barWidth - 1)), s.low, s.high));
    by += barHeight + line;
    canvas.Text(left, by, "difference (input - reference): -" + Number(s.differenceRange) + " (blue) to +" +
                            Number(s.differenceRange) + " (red)", black);
    by += line;
    for (int i = 0; i < barWidth; ++i)
      for (int j = 0; j < barHeight; ++j)
        canvas.Put(left + i, by + j,
                   Diverging(static_cast<float>(s.differenceRange * (2. * i / (barWidth - 1) - 1.)), s.differenceRange));
    by += barHeight + line;
    canvas.Text(left, by, "metrics: " + s.centralLabel + " | whole volume", grey);
  }
  y += tileHeight + gap;

  // Each input: its planes and its difference from the reference.
  for (std::size_t e = 0; e < entries.size(); ++e)
  {
    const ReportEntry & entry = entries[e];
    std::ostringstream label;
    label << itksys::SystemTools::GetFilenameName(entry.name) << ": MAE " << Number(entry.centralMae) << ", PSNR "
          << std::fixed << std::setprecision(2) << entry.centralPsnr << " dB | MAE " << Number(entry.wholeMae)
          << ", PSNR " << std::fixed << std::setprecision(2) << entry.wholePsnr << " dB";
    for (const auto & [key, value] : entry.provenance)
      if (key == "ConeBeamCT_Method")
        label << " (" << value << ")";
    canvas.Text(margin, y, label.str(), LineColour(e + 1));
    y += line;
    drawPlanes(margin, ThreePlanes(entry.volume, s.at), greyColour);
    // The difference's planes, computed from the two volumes' planes.
    auto planes = ThreePlanes(entry.volume, s.at);
    const auto truth = ThreePlanes(reference, s.at);
    for (int t = 0; t < 3; ++t)
      for (std::size_t i = 0; i < planes[t].values.size(); ++i)
        planes[t].values[i] -= truth[t].values[i];
    drawPlanes(margin + block + 3 * gap, planes, differenceColour);
    y += tileHeight + gap;
  }

  // The profile along x.
  const std::vector<double> truthProfile = ProfileAlongX(reference, s.at);
  std::vector<std::vector<double>> profiles{ truthProfile };
  for (const ReportEntry & entry : entries)
    profiles.push_back(ProfileAlongX(entry.volume, s.at));
  double low = truthProfile.front(), high = low;
  for (const auto & p : profiles)
    for (double v : p)
      if (std::isfinite(v))
      {
        low = std::min(low, v);
        high = std::max(high, v);
      }
  if (!(high > low))
    high = low + 1.;
  const double pad = 0.05 * (high - low);
  low -= pad;
  high += pad;
  ReportVolume::PointType first, last;
  ReportVolume::IndexType end = s.at;
  end[0] = region.GetIndex(0);
  reference->TransformIndexToPhysicalPoint(end, first);
  end[0] = region.GetIndex(0) + nx - 1;
  reference->TransformIndexToPhysicalPoint(end, last);
  std::ostringstream title;
  title << std::setprecision(4) << "profile along x at y = " << point[1] << " mm, z = " << point[2]
        << " mm (x from " << first[0] << " to " << last[0] << " mm; values " << Number(low) << " to " << Number(high) << ")";
  canvas.Text(margin, y, title.str(), black);
  y += line;
  const int plotLeft = margin + 8 * BitmapFontWidth, plotRight = width - margin - 1;
  const int plotTop = y, plotBottom = y + profileHeight - line - 4;
  canvas.Rectangle(plotLeft, plotTop, plotRight, plotBottom, grey);
  canvas.Text(margin, plotTop, Number(high), grey);
  canvas.Text(margin, plotBottom - BitmapFontHeight, Number(low), grey);
  canvas.Text(plotLeft, plotBottom + 3, Number(first[0]) + " mm", grey);
  const std::string lastLabel = Number(last[0]) + " mm";
  canvas.Text(plotRight - Canvas::TextWidth(lastLabel), plotBottom + 3, lastLabel, grey);
  auto px = [&](std::size_t i) { return plotLeft + 1 + static_cast<int>(std::lround((plotRight - plotLeft - 2) * (nx > 1 ? double(i) / (nx - 1) : 0.5))); };
  auto py = [&](double v) { return plotBottom - 1 - static_cast<int>(std::lround((plotBottom - plotTop - 2) * (v - low) / (high - low))); };
  for (std::size_t p = profiles.size(); p-- > 0;) // the reference last, on top
    for (std::size_t i = 1; i < profiles[p].size(); ++i)
      if (std::isfinite(profiles[p][i - 1]) && std::isfinite(profiles[p][i]))
        canvas.Line(px(i - 1), py(profiles[p][i - 1]), px(i), py(profiles[p][i]), LineColour(p));
  int legend = plotTop + 4;
  for (std::size_t p = 0; p < profiles.size(); ++p)
  {
    const std::string name = p == 0 ? "reference" : itksys::SystemTools::GetFilenameName(entries[p - 1].name);
    const int lx = plotRight - 4 - Canvas::TextWidth(name) - 24;
    canvas.Line(lx, legend + BitmapFontHeight / 2, lx + 18, legend + BitmapFontHeight / 2, LineColour(p));
    canvas.Text(lx + 24, legend, name, LineColour(p));
    legend += line;
  }

  ReportDirectory report(directory);
  const std::string pngPath = report.Path("report.png");
  canvas.WritePng(pngPath);
  std::ifstream pngFile(pngPath, std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(pngFile)), std::istreambuf_iterator<char>());
  if (png.empty())
    throw Error("--report " + directory + ": could not write report.png");

  // The HTML page.
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cbct-compare report</title>\n"
       << "<style>body{font-family:sans-serif;margin:1.5em;max-width:" << std::max(width, 900) + 40
       << "px}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left;"
          "vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:90%;"
          "word-break:break-all}img{image-rendering:pixelated;max-width:100%}</style>\n</head>\n<body>\n"
       << "<h1>cbct-compare report</h1>\n<p>Reference: " << HtmlEscaped(s.referenceName) << ". Grid: " << nx << " x " << ny
       << " x " << nz << " voxels of " << Number(reference->GetSpacing()[0]) << " x " << Number(reference->GetSpacing()[1])
       << " x " << Number(reference->GetSpacing()[2]) << " mm. Written by cbct-compare (ConeBeamCT " CBCT_VERSION ").</p>\n"
       << "<h2>Metrics</h2>\n<p>Mean absolute error (MAE, per mm) and PSNR over the " << HtmlEscaped(s.centralLabel)
       << " and over the whole volume.</p>\n<table>\n<tr><th>input</th><th>method</th><th>central MAE</th><th>central PSNR (dB)"
       << "</th><th>whole MAE</th><th>whole PSNR (dB)</th></tr>\n";
  for (const ReportEntry & entry : entries)
  {
    std::string method = "";
    for (const auto & [key, value] : entry.provenance)
      if (key == "ConeBeamCT_Method")
        method = value;
    html << "<tr><td>" << HtmlEscaped(entry.name) << "</td><td>" << HtmlEscaped(method.empty() ? "(not recorded)" : method)
         << "</td><td class=\"n\">" << Number(entry.centralMae, 5) << "</td><td class=\"n\">" << std::fixed
         << std::setprecision(2) << entry.centralPsnr << "</td><td class=\"n\">" << std::defaultfloat
         << Number(entry.wholeMae, 5) << "</td><td class=\"n\">" << std::fixed << std::setprecision(2) << entry.wholePsnr
         << std::defaultfloat << "</td></tr>\n";
  }
  html << "</table>\n<h2>Slices</h2>\n<p>" << HtmlEscaped(where.str()) << "; grey " << Number(s.low) << " to "
       << Number(s.high) << " per mm; the difference (input - reference) from -" << Number(s.differenceRange)
       << " (blue) to +" << Number(s.differenceRange) << " (red). The same picture is report.png.</p>\n"
       << "<img alt=\"reconstruction, reference and difference on three planes, and the line profile\" src=\"data:image/png;base64,"
       << Base64(png) << "\">\n";

  // The profile as SVG (one polyline per volume).
  const int svgWidth = 800, svgHeight = 300, left = 60, bottom = 30, top = 10, right = 150;
  auto sx = [&](std::size_t i) { return left + (svgWidth - left - right) * (nx > 1 ? double(i) / (nx - 1) : 0.5); };
  auto sy = [&](double v) { return top + (svgHeight - top - bottom) * (high - v) / (high - low); };
  html << "<h2>Line profile</h2>\n<p>" << HtmlEscaped(title.str()) << ".</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
       << svgWidth << "\" height=\"" << svgHeight << "\" viewBox=\"0 0 " << svgWidth << " " << svgHeight
       << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect x=\"" << left << "\" y=\"" << top << "\" width=\""
       << svgWidth - left - right << "\" height=\"" << svgHeight - top - bottom << "\" fill=\"none\" stroke=\"#999\"/>\n"
       << "<text x=\"" << left - 4 << "\" y=\"" << top + 10 << "\" text-anchor=\"end\">" << Number(high) << "</text>\n"
       << "<text x=\"" << left - 4 << "\" y=\"" << svgHeight - bottom << "\" text-anchor=\"end\">" << Number(low) << "</text>\n"
       << "<text x=\"" << left << "\" y=\"" << svgHeight - 10 << "\">" << Number(first[0]) << " mm</text>\n"
       << "<text x=\"" << svgWidth - right << "\" y=\"" << svgHeight - 10 << "\" text-anchor=\"end\">" << Number(last[0])
       << " mm</text>\n";
  for (std::size_t p = 0; p < profiles.size(); ++p)
  {
    const std::string name = p == 0 ? "reference" : itksys::SystemTools::GetFilenameName(entries[p - 1].name);
    html << "<polyline fill=\"none\" stroke=\"" << HexColour(LineColour(p)) << "\" stroke-width=\"" << (p == 0 ? 1.5 : 1.2)
         << "\" points=\"";
    for (std::size_t i = 0; i < profiles[p].size(); ++i)
      if (std::isfinite(profiles[p][i]))
        html << std::setprecision(5) << sx(i) << "," << sy(profiles[p][i]) << " ";
    html << "\"/>\n<text x=\"" << svgWidth - right + 8 << "\" y=\"" << top + 14 + 16 * p << "\" fill=\""
         << HexColour(LineColour(p)) << "\">" << HtmlEscaped(name) << "</text>\n";
  }
  html << "</svg>\n<h2>Provenance</h2>\n<p>From each input's header (MetaImage and NRRD keep it; cbct-fdk and the "
          "iterative apps write it).</p>\n<table>\n<tr><th>input</th><th>app</th><th>method</th><th>geometry</th>"
          "<th>options</th></tr>\n";
  for (const ReportEntry & entry : entries)
  {
    html << "<tr><td>" << HtmlEscaped(entry.name) << "</td>";
    for (const std::string & key : ProvenanceKeys())
    {
      std::string value = "(not recorded)";
      for (const auto & [k, v] : entry.provenance)
        if (k == key)
          value = v;
      html << (key == "ConeBeamCT_Options" ? "<td><code>" : "<td>") << HtmlEscaped(value)
           << (key == "ConeBeamCT_Options" ? "</code></td>" : "</td>");
    }
    html << "</tr>\n";
  }
  html << "</table>\n</body>\n</html>\n";
  {
    std::ofstream out(report.Path("index.html"), std::ios::binary);
    out << html.str();
    out.close();
    if (!out)
      throw Error("--report " + directory + ": could not write index.html");
  }
  report.Commit();
  return { width, height };
}

} // namespace cbct::apps

#endif
