#ifndef cbctGeometricPhantom_h
#define cbctGeometricPhantom_h

#include "ConeBeamCTExport.h"

#include <itkObject.h>
#include <itkObjectFactory.h>

#include <array>
#include <string>
#include <vector>

namespace cbct
{

/** \class GeometricPhantom
 * \brief A set of ellipsoids, cylinders and beads with additive densities; exact line integrals and
 * point densities.
 *
 * The 3D Shepp-Logan head phantom (Kak & Slaney's table, densities 2, -0.98, -0.02, ...) is laid out
 * in our world so that its axial slices are x-z planes and its cranio-caudal axis is y, the gantry's
 * rotation axis, as in RTK. Coordinates in the table are fractions of a scale in mm.
 *
 * Text files hold one solid per line, '#' starting a comment:
 * \verbatim
 *   # ellipsoid density  cx cy cz (mm)  ax ay az semi-axes (mm)  [angle about y, degrees]
 *   ellipsoid 1.0   0 0 0   40 50 30   15
 *   # cylinder: axis along y; ax and az the semi-axes of its cross-section, ay half its height
 *   cylinder 0.02   0 0 0   45 60 45
 *   # bead: a sphere of radius r (mm) that geometry calibration looks for (a steel ball bearing)
 *   bead 0.45   40 -46.5 0   0.5
 * \endverbatim
 * Densities add up where solids overlap: a steel bead in a plastic cylinder has the density of steel
 * less that of the plastic. A bead is a sphere for its line integrals; it is kept apart from the
 * other solids so that a bead phantom's description (cbct::BeadPhantom) is this same file.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT GeometricPhantom : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GeometricPhantom);

  using Self = GeometricPhantom;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(GeometricPhantom, itk::Object);

  /** The kind of solid: an ellipsoid, an elliptic cylinder whose axis is y (semiAxes[1] is half its
   * height), or a bead (a sphere: three equal semi-axes). */
  enum class Shape
  {
    Ellipsoid,
    Cylinder,
    Bead
  };

  /** One solid (the name is the first and most common kind). */
  struct Ellipsoid
  {
    Shape shape = Shape::Ellipsoid;
    double density = 0.;
    std::array<double, 3> center{ { 0., 0., 0. } };
    std::array<double, 3> semiAxes{ { 1., 1., 1. } };
    double angleY = 0.; // radians about y: the x semi-axis points along (cos a, 0, sin a)
  };

  /** Adds a solid; semi-axes must be > 0 (and equal for a bead) and every value finite. */
  void
  AddEllipsoid(const Ellipsoid & ellipsoid);

  /** Replaces the ellipsoids with the Shepp-Logan head scaled by `scaleMm` (the outer skull's
   * semi-axes are 0.69, 0.90 and 0.92 times the scale). */
  void
  SetToSheppLogan(double scaleMm);

  /** Multiplies every density by `factor` (finite): e.g. 0.02 turns the Shepp-Logan head's relative
   * densities (about 1 inside) into attenuation per mm near water's. */
  void
  ScaleDensities(double factor);

  /** Replaces the solids with those of a text file (format above); throws naming the line. */
  void
  ReadFromFile(const std::string & path);

  /** Writes the solids to a text file in the format above, with every digit a double needs, so that
   * ReadFromFile() gives them back exactly; `comment` (lines without '#', may be empty) goes first as
   * '#' lines. The file appears only when complete (cbct::AtomicOutput). */
  void
  WriteToFile(const std::string & path, const std::string & comment = std::string()) const;

  const std::vector<Ellipsoid> &
  GetEllipsoids() const
  {
    return m_Ellipsoids;
  }

  /** Integral of the density along the half-line from `source` in direction `direction` (any
   * length; the result is per mm of path), or along the whole line through `source` when
   * `wholeLine` (parallel beam). Exact: ray-ellipsoid (ray-cylinder) intersection. */
  double
  LineIntegral(const std::array<double, 3> & source, const std::array<double, 3> & direction, bool wholeLine = false) const;

  /** Sum of the densities of the solids containing `point`. */
  double
  Density(const std::array<double, 3> & point) const;

protected:
  GeometricPhantom() = default;
  ~GeometricPhantom() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  std::vector<Ellipsoid> m_Ellipsoids;
};

} // namespace cbct

#endif
