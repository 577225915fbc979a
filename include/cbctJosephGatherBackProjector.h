#ifndef cbctJosephGatherBackProjector_h
#define cbctJosephGatherBackProjector_h

#include "cbctJosephGather.hcu"
#include "cbctJosephGatherCells.h"
#include "cbctJosephProjector.h"
#include "cbctWorkerErrors.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace cbct
{

/** The gather's description of projection `ray` for a volume of `size` voxels (in memory from
 * ray.start): the inverse of its direction map and the bound on how far a float sample lies from the
 * exact line (see JosephGatherProjection; 16 times the rounding JosephSetup() and JosephSample() can
 * do with indices up to |start| + size). */
inline JosephGatherProjection
MakeJosephGatherProjection(const JosephRay & ray, const int size[3])
{
  JosephGatherProjection p;
  const double * m = ray.toIndex;
  const double cofactor[9] = { m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                               m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                               m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3] };
  const double determinant = m[0] * cofactor[0] + m[1] * cofactor[3] + m[2] * cofactor[6];
  for (int n = 0; n < 9; ++n)
    p.toPixel[n] = cofactor[n] / determinant;
  double largest = 0.;
  for (int d = 0; d < 3; ++d)
  {
    p.q0[d] = ray.q0[d];
    largest = std::max(largest, std::fabs(ray.q0[d]));
  }
  int biggest = 0;
  for (int d = 0; d < 3; ++d)
  {
    p.start[d] = ray.start[d];
    biggest = std::max(biggest, std::abs(ray.start[d]) + size[d]);
  }
  p.delta = std::ldexp(4. * largest + 4. * biggest + 1., -20);
  return p;
}

/** \class JosephGatherBackProjector
 * \brief The exact transpose of Joseph's forward projection computed voxel by voxel (a gather, see
 * cbctJosephGather.hcu) on the CPU's threads: the CPU twin of the CUDA gather, and equal to the
 * ray-driven scatter (RayDrivenOperator::Back()) up to the order of the additions (both add the
 * same products in double).
 *
 * A volume that is a slab of a larger one (its region's index not 0) is computed in the larger
 * one's index space, as the forward projector samples it: its tiles' cells are the whole volume's.
 * Projections are taken in batches of Batch; for each, every pixel's ray is set up once
 * (JosephSetup()); then each tile of JosephGatherTileX x Y x Z voxels, one per work unit, gathers
 * the batch's rays into its own voxels, a slice of cells at a time (JosephGatherSliceCells(): with
 * AVX2 each pixel of the slice's candidates tested once, eight at a time, and added to its cell). No partial volumes: the memory is the batch's rays (24 bytes
 * per pixel and projection, one array per field).
 * \ingroup ConeBeamCT
 */
class JosephGatherBackProjector
{
public:
  /** Projections whose rays are set up at a time. */
  static constexpr unsigned int Batch = 8;

