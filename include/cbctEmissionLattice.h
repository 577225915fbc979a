#ifndef cbctEmissionLattice_h
#define cbctEmissionLattice_h

#include "ConeBeamCTExport.h"
#include "cbctEmission.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkImageBase.h>

#include <string>
#include <vector>

namespace cbct
{

/** The collimator's depth-dependent blur: a Gaussian of sigma(d) = sigma0 + slope d (mm) on the
 * detector for activity at distance d (mm) from it. Both 0: no blur. */
struct CollimatorBlur
{
  double sigma0 = 0.; ///< mm at the detector face
  double slope = 0.;  ///< mm of sigma per mm of distance

  bool
  IsOn() const
  {
    return sigma0 > 0. || slope > 0.;
  }
  /** Throws unless both are finite and >= 0. */
  void
  Check() const;
};

/** \class EmissionLattice
 * \brief The emission projector's views (cbctEmission.hcu) for an activity grid, an attenuation map's
 * grid, a projection stack's layout, a geometry and a collimator blur: the CPU operator and the CUDA
 * kernels share them.
 *
 * Per view: the slice lattice parallel to the detector (slices one smallest activity voxel spacing
 * apart, from the activity voxel farthest from the detector towards the detector, reaching the
 * attenuation map's near side too, and never behind the detector plane), where every activity voxel
 * falls in it, where each lattice point lies in the attenuation map, and the blur of each step as
 * discrete Gaussian taps (shared between views that need the same ones).
 *
 * Limits of the slice recursion: the detector is flat and the slices are planes parallel to it, which
 * every geometry of this project satisfies (parallel and cone beam, offsets, tilts, bare matrices).
 * Activity behind the detector plane is not seen (the collimator cannot be inside the patient), nor
 * in cone beam activity closer than one slice to the source's plane or beyond it. The blur acts on the
 * detector plane (sigma in detector mm), the model of a parallel-hole collimator; for cone beam it is
 * the same Gaussian on the detector, an approximation of a converging collimator's response.
 * Between two slices the blurred buffer is attenuated by the next slice's transmission at the
 * buffer's pixels (Zeng and Gullberg's rotation-based approximation: a photon's lateral spread is
 * attenuated along the central ray's neighbours). In-plane sampling is the detector's pixels: choose
 * pixels about the size of the voxels (as SPECT does), or finer.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT EmissionLattice
{
public:
  /** `attenuation`: the map's grid, or null for none; `projections`: the stack's layout (no pixel is
   * read). Throws for a bad blur or a volume with no voxel. */
  EmissionLattice(const itk::ImageBase<3> * activity,
                  const itk::ImageBase<3> * attenuation,
                  const itk::ImageBase<3> * projections,
                  const ThreeDCircularProjectionGeometry * geometry,
                  const CollimatorBlur & blur);

  const std::vector<EmissionView> &
  Views() const
  {
    return m_Views;
  }
  const std::vector<EmissionBlurStep> &
  BlurSteps() const
  {
    return m_BlurSteps;
  }
  const std::vector<float> &
  Taps() const
  {
    return m_Taps;
  }
  int
  Columns() const
  {
    return m_Columns;
  }
  int
  Rows() const
  {
    return m_Rows;
  }
  /** Activity voxels along x, y, z. */
  const int *
  ActivitySize() const
  {
    return m_ActivitySize;
  }
  /** Attenuation map voxels along x, y, z (zeros without a map). */
  const int *
  AttenuationSize() const
  {
    return m_AttenuationSize;
  }
  /** Lattice cells of view k: slices x columns x rows. */
  std::size_t
  Cells(unsigned int k) const
  {
    return static_cast<std::size_t>(m_Views[k].slices) * m_Columns * m_Rows;
  }

  /** Throws for the first voxel of `mu` that is negative or not finite, naming it. */
  static void
  CheckAttenuation(const itk::Image<float, 3> * mu);

private:
  std::vector<EmissionView> m_Views;
  std::vector<EmissionBlurStep> m_BlurSteps;
  std::vector<float> m_Taps;
  int m_Columns = 0, m_Rows = 0;
  int m_ActivitySize[3] = { 0, 0, 0 };
  int m_AttenuationSize[3] = { 0, 0, 0 };
};

} // namespace cbct

#endif
