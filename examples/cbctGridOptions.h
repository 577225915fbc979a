#ifndef cbctGridOptions_h
#define cbctGridOptions_h

// The grid options of the apps, with RTK's names and meanings (rtk3Doutputimage_section.ggo): the
// volume a reconstruction app makes (cbct-fdk, cbct-sart, cbct-cgls, cbct-osem) and the detector
// cbct-forward projects onto.
//
//   --dimension / --size N or N1,N2[,N3]   voxels (a single value for every axis)
//   --spacing s or s1,s2[,s3]              mm (a single value for every axis)
//   --origin x[,y[,z]]                     the centre of the first voxel; RTK's rule: the axes given
//                                          are set, the others stay centred (so --origin -255 sets x)
//   --direction 9 (or 4) values            the direction matrix, row by row (orthonormal)
//   --like FILE                            all of the above from an image's header
//
// Values are comma-separated or given by repeating the option (--origin -255 --origin -127).
#include "cbctAppSupport.h"

#include <itkImageFileReader.h>
#include <itkMatrix.h>

#include <cmath>
#include <string>
#include <vector>

namespace cbct::apps
{

/** A list option: "a,b,c" or repeated, joined with commas. */
inline CLI::Option *
AddListOption(CLI::App & app, const std::string & names, std::string & target, const std::string & description)
{
  return app.add_option(names, target, description)->delimiter(',')->multi_option_policy(CLI::MultiOptionPolicy::Join);
}

/** The grid of an image to make: `Dimension` axes (3: a volume; 2: a detector, whose third axis
 * counts projections). */
template <unsigned int Dimension>
struct GridOptions
{
  // As given on the command line.
  std::string size = "256";
  std::string spacing = "1";
  std::string origin;
  std::string direction;
  std::string like;
  std::vector<const CLI::Option *> explicitOptions; // --dimension/--size, --spacing, --origin, --direction

  /** Whether any of --dimension/--size, --spacing, --origin, --direction was given. */
  bool
  ExplicitGrid() const
  {
    for (const CLI::Option * option : explicitOptions)
      if (option->count() > 0)
        return true;
    return false;
  }

