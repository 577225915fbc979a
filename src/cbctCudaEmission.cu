#include "cbctCudaEmission.hcu"

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace cbct
{

namespace
{
constexpr int CellThreads = 256; // threads per block of the per-cell and per-voxel kernels
// The composites: one block per view of 32 x 32 threads, thread (x, y) taking the pixels
// (x + 32 m, y + 32 n) of the plane (no division per pixel).
constexpr int CompositeSide = 32;
constexpr int CompositeThreads = CompositeSide * CompositeSide;

/** This thread's pixels (i, j) of a plane of `columns` x `rows`, q = j * columns + i. */
#define CBCT_FOR_PIXELS(i, j, q, columns, rows)                                                                        \
  for (int j = threadIdx.y; j < (rows); j += CompositeSide)                                                            \
    for (int i = threadIdx.x, q = j * (columns) + threadIdx.x; i < (columns); i += CompositeSide, q += CompositeSide)

/** plane = G(plane) for one blur step: along u into `scratch`, then along v back (the CPU's order). */
__device__ void
BlurPlane(const EmissionBlurStep & step, const float * taps, float * plane, float * scratch, int columns, int rows)
{
  if (step.radiusU == 0 && step.radiusV == 0)
    return;
  __syncthreads(); // the plane is complete
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  scratch[q] = EmissionBlurAt(plane + j * columns, 1, columns, i, taps + step.firstU, step.radiusU);
  __syncthreads();
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = EmissionBlurAt(scratch + i, columns, rows, j, taps + step.firstV, step.radiusV);
  __syncthreads();
}

__global__ void
__launch_bounds__(CellThreads)
Transmission(const CudaEmissionLaunch p)
{
  const int b = blockIdx.y;
  __shared__ EmissionView view;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const long long plane = static_cast<long long>(p.columns) * p.rows;
  const long long cell = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  if (cell >= plane * view.slices)
    return;
  const int s = static_cast<int>(cell / plane);
  const int rest = static_cast<int>(cell - s * plane);
  const int j = rest / p.columns, i = rest - j * p.columns;
  p.transmission[p.transmissionOffsets[b] + cell] = EmissionTransmission(view, p.mu, p.muSize, i, j, s);
}

__global__ void
__launch_bounds__(CellThreads)
Splat(const CudaEmissionLaunch p)
{
  const int b = blockIdx.y;
  __shared__ EmissionView view;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const long long voxel = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  const long long plane = static_cast<long long>(p.size[0]) * p.size[1];
  if (voxel >= plane * p.size[2])
    return;
  const float a = p.volume[voxel];
  if (a == 0.f)
    return;
  const int z = static_cast<int>(voxel / plane);
  const int rest = static_cast<int>(voxel - z * plane);
  const int y = rest / p.size[0], x = rest - y * p.size[0];
  float * cells = p.cells + p.offsets[b];
  EmissionVisitCells(view, p.columns, p.rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                     [cells, a](long long c, float w) { atomicAdd(cells + c, MulRn(w, a)); });
}

/* The splat along runs of voxels. With one thread per voxel and view every voxel adds into its eight
 * cells with eight atomics: 250 million per subset of problem E, the splat's whole cost. Along the
 * activity's y axis (the rotation axis of a circular orbit, whose voxels fall on the same lattice
 * column and slice one row apart) a voxel's four upper cells are the next voxel's four lower cells,
 * so a thread walking a run of voxels along y adds its voxel's upper contributions to the next voxel's
 * lower ones in registers and sends four atomics per voxel instead of eight. Whether the cells meet
 * is checked for every voxel (same lattice column and slice, the next row): in any other geometry the
 * pending cells are simply sent. The sums differ from the CPU's only in the order of additions, as
 * the atomics' already do. */
__global__ void
__launch_bounds__(CellThreads)
SplatRuns(const CudaEmissionLaunch p, int run)
{
  const int b = blockIdx.y;
  __shared__ EmissionView view;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const int runs = (p.size[1] + run - 1) / run;
  const long long thread = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  if (thread >= static_cast<long long>(p.size[0]) * p.size[2] * runs)
    return;
  // x fastest across the threads (coalesced reads), then z, then the run.
  const int x = static_cast<int>(thread % p.size[0]);
  const long long rest = thread / p.size[0];
  const int z = static_cast<int>(rest % p.size[2]);
  const int first = static_cast<int>(rest / p.size[2]) * run;
  const int last = min(first + run, p.size[1]);
  float * cells = p.cells + p.offsets[b];
  const long long plane = static_cast<long long>(p.columns) * p.rows;
  const int columns = p.columns, rows = p.rows, slices = view.slices;
  // The pending upper cells: lattice (ci + di, cj, cs + ds) for di, ds in {0, 1}.
  float pending[4] = { 0.f, 0.f, 0.f, 0.f };
  int pi = 0, pj = -2, ps = 0; // pj -2: none pending
  auto send = [&](int ci, int cj, int cs, const float value[4]) {
    if (cj < 0 || cj >= rows)
      return;
#pragma unroll
    for (int n = 0; n < 4; ++n)
    {
      const int i = ci + (n & 1), s = cs + (n >> 1);
      if (i >= 0 && i < columns && s >= 0 && s < slices)
        atomicAdd(cells + s * plane + static_cast<long long>(cj) * columns + i, value[n]);
    }
  };
  const long long stride = p.size[0];
  const float * voxel = p.volume + (static_cast<long long>(z) * p.size[1] + first) * stride + x;
  for (int y = first; y < last; ++y, voxel += stride)
  {
    const float a = *voxel;
    int c[3];
    float f[3];
    if (a == 0.f || !EmissionCorner(view, columns, rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z), c, f))
    {
      if (pj != -2)
        send(pi, pj, ps, pending);
      pj = -2;
      continue;
    }
    // EmissionVisitCells()'s weights: cell n = (i + (n & 1), j + ((n >> 1) & 1), s + (n >> 2)).
    float lower[4], upper[4];
#pragma unroll
    for (int n = 0; n < 8; ++n)
    {
      const float wi = (n & 1) ? f[0] : AddRn(1.f, -f[0]);
      const float wj = ((n >> 1) & 1) ? f[1] : AddRn(1.f, -f[1]);
      const float ws = (n >> 2) ? f[2] : AddRn(1.f, -f[2]);
      const float value = MulRn(MulRn(MulRn(wi, wj), ws), a);
      const int m = (n & 1) | ((n >> 2) << 1); // (di, ds) -> 0..3
      if ((n >> 1) & 1)
        upper[m] = value;
      else
        lower[m] = value;
    }
    if (pj != -2 && pi == c[0] && ps == c[2] && pj == c[1])
    {
#pragma unroll
      for (int m = 0; m < 4; ++m)
        lower[m] = AddRn(pending[m], lower[m]);
    }
    else if (pj != -2)
      send(pi, pj, ps, pending);
    send(c[0], c[1], c[2], lower);
#pragma unroll
    for (int m = 0; m < 4; ++m)
      pending[m] = upper[m];
    pi = c[0];
    pj = c[1] + 1;
    ps = c[2];
  }
  if (pj != -2)
    send(pi, pj, ps, pending);
}

/* The splat by lattice rows, without global atomics: one block per lattice row j of a view holds the
 * row's cells of every slice in shared memory, takes the voxels whose cells may reach the row (the
 * few y slices that fall on it when the detector's rows run along y: parallel views of a circular
 * orbit about y, CudaEmissionSplatTilesApply()), adds each voxel's four cells in row j there (shared
 * atomics) and writes the row out whole: every cell is written once, so the lattice needs no zeroing.
 * Each voxel is visited by the two rows its cells reach. The same products as EmissionVisitCells();
 * the sums differ from the CPU's in the order of additions only, as the atomics' always did. Opt-in:
 * on the H100 it made an OSEM iteration of problem E 4 ms slower than SplatRuns (30.4 against about
 * 26.3 ms; the 120-view forward projection 17.3 against 14.9 ms): a shared-memory float atomicAdd is a
 * compare-and-swap loop on sm_90, and every voxel is read and placed twice. */
constexpr int TileThreads = 512;

__global__ void
__launch_bounds__(TileThreads)
SplatTiles(const CudaEmissionLaunch p)
{
  extern __shared__ float tile[]; // largestSlices x columns: the row's cells, slice after slice
  __shared__ EmissionView view;
  const int b = blockIdx.y, j = blockIdx.x;
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
  const int columns = p.columns, slices = view.slices;
  for (int q = threadIdx.x; q < slices * columns; q += TileThreads)
    tile[q] = 0.f;
  __syncthreads();
  // The voxels y whose row coordinate hj = m4 x + m5 y + m6 z + m7 can fall in [j - 1, j + 1) for
  // some x, z of the volume (affine: the extremes are at the corners), widened by 0.01 voxel each
  // side, far more than the rounding of hj (about 1e-5 of a pixel, over |m5| >= 0.25). Which of them
  // reach row j is decided by EmissionCorner() itself.
  const float * m = view.toPixel;
  const float xs[2] = { 0.f, static_cast<float>(p.size[0] - 1) }, zs[2] = { 0.f, static_cast<float>(p.size[2] - 1) };
  float low = 1e30f, high = -1e30f;
  for (int c = 0; c < 8; ++c)
  {
    const float target = static_cast<float>(j) + ((c & 4) ? 1.f : -1.f);
    const float y = (target - m[7] - m[4] * xs[c & 1] - m[6] * zs[(c >> 1) & 1]) / m[5];
    low = fminf(low, y);
    high = fmaxf(high, y);
  }
  low = fmaxf(low, -2.f); // the host saw to |m5| >= 0.25: finite
  high = fminf(high, p.size[1] + 1.f);
  const int first = max(0, static_cast<int>(ceilf(low - 0.01f))); // the integers y in [low, high]
  const int last = min(p.size[1] - 1, static_cast<int>(floorf(high + 0.01f)));
  if (slices > 0 && first <= last)
  {
    const long long slab = static_cast<long long>(p.size[0]) * p.size[2];
    const long long count = slab * (last - first + 1);
    for (long long q = threadIdx.x; q < count; q += TileThreads)
    {
      const int x = static_cast<int>(q % p.size[0]);
      const long long rest = q / p.size[0];
      const int z = static_cast<int>(rest % p.size[2]);
      const int y = first + static_cast<int>(rest / p.size[2]);
      const float a = p.volume[(static_cast<long long>(z) * p.size[1] + y) * p.size[0] + x];
      int c[3];
      float f[3];
      if (a == 0.f || !EmissionCorner(view, columns, p.rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z), c, f))
        continue;
      const int dj = j - c[1];
      if (dj != 0 && dj != 1)
        continue;
      const float wj = dj ? f[1] : AddRn(1.f, -f[1]);
#pragma unroll
      for (int n = 0; n < 4; ++n)
      {
        const int i = c[0] + (n & 1), s = c[2] + (n >> 1);
        if (i < 0 || i >= columns || s < 0 || s >= slices)
          continue;
        const float wi = (n & 1) ? f[0] : AddRn(1.f, -f[0]);
        const float ws = (n >> 1) ? f[2] : AddRn(1.f, -f[2]);
        atomicAdd(tile + s * columns + i, MulRn(MulRn(MulRn(wi, wj), ws), a));
      }
    }
  }
  __syncthreads();
  float * cells = p.cells + p.offsets[b];
  const long long plane = static_cast<long long>(columns) * p.rows;
  for (int q = threadIdx.x; q < slices * columns; q += TileThreads)
  {
    const int s = q / columns, i = q - s * columns;
    cells[s * plane + static_cast<long long>(j) * columns + i] = tile[q];
  }
}

