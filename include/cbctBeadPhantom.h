#ifndef cbctBeadPhantom_h
#define cbctBeadPhantom_h

#include "cbctGeometricPhantom.h"

#include <array>
#include <string>
#include <vector>

namespace cbct
{

/** \class BeadPhantom
 * \brief A geometry-calibration phantom: metal beads (ball bearings) at known places in a plastic
 * body, and the beads as calibration sees them.
 *
 * The phantom is a GeometricPhantom whose `bead` solids are the markers and whose other solids
 * (a PMMA cylinder) are the body; its description is therefore the phantom text file of
 * cbctGeometricPhantom.h, which cbct-simulate projects and bead calibration reads.
 *
 * The built-in design (SetToHelix) follows the C-arm phantoms whose beads lie on a helix around the
 * cylinder's axis and whose bead sizes spell a code (Siemens' PDS-2, Rougee et al. 1993): here 24
 * steel beads, 30 degrees and 4 mm apart along a helix of radius 40 mm about the y axis (two turns,
 * heights -46 to +46 mm), in a PMMA cylinder of radius 45 mm and height 120 mm. Small beads are 1 mm
 * across, large ones 2 mm; reading the sizes along y gives 110001101110101000010010 (1: large),
 * 24 bits of a maximal-length shift-register sequence, so that any 5 consecutive beads are a
 * pattern that occurs once. Every bead sits at its own height, so that beads never cover each other
 * on a circular orbit about y. Densities are attenuation per mm at about 80 keV: PMMA 0.02, steel
 * 0.47 (a bead's density is steel's less PMMA's: densities add up).
 *
 * Calibration identifies the beads by their predicted positions and their size class, and needs
 * the beads to differ enough: at least 6 beads, none overlapping another, and every bead's size
 * class known (beads more than 1.3 times the smallest radius are large). GetBeads() lists the
 * beads by increasing height y (ties by x, then z).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BeadPhantom : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BeadPhantom);

  using Self = BeadPhantom;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(BeadPhantom, itk::Object);

  /** One bead: centre (mm), radius (mm), density (per mm, added to the body's), size class. */
  struct Bead
  {
    std::array<double, 3> center{ { 0., 0., 0. } };
    double radius = 0.;
    double density = 0.;
    bool large = false;
  };

  /** The built-in helix (see the class comment); every length in mm, densities per mm. */
  struct HelixDesign
  {
    unsigned int beads = 24;
    double helixRadius = 40.;
    double angleStepDegrees = 30.;
    double axialStep = 4.;
    double smallRadius = 0.5;
    double largeRadius = 1.0;
    /** '1' marks a large bead, bead 0 first (lowest); repeated if shorter than `beads`. */
    std::string sizeCode = "110001101110101000010010";
    double cylinderRadius = 45.;
    double cylinderHalfHeight = 60.;
    double plasticDensity = 0.02;
    double steelDensity = 0.47;
  };

  /** Replaces the phantom with the helix `design`; throws naming a bad value. */
  void
  SetToHelix(const HelixDesign & design);
  void
  SetToHelix()
  {
    this->SetToHelix(HelixDesign());
  }

  /** Takes the beads and the body of `phantom` (copied); throws when its beads cannot be told apart
   * (fewer than 6, overlapping, non-positive density). */
  void
  SetPhantom(const GeometricPhantom * phantom);

  /** Reads a phantom text file (cbctGeometricPhantom.h) and takes it as SetPhantom() does. */
  void
  ReadFromFile(const std::string & path);

  /** The whole phantom (body and beads), to project or to write. */
  const GeometricPhantom *
  GetPhantom() const
  {
    return m_Phantom.GetPointer();
  }

  /** The beads by increasing y. */
  const std::vector<Bead> &
  GetBeads() const
  {
    return m_Beads;
  }

  /** Whether the beads come in two size classes (a code); false when they are all alike. */
  bool
  HasSizeCode() const
  {
    return m_HasSizeCode;
  }

  /** The shortest run of consecutive beads (along y) whose size pattern occurs only once along the
   * phantom: how many neighbours identify a bead by size alone; the bead count when no run does. */
  unsigned int
  GetIdentifyingRun() const
  {
    return m_IdentifyingRun;
  }

  /** The largest bead radius (mm). */
  double
  GetLargestRadius() const;

  /** The smallest distance between two bead centres (mm). */
  double
  GetSmallestSpacing() const
  {
    return m_SmallestSpacing;
  }

  /** A one-line summary: bead count, sizes, extent. */
  std::string
  Summary() const;

protected:
  BeadPhantom();
  ~BeadPhantom() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  GeometricPhantom::Pointer m_Phantom;
  std::vector<Bead> m_Beads;
  bool m_HasSizeCode = false;
  unsigned int m_IdentifyingRun = 0;
  double m_SmallestSpacing = 0.;
};

} // namespace cbct

#endif
