#ifndef cbctFieldOfViewMask_h
#define cbctFieldOfViewMask_h

#include "ConeBeamCTExport.h"
#include "cbctFieldOfView.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkImageRegion.h>

#include <string>
#include <vector>

namespace cbct
{

/** \class FieldOfViewMask
 * \brief The voxels of a region of the volume that every projection of a scan sees: its field of
 * view, as one interval per column of voxels.
 *
 * A voxel is in the field of view when, in every projection of the geometry, it lies in front of the
 * source and projects onto the detector (the outer edges of its pixels: first index - 0.5 to last
 * index + 0.5 along u and v). For a full circular scan that is the cylinder about the rotation axis
 * that the detector's width covers, cut by the two cones whose apex is the source (the top and bottom
 * corners no projection reaches); for a short scan the region that the arc's projections all cover;
 * for a displaced detector (half fan) the one that the weighted projections, widened to the wide side
 * (FDKWeightProjectionFilter's padding), cover. Any matrix works: the set is an intersection of four
 * half-spaces per projection, so it is convex and meets each column of voxels in one interval
 * (ClipToFieldOfView(), the very function the CUDA kernels run).
 *
 * Columns run along y (axis 1) where every matrix leaves u and w unchanged along y (ColumnsAllowed():
 * a circular orbit without out-of-plane tilt), else along z (axis 2), as the backprojectors' runs do,
 * so that a run of voxels wholly outside is skipped with one test.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT FieldOfViewMask
{
public:
  using RegionType = itk::ImageRegion<3>;

  /** The columns of `region` (voxel indices of the volume the matrices map) along `axis` (1 or 2),
   * clipped to the field of view of `matrices` on `detector`. Columns are computed in parallel
   * (ITK's global thread pool). */
  void
  Compute(const std::vector<ConeProjection> & matrices, const FieldOfViewDetector & detector, int axis,
          const RegionType & region);

  /** The axis of the columns for these matrices: 1 (y) when every one leaves u and w unchanged along
   * y, else 2 (z). */
  static int
  AxisFor(const std::vector<ConeProjection> & matrices);

  /** The detector edges of a projection stack (its largest possible region, in stack pixel indices). */
  static FieldOfViewDetector
  DetectorOf(const itk::ImageBase<3> * projections);

  /** The matrices from voxel indices of `volume` to stack pixel indices of `projections` for every
   * projection of `geometry` (VoxelToPixelMatrices()), only the images' information used. */
  static std::vector<ConeProjection>
  MatricesFor(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
              const ThreeDCircularProjectionGeometry * geometry);

  int
  GetAxis() const
  {
    return m_Axis;
  }
  const RegionType &
  GetRegion() const
  {
    return m_Region;
  }
  /** The column through voxel (x, y, z) of the region (its coordinate along the axis ignored). */
  const FieldOfViewColumn &
  ColumnAt(long long x, long long y, long long z) const;
  /** Whether voxel (x, y, z) of the region is in the field of view. */
  bool
  Inside(long long x, long long y, long long z) const;
  /** Voxels of the region in the field of view. */
  std::size_t
  GetNumberOfInsideVoxels() const
  {
    return m_Inside;
  }
  /** Sets every voxel of `image`'s buffered region that lies in this mask's region and outside the
   * field of view to `value` (0 or NaN). */
  void
  Blank(itk::Image<float, 3> * image, float value) const;

  /** "zero" or "nan" (the command line's and Python's spelling: --fov, --fov nan); anything else
   * throws naming the value. */
  static FieldOfViewMode
  ParseMode(const std::string & name);
  static std::string
  ModeName(FieldOfViewMode mode);
  /** The value written outside: 0 or NaN. */
  static float
  OutsideValue(FieldOfViewMode mode);

private:
  int m_Axis = 1;
  RegionType m_Region;
  std::vector<FieldOfViewColumn> m_Columns; // [b - b0][a - a0], a the x index
  std::size_t m_Inside = 0;
};

} // namespace cbct

#endif