/** The two planes of batch view b: in shared memory or in the launch's scratch. */
__device__ float *
Planes(const CudaEmissionLaunch & p, float * shared, int b)
{
  return p.scratch == nullptr ? shared : p.scratch + 2ll * p.columns * p.rows * b;
}

__global__ void
__launch_bounds__(CompositeThreads)
ForwardComposite(const CudaEmissionLaunch p)
{
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const int b = blockIdx.x;
  const unsigned int k = p.batch[b];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    view = p.views[k];
  __syncthreads();
  const int columns = p.columns, rows = p.rows, pixels = columns * rows;
  float * plane = Planes(p, shared, b);
  float * scratch = plane + pixels;
  const float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = 0.f;
  for (int s = view.slices - 1; s >= 0; --s)
  {
    if (s + 1 < view.slices)
      BlurPlane(steps[s], p.taps, plane, scratch, columns, rows);
    const long long first = static_cast<long long>(s) * pixels;
    CBCT_FOR_PIXELS(i, j, q, columns, rows)
    {
      float length;
      const float scale = EmissionScale(view, i, j, s, length);
      const float t = transmission ? transmission[first + q] : 1.f;
      plane[q] = AddRn(MulRn(plane[q], t), MulRn(MulRn(cells[first + q], scale), sqrtf(t)));
    }
  }
  if (view.slices > 0)
    BlurPlane(steps[view.slices - 1], p.taps, plane, scratch, columns, rows);
  float * out = p.projections + static_cast<long long>(k) * pixels;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  out[q] = plane[q];
}

