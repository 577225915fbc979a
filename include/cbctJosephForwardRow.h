#ifndef cbctJosephForwardRow_h
#define cbctJosephForwardRow_h

#include "ConeBeamCTExport.h"
#include "cbctJoseph.hcu"

namespace cbct
{

/** One detector row's share of Joseph's forward projection on the CPU: for each of `columns` pixels
 * (stack pixel indices firstColumn, firstColumn + 1, ... in row `row`), the sum in double of
 * weight * voxel over the ray's samples (JosephVisit(), in its order), written to out[n] as a float
 * (added to out[n] first, in double, when `add`). */
struct JosephRowLaunch
{
  const JosephRay * ray = nullptr; ///< the projection's rays (JosephProjector::Ray())
  const int * size = nullptr;      ///< the voxels in memory along x, y, z
  const float * volume = nullptr;  ///< size[0] x size[1] x size[2] voxels, x fastest
  int firstColumn = 0;             ///< stack pixel index of out[0]
  int row = 0;                     ///< stack pixel index of the row
  int columns = 0;
  bool add = false;
  float * out = nullptr; ///< `columns` floats
};

/** The reference loop, pixel by pixel, from pixel nBegin of the launch to its end. */
inline void
JosephForwardRowScalar(const JosephRowLaunch & l, int nBegin = 0)
{
  for (int n = nBegin; n < l.columns; ++n)
  {
    double sum = 0.;
    JosephVisit(*l.ray, l.size, static_cast<double>(l.firstColumn + n), static_cast<double>(l.row),
                [&](long long offset, double w) { sum += w * l.volume[offset]; });
    float & p = l.out[n];
    p = static_cast<float>(l.add ? p + sum : sum);
  }
}

/** The same sums, eight adjacent rays at a time with AVX2 where the processor has it: each lane runs
 * one ray's samples with the reference loop's float operations and its double sum in the same order
 * (no fused multiply-add), so the result is bit for bit the reference's. Eight rays of different
 * dominant axes, and volumes of 2^31 voxels or more, take the reference loop. The environment variable
 * CBCT_DISABLE_AVX2 (any value) keeps to the reference loop. */
ConeBeamCT_EXPORT void
JosephForwardRow(const JosephRowLaunch & launch);

/** Whether JosephForwardRow() runs the AVX2 path on this processor. */
ConeBeamCT_EXPORT bool
JosephForwardRowUsesAvx2();

} // namespace cbct

#endif