  JosephGatherBackProjector(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
                            const ThreeDCircularProjectionGeometry * geometry)
  {
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Size[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetSize(d));
      m_Start[d] = static_cast<int>(volume->GetLargestPossibleRegion().GetIndex(d));
    }
    m_Columns = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(0));
    m_Rows = static_cast<int>(projections->GetLargestPossibleRegion().GetSize(1));
    m_FirstColumn = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(0));
    m_FirstRow = static_cast<int>(projections->GetLargestPossibleRegion().GetIndex(1));
    // The gather inverts each projection's cone (a point's pixel through the source); parallel
    // beams are scattered instead (JosephOperator), so nothing is set up for them.
    // A cylindrical detector's pixels are not the flat panel's grid the gather inverts: scattered too.
    const bool parallel = geometry->GetNumberOfProjections() > 0 && geometry->IsParallel(0);
    m_Cylindrical = geometry->IsCylindrical();
    for (unsigned int k = 0; k < geometry->GetNumberOfProjections() && !parallel && !m_Cylindrical; ++k)
    {
      m_Rays.push_back(JosephProjector(volume, projections, geometry, k).Ray());
      m_Projections.push_back(MakeJosephGatherProjection(m_Rays.back(), m_Size));
    }
  }

  /** volume (+)= sum over k of `subset` of A_k^T projections[k] (overwrites when `add` is false);
   * whole buffers laid out as the images given to the constructor. */
  void
  Back(const float * projections, float * volume, const std::vector<unsigned int> & subset, bool add) const
  {
    if (m_Cylindrical)
      ThrowBadParameter("Joseph's gathered adjoint's detector", "cylindrical", "a flat panel (a cylinder's adjoint is scattered: JosephAdjoint::Scatter)");
    const std::size_t voxels = static_cast<std::size_t>(m_Size[0]) * m_Size[1] * m_Size[2];
    if (!add)
      std::fill(volume, volume + voxels, 0.f);
    const std::size_t pixels = static_cast<std::size_t>(m_Columns) * m_Rows;
    // Every pixel of the batch's projections is set up before it is read: no need to clear (12 MB
    // for a batch of 256 x 256 pixels, for a SART subset of one projection every time).
    const std::size_t batchPixels = std::min<std::size_t>(Batch, subset.size()) * pixels;
    const std::unique_ptr<float[]> lines(new float[5 * batchPixels]);
    const std::unique_ptr<int[]> axes(new int[batchPixels]);
    const Rays rays{ lines.get(), lines.get() + batchPixels, lines.get() + 2 * batchPixels, lines.get() + 3 * batchPixels,
                     lines.get() + 4 * batchPixels, axes.get() };
    const int tiles[3] = { (m_Size[0] + JosephGatherTileX - 1) / JosephGatherTileX, (m_Size[1] + JosephGatherTileY - 1) / JosephGatherTileY,
                           (m_Size[2] + JosephGatherTileZ - 1) / JosephGatherTileZ };
    const std::size_t tileCount = static_cast<std::size_t>(tiles[0]) * tiles[1] * tiles[2];
    for (std::size_t first = 0; first < subset.size(); first += Batch)
    {
      const std::size_t count = std::min<std::size_t>(Batch, subset.size() - first);
      ParallelizeArray(
        0, count * m_Rows, [&](itk::SizeValueType n) { this->SetUpRow(subset[first + n / m_Rows], static_cast<int>(n % m_Rows), rays, n * m_Columns); });
      ParallelizeArray(
        0, tileCount,
        [&](itk::SizeValueType t) {
          const int tile[3] = { static_cast<int>(t % tiles[0]), static_cast<int>(t / tiles[0] % tiles[1]), static_cast<int>(t / tiles[0] / tiles[1]) };
          this->GatherTile(tile, projections, rays, subset, first, count, volume);
        });
    }
  }