  // Parsed by ValidateGrid() (from --like when it is given).
  std::vector<unsigned int> sizes;
  std::vector<double> spacings;
  std::vector<double> origins;
  itk::Matrix<double, Dimension, Dimension> directionMatrix;
};

/** Adds --dimension (alias --size), --spacing, --origin, --direction and --like; `what` names the
 * grid ("Volume" or "Detector"). */
template <unsigned int Dimension>
void
AddGridOptions(CLI::App & app, GridOptions<Dimension> & g, const std::string & what)
{
  const bool volume = Dimension == 3;
  const std::string axes = volume ? "X,Y,Z" : "U,V";
  auto * size = AddListOption(app, "--dimension,--size", g.size,
                              what + " size in pixels: N or " + axes + (volume ? "" : " (a third value, RTK's, must be the number of projections)"))
                  ->capture_default_str();
  auto * spacing = AddListOption(app, "--spacing", g.spacing, what + " pixel size (mm): s or " + axes)->capture_default_str();
  auto * origin = AddListOption(app, "--origin", g.origin,
                                "Centre of the first pixel (mm): " + axes +
                                  "; fewer values set the first axes and leave the others centred, as RTK does "
                                  "(default: centred on the " +
                                  std::string(volume ? "isocenter" : "detector's origin") + ", -(N-1)/2 * spacing)");
  auto * direction = AddListOption(app, "--direction", g.direction,
                                   what + " direction matrix, row by row: " + std::to_string(Dimension * Dimension) +
                                     " values of an orthonormal matrix (default: identity)");
  app.add_option("--like", g.like, "Take the " + std::string(volume ? "volume" : "detector") +
                                     " grid (size, spacing, origin, direction) from this image's header instead");
  g.explicitOptions = { size, spacing, origin, direction };
}

namespace detail
{
/** "N" or "N1,...,Nd" (`extra`: one more value allowed, checked by the caller) as positive integers. */
inline std::vector<unsigned int>
ParseGridSizes(const std::string & option, const std::string & text, unsigned int dimension, bool extra)
{
  std::vector<std::size_t> counts{ 1, dimension };
  if (extra)
    counts.push_back(dimension + 1);
  const std::string expected = dimension == 2 ? "an integer N >= 1 or U,V" : "an integer N >= 1 or X,Y,Z";
  const auto values = ParseNumbers(option, text, counts, expected);
  std::vector<unsigned int> sizes;
  for (std::size_t d = 0; d < std::max<std::size_t>(dimension, values.size()); ++d)
  {
    const double v = values[values.size() == 1 ? 0 : d];
    if (!(v >= 1.) || v != std::floor(v) || v > 1e6)
      Bad(option, Quoted(text), expected + " (integers from 1 to 1000000)");
    sizes.push_back(static_cast<unsigned int>(v));
  }
  return sizes;
}
} // namespace detail

/** Checks and parses the grid options (or reads --like); `name` is the app's. For a detector grid
 * (Dimension 2), a third --dimension value is kept in sizes[2] for the caller to compare with the
 * number of projections. */
template <unsigned int Dimension>
void
ValidateGrid(GridOptions<Dimension> & g)
{
  constexpr bool detector = Dimension == 2;
  if (!g.like.empty())
  {
    if (g.ExplicitGrid())
      throw Error("--like and --dimension/--size/--spacing/--origin/--direction: --like gives the whole grid; give one "
                  "or the other");
    // Inspected first, as every image read: a damaged file is an error, not an abort in ITK's reader.
    InspectImage("--like", g.like);
    using InfoImage = itk::Image<float, 3>;
    auto reader = itk::ImageFileReader<InfoImage>::New();
    reader->SetFileName(g.like);
    try
    {
      reader->UpdateOutputInformation();
    }
    catch (const itk::ExceptionObject & e)
    {
      Bad("--like", Quoted(g.like), "an image ITK can read (" + FirstLine(e.GetDescription()) + ")");
    }
    const auto * info = reader->GetOutput();
    CheckNegativeSpacing("--like", g.like, info, detector ? ImageRole::ProjectionStack : ImageRole::Volume);
    g.sizes.clear();
    g.spacings.clear();
    g.origins.clear();
    for (unsigned int d = 0; d < Dimension; ++d)
    {
      g.sizes.push_back(static_cast<unsigned int>(info->GetLargestPossibleRegion().GetSize(d)));
      g.spacings.push_back(info->GetSpacing()[d]);
      g.origins.push_back(info->GetOrigin()[d]);
      for (unsigned int c = 0; c < Dimension; ++c)
        g.directionMatrix(d, c) = info->GetDirection()(d, c);
    }
    if (detector && (info->GetDirection()(0, 2) != 0. || info->GetDirection()(1, 2) != 0.))
      Bad("--like", Quoted(g.like), "a projection stack whose direction keeps the projection axis apart");
    if (detector)
      g.sizes.push_back(static_cast<unsigned int>(info->GetLargestPossibleRegion().GetSize(2)));
    return;
  }

  g.sizes = detail::ParseGridSizes("--dimension", g.size, Dimension, detector);
  // A detector's third spacing and origin (RTK's projection axis) are accepted and not used.
  const std::vector<std::size_t> spacingCounts = detector ? std::vector<std::size_t>{ 1, 2, 3 } : std::vector<std::size_t>{ 1, 3 };
  const std::string axes = detector ? "U,V" : "X,Y,Z";
  const auto spacings = ParseNumbers("--spacing", g.spacing, spacingCounts, "a value > 0 in mm, or " + axes);
  g.spacings.clear();
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    const double v = spacings[spacings.size() == 1 ? 0 : d];
    if (!std::isfinite(v) || !(v > 0.))
      Bad("--spacing", Quoted(g.spacing), "a value > 0 in mm, or " + axes);
    g.spacings.push_back(v);
  }