__global__ void
__launch_bounds__(CompositeThreads)
BackComposite(const CudaEmissionLaunch p)
{
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const int b = blockIdx.x;
  const unsigned int k = p.batch[b];
  if (threadIdx.x == 0 && threadIdx.y == 0)
    view = p.views[k];
  __syncthreads();
  if (view.slices == 0)
    return;
  const int columns = p.columns, rows = p.rows, pixels = columns * rows;
  float * plane = Planes(p, shared, b);
  float * scratch = plane + pixels;
  float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
  const float * in = p.projections + static_cast<long long>(k) * pixels;
  CBCT_FOR_PIXELS(i, j, q, columns, rows)
  plane[q] = in[q];
  BlurPlane(steps[view.slices - 1], p.taps, plane, scratch, columns, rows);
  for (int s = 0; s < view.slices; ++s)
  {
    const long long first = static_cast<long long>(s) * pixels;
    CBCT_FOR_PIXELS(i, j, q, columns, rows)
    {
      float length;
      const float scale = EmissionScale(view, i, j, s, length);
      const float t = transmission ? transmission[first + q] : 1.f;
      const float a = plane[q];
      cells[first + q] = MulRn(MulRn(a, scale), sqrtf(t));
      plane[q] = MulRn(a, t);
    }
    if (s + 1 < view.slices)
      BlurPlane(steps[s], p.taps, plane, scratch, columns, rows);
  }
}

/* The composites over a thread-block cluster (sm_90). One view's slice recursion is sequential, and
 * with one block per view a subset of 15 views keeps 15 of an H100's 132 SMs busy for the whole
 * recursion (about 6 ms per composite, 80 % of an OSEM iteration). Cutting the plane into tiles of
 * independent blocks does not work: every blur step couples each pixel to its neighbours a few pixels
 * away, so after the ~150 steps of a view the halo would be the whole plane. A cluster's blocks can
 * instead read each other's shared memory and meet at a cluster barrier: each block keeps a band of
 * the detector's rows, blurs along u within its rows, meets the others once per step, copies the few
 * rows above and below its band that the step's v taps reach from the blocks that own them, and blurs
 * along v. One cluster barrier per slice; the arithmetic (every product and sum, in the same order) is
 * the one-block kernels' and the CPU's: the zero rows and columns around the band stand for the pixels
 * outside the detector that EmissionBlurAt() skips (adding a zero product leaves a sum unchanged).
 *
 * Per block, in dynamic shared memory: the band of the plane, rows of `stride` = columns + 2 reachU
 * floats (reachU zero columns each side), and two scratch bands of (bandRows + 2 reachV) rows of
 * `columns` (reachV halo rows each side), used in turn by successive blur steps: a block may still be
 * copying a halo from a neighbour's scratch of step n when that neighbour has gone on to step n + 1,
 * which writes the other one; step n + 2 writes it again only after the barrier of step n + 1, which
 * every block reaches after its copy of step n. Each thread keeps the same (up to BandPixelsPerThread)
 * pixels of the band for the whole recursion, so the v pass and the update of a pixel need no barrier
 * between them, and it loads the next slice's cells and transmissions into registers before the blur,
 * whose barriers hide their latency. */
