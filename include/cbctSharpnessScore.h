#ifndef cbctSharpnessScore_h
#define cbctSharpnessScore_h

#include "ConeBeamCTExport.h"

#include <itkImage.h>

#include <string>

namespace cbct
{

/** \class SharpnessScore
 * \brief How sharp a reconstructed slice is: the focus functions of autofocus, applied to a
 * tomographic slice as a function of the geometry it was reconstructed with.
 *
 * A wrong axis offset or roll reconstructs each edge twice, half as strong and a few voxels apart
 * (the "tuning fork" of a misplaced axis), and blurs small features into arcs; the image's
 * high-frequency energy drops. Groen, Young and Ligthart (Cytometry 6(2):81-91, 1985, "A comparison
 * of different focus functions for use in autofocus algorithms") found the squared gradient and the
 * variance among the most reliable focus functions; Kingston, Sakellariou, Varslot, Myers and
 * Sheppard (Med. Phys. 38(9):4934-4945, 2011, "Reliable automatic alignment of tomographic
 * projection data by passive auto-focus") reconstruct with candidate alignments and maximise such a
 * measure, as SharpnessCalibration does. Entropy (Donath et al., JOSA A 23(5):1048, 2006; TomoPy's
 * find_center) depends on its histogram's bins and was not kept.
 *
 *  - GradientEnergyPerVariation (default, "edges"): the sum of |grad f|^2 over the sum of |grad f|
 *    (gradient energy per unit of total variation, Rudin, Osher and Fatemi's measure of edges, Physica D
 *    60:259-268, 1992): the mean steepness of the edges, whatever their number and length. An edge
 *    doubled into two halves keeps its total variation and halves its energy; streaks of a far-off
 *    candidate add many faint gradients, which lower it; and it does not change when an axis error
 *    scales a half fan's outer region radially (edges moved, not doubled), where the plain gradient
 *    energy follows the edges' length (measured: it rose steadily with the offset instead of peaking).
 *  - GradientEnergy: the mean over the field of view of |grad f|^2, central differences along x and z
 *    in voxels (the slice's in-plane axes).
 *  - Variance: the mean of (f - mean)^2 over the field of view (Kingston et al.'s choice); it reacts
 *    to large structures as well, and so is smoother but less peaked.
 *
 * Scores are taken over the voxels within `radius` mm of the rotation axis (the world's y axis), so
 * that the truncated corners outside the scanner's field of view do not count. Higher is sharper.
 * Slices are the volume's x-z planes; a slab of several slices gives their mean. A non-finite voxel
 * makes the score NaN.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT SharpnessScore
{
public:
  using ImageType = itk::Image<float, 3>;

  enum class Measure
  {
    GradientEnergy,
    Variance,
    GradientEnergyPerVariation
  };

  /** The score of the slices of `slices` (x-z planes) within `radius` mm of the y axis. Throws when no
   * voxel lies within the radius. */
  static double
  Compute(Measure measure, const ImageType * slices, double radius);

  /** "edges", "gradient" or "variance", as the apps' --score spells them. */
  static std::string
  Name(Measure measure);
  /** What is scored, for reports: "gradient energy per total variation", "gradient energy", "variance". */
  static std::string
  Description(Measure measure);
  /** The measure named `name` (Name()'s spelling); throws naming the choices. */
  static Measure
  Parse(const std::string & name);
};

} // namespace cbct

#endif
