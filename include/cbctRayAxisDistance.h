#ifndef cbctRayAxisDistance_h
#define cbctRayAxisDistance_h

#include "ConeBeamCTExport.h"
#include "cbctDetectorCoordinates.h"
#include "cbctFDKWeighting.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

namespace cbct
{

/** \class RayAxisDistance
 * \brief Signed distance from the rotation axis of the ray through each pixel of one projection.
 *
 * Which rays of a circular scan measure the same line, and so share a redundancy weight, depends on
 * where they pass the rotation axis, not on where they hit the detector. Seen along the axis (the
 * world's y), the ray from the source S through pixel (i, j) is a line of the transaxial plane; its
 * signed distance from the axis is
 *
 *   s(i, j) = ((S x D) . y) / |(D_x, D_z)|,   D = direction of the ray (source to pixel),
 *
 * positive where the ray passes the axis on the +u side at gantry angle 0. The line measured at s
 * from one side of the orbit is measured at -s from the other. Without source offsets or tilts
 * s = SID sin(atan((u - u0) / SDD)), zero at the principal point; with a source offset the zero is
 * where the ray through the axis hits the detector, not the foot of the perpendicular.
 *
 * D is affine in (i, j): D = -L^-1 (u, v, 1) with L the left 3x3 block of the projection matrix
 * (M [X; 1] = L (X - S)), and (u, v) affine in (i, j). So s is the ratio of an affine function and
 * the norm of two affine functions of (i, j), which the weighting kernels evaluate from nine
 * coefficients (Coefficients()). Any projection matrix works: offsets of source and detector, tilts,
 * per-projection distances.
 *
 * On a cylindrical detector centred on the source (IsCylinderCentredOnSource()) the ray of pixel (i, j)
 * leaves the source at the angle gamma = (u - u0) / R across the cylinder's axis and the height
 * dv = v - v0: D is then linear in (sin gamma, dv, cos gamma), and the nine coefficients are over those
 * (CylindricalAxisDistance()) rather than over (i, j, 1). Other cylinders are refused.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT RayAxisDistance
{
public:
  RayAxisDistance(const ThreeDCircularProjectionGeometry * geometry, unsigned int k, const DetectorCoordinates & detector);

  /** s (mm) of the ray through the (continuous) pixel index (i, j). */
  double
  operator()(double i, double j) const;

  /** The continuous column index i of row j where the ray passes the axis at `distance` mm, for
   * a distance within what the rays of that row can reach (|distance| below the source radius). */
  double
  Column(double distance, double j) const;

  /** The nine float coefficients the weighting kernels evaluate: AxisDistance() of (i, j) on a flat
   * panel, CylindricalAxisDistance() of (sin gamma, dv, cos gamma) on a cylinder. */
  AxisDistanceCoefficients
  GetCoefficients() const;

private:
  /** s of the ray at angle gamma and height dv on a cylinder. */
  double
  OnCylinder(double gamma, double dv) const;

  // A cylinder's (gamma, dv) from (i, j, 1), and its radius; zero for a flat panel.
  bool m_Cylindrical = false;
  double m_Gamma[3] = { 0., 0., 0. };
  double m_Dv[3] = { 0., 0., 0. };
  // Rows of the 3x3 map from (i, j, 1) to s's numerator and to D's x and z components.
  double m_Numerator[3];
  double m_X[3];
  double m_Z[3];
};

} // namespace cbct

#endif
