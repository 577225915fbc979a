#ifndef cbctCanonicalGrid_h
#define cbctCanonicalGrid_h

#include "cbctInputChecks.h"

#include <itkFlipImageFilter.h>
#include <itkPermuteAxesImageFilter.h>

#include <cmath>
#include <sstream>
#include <string>

namespace cbct
{

/** The image on a canonical grid: positive spacing and the identity direction, every pixel at the
 * same physical place as in `image` (ITK's FlipImageFilter and PermuteAxesImageFilter reorder the
 * pixels; no interpolation). The filters of ConeBeamCT expect such grids (the FFT ramp filter
 * filters along the first axis, which must be the detector's u).
 *
 * A negative spacing is a flipped axis (ITK puts a pixel at origin + direction (spacing x index),
 * so spacing -s is the same grid as spacing s with that direction column negated); a direction whose
 * columns are the world's axes, negated or swapped, is a flip or a permutation. Anything else throws
 * itk::ExceptionObject naming `what` (e.g. "spacing of projections.mha"): a zero or non-finite
 * spacing, a non-finite origin, an oblique direction (which would need resampling).
 *
 * `projectionStack`: the image is a stack of projections, whose third axis counts projections and
 * has no physical meaning: its spacing is left as it is (readers of stacks set it) and its direction
 * becomes +1; it may not be mixed with the detector's axes.
 *
 * Returns `image` itself when it is canonical already (no copy).
 */
template <typename TImage>
typename TImage::Pointer
CanonicalGrid(TImage * image, const std::string & what, bool projectionStack)
{
  constexpr unsigned int Dimension = TImage::ImageDimension;
  const unsigned int axes = projectionStack ? 2 : Dimension; // the axes put in canonical form
  const auto & spacing = image->GetSpacing();
  const auto & origin = image->GetOrigin();
  const auto & direction = image->GetDirection();
  auto text = [](const auto & value) {
    std::ostringstream out;
    out << value;
    return out.str();
  };
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    if (d < axes && (!std::isfinite(spacing[d]) || spacing[d] == 0.))
      ThrowBadParameter("spacing of " + what, text(spacing), "finite, non-zero values");
    if (!std::isfinite(origin[d]))
      ThrowBadParameter("origin of " + what, text(origin), "finite values");
  }
  // The direction with negative spacings folded in; each of its first `axes` columns must be a
  // world axis, and (for projections) the projection axis must stay apart.
  typename TImage::DirectionType folded = direction;
  typename TImage::SpacingType positive = spacing;
  for (unsigned int c = 0; c < axes; ++c)
    if (spacing[c] < 0.)
    {
      positive[c] = -spacing[c];
      for (unsigned int r = 0; r < Dimension; ++r)
        folded(r, c) = -folded(r, c);
    }
  itk::FixedArray<unsigned int, Dimension> order;
  itk::FixedArray<bool, Dimension> flip;
  for (unsigned int d = 0; d < Dimension; ++d)
  {
    order[d] = d;
    flip[d] = false;
  }
  bool canonical = true;
  if (projectionStack)
  {
    for (unsigned int r = 0; r + 1 < Dimension; ++r)
      if (std::abs(direction(r, Dimension - 1)) > 1e-6 || std::abs(direction(Dimension - 1, r)) > 1e-6)
        ThrowBadParameter("direction of " + what, text(direction),
                          "the detector's u and v along the first two axes, possibly flipped or swapped, and the "
                          "projections along the third");
    canonical = direction(Dimension - 1, Dimension - 1) == 1.;
  }
  for (unsigned int c = 0; c < axes; ++c)
  {
    int world = -1;
    for (unsigned int r = 0; r < Dimension; ++r)
    {
      const double v = folded(r, c);
      if (std::abs(std::abs(v) - 1.) <= 1e-6 && world < 0)
        world = static_cast<int>(r);
      else if (std::abs(v) > 1e-6)
        world = static_cast<int>(Dimension); // oblique
    }
    if (world < 0 || world >= static_cast<int>(axes))
      ThrowBadParameter("direction of " + what, text(direction),
                        projectionStack
                          ? "the detector's u and v along the first two axes, possibly flipped or swapped, and the "
                            "projections along the third"
                          : "the world's axes, possibly flipped or swapped (an oblique grid needs resampling first)");
    order[static_cast<unsigned int>(world)] = c; // output axis `world` is input axis c
    if (folded(static_cast<unsigned int>(world), c) < 0.)
      flip[static_cast<unsigned int>(world)] = true;
    canonical = canonical && world == static_cast<int>(c) && !flip[c] && spacing[c] > 0.;
  }
  if (canonical)
    return image;

  // The same pixels with the signs of the spacing folded into the direction.
  auto folding = TImage::New();
  folding->Graft(image);
  folding->SetSpacing(positive);
  folding->SetDirection(folded);
  auto permute = itk::PermuteAxesImageFilter<TImage>::New();
  permute->SetInput(folding);
  permute->SetOrder(order);
  auto flipper = itk::FlipImageFilter<TImage>::New();
  flipper->SetInput(permute->GetOutput());
  flipper->SetFlipAxes(flip);
  flipper->FlipAboutOriginOff(); // every pixel stays where it is in the world
  flipper->Update();
  typename TImage::Pointer result = flipper->GetOutput();
  result->DisconnectPipeline();
  // What is left is the identity up to rounding (and, for projections, the projection axis's sign).
  typename TImage::DirectionType identity;
  identity.SetIdentity();
  result->SetDirection(identity);
  return result;
}

} // namespace cbct

#endif