constexpr int BandThreads = 512;
constexpr int MostBandPixelsPerThread = 8; // kernels for 4 (fewer registers) and 8 pixels per thread
constexpr int PortableClusterSize = 8;

namespace cg = cooperative_groups;

/** One block's band of a view's plane and its thread's pixels. */
template <int BandPixelsPerThread>
struct Band
{
  int rows, columns;   // the detector
  int bandRows;        // rows of every band but maybe the last
  int firstRow;        // the band's first detector row
  int ownRows;         // the band's rows (bandRows, fewer in the last band, 0 past the detector)
  int reachU, reachV;  // zero columns and halo rows each side
  int stride;          // plane row length
  float * plane;       // bandRows x stride
  float * scratch0;    // (bandRows + 2 reachV) x columns
  float * scratch1;    // the same, for every other blur step
  int pixelRow[BandPixelsPerThread], pixelColumn[BandPixelsPerThread]; // this thread's; row -1: none
  float secant[BandPixelsPerThread]; // cone beam: EmissionSecant() of each

  __device__ __forceinline__ float &
  PlaneAt(int n) const
  {
    return plane[pixelRow[n] * stride + reachU + pixelColumn[n]];
  }
  /** This thread's pixel n's index in the detector plane. */
  __device__ __forceinline__ int
  Pixel(int n) const
  {
    return (firstRow + pixelRow[n]) * columns + pixelColumn[n];
  }
};

template <int BandPixelsPerThread>
__device__ __forceinline__ void
MakeBand(Band<BandPixelsPerThread> & band, const CudaEmissionLaunch & p, const EmissionView & view, float * shared, int clusterSize, int rank)
{
  band.rows = p.rows;
  band.columns = p.columns;
  band.bandRows = (p.rows + clusterSize - 1) / clusterSize;
  band.firstRow = rank * band.bandRows;
  band.ownRows = max(0, min(band.bandRows, p.rows - band.firstRow));
  band.reachU = p.blurReachU;
  band.reachV = p.blurReachV;
  band.stride = p.columns + 2 * p.blurReachU;
  band.plane = shared;
  band.scratch0 = shared + band.bandRows * band.stride;
  band.scratch1 = band.scratch0 + (band.bandRows + 2 * band.reachV) * p.columns;
  const int pixels = band.ownRows * p.columns;
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
  {
    const int q = threadIdx.x + n * BandThreads;
    band.pixelRow[n] = q < pixels ? q / p.columns : -1;
    band.pixelColumn[n] = q < pixels ? q - band.pixelRow[n] * p.columns : 0;
    band.secant[n] = 1.f;
  }
  if (!view.parallel)
  {
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
        band.secant[n] = EmissionSecant(view, band.pixelColumn[n], band.firstRow + band.pixelRow[n]);
  }
  for (int q = threadIdx.x; q < band.bandRows * band.stride; q += BandThreads)
    band.plane[q] = 0.f; // the zero columns, and the forward recursion's start
  __syncthreads();       // before any thread writes its pixels
}

/** EmissionScale() of this thread's pixel n in slice s. */
template <int BandPixelsPerThread>
__device__ __forceinline__ float
BandScale(const Band<BandPixelsPerThread> & band, const EmissionView & view, int n, int s)
{
  float length;
  return view.parallel ? view.sampleScale : EmissionConeScale(view, band.secant[n], s, length);
}

/** band = G(band) for one blur step, over the cluster: along u into the scratch band, barrier, the
 * halo rows from their owners, along v back into the plane. Every block of the cluster calls it with
 * the same step; `buffer` alternates the scratch bands. */
template <int BandPixelsPerThread>
__device__ __forceinline__ void
BandBlur(const cg::cluster_group & cluster, const Band<BandPixelsPerThread> & band, const EmissionBlurStep & step, const float * taps, int & buffer)
{
  if (step.radiusU == 0 && step.radiusV == 0)
    return;
  float * scratch = buffer ? band.scratch1 : band.scratch0; // no indexed array: Band stays in registers
  buffer ^= 1;
  const int columns = band.columns;
  __syncthreads(); // the band is complete
  const float * tapsU = taps + step.firstU;
  const int radiusU = step.radiusU;
  // Taps outermost: each tap is loaded once for the thread's pixels, whose sums (each in the CPU's
  // order) interleave.
  float sum[BandPixelsPerThread];
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    sum[n] = 0.f;
  for (int o = -radiusU; o <= radiusU; ++o)
  {
    const float tap = __ldg(tapsU + (o < 0 ? -o : o));
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
        sum[n] = AddRn(sum[n], MulRn(tap, (&band.PlaneAt(n))[o]));
  }
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    if (band.pixelRow[n] >= 0)
      scratch[(band.reachV + band.pixelRow[n]) * columns + band.pixelColumn[n]] = sum[n];
  cluster.sync(); // every band's u pass is complete
  // The rows within radiusV above and below the band: their owners' u pass, or zeros off the detector.
  const int radiusV = step.radiusV;
  for (int q = threadIdx.x; q < 2 * radiusV * columns; q += BandThreads)
  {
    const int h = q / columns, i = q - h * columns;
    const int e = h < radiusV ? band.reachV - radiusV + h : band.reachV + band.ownRows + (h - radiusV); // scratch row
    const int row = band.firstRow - band.reachV + e;                                                      // detector row
    float value = 0.f;
    if (row >= 0 && row < band.rows)
    {
      const int owner = row / band.bandRows;
      const float * remote = cluster.map_shared_rank(scratch, owner);
      value = remote[(band.reachV + row - owner * band.bandRows) * columns + i];
    }
    scratch[e * columns + i] = value;
  }
  __syncthreads();
  const float * tapsV = taps + step.firstV;
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    sum[n] = 0.f;
  for (int o = -radiusV; o <= radiusV; ++o)
  {
    const float tap = __ldg(tapsV + (o < 0 ? -o : o));
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
        sum[n] = AddRn(sum[n], MulRn(tap, scratch[(band.reachV + band.pixelRow[n] + o) * columns + band.pixelColumn[n]]));
  }
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    if (band.pixelRow[n] >= 0)
      band.PlaneAt(n) = sum[n];
}

