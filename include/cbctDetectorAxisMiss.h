#ifndef cbctDetectorAxisMiss_h
#define cbctDetectorAxisMiss_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImageBase.h>

#include <optional>
#include <string>

namespace cbct
{

/** \class DetectorAxisMiss
 * \brief A projection in which the detector lies wholly on one side of the rotation axis.
 *
 * FDK reconstructs a voxel at distance r from the rotation axis from the rays that pass the axis at
 * |s| <= r (DisplacedDetectorCoverage): a half-fan detector that reaches the axis, or just past it,
 * still sees every voxel from one side of the orbit or the other. A detector whose outer edges both
 * pass the axis on the same side in a projection leaves the voxels near the axis without a ray from
 * that view; where that happens in every view (a detector shifted wholly off the axis), they have no
 * data at all, and FDK's redundancy weights, which assume each line is measured from one side or the
 * other, are wrong everywhere. Such a detector is almost always a misreading of the files: a header
 * whose spacing alone was negated (ITK reads a negative spacing as the axis flipped about the first
 * pixel: such an edited MetaImage once reconstructed with MAE 0.34 and exit status 0), or a wrong origin.
 *
 * Find() decides from DisplacedDetectorCoverage's least reach on each side over every projection (its
 * Negative() or Positive() below minus its Tolerance(), one pixel at the axis), and then names the
 * first projection that misses and its numbers. Parallel-beam geometries are not checked (every ray
 * is then parallel to the principal one; FDK refuses them).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DetectorAxisMiss
{
public:
  /** The first projection of `geometry` in which the detector of `projections` (its layout: origin,
   * spacing, size and direction of u and v; no pixel is read) misses the rotation axis by more than a
   * pixel; none when it reaches the axis in every projection, or when the geometry is parallel beam
   * or empty. */
  static std::optional<DetectorAxisMiss>
  Find(const ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections);

  /** The projection's index in the geometry (and in the stack) and its gantry angle in degrees. */
  unsigned int
  Projection() const
  {
    return m_Projection;
  }
  double
  GantryAngleDegrees() const
  {
    return m_GantryAngleDegrees;
  }
  /** The detector's reach in that projection (mm at the axis, the least over its top, middle and bottom
   * rows, as DisplacedDetectorCoverage measures it) on the side of negative and of positive s; one of
   * them is below -Tolerance(): that side is not reached. */
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
  /** How far (mm at the axis) the detector's nearer edge stays from the axis. */
  double
  Gap() const
  {
    return -(m_Negative < m_Positive ? m_Negative : m_Positive);
  }
  /** One detector pixel at the axis (mm), DisplacedDetectorCoverage::Tolerance(). */
  double
  Tolerance() const
  {
    return m_Tolerance;
  }
  /** The detector's extent in u (mm): its outer pixel edges on the middle row, lower first. */
  double
  LowU() const
  {
    return m_LowU;
  }
  double
  HighU() const
  {
    return m_HighU;
  }
  /** The u (mm) at which the rotation axis projects on the middle row (outside [LowU(), HighU()]); NaN
   * when no ray of that row meets the axis. */
  double
  AxisU() const
  {
    return m_AxisU;
  }

  /** One clause for an error or a warning: "in projection 0 (gantry angle 0 deg) the detector's columns
   * span u = -376 to -120 mm (outer pixel edges) but the rotation axis projects at u = 0 mm: its rays
   * pass the axis 79.6 to 236.9 mm away on one side only (reach 236.9 mm on the negative side, -79.6 mm
   * on the positive side: not reached)". */
  std::string
  Describe() const;

private:
  DetectorAxisMiss() = default;

  unsigned int m_Projection = 0;
  double m_GantryAngleDegrees = 0.;
  double m_Negative = 0.;
  double m_Positive = 0.;
  double m_Tolerance = 0.;
  double m_LowU = 0.;
  double m_HighU = 0.;
  double m_AxisU = 0.;
};

} // namespace cbct

#endif
