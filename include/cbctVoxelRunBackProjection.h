#ifndef cbctVoxelRunBackProjection_h
#define cbctVoxelRunBackProjection_h

#include "ConeBeamCTExport.h"
#include "cbctFDKBackProjection.hcu"

namespace cbct
{

/** One projection's share of a row of voxel runs, for the CPU's voxel-driven backprojectors (FDK's
 * and the voxel-based one of the iterative methods): for each of `width` voxels along x (indices
 * x0, x0 + 1, ...) at row y, the run of BackProjectionRun voxels along z from z, the projection is
 * sampled where each voxel projects and added to sum[r * width + x] (steps r in [rFirst, rEnd)
 * only), times FDK's distance weight 1/w^2 if asked. Each coordinate is computed with the float
 * operations of the CUDA kernel (HomogeneousAt at the run's first voxel, then steps along z) and
 * sampled with DetectorSample, so every backprojector gives the same sums. */
template <typename TPixel>
struct VoxelRunLaunch
{
  const float * matrix = nullptr;     ///< ConeProjection::matrix of the projection
  const TPixel * projection = nullptr; ///< nx x ny pixels, x fastest; the first is stack pixel (firstColumn, firstRow)
  int nx = 0, ny = 0, firstColumn = 0, firstRow = 0;
  int x0 = 0;             ///< voxel x index of sum column 0
  int width = 0;          ///< voxels along x
  float y = 0.f;          ///< voxel y index of the row
  float z = 0.f;          ///< voxel z index of the runs' first voxel
  int rFirst = 0, rEnd = BackProjectionRun; ///< steps of the run to add
  bool distanceWeight = false; ///< multiply by 1/w^2 (FDK)
  float * sum = nullptr;  ///< BackProjectionRun x width sums, added to
};

/** The reference loop, for any pixel type, over the voxels from xBegin to the end of the row. */
template <typename TPixel>
void
AccumulateVoxelRunScalar(const VoxelRunLaunch<TPixel> & l, int xBegin = 0)
{
  const float * m = l.matrix;
  for (int x = xBegin; x < l.width; ++x)
  {
    float hu, hv, hw;
    HomogeneousAt(m, static_cast<float>(l.x0 + x), l.y, l.z, hu, hv, hw);
    for (int r = 0; r < BackProjectionRun; ++r, hu += m[2], hv += m[6], hw += m[10])
    {
      if (r < l.rFirst || r >= l.rEnd || !(hw < 0.f))
        continue; // outside the region, or behind the source
      const float inv = 1.f / hw;
      const float sample = DetectorSample(l.projection, l.nx, l.ny, l.firstColumn, l.firstRow, MulRn(hu, inv), MulRn(hv, inv));
      l.sum[r * l.width + x] += l.distanceWeight ? sample * (inv * inv) : sample;
    }
  }
}

template <typename TPixel>
void
AccumulateVoxelRun(const VoxelRunLaunch<TPixel> & launch)
{
  AccumulateVoxelRunScalar(launch);
}

/** float projections: the same sums, eight voxels at a time with AVX2 where the processor has it
 * (bit for bit the reference loop's: the same IEEE operations in each lane, no fused multiply-add).
 * The environment variable CBCT_DISABLE_AVX2 (any value) keeps to the reference loop. */
ConeBeamCT_EXPORT void
AccumulateVoxelRun(const VoxelRunLaunch<float> & launch);

/** Whether AccumulateVoxelRun(float) runs the AVX2 path on this processor. */
ConeBeamCT_EXPORT bool
VoxelRunUsesAvx2();

} // namespace cbct

#endif