/** The view of cluster `b`, staged in shared memory. */
__device__ void
StageView(EmissionView & view, const CudaEmissionLaunch & p, int b)
{
  if (threadIdx.x == 0)
    view = p.views[p.batch[b]];
  __syncthreads();
}

template <int BandPixelsPerThread>
__global__ void
__launch_bounds__(BandThreads)
ClusterForwardComposite(const CudaEmissionLaunch p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const cg::cluster_group cluster = cg::this_cluster();
  const int clusterSize = static_cast<int>(cluster.dim_blocks().x);
  const int b = blockIdx.x / clusterSize;
  StageView(view, p, b);
  Band<BandPixelsPerThread> band;
  MakeBand(band, p, view, shared, clusterSize, static_cast<int>(cluster.block_rank()));
  const unsigned int k = p.batch[b];
  const long long pixels = static_cast<long long>(p.columns) * p.rows;
  float * out = p.projections + k * pixels;
  if (view.slices == 0) // every block of the cluster leaves here: no barrier is left waiting
  {
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
        out[band.Pixel(n)] = 0.f;
    return;
  }
  const float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
  int buffer = 0;
  for (int s = view.slices - 1; s >= 0; --s)
  {
    // This slice's cells and transmissions, loaded while the blur runs.
    const long long first = static_cast<long long>(s) * pixels;
    float cell[BandPixelsPerThread], t[BandPixelsPerThread];
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
      {
        cell[n] = __ldcs(cells + first + band.Pixel(n));
        t[n] = transmission ? __ldcs(transmission + first + band.Pixel(n)) : 1.f;
      }
    if (s + 1 < view.slices)
      BandBlur(cluster, band, steps[s], p.taps, buffer);
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
      {
        const float scale = BandScale(band, view, n, s);
        float & plane = band.PlaneAt(n);
        plane = AddRn(MulRn(plane, t[n]), MulRn(MulRn(cell[n], scale), sqrtf(t[n])));
      }
  }
  BandBlur(cluster, band, steps[view.slices - 1], p.taps, buffer);
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    if (band.pixelRow[n] >= 0)
      out[band.Pixel(n)] = band.PlaneAt(n);
  cluster.sync(); // no block leaves while another may still read its shared memory
#endif
}

template <int BandPixelsPerThread>
__global__ void
__launch_bounds__(BandThreads)
ClusterBackComposite(const CudaEmissionLaunch p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ float shared[];
  __shared__ EmissionView view;
  const cg::cluster_group cluster = cg::this_cluster();
  const int clusterSize = static_cast<int>(cluster.dim_blocks().x);
  const int b = blockIdx.x / clusterSize;
  StageView(view, p, b);
  if (view.slices == 0) // every block of the cluster leaves here
    return;
  Band<BandPixelsPerThread> band;
  MakeBand(band, p, view, shared, clusterSize, static_cast<int>(cluster.block_rank()));
  const unsigned int k = p.batch[b];
  const long long pixels = static_cast<long long>(p.columns) * p.rows;
  const float * in = p.projections + k * pixels;
  float * cells = p.cells + p.offsets[b];
  const float * transmission = p.transmission ? p.transmission + p.transmissionOffsets[b] : nullptr;
  const EmissionBlurStep * steps = p.steps + view.blurFirst;
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    if (band.pixelRow[n] >= 0)
      band.PlaneAt(n) = in[band.Pixel(n)];
  int buffer = 0;
  float t[BandPixelsPerThread];
#pragma unroll
  for (int n = 0; n < BandPixelsPerThread; ++n)
    if (band.pixelRow[n] >= 0)
      t[n] = transmission ? __ldcs(transmission + band.Pixel(n)) : 1.f;
  BandBlur(cluster, band, steps[view.slices - 1], p.taps, buffer);
  for (int s = 0; s < view.slices; ++s)
  {
    const long long first = static_cast<long long>(s) * pixels;
#pragma unroll
    for (int n = 0; n < BandPixelsPerThread; ++n)
      if (band.pixelRow[n] >= 0)
      {
        const float scale = BandScale(band, view, n, s);
        float & plane = band.PlaneAt(n);
        const float a = plane;
        cells[first + band.Pixel(n)] = MulRn(MulRn(a, scale), sqrtf(t[n]));
        plane = MulRn(a, t[n]);
      }
    if (s + 1 < view.slices)
    {
      // The next slice's transmissions, loaded while the blur runs.
#pragma unroll
      for (int n = 0; n < BandPixelsPerThread; ++n)
        if (band.pixelRow[n] >= 0)
          t[n] = transmission ? __ldcs(transmission + first + pixels + band.Pixel(n)) : 1.f;
      BandBlur(cluster, band, steps[s], p.taps, buffer);
    }
  }
  cluster.sync(); // no block leaves while another may still read its shared memory
#endif
}