private:
  bool m_Cylindrical = false;
  /** The batch's rays in the form the gather reads them, one array per field: JosephSetup()'s float
   * line, and its dominant axis (-1: no sample in the volume). */
  struct Rays
  {
    float *b0, *kb, *c0, *kc, *step;
    int * a;
  };

  /** Sets up the rays of row `row` of projection k into `out` from pixel `first`. */
  void
  SetUpRow(unsigned int k, int row, const Rays & out, std::size_t first) const
  {
    for (int column = 0; column < m_Columns; ++column)
    {
      JosephLine line;
      const std::size_t p = first + column;
      if (!JosephSetup(m_Rays[k], m_Size, m_FirstColumn + column, m_FirstRow + row, line))
      {
        line.b0 = line.kb = line.c0 = line.kc = line.step = 0.f;
        line.a = -1;
      }
      out.b0[p] = line.b0;
      out.kb[p] = line.kb;
      out.c0[p] = line.c0;
      out.kc[p] = line.kc;
      out.step[p] = line.step;
      out.a[p] = line.a;
    }
  }

  /** Adds the batch's backprojection to the voxels of `tile`. */
  void
  GatherTile(const int tile[3], const float * projections, const Rays & rays, const std::vector<unsigned int> & subset,
             std::size_t first, std::size_t count, float * volume) const
  {
    const int extent[3] = { JosephGatherTileX, JosephGatherTileY, JosephGatherTileZ };
    // lo, hi: in memory; from, to: the same voxels in the volume's index space (the samples').
    int lo[3], hi[3], n[3], from[3], to[3];
    for (int d = 0; d < 3; ++d)
    {
      lo[d] = tile[d] * extent[d];
      hi[d] = std::min(lo[d] + extent[d], m_Size[d]);
      n[d] = hi[d] - lo[d];
      from[d] = lo[d] + m_Start[d];
      to[d] = hi[d] + m_Start[d];
    }
    const std::size_t stride[3] = { 1, static_cast<std::size_t>(n[0]), static_cast<std::size_t>(n[0]) * n[1] };
    std::vector<double> sum(stride[2] * n[2], 0.);
    std::vector<double> cells;
    const std::size_t pixels = static_cast<std::size_t>(m_Columns) * m_Rows;
    for (std::size_t m = 0; m < count; ++m)
    {
      const unsigned int k = subset[first + m];
      const float * values = projections + k * pixels;
      const std::size_t batchFirst = m * pixels;
      for (int a = 0; a < 3; ++a)
      {
        JosephGatherPlan plan;
        if (!JosephGatherPlanTile(m_Projections[k], a, from, to, plan))
          continue;
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        // Cells rb, rc = -1 .. n - 1 (relative), 4 sums each, row by row along c.
        const int cellsB = n[b] + 1, cellsC = n[c] + 1;
        cells.assign(static_cast<std::size_t>(cellsB) * cellsC * 4, 0.);
        JosephGatherSliceLaunch slice;
        slice.plan = &plan;
        slice.a = a;
        slice.fromB = from[b];
        slice.fromC = from[c];
        slice.nb = n[b];
        slice.nc = n[c];
        slice.b0 = rays.b0 + batchFirst;
        slice.kb = rays.kb + batchFirst;
        slice.c0 = rays.c0 + batchFirst;
        slice.kc = rays.kc + batchFirst;
        slice.step = rays.step + batchFirst;
        slice.axis = rays.a + batchFirst;
        slice.values = values;
        slice.columns = m_Columns;
        slice.columnLo = m_FirstColumn;
        slice.columnHi = m_FirstColumn + m_Columns - 1;
        slice.rowLo = m_FirstRow;
        slice.rowHi = m_FirstRow + m_Rows - 1;
        slice.cells = cells.data();
        for (int rs = 0; rs < n[a]; ++rs)
        {
          slice.s = from[a] + rs;
          slice.rs = rs;
          if (!plan.exhaustive)
            JosephGatherSliceCells(slice);
          else
            for (int rc = -1; rc < n[c]; ++rc)
              for (int rb = -1; rb < n[b]; ++rb)
                this->ExhaustiveCellSums(k, a, from[a] + rs, from[b] + rb, from[c] + rc, values,
                                         &cells[(static_cast<std::size_t>(rc + 1) * cellsB + (rb + 1)) * 4]);
          // Voxel (vb, vc) of the slice: S0 of its cell, S1 of the one before along b, S2 of the one
          // before along c, S3 of the one before along both.
          for (int vc = 0; vc < n[c]; ++vc)
          {
            const double * below = &cells[static_cast<std::size_t>(vc) * cellsB * 4];
            const double * row = below + static_cast<std::size_t>(cellsB) * 4;
            double * out = &sum[rs * stride[a] + vc * stride[c]];
            for (int vb = 0; vb < n[b]; ++vb)
              out[vb * stride[b]] += row[4 * (vb + 1)] + row[4 * vb + 1] + below[4 * (vb + 1) + 2] + below[4 * vb + 3];
          }
        }
      }
    }
    for (int z = 0; z < n[2]; ++z)
      for (int y = 0; y < n[1]; ++y)
        for (int x = 0; x < n[0]; ++x)
        {
          float & out = volume[(static_cast<std::size_t>(lo[2] + z) * m_Size[1] + (lo[1] + y)) * m_Size[0] + (lo[0] + x)];
          out = static_cast<float>(out + sum[z * stride[2] + y * stride[1] + x]);
        }
  }

  /** S[corner] = the weighted values of the rays of projection k (dominant axis a) whose sample in
   * slice s lies in cell (cb, cc) (the volume's index space), every pixel a candidate and each ray set
   * up in double as the forward projector does it (its side of the source too): the tiles that reach
   * the source's plane. */
  void
  ExhaustiveCellSums(unsigned int k, int a, int s, int cb, int cc, const float * values, double S[4]) const
  {
    double s0 = 0., s1 = 0., s2 = 0., s3 = 0.;
    for (int j = m_FirstRow; j < m_FirstRow + m_Rows; ++j)
      for (int i = m_FirstColumn; i < m_FirstColumn + m_Columns; ++i)
      {
        JosephLine line;
        float w[4];
        if (!JosephSetup(m_Rays[k], m_Size, i, j, line) || line.a != a || s < line.first || s > line.last ||
            !JosephCellWeights(line, s, cb, cc, w))
          continue;
        const double value = values[static_cast<std::size_t>(j - m_FirstRow) * m_Columns + (i - m_FirstColumn)];
        s0 += static_cast<double>(w[0]) * value;
        s1 += static_cast<double>(w[1]) * value;
        s2 += static_cast<double>(w[2]) * value;
        s3 += static_cast<double>(w[3]) * value;
      }
    S[0] = s0;
    S[1] = s1;
    S[2] = s2;
    S[3] = s3;
  }

  int m_Size[3];
  int m_Start[3]; ///< the volume's first voxel in its index space
  int m_Columns = 0, m_Rows = 0, m_FirstColumn = 0, m_FirstRow = 0;
  std::vector<JosephRay> m_Rays;
  std::vector<JosephGatherProjection> m_Projections;
};

} // namespace cbct

#endif
