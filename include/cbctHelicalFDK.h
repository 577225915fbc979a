#ifndef cbctHelicalFDK_h
#define cbctHelicalFDK_h

#include "ConeBeamCTExport.h"
#include "cbctCylindricalDetector.hcu"
#include "cbctFDKBackProjection.hcu"
#include "cbctHelicalFDKWeights.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cbct
{

/** \class HelicalFDKSetup
 * \brief What helical FDK needs of a helical geometry and its detector: the helix (HelicalScan) and
 * each view's unwrapped azimuth.
 *
 * Helical FDK (cbctHelicalFDKWeights.hcu) computes each voxel's conjugate views from the helix itself:
 * the source must turn at one distance from the axis with one SDD, its height a straight line in its
 * azimuth (HelicalOrbit), with no source offset across the axis and no tilt, on a flat panel or a
 * cylinder centred on the source. Of() refuses anything else, naming the projection and the value. It
 * also refuses a pitch factor (feed per turn over the detector's height at the isocentre) above 2,
 * where even the lines through the axis are measured by no view: the helix leaves gaps.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HelicalFDKSetup
{
public:
  /** For `geometry` (helical: HelicalOrbit::Of(geometry).IsHelical()) and the detector of `projections`
   * (its rows' extent; no pixel is read). `flatTop`: Q of the weight function, in [0, 1). */
  static HelicalFDKSetup
  Of(const ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections, double flatTop = 0.6);

  const HelicalScan &
  Scan() const
  {
    return m_Scan;
  }
  /** Each projection's view: its unwrapped azimuth (radians, from 0 at projection 0) and the sine and
   * cosine of its source's azimuth. */
  const std::vector<HelicalView> &
  Views() const
  {
    return m_Views;
  }
  /** The view of the helix at unwrapped azimuth `lambda` (acquired or not). */
  HelicalView
  ViewAt(double lambda) const;
  /** The pitch factor: the feed per turn over the detector's height at the isocentre. */
  double
  Pitch() const
  {
    return m_Pitch;
  }
  /** "helical FDK: pitch 1.00 (20.0 mm per turn, the detector 20.0 mm high at the isocentre), 8.0 turns" */
  std::string
  Describe() const;

  /** The angular share of each projection (radians) along the helix: half the unwrapped azimuth to its
   * neighbours (the ends: half a step each side). FDK's weighting scales each projection by it, as it
   * scales a circle's by ThreeDCircularProjectionGeometry::GetAngularGaps(). */
  static std::vector<double>
  AngularGaps(const ThreeDCircularProjectionGeometry * geometry);

private:
  HelicalScan m_Scan;
  std::vector<HelicalView> m_Views;
  double m_Pitch = 0.;
  double m_Turns = 0.;
  double m_Feed = 0.;
};

/** Whether helical FDK applies to `geometry` (its orbit is helical). */
ConeBeamCT_EXPORT bool
IsHelicalGeometry(const ThreeDCircularProjectionGeometry * geometry);

/** The angular shares FDK's weighting scales each projection by: the helix's (HelicalFDKSetup::
 * AngularGaps()) for a helical orbit, else the circle's (GetAngularGaps()). */
ConeBeamCT_EXPORT std::vector<double>
FDKAngularGaps(const ThreeDCircularProjectionGeometry * geometry);

/** Helical FDK's backprojection of `region` of `output`, on the CPU: each voxel's samples of the
 * filtered projections (a flat panel's `matrices`, or a centred cylinder's `cylinders` with `grid`;
 * the other empty) times FDK's distance weight and the helical weight 2 w(x, lambda)
 * (HelicalColumnWeights), summed over batches of BackProjectionBatch projections before each batch is
 * added to the voxel. `voxelToWorld`: the volume's index-to-mm matrix (row major 3x4, its y axis along
 * the world's y). A column of voxels along y skips the views whose rows it does not reach. */