/** Views of a batch staged in shared memory by the gather's blocks (the gather reads every one). */
constexpr int GatherViews = 32;

__global__ void
__launch_bounds__(CellThreads)
Gather(const CudaEmissionLaunch p, int firstView, int views, int accumulate)
{
  __shared__ EmissionView staged[GatherViews];
  for (int b = threadIdx.x; b < views; b += blockDim.x)
    staged[b] = p.views[p.batch[firstView + b]];
  __syncthreads();
  const long long voxel = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  const long long plane = static_cast<long long>(p.size[0]) * p.size[1];
  if (voxel >= plane * p.size[2])
    return;
  const int z = static_cast<int>(voxel / plane);
  const int rest = static_cast<int>(voxel - z * plane);
  const int y = rest / p.size[0], x = rest - y * p.size[0];
  float sum = 0.f;
  for (int b = 0; b < views; ++b)
  {
    const float * cells = p.cells + p.offsets[firstView + b];
    float view = 0.f;
    EmissionVisitCells(staged[b], p.columns, p.rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
                       [cells, &view](long long c, float w) { view = AddRn(view, MulRn(w, cells[c])); });
    sum = AddRn(sum, view);
  }
  p.volume[voxel] = accumulate ? AddRn(p.volume[voxel], sum) : sum;
}

/* The gather along runs of voxels, its loads halved as the splat's atomics are (SplatRuns): a thread
 * walks GatherRun voxels along y, and for each view keeps the values of its voxel's four upper cells,
 * which are the next voxel's four lower cells when they share the lattice column and slice. Only
 * loads are saved: every sum has the same terms in the same order as Gather()'s (bit for bit). On the
 * H100 runs of 16 took 0.4 ms more per OSEM iteration of problem E than one voxel per thread (fewer
 * threads to hide the loads' latency), so it is opt-in (CudaEmissionOperator::SetGatherRun()). */
template <int GatherRun>
__global__ void
__launch_bounds__(CellThreads)
GatherRuns(const CudaEmissionLaunch p, int firstView, int views, int accumulate)
{
  __shared__ EmissionView staged[GatherViews];
  for (int b = threadIdx.x; b < views; b += blockDim.x)
    staged[b] = p.views[p.batch[firstView + b]];
  __syncthreads();
  const int runs = (p.size[1] + GatherRun - 1) / GatherRun;
  const long long thread = static_cast<long long>(blockIdx.x) * CellThreads + threadIdx.x;
  if (thread >= static_cast<long long>(p.size[0]) * p.size[2] * runs)
    return;
  const int x = static_cast<int>(thread % p.size[0]);
  const long long rest = thread / p.size[0];
  const int z = static_cast<int>(rest % p.size[2]);
  const int first = static_cast<int>(rest / p.size[2]) * GatherRun;
  const int columns = p.columns, rows = p.rows;
  const long long plane = static_cast<long long>(columns) * rows;
  float sum[GatherRun];
#pragma unroll
  for (int r = 0; r < GatherRun; ++r)
    sum[r] = 0.f;
  for (int b = 0; b < views; ++b)
  {
    const EmissionView & v = staged[b];
    const float * cells = p.cells + p.offsets[firstView + b];
    float kept[4] = { 0.f, 0.f, 0.f, 0.f }; // the previous voxel's upper cells (di, ds)
    int ki = 0, kj = -2, ks = 0;            // their lattice column, row, slice; row -2: none
#pragma unroll
    for (int r = 0; r < GatherRun; ++r)
    {
      const int y = first + r;
      if (y >= p.size[1])
        break;
      int c[3];
      float f[3];
      float view = 0.f;
      if (!EmissionCorner(v, columns, rows, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z), c, f))
      {
        kj = -2;
        sum[r] = AddRn(sum[r], view);
        continue;
      }
      const bool reuse = kj == c[1] && ki == c[0] && ks == c[2];
      float upper[4];
#pragma unroll
      for (int n = 0; n < 8; ++n) // EmissionVisitCells()'s order
      {
        const int i = c[0] + (n & 1), j = c[1] + ((n >> 1) & 1), s = c[2] + (n >> 2);
        const int m = (n & 1) | ((n >> 2) << 1);
        const bool inside = !(i < 0 || j < 0 || s < 0 || i >= columns || j >= rows || s >= v.slices);
        float value = 0.f;
        if (inside)
          value = (!((n >> 1) & 1) && reuse) ? kept[m] : cells[s * plane + static_cast<long long>(j) * columns + i];
        if ((n >> 1) & 1)
          upper[m] = value;
        if (inside)
        {
          const float wi = (n & 1) ? f[0] : AddRn(1.f, -f[0]);
          const float wj = ((n >> 1) & 1) ? f[1] : AddRn(1.f, -f[1]);
          const float ws = (n >> 2) ? f[2] : AddRn(1.f, -f[2]);
          view = AddRn(view, MulRn(MulRn(MulRn(wi, wj), ws), value));
        }
      }
#pragma unroll
      for (int m = 0; m < 4; ++m)
        kept[m] = upper[m];
      ki = c[0];
      kj = c[1] + 1;
      ks = c[2];
      sum[r] = AddRn(sum[r], view);
    }
  }