  g.directionMatrix.SetIdentity();
  if (!g.direction.empty())
  {
    std::vector<std::size_t> counts{ Dimension * Dimension };
    if (detector)
      counts.push_back(9);
    const std::string expected = std::to_string(Dimension * Dimension) + " values of an orthonormal matrix, row by row";
    const auto values = ParseNumbers("--direction", g.direction, counts, expected);
    const unsigned int n = values.size() == 9 ? 3 : Dimension;
    for (unsigned int r = 0; r < n; ++r)
      for (unsigned int c = 0; c < n; ++c)
      {
        const double v = values[r * n + c];
        if (!std::isfinite(v))
          Bad("--direction", Quoted(g.direction), expected);
        if (r < Dimension && c < Dimension)
          g.directionMatrix(r, c) = v;
        else if (v != (r == c ? 1. : 0.))
          Bad("--direction", Quoted(g.direction), "a direction that keeps the projection axis apart (third row and column 0,0,1)");
      }
    // Orthonormal: D^T D = I.
    for (unsigned int a = 0; a < Dimension; ++a)
      for (unsigned int b = 0; b < Dimension; ++b)
      {
        double dot = 0.;
        for (unsigned int r = 0; r < Dimension; ++r)
          dot += g.directionMatrix(r, a) * g.directionMatrix(r, b);
        if (!(std::abs(dot - (a == b ? 1. : 0.)) <= 1e-6))
          Bad("--direction", Quoted(g.direction), expected + " (its columns must be unit vectors at right angles)");
      }
  }

  // Centred by default: origin = -D (N-1)/2 s, so that the grid's centre is at 0 whatever its
  // direction; the axes --origin gives replace that.
  g.origins.assign(Dimension, 0.);
  for (unsigned int r = 0; r < Dimension; ++r)
    for (unsigned int c = 0; c < Dimension; ++c)
      g.origins[r] -= g.directionMatrix(r, c) * 0.5 * (g.sizes[c] - 1.) * g.spacings[c];
  if (!g.origin.empty())
  {
    std::vector<std::size_t> counts;
    for (std::size_t n = 1; n <= (detector ? 3u : Dimension); ++n)
      counts.push_back(n);
    const std::string expected = detector ? "U[,V] in mm" : "X[,Y[,Z]] in mm";
    const auto values = ParseNumbers("--origin", g.origin, counts, expected);
    for (std::size_t d = 0; d < values.size(); ++d)
    {
      if (!std::isfinite(values[d]))
        Bad("--origin", Quoted(g.origin), expected + " (finite values)");
      if (d < Dimension)
        g.origins[d] = values[d];
    }
  }
}

/** Sets a source's (or an image's) size, spacing, origin and direction from a validated grid; the
 * third axis of a detector grid gets `projections` projections, spacing 1 and origin 0. */
template <typename TSource, unsigned int Dimension>
void
ApplyGrid(TSource * source, const GridOptions<Dimension> & g, unsigned int projections = 0)
{
  using ImageType = typename TSource::OutputImageType;
  typename ImageType::SizeType size;
  typename ImageType::SpacingType spacing;
  typename ImageType::PointType origin;
  typename ImageType::DirectionType direction;
  direction.SetIdentity();
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    size[d] = g.sizes[d];
    spacing[d] = g.spacings[d];
    origin[d] = g.origins[d];
    for (unsigned int c = 0; c < Dimension; ++c)
      direction(d, c) = g.directionMatrix(d, c);
  }
  if (Dimension == 2)
  {
    size[2] = projections;
    spacing[2] = 1.;
    origin[2] = 0.;
  }
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
  source->SetDirection(direction);
}

/** "128 x 128 x 128 voxels of 1 x 1 x 1 mm from (-63.5, -63.5, -63.5) mm" and ", direction ..." when
 * it is not the identity. */
template <typename TImage>
std::string
DescribeGrid(const TImage * image, const std::string & pixels)
{
  std::ostringstream text;
  const auto size = image->GetLargestPossibleRegion().GetSize();
  const auto & spacing = image->GetSpacing();
  const auto & origin = image->GetOrigin();
  text << size[0] << " x " << size[1] << " x " << size[2] << " " << pixels << " of " << spacing[0] << " x " << spacing[1]
       << " x " << spacing[2] << " mm from (" << origin[0] << ", " << origin[1] << ", " << origin[2] << ") mm";
  typename TImage::DirectionType identity;
  identity.SetIdentity();
  if (image->GetDirection() != identity)
  {
    text << ", direction (";
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        text << (r + c ? "," : "") << image->GetDirection()(r, c);
    text << ")";
  }
  return text.str();
}

} // namespace cbct::apps

#endif