template <typename TPixel, typename TVolume, typename TProgress>
void
BackProjectHelix(const HelicalScan & scan, const std::vector<HelicalView> & views, const std::vector<ConeProjection> & matrices,
                 const std::vector<CylindricalProjection> & cylinders, const CylindricalDetectorGrid & grid,
                 const double voxelToWorld[12], const TPixel * data, int nx, int ny, int firstColumn, int firstRow,
                 TVolume * output, const typename TVolume::RegionType & region, TProgress & progress)
{
  const int width = static_cast<int>(region.GetSize(0)), height = static_cast<int>(region.GetSize(1));
  const std::size_t slice = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  const bool cylindrical = !cylinders.empty();
  const std::size_t count = cylindrical ? cylinders.size() : matrices.size();
  std::vector<float> sum(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  const double * m = voxelToWorld;
  const float fy0 = static_cast<float>(region.GetIndex(1));
  auto index = region.GetIndex();
  for (itk::SizeValueType zi = 0; zi < region.GetSize(2); ++zi)
  {
    index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(zi);
    const float fz = static_cast<float>(index[2]);
    for (std::size_t k = 0; k < count; ++k)
    {
      if (k % BackProjectionBatch == 0)
        std::fill(sum.begin(), sum.end(), 0.f);
      const TPixel * projection = data + k * slice;
      const HelicalView & view = views[k];
      const float lambda = view.lambda;
      for (int xi = 0; xi < width; ++xi)
      {
        const double fx = static_cast<double>(region.GetIndex(0) + xi);
        // World x and z of the column (constant along it), and y at its first voxel and per voxel.
        const float wx = static_cast<float>(m[0] * fx + m[1] * fy0 + m[2] * fz + m[3]);
        const float wz = static_cast<float>(m[8] * fx + m[9] * fy0 + m[10] * fz + m[11]);
        const float wy0 = static_cast<float>(m[4] * fx + m[5] * fy0 + m[6] * fz + m[7]);
        const float dy = static_cast<float>(m[5]);
        HelicalColumnWeights weights;
        weights.Set(scan, view, wx, wz);
        // The column's rows at this view: skip it when none reaches the detector (|q| < 1).
        const float qFirst = weights.qAtY0 + weights.qPerY * wy0;
        const float qLast = weights.qAtY0 + weights.qPerY * (wy0 + dy * static_cast<float>(height - 1));
        if ((qFirst >= 1.f && qLast >= 1.f) || (qFirst <= -1.f && qLast <= -1.f))
          continue;
        float * columnSum = sum.data() + static_cast<std::size_t>(xi) * height;
        for (int yi = 0; yi < height; ++yi)
        {
          const float w = weights.At(scan, lambda, wy0 + dy * static_cast<float>(yi));
          if (w == 0.f)
            continue;
          float hu, hv, hw, i, j, distanceWeight;
          const float fyv = fy0 + static_cast<float>(yi);
          if (cylindrical)
          {
            HomogeneousAt(cylinders[k].matrix, static_cast<float>(fx), fyv, fz, hu, hv, hw);
            if (!(hw < 0.f))
              continue;
            CylindricalPixel(grid, cylinders[k].pixelOffset, hu, hv, hw, i, j, distanceWeight);
          }
          else
          {
            HomogeneousAt(matrices[k].matrix, static_cast<float>(fx), fyv, fz, hu, hv, hw);
            if (!(hw < 0.f))
              continue;
            const float inv = 1.f / hw;
            i = MulRn(hu, inv);
            j = MulRn(hv, inv);
            distanceWeight = inv * inv;
          }
          columnSum[yi] += DetectorSample(projection, nx, ny, firstColumn, firstRow, i, j) * distanceWeight * w;
        }
      }
      if ((k + 1) % BackProjectionBatch == 0 || k + 1 == count)
      {
        for (int yi = 0; yi < height; ++yi)
        {
          index[1] = region.GetIndex(1) + yi;
          auto * out = output->GetBufferPointer() + output->ComputeOffset(index);
          for (int xi = 0; xi < width; ++xi)
            out[xi] += static_cast<typename TVolume::PixelType>(sum[static_cast<std::size_t>(xi) * height + yi]);
        }
      }
    }
    progress.Completed(static_cast<itk::SizeValueType>(width) * static_cast<itk::SizeValueType>(height));
  }
}

} // namespace cbct

#endif