#pragma unroll
  for (int r = 0; r < GatherRun; ++r)
  {
    const int y = first + r;
    if (y >= p.size[1])
      break;
    float & out = p.volume[(static_cast<long long>(z) * p.size[1] + y) * p.size[0] + x];
    out = accumulate ? AddRn(out, sum[r]) : sum[r];
  }
}

#undef CBCT_FOR_PIXELS

cudaError_t
LaunchComposite(void (*kernel)(const CudaEmissionLaunch), const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  const std::size_t bytes = launch.scratch ? 0 : 2 * sizeof(float) * launch.columns * launch.rows;
  if (bytes > 48 * 1024)
  {
    const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (status != cudaSuccess)
      return status;
  }
  kernel<<<launch.count, dim3(CompositeSide, CompositeSide), bytes, stream>>>(launch);
  return cudaGetLastError();
}

/** Whether a band's pixels fit 4 per thread (the kernels with fewer registers) rather than 8. */
bool
FewBandPixels(int columns, int rows, int clusterSize)
{
  return static_cast<long long>((rows + clusterSize - 1) / clusterSize) * columns <= 4ll * BandThreads;
}

cudaError_t
LaunchClusterComposite(void (*kernel)(const CudaEmissionLaunch), const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  // The kernel's attributes are per function: another operator's plan may have changed them.
  cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, launch.clusterSharedBytes);
  if (status == cudaSuccess && launch.clusterSize > PortableClusterSize)
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (status != cudaSuccess)
    return status;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned int>(launch.count) * launch.clusterSize);
  config.blockDim = dim3(BandThreads);
  config.dynamicSmemBytes = static_cast<std::size_t>(launch.clusterSharedBytes);
  config.stream = stream;
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned int>(launch.clusterSize);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, launch);
}

dim3
CellGrid(long long cells, int views)
{
  return dim3(static_cast<unsigned int>((cells + CellThreads - 1) / CellThreads), static_cast<unsigned int>(views));
}
} // namespace

bool
CudaEmissionPlanesFitSharedMemory(int columns, int rows)
{
  int device = 0, optin = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return false;
  // Two planes and the staged view must fit.
  return 2. * sizeof(float) * columns * rows + sizeof(EmissionView) <= static_cast<double>(optin);
}

cudaError_t
LaunchEmissionTransmission(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0 || launch.largestCells <= 0 || launch.mu == nullptr)
    return cudaSuccess;
  Transmission<<<CellGrid(launch.largestCells, launch.count), CellThreads, 0, stream>>>(launch);
  return cudaGetLastError();
}

cudaError_t
LaunchEmissionSplat(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  const long long voxels = static_cast<long long>(launch.size[0]) * launch.size[1] * launch.size[2];
  if (launch.count <= 0 || voxels <= 0)
    return cudaSuccess;
  if (launch.splatTiles)
  {
    const int slices = static_cast<int>(launch.largestCells / (static_cast<long long>(launch.columns) * launch.rows));
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(slices) * launch.columns;
    const cudaError_t status = cudaFuncSetAttribute(SplatTiles, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
    if (status != cudaSuccess)
      return status;
    SplatTiles<<<dim3(static_cast<unsigned int>(launch.rows), static_cast<unsigned int>(launch.count)), TileThreads, bytes, stream>>>(launch);
  }
  else if (launch.splatRun > 1)
  {
    const long long threads = static_cast<long long>(launch.size[0]) * launch.size[2] * ((launch.size[1] + launch.splatRun - 1) / launch.splatRun);
    SplatRuns<<<CellGrid(threads, launch.count), CellThreads, 0, stream>>>(launch, launch.splatRun);
  }
  else
    Splat<<<CellGrid(voxels, launch.count), CellThreads, 0, stream>>>(launch);
  return cudaGetLastError();
}

/** The dynamic shared memory of a block of the cluster composites with `size` blocks per view (fewer
 * when the detector has too few rows for that many bands: `size` is updated), or 0 when such a
 * cluster cannot be had. */
int
ClusterSharedBytes(int columns, int rows, int reachU, int reachV, int optin, int perSM, int & size)
{
  // Every band gets a row at least (a band of bandRows rows each but the last).
  while (size > 1 && (size - 1) * ((rows + size - 1) / size) >= rows)
    --size;
  if (size <= 1)
    return 0;
  const long long bandRows = (rows + size - 1) / size;
  if (bandRows * columns > static_cast<long long>(BandThreads) * MostBandPixelsPerThread)
    return 0;
  const long long floats = bandRows * (columns + 2ll * reachU) + 2 * (bandRows + 2ll * reachV) * columns;
  const long long needed = floats * static_cast<long long>(sizeof(float));
  if (needed + static_cast<long long>(sizeof(EmissionView)) > optin)
    return 0;
  // Only what the band needs: the H100 puts a cluster's 8 blocks on 8 SMs anyway (an OSEM iteration of
  // problem E took the same with CBCT_EMISSION_CLUSTER_SPREAD=1, which asks for more shared memory than
  // half an SM's to force one block per SM), and the back projection of all 120 views was faster
  // without (9.5 against 11.1 ms: several clusters' blocks share SMs).
  long long bytes = needed;
  const char * spread = std::getenv("CBCT_EMISSION_CLUSTER_SPREAD");
  if (spread && std::atoi(spread) != 0)
    bytes = std::max<long long>(needed, std::min<long long>(optin - static_cast<long long>(sizeof(EmissionView)), perSM / 2 + 1024));
  const bool few = FewBandPixels(columns, rows, size);
  for (void (*kernel)(const CudaEmissionLaunch) :
       { few ? ClusterForwardComposite<4> : ClusterForwardComposite<8>, few ? ClusterBackComposite<4> : ClusterBackComposite<8> })
  {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess ||
        (size > PortableClusterSize &&
         cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess))
    {
      cudaGetLastError(); // clear it: the one-block kernels will do
      return 0;
    }
    // The device must be able to hold one such cluster at all.
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned int>(size));
    config.blockDim = dim3(BandThreads);
    config.dynamicSmemBytes = static_cast<std::size_t>(bytes);
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned int>(size);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int active = 0;
    if (cudaOccupancyMaxActiveClusters(&active, kernel, &config) != cudaSuccess || active < 1)
    {
      cudaGetLastError();
      return 0;
    }
  }
  return static_cast<int>(bytes);
}

