#ifndef cbctDisplacedDetectorCoverage_h
#define cbctDisplacedDetectorCoverage_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImageBase.h>

#include <string>

namespace cbct
{

/** \class DisplacedDetectorCoverage
 * \brief How far the detector reaches on each side of the rotation axis, and whether a full scan
 * therefore needs displaced-detector weighting.
 *
 * Reach is measured where it decides redundancy: as the distance s from the rotation axis at which
 * a ray passes it (RayAxisDistance), for the detector's outer pixel edges, on its top, middle and
 * bottom rows, in every projection; Negative() and Positive() are the least reach on each side over
 * all projections. So a source offset (the ray through the axis is not the principal ray), detector
 * offsets, distances that vary per projection and tilts all count.
 *
 * The rule: a voxel at distance r from the axis is seen by rays with |s| <= r. Where every
 * projection reaches r on both sides, each line through the voxel is measured twice, from opposite
 * sides of the orbit, and plain FDK is right. Beyond the near side's reach and up to the wide side's,
 * lines are measured once, and only the displaced-detector weights (Wang's: the band within the near
 * reach shared smoothly between opposite views, the rest weighted 2 on the wide side and 0 on the
 * near side) reconstruct those voxels. So the weighting is on when the field of view being
 * reconstructed, capped at the wide side's reach, extends more than a pixel (at the axis) past the
 * near side's reach; otherwise it is off, because weighting a detector that sees the volume from both
 * sides only adds the transition's discretisation error (MAE 0.019 instead of 0.016 on a 20 mm
 * detector offset, Shepp-Logan, 128^3).
 *
 * The field of view being reconstructed is ReconstructedRadius() of the volume: the disc inscribed
 * in the volume's transaxial (x-z) extent, as far from the axis as it reaches (for a volume centred on
 * the axis, half its smaller x-z side). The corners of a square grid are outside any scanner's field
 * of view, as in CT's usual reconstruction circle. With no volume given the field of view is infinite,
 * which is RTK's rule: weight whenever the detector reaches a pixel further on one side.
 *
 * Limits: the wide side must be the same in every projection; a detector whose off-centre side
 * changes during the scan gets the band that every projection covers on both sides only.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DisplacedDetectorCoverage
{
public:
  /** The reach of `projections`' detector (its layout; no pixel is read) in every projection of
   * `geometry`, against a field of view of radius `fieldOfView` mm. */
  DisplacedDetectorCoverage(const ThreeDCircularProjectionGeometry * geometry,
                            const itk::ImageBase<3> * projections,
                            double fieldOfView);

  /** The radius of the field of view a volume asks for: the distance from the rotation axis to the
   * far side of the disc inscribed in its x-z extent (voxel centres). */
  static double
  ReconstructedRadius(const itk::ImageBase<3> * volume);

  /** The least reach (mm at the axis) over all projections on the side of negative and positive s;
   * negative when some projection's detector does not reach the axis on that side. */
  double
  Negative() const
  {
    return m_Negative;
  }
  double
  Positive() const
  {
    return m_Positive;
  }
  double
  FieldOfView() const
  {
    return m_FieldOfView;
  }
  /** One detector pixel at the axis (mm): reach differences below it are not an offset. */
  double
  Tolerance() const
  {
    return m_Tolerance;
  }

  /** Whether the detector's near side leaves part of the field of view to be seen from one side. */
  bool
  NeedsWeighting() const;
  /** The weights' overlap half-width (mm at the axis): the near side's reach, at least one pixel. */
  double
  Overlap() const;
  /** +1 when the detector reaches further at positive s, -1 otherwise. */
  double
  WideSide() const
  {
    return m_Positive >= m_Negative ? 1. : -1.;
  }

  /** One sentence for --verbose: the reach on each side, the field of view and the decision, or,
   * when the weighting is switched off (`allowed` false), what that leaves out. */
  std::string
  Describe(bool allowed = true) const;

private:
  double m_Negative = 0.;
  double m_Positive = 0.;
  double m_FieldOfView = 0.;
  double m_Tolerance = 0.;
};

} // namespace cbct

#endif
