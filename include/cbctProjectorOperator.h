#ifndef cbctProjectorOperator_h
#define cbctProjectorOperator_h

#include <cstddef>
#include <string>
#include <vector>

namespace cbct
{

/** The forward projectors an iterative method can use; each comes with its exact adjoint. */
enum class ForwardProjectorKind
{
  Joseph,  ///< bilinear in the slice plane, exact along the ray's dominant axis
  RayCast, ///< trilinear samples at a fixed step along the ray (the GPU's 3D texture unit)
  Emission ///< slices parallel to the detector composited with attenuation and collimator blur (EmissionOperator)
};

/** "joseph", "raycast" or "emission" (as the apps' --fp option spells them). */
inline std::string
ToString(ForwardProjectorKind kind)
{
  return kind == ForwardProjectorKind::Joseph ? "joseph" : (kind == ForwardProjectorKind::RayCast ? "raycast" : "emission");
}

/** The backprojector an iterative method pairs with its forward projector. */
enum class BackProjectorKind
{
  Adjoint,   ///< the forward projector's exact transpose (the default; CGLS needs it)
  VoxelBased ///< each voxel samples each projection bilinearly where it projects, as RTK and TIGRE do for SART and OSEM
};

inline std::string
ToString(BackProjectorKind kind)
{
  return kind == BackProjectorKind::Adjoint ? "adjoint" : "voxel";
}

/** \class ProjectorOperator
 * \brief A system matrix A over whole, contiguous float buffers laid out as the volume and
 * projection stack it was made for: Forward() computes A x for chosen projections, Back() A^T y.
 * \ingroup ConeBeamCT
 */
class ProjectorOperator
{
public:
  virtual ~ProjectorOperator() = default;
  virtual std::size_t
  PixelsPerProjection() const = 0;
  virtual std::size_t
  Voxels() const = 0;
  /** projections[k] (+)= A_k volume for each k of `subset` (overwrites when `add` is false). */
  virtual void
  Forward(const float * volume, float * projections, const std::vector<unsigned int> & subset, bool add) const = 0;
  /** volume (+)= sum over k of `subset` of A_k^T projections[k]. */
  virtual void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const = 0;
};

} // namespace cbct

#endif