bool
CudaEmissionSplatTilesApply(const EmissionView & view, const int size[3], int columns, int largestSlices)
{
  int device = 0, optin = 0;
  if (!view.parallel || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
    return false;
  const float * m = view.toPixel;
  // Rows along y: a row's voxels lie in at most a few y slices.
  const double spread = std::abs(m[4]) * (size[0] - 1) + std::abs(m[6]) * (size[2] - 1);
  return std::abs(m[5]) >= 0.25 && spread <= 0.5 &&
         sizeof(float) * static_cast<double>(largestSlices) * columns + sizeof(EmissionView) <= static_cast<double>(optin);
}

CudaEmissionCompositePlan
CudaEmissionPlanComposite(int columns, int rows, int reachU, int reachV, int requested)
{
  CudaEmissionCompositePlan plan; // one block per view
  if (requested == 0)
  {
    requested = PortableClusterSize;
    if (const char * chosen = std::getenv("CBCT_EMISSION_CLUSTER_SIZE"))
      requested = std::atoi(chosen);
  }
  int device = 0, clusters = 0, optin = 0, perSM = 0;
  if (requested <= 1 || columns <= 0 || rows <= 0 || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device) != cudaSuccess || !clusters ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&perSM, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess)
    return plan;
  // The size asked for (at most 16, the non-portable limit), else the portable 8.
  for (int size : { std::min(requested, 16), std::min(requested, PortableClusterSize) })
  {
    const int bytes = ClusterSharedBytes(columns, rows, reachU, reachV, optin, perSM, size);
    if (bytes > 0)
    {
      plan.clusterSize = size;
      plan.sharedBytes = bytes;
      return plan;
    }
  }
  return plan;
}

cudaError_t
LaunchEmissionForwardComposite(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.clusterSize > 1 && launch.count > 0)
    return LaunchClusterComposite(FewBandPixels(launch.columns, launch.rows, launch.clusterSize) ? ClusterForwardComposite<4>
                                                                                                 : ClusterForwardComposite<8>,
                                  launch, stream);
  return LaunchComposite(ForwardComposite, launch, stream);
}

cudaError_t
LaunchEmissionBackComposite(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  if (launch.clusterSize > 1 && launch.count > 0)
    return LaunchClusterComposite(FewBandPixels(launch.columns, launch.rows, launch.clusterSize) ? ClusterBackComposite<4>
                                                                                                 : ClusterBackComposite<8>,
                                  launch, stream);
  return LaunchComposite(BackComposite, launch, stream);
}

cudaError_t
LaunchEmissionGather(const CudaEmissionLaunch & launch, cudaStream_t stream)
{
  const long long voxels = static_cast<long long>(launch.size[0]) * launch.size[1] * launch.size[2];
  if (voxels <= 0)
    return cudaSuccess;
  if (launch.count <= 0)
    return launch.accumulate ? cudaSuccess : cudaMemsetAsync(launch.volume, 0, voxels * sizeof(float), stream);
  // Views in chunks of GatherViews, each chunk's sum added to the volume.
  for (int first = 0; first < launch.count; first += GatherViews)
  {
    const int views = launch.count - first < GatherViews ? launch.count - first : GatherViews;
    const int run = launch.gatherRun >= 16 ? 16 : launch.gatherRun >= 8 ? 8 : launch.gatherRun >= 4 ? 4 : launch.gatherRun >= 2 ? 2 : 0;
    const long long threads = run ? static_cast<long long>(launch.size[0]) * launch.size[2] * ((launch.size[1] + run - 1) / run) : 0;
    const int add = first > 0 || launch.accumulate;
    if (run == 16)
      GatherRuns<16><<<CellGrid(threads, 1), CellThreads, 0, stream>>>(launch, first, views, add);
    else if (run == 8)
      GatherRuns<8><<<CellGrid(threads, 1), CellThreads, 0, stream>>>(launch, first, views, add);
    else if (run == 4)
      GatherRuns<4><<<CellGrid(threads, 1), CellThreads, 0, stream>>>(launch, first, views, add);
    else if (run == 2)
      GatherRuns<2><<<CellGrid(threads, 1), CellThreads, 0, stream>>>(launch, first, views, add);
    else
      Gather<<<CellGrid(voxels, 1), CellThreads, 0, stream>>>(launch, first, views, first > 0 || launch.accumulate);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess)
      return status;
  }
  return cudaSuccess;
}

} // namespace cbct
