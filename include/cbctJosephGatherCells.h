#ifndef cbctJosephGatherCells_h
#define cbctJosephGatherCells_h

#include "ConeBeamCTExport.h"
#include "cbctJosephGather.hcu"

#include <cstddef>

namespace cbct
{

/** One slice of a tile's cells for the CPU gather (JosephGatherBackProjector): for each cell (rb, rc),
 * rb in [-1, nb), rc in [-1, nc) relative to the tile's first voxel, the four sums S0..S3 of the
 * weighted values of the projection's rays of dominant axis `a` whose sample in slice `s` lies in
 * the cell (cbctJosephGather.hcu), found through the tile's non-exhaustive `plan`. The rays are one
 * array per field (JosephSetup()'s float line, `axis` -1 where the ray meets no slice), pixel (i, j)
 * at (j - rowLo) * columns + (i - columnLo), as the projection's values. */
struct JosephGatherSliceLaunch
{
  const JosephGatherPlan * plan = nullptr;
  int a = 0;     ///< the rays' dominant axis
  int s = 0;     ///< the slice, in the volume's index space
  int rs = 0;    ///< the slice, relative to the tile
  int fromB = 0; ///< the tile's first voxel along b = (a + 1) % 3, in the volume's index space
  int fromC = 0; ///< likewise along c = (a + 2) % 3
  int nb = 0, nc = 0; ///< the tile's voxels along b and c
  const float *b0 = nullptr, *kb = nullptr, *c0 = nullptr, *kc = nullptr, *step = nullptr;
  const int * axis = nullptr;
  const float * values = nullptr;
  int columns = 0, columnLo = 0, columnHi = 0, rowLo = 0, rowHi = 0; ///< the detector's stack pixel indices
  /** (nb + 1) x (nc + 1) x 4 sums, overwritten: cell (rb, rc) at ((rc + 1) (nb + 1) + rb + 1) 4. */
  double * cells = nullptr;
};

/** The reference loop: cell by cell, candidate pixel by pixel (rows, then columns), each hit's four
 * products added in double in that order. */
inline void
JosephGatherSliceCellsScalar(const JosephGatherSliceLaunch & l)
{
  for (int rc = -1; rc < l.nc; ++rc)
    for (int rb = -1; rb < l.nb; ++rb)
    {
      double s0 = 0., s1 = 0., s2 = 0., s3 = 0.;
      float h[3];
      JosephGatherCentre(*l.plan, l.rs, rb, rc, h);
      int i0, i1, j0, j1;
      JosephGatherCandidates(*l.plan, h[0], h[1], h[2], l.columnLo, l.columnHi, l.rowLo, l.rowHi, i0, i1, j0, j1);
      const int cb = l.fromB + rb, cc = l.fromC + rc;
      for (int j = j0; j <= j1; ++j)
      {
        const std::size_t row = static_cast<std::size_t>(j - l.rowLo) * l.columns - l.columnLo;
        for (int i = i0; i <= i1; ++i)
        {
          const std::size_t p = row + i;
          if (l.axis[p] != l.a)
            continue;
          JosephLine line;
          line.b0 = l.b0[p];
          line.kb = l.kb[p];
          line.c0 = l.c0[p];
          line.kc = l.kc[p];
          line.step = l.step[p];
          float w[4];
          if (!JosephCellWeights(line, l.s, cb, cc, w))
            continue;
          const double value = l.values[p];
          s0 += static_cast<double>(w[0]) * value;
          s1 += static_cast<double>(w[1]) * value;
          s2 += static_cast<double>(w[2]) * value;
          s3 += static_cast<double>(w[3]) * value;
        }
      }
      double * S = l.cells + (static_cast<std::size_t>(rc + 1) * (l.nb + 1) + (rb + 1)) * 4;
      S[0] = s0;
      S[1] = s1;
      S[2] = s2;
      S[3] = s3;
    }
}

/** The same cells with AVX2 where the processor has it, bit for bit: every pixel of the union of
 * the cells' candidate boxes is tested once (eight at a time) and its sample's four products are
 * added to the cell it lies in, the pixels in the reference's order (rows, then columns), so each cell
 * adds the same products in the same order. CBCT_DISABLE_AVX2 (any value) keeps to the reference loop. */
ConeBeamCT_EXPORT void
JosephGatherSliceCells(const JosephGatherSliceLaunch & launch);

/** Whether JosephGatherSliceCells() runs the AVX2 path on this processor. */
ConeBeamCT_EXPORT bool
JosephGatherSliceCellsUsesAvx2();

} // namespace cbct

#endif
