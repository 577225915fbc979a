#ifndef cbctColumnBackProjection_h
#define cbctColumnBackProjection_h

#include "ConeBeamCTExport.h"
#include "cbctFDKBackProjection.hcu"

#include <cstddef>
#include <vector>

namespace cbct
{

/** Whether a voxel-to-pixel matrix leaves u and w unchanged along the volume's y axis (exact zeros
 * at m[1] and m[9], as VoxelToPixelMatrices() gives a circular orbit without out-of-plane tilt):
 * then a column of voxels along y projects onto one detector column, and the CPU FDK backprojector
 * walks the volume in such columns (AccumulateColumns()). */
inline bool
ColumnsAllowed(const ConeProjection & projection)
{
  return projection.matrix[1] == 0.f && projection.matrix[9] == 0.f;
}

/** Projections laid out for AccumulateColumns(): each projection transposed (detector columns
 * contiguous, v fastest) with a border of zeros, so that a column of voxels reads two neighbouring
 * detector columns as contiguous memory and no read needs a test for the detector's edge. Column c
 * of the layout holds detector column firstColumn + c - 1 (c = 0 and c = nx + 1 are zeros); row r
 * holds detector row firstRow + r - 2 (rows 0, 1 and ny + 2 ... stride - 1 are zeros). */
struct ColumnStack
{
  static constexpr int RowsBefore = 2;  ///< zero rows before the first detector row
  static constexpr int RowsAfter = 32;  ///< zero rows after the last: room for a window of 32 rows
  int nx = 0, ny = 0;                   ///< detector pixels of the data (the stack's buffered columns and rows)
  int firstColumn = 0, firstRow = 0;    ///< stack pixel index of the data's first column and row
  int stride = 0;                       ///< floats per column: ny + RowsBefore + RowsAfter
  std::size_t projectionSize = 0;       ///< floats per projection: (nx + 2) x stride
  std::vector<float> data;

  /** Sizes the layout for `count` projections of nx x ny pixels (keeps the memory of a larger one). */
  void
  Resize(int count, int columns, int rows, int column0, int row0);
  /** Copies projection `k` of the layout from `pixels` (nx x ny, x fastest), borders zeroed. */
  void
  Fill(int k, const float * pixels);
  const float *
  Projection(int k) const
  {
    return data.data() + static_cast<std::size_t>(k) * projectionSize;
  }
};

/** One projection's share of a slice of voxel columns along y: for each of `width` voxels along x
 * (indices x0, x0 + 1, ...) in slice z, the column of `height` voxels from y0, each voxel's
 * projection is sampled with DetectorSample()'s rule (the texture unit's bilinear weights, zero off
 * the detector) and added to sum[x * HeightPadded(height) + y - y0], times FDK's distance weight
 * 1/w^2 if asked. Each voxel's coordinates are HomogeneousAt() of the voxel itself (no stepping),
 * so any block of the volume computes every voxel alike. Needs ColumnsAllowed(matrix). */
struct ColumnLaunch
{
  const float * matrix = nullptr;     ///< ConeProjection::matrix of the projection (ColumnsAllowed)
  const ColumnStack * stack = nullptr;
  int projection = 0;                 ///< index of the projection in `stack`
  int x0 = 0, width = 0;              ///< voxel x index of sum column 0, voxels along x
  int y0 = 0, height = 0;             ///< voxel y index of the columns' first voxel, voxels along y
  float z = 0.f;                      ///< voxel z index of the slice
  bool distanceWeight = false;        ///< multiply by 1/w^2 (FDK)
  float * sum = nullptr;              ///< width x HeightPadded(height) sums (y fastest), added to
  /** Optional (null: every voxel): per column x, the voxels [yBegin[x], yEnd[x]) (counted from y0)
   * that are needed, e.g. the scan's field of view (FieldOfViewMask); the others may be left out.
   * The vector paths start at the multiple of eight at or below yBegin[x] and may compute a few
   * voxels past yEnd[x] within HeightPadded(height): a voxel's sum never depends on which others are
   * computed. */
  const int * yBegin = nullptr;
  const int * yEnd = nullptr;
};

/** The rows of a column's sums: its height rounded up to a multiple of 8 (the vector paths compute
 * whole groups of eight voxels; the sums past `height` are scratch: written by the AVX2 path). */
constexpr int
HeightPadded(int height)
{
  return (height + 7) / 8 * 8;
}

/** The reference loop: voxel by voxel, HomogeneousAt() and DetectorSample()'s rule. */
ConeBeamCT_EXPORT void
AccumulateColumnsScalar(const ColumnLaunch & launch);

/** The same sums, bit for bit (the same IEEE operations per voxel, no fused multiply-add), eight
 * voxels along y at a time with AVX2, sixteen with AVX-512, where the processor has them: a column's
 * u, w, 1/w, horizontal weight and distance weight are computed once per projection, and where the
 * column's voxels fall within a window of 16 (32) detector rows (|dv/dy| < 1.9 pixels per voxel)
 * the two detector columns' rows are loaded as contiguous vectors, blended along u, and each
 * voxel's pair of rows picked by permutes (no gathers); otherwise gathered. CBCT_DISABLE_AVX512
 * (any value) keeps to AVX2, CBCT_DISABLE_AVX2 to the reference loop. */
ConeBeamCT_EXPORT void
AccumulateColumns(const ColumnLaunch & launch);

/** The instruction sets of AccumulateColumns(). */
enum class ColumnInstructions
{
  Reference, ///< AccumulateColumnsScalar()
  Avx2,
  Avx512,
};

/** AccumulateColumns() with the given instruction set; false (nothing done) where this processor or
 * build lacks it. For tests and timings. */
ConeBeamCT_EXPORT bool
AccumulateColumnsWith(ColumnInstructions instructions, const ColumnLaunch & launch);

/** The instruction set AccumulateColumns() uses on this processor. */
ConeBeamCT_EXPORT ColumnInstructions
ColumnInstructionsInUse();

} // namespace cbct

#endif
