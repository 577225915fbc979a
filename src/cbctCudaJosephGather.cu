#include "cbctCudaJosephGather.hcu"

namespace cbct
{

namespace
{
// One block per tile of 31 x 8 x 31 voxels, eight warps. For rays of dominant axis a, warp w takes the
// tile's slices w, w + 8, ... across a; its 32 lanes hold 32 consecutive cells along x (z when a is
// x): the cell before the tile and the tile's 31, so that neighbouring lanes read neighbouring
// detector columns; each lane walks its cells along the remaining axis (y for a circular scan about
// y), one cell per step. A voxel needs its own cell, the previous lane's (a shuffle), its previous
// step's (a register) and the previous lane's previous step's (a shuffle).
constexpr int Warps = 8;
constexpr int Threads = 32 * Warps;
constexpr int TileX = JosephGatherTileX, TileY = JosephGatherTileY, TileZ = JosephGatherTileZ;
static_assert(TileX == 31 && TileZ == 31, "a warp's 32 lanes are the 31 voxels of a tile row and the cell before them");
// The tile's sums in shared memory, [y][z][x] with rows of 33 along x: lanes along x or along z both
// hit 32 different banks.
constexpr int RowPitch = 33;
constexpr int SlicePitch = TileZ * RowPitch;

/** The tile of block (tx, ty, tz): its first voxel and its extent within the volume. */
__device__ inline void
Tile(const int size[3], int tx, int ty, int tz, int lo[3], int n[3])
{
  lo[0] = tx * TileX;
  lo[1] = ty * TileY;
  lo[2] = tz * TileZ;
  n[0] = min(TileX, size[0] - lo[0]);
  n[1] = min(TileY, size[1] - lo[1]);
  n[2] = min(TileZ, size[2] - lo[2]);
}

/** Sets the batch's rays up: JosephSetup() per pixel, as the forward projector. */
__global__ void
SetUp(const CudaJosephGatherLaunch p)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y, m = blockIdx.z;
  if (i >= p.columns)
    return;
  const long long at = (static_cast<long long>(m) * p.rows + j) * p.columns + i;
  const long long planeSize = static_cast<long long>(p.count) * p.rows * p.columns;
  JosephLine line;
  const unsigned int k = p.subset[p.first + m];
  const bool ok = JosephSetup(p.rays[k], p.size, p.firstColumn + i, p.firstRow + j, line);
  p.lines[at] = ok ? make_float4(line.b0, line.kb, line.c0, line.kc) : make_float4(0.f, 0.f, 0.f, 0.f);
  // The records kernel takes step x value, so that a candidate costs one read fewer.
  const float scale = p.kernel != CudaJosephGatherTiles ? p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i] : 1.f;
  for (int a = 0; a < 3; ++a)
    if (Pick(p.plane, a) >= 0)
      p.steps[Pick(p.plane, a) * planeSize + at] = ok && line.a == a ? line.step * scale : 0.f;
}

/** Plans every tile's cells for each projection of the batch and axis (one thread each), in double;
 * a kernel of its own so that the gather keeps its registers. plans[(tile * count + m) * 3 + a]. */
__global__ void
Plan(const CudaJosephGatherLaunch p, int tilesX, int tilesY, int tiles)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tiles * p.count * 3)
    return;
  const int a = t % 3, m = t / 3 % p.count, tile = t / 3 / p.count;
  int lo[3], n[3];
  Tile(p.size, tile % tilesX, tile / tilesX % tilesY, tile / tilesX / tilesY, lo, n);
  // In the volume's index space, as the samples are (a slab's tiles start at its first voxel's index).
  for (int d = 0; d < 3; ++d)
    lo[d] += p.start[d];
  const int hi[3] = { lo[0] + n[0], lo[1] + n[1], lo[2] + n[2] };
  JosephGatherPlan plan;
  plan.exhaustive = 0;
  if (Pick(p.plane, a) < 0 || !JosephGatherPlanTile(p.gather[p.subset[p.first + m]], a, lo, hi, plan))
    plan.halfU = -1.f; // no ray of axis a reaches the tile
  else if (plan.exhaustive)
    plan.halfU = 0.f;
  p.plans[t] = plan;
}

/** CellSums() for a tile that reaches the source's plane: every pixel, each ray set up as the
 * forward projector does (its side of the source too). Rare and slow; out of line, and returning
 * its sums by value, so that it costs the common path nothing. */
__device__ __noinline__ float4
ExhaustiveCellSums(const CudaJosephGatherLaunch & p, unsigned int k, int a, int s, int cb, int cc)
{
  const float * values = p.projections + k * static_cast<long long>(p.columns) * p.rows;
  float4 S = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int j = 0; j < p.rows; ++j)
    for (int i = 0; i < p.columns; ++i)
    {
      JosephLine line;
      float w[4];
      if (JosephSetup(p.rays[k], p.size, p.firstColumn + i, p.firstRow + j, line) && line.a == a && s >= line.first &&
          s <= line.last && JosephCellWeights(line, s, cb, cc, w))
      {
        const float value = values[static_cast<long long>(j) * p.columns + i];
        S.x += w[0] * value;
        S.y += w[1] * value;
        S.z += w[2] * value;
        S.w += w[3] * value;
      }
    }
  return S;
}

/** Adds the batch's backprojection to the tile's voxels: of the tiles' plans in front of the source
 * (Exhaustive false), or of those that reach the source's plane (true; a launch of its own, made
 * only when there are such tiles, so that the common kernel keeps its registers). */
template <bool Exhaustive>
__global__ void
__launch_bounds__(Threads)
Gather(const CudaJosephGatherLaunch p)
{
  __shared__ float sums[TileY * SlicePitch];
  int lo[3], n[3];
  Tile(p.size, blockIdx.x, blockIdx.y, blockIdx.z, lo, n);
  // The tile's first voxel in the volume's index space, where the cells and slices are counted.
  const int from[3] = { lo[0] + p.start[0], lo[1] + p.start[1], lo[2] + p.start[2] };
  for (int v = threadIdx.x; v < TileY * SlicePitch; v += Threads)
    sums[v] = 0.f;
  const JosephGatherPlan * plans =
    p.plans + (static_cast<long long>(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * p.count * 3;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int columnLo = p.firstColumn, columnHi = p.firstColumn + p.columns - 1;
  const int rowLo = p.firstRow, rowHi = p.firstRow + p.rows - 1;
  const int pixels = p.columns * p.rows;
  int previousAxis = -1;
  for (int m = 0; m < p.count; ++m)
  {
    const unsigned int k = p.subset[p.first + m];
    const float * values = p.projections + static_cast<long long>(k) * pixels - (static_cast<long long>(rowLo) * p.columns + columnLo);
    const float4 * lines = p.lines + static_cast<long long>(m) * pixels - (static_cast<long long>(rowLo) * p.columns + columnLo);
    for (int a = 0; a < 3; ++a)
    {
      const JosephGatherPlan plan = plans[m * 3 + a];
      if (plan.halfU < 0.f || (plan.exhaustive != 0) != Exhaustive)
        continue;
      // The warps own slices across a: another axis gives them other voxels.
      if (a != previousAxis)
        __syncthreads();
      previousAxis = a;
      const float * steps = p.steps + (static_cast<long long>(Pick(p.plane, a)) * p.count + m) * pixels -
                            (static_cast<long long>(rowLo) * p.columns + columnLo);
      // Lanes along z for x-dominant rays, else along x; `slow` is the remaining axis.
      const int laneAxis = a == 0 ? 2 : 0, slowAxis = 3 - a - laneAxis;
      const bool laneIsB = laneAxis == (a + 1) % 3;
      const int laneCells = Pick(n, laneAxis) + 1, slowCells = Pick(n, slowAxis), slices = Pick(n, a);
      const int laneCell = Pick(from, laneAxis) - 1 + lane;
      // h of this lane's cell centre at slow step 0 and slice 0, and its change per step and slice.
      float hLane[3], hSlow[3], hSlice[3];
      for (int r = 0; r < 3; ++r)
      {
        hSlow[r] = laneIsB ? plan.hc[r] : plan.hb[r];
        hSlice[r] = plan.ha[r];
        hLane[r] = plan.base[r] + static_cast<float>(lane - 1) * (laneIsB ? plan.hb[r] : plan.hc[r]);
      }
      for (int slice = warp; slice < slices; slice += Warps)
      {
        const int s = Pick(from, a) + slice;
        float previousSlow = 0.f, previous3 = 0.f;
        // h of this lane's cell, stepped along the slow axis by additions (at most 32 steps: their
        // rounding is far within the plan's margins).
        float h[3];
        for (int r = 0; r < 3; ++r)
          h[r] = hLane[r] + static_cast<float>(slice) * hSlice[r] - hSlow[r];
        for (int step = -1; step < slowCells; ++step, h[0] += hSlow[0], h[1] += hSlow[1], h[2] += hSlow[2])
        {
          const int slowCell = Pick(from, slowAxis) + step;
          const int cb = laneIsB ? laneCell : slowCell, cc = laneIsB ? slowCell : laneCell;
          float4 S = make_float4(0.f, 0.f, 0.f, 0.f);
          if (lane < laneCells)
          {
            if (Exhaustive)
              S = ExhaustiveCellSums(p, k, a, s, cb, cc);
            else
            {
              int i0, i1, j0, j1;
              JosephGatherCandidates(plan, h[0], h[1], h[2], columnLo, columnHi, rowLo, rowHi, i0, i1, j0, j1);
              for (int j = j0; j <= j1; ++j)
                for (int i = i0, at = j * p.columns + i0; i <= i1; ++i, ++at)
                {
                  const float raysStep = __ldg(steps + at);
                  if (raysStep == 0.f) // a ray of another axis, or none
                    continue;
                  const float4 l = __ldg(lines + at);
                  JosephLine line;
                  line.b0 = l.x;
                  line.kb = l.y;
                  line.c0 = l.z;
                  line.kc = l.w;
                  line.step = raysStep;
                  float w[4];
                  if (JosephCellWeights(line, s, cb, cc, w))
                  {
                    const float value = __ldg(values + at);
                    S.x += w[0] * value;
                    S.y += w[1] * value;
                    S.z += w[2] * value;
                    S.w += w[3] * value;
                  }
                }
            }
          }
          const float laneCorner = laneIsB ? S.y : S.z, slowCorner = laneIsB ? S.z : S.y;
          const float fromPreviousLane = __shfl_up_sync(0xffffffffu, laneCorner, 1);
          const float fromPreviousBoth = __shfl_up_sync(0xffffffffu, previous3, 1);
          if (lane >= 1 && lane < laneCells && step >= 0)
          {
            // The voxel: `slice` along a, lane - 1 along the lane axis, `step` along the slow axis.
            const int x = a == 0 ? slice : lane - 1;
            const int y = a == 1 ? slice : step;
            const int z = a == 2 ? slice : (a == 0 ? lane - 1 : step);
            sums[y * SlicePitch + z * RowPitch + x] += S.x + fromPreviousLane + previousSlow + fromPreviousBoth;
          }
          previousSlow = slowCorner;
          previous3 = S.w;
        }
      }
    }
  }
  if (Exhaustive && previousAxis < 0)
    return; // none of this tile's plans
  __syncthreads();
  for (int v = threadIdx.x; v < n[0] * n[1] * n[2]; v += Threads)
  {
    const int x = v % n[0], y = v / n[0] % n[1], z = v / n[0] / n[1];
    p.volume[(static_cast<long long>(lo[2] + z) * p.size[1] + (lo[1] + y)) * p.size[0] + (lo[0] + x)] +=
      sums[y * SlicePitch + z * RowPitch + x];
  }
}

/** The gather of the tiles in front of the source with the records of CudaJosephGatherRecords, for
 * the rays of dominant axis A of one projection: the same tiles, warps, lanes, cells and combination
 * of cells into voxels as Gather<false>, and per cell the same candidates (JosephGatherCandidates()'s
 * operations) and the same test and weights (JosephCellWeights(): the cell is the floor of the float
 * sample, the fraction quantised as the texture unit does); what differs is the cost of a cell and
 * of a candidate:
 * - `weighted` holds step x value of the projection's rays of axis A (0 for the others), so a
 *   candidate is two reads issued together (its line, its weighted value) and a select, instead of
 *   three reads each waiting on a test;
 * - a cell's candidates run as one flat loop (a warp runs as many rounds as its busiest lane has
 *   candidates, not its widest column range times its tallest row range) on two pointers stepped
 *   along it;
 * - the axis is a template parameter, so the lane and slow axes, the corners they exchange and the
 *   voxels' offsets in `sums` are constants;
 * - the quantised fractions are kept as integers 0..256 (the texture unit's 8-bit weights times 256),
 *   and `sums` holds 2^16 times the voxels' sums, scaled back when the tile is written: powers of
 *   two, so the same bits as scaling each weight;
 * - no NaN test on the cell's pixel: a plan in front of the source keeps h2 > 0, and a NaN would
 *   convert to 0 and give a clipped range whose candidates the exact test rejects.
 * The weights are the forward projector's up to the rounding of vb (vc (step value)) instead of
 * ((vb vc) step) value. */
template <int A>
__device__ inline void
GatherRecordsAxis(const CudaJosephGatherLaunch & p, const JosephGatherPlan & plan, const float4 * lines, const float * weighted,
                  const int from[3], const int n[3], float * sums)
{
  constexpr int LaneAxis = A == 0 ? 2 : 0, SlowAxis = 3 - A - LaneAxis;
  constexpr bool LaneIsB = LaneAxis == (A + 1) % 3;
  // Offsets in sums ([y][z][x], rows of RowPitch, slices of SlicePitch) per slice, lane and step.
  constexpr int Stride[3] = { 1, SlicePitch, RowPitch };
  constexpr int SliceStride = Stride[A], LaneStride = Stride[LaneAxis], StepStride = Stride[SlowAxis];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int columnLo = p.firstColumn, columnHi = p.firstColumn + p.columns - 1;
  const int rowLo = p.firstRow, rowHi = p.firstRow + p.rows - 1;
  const int columns = p.columns;
  const int laneCells = n[LaneAxis] + 1, slowCells = n[SlowAxis], slices = n[A];
  const bool laneWorks = lane < laneCells;
  const bool writes = lane >= 1 && laneWorks;
  const float laneCell = static_cast<float>(from[LaneAxis] - 1 + lane);
  const float firstSlowCell = static_cast<float>(from[SlowAxis] - 1);
  float hLane[3], hSlow[3], hSlice[3];
  for (int r = 0; r < 3; ++r)
  {
    hSlow[r] = LaneIsB ? plan.hc[r] : plan.hb[r];
    hSlice[r] = plan.ha[r];
    hLane[r] = plan.base[r] + static_cast<float>(lane - 1) * (LaneIsB ? plan.hb[r] : plan.hc[r]);
  }
  for (int slice = warp; slice < slices; slice += Warps)
  {
    const float sf = static_cast<float>(from[A] + slice);
    float previousSlow = 0.f, previous3 = 0.f;
    float h[3];
    for (int r = 0; r < 3; ++r)
      h[r] = hLane[r] + static_cast<float>(slice) * hSlice[r] - hSlow[r];
    float slowCell = firstSlowCell;
    float * out = sums + slice * SliceStride + (lane - 1) * LaneStride - StepStride; // the voxel of step -1
    for (int step = -1; step < slowCells; ++step, out += StepStride)
    {
      const float fb = LaneIsB ? laneCell : slowCell, fc = LaneIsB ? slowCell : laneCell;
      const float fb1 = fb + 1.f, fc1 = fc + 1.f;
      // The candidates (JosephGatherCandidates()'s operations).
      float r;
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(h[2]));
      const float u = h[0] * r, v = h[1] * r;
      const int i0 = max(__float2int_ru(u - plan.halfU), columnLo);
      const int i1 = min(__float2int_rd(u + plan.halfU), columnHi);
      const int j0 = max(__float2int_ru(v - plan.halfV), rowLo);
      const int j1 = min(__float2int_rd(v + plan.halfV), rowHi);
      const int width = i1 - i0 + 1;
      const int count = laneWorks && width > 0 && j1 >= j0 ? width * (j1 - j0 + 1) : 0;
      const int first = (j0 - rowLo) * columns + (i0 - columnLo);
      const float4 * line = lines + first;
      const float * value = weighted + first;
      const int nextRow = columns - width + 1;
      float4 S = make_float4(0.f, 0.f, 0.f, 0.f);
      // Most cells have one candidate or two: a plain loop (unrolling costs each cell a prologue).
#pragma unroll 1
      for (int c = 0, column = 1; c < count; ++c)
      {
        const float4 l = __ldg(line);
        const float sv = __ldg(value);
        // JosephCellWeights()'s test, and its quantised fractions times 256 (the floor of a number
        // in [0.5, 256.5) once the sample is in the cell; outside it the select below discards
        // whatever they are).
        const float pb = AddRn(l.x, MulRn(sf, l.y));
        const float pc = AddRn(l.z, MulRn(sf, l.w));
        const bool inside = pb >= fb && pb < fb1 && pc >= fc && pc < fc1;
        const float wb = floorf(fmaf(AddRn(pb, -fb), 256.f, 0.5f)), wc = floorf(fmaf(AddRn(pc, -fc), 256.f, 0.5f));
        const float vb = 256.f - wb, vc = 256.f - wc;
        const float w = inside ? sv : 0.f;
        const float vcw = vc * w, wcw = wc * w;
        S.x = fmaf(vb, vcw, S.x);
        S.y = fmaf(wb, vcw, S.y);
        S.z = fmaf(vb, wcw, S.z);
        S.w = fmaf(wb, wcw, S.w);
        const int advance = column == width ? nextRow : 1;
        column = column == width ? 1 : column + 1;
        line += advance;
        value += advance;
      }
      const float laneCorner = LaneIsB ? S.y : S.z, slowCorner = LaneIsB ? S.z : S.y;
      const float fromPreviousLane = __shfl_up_sync(0xffffffffu, laneCorner, 1);
      const float fromPreviousBoth = __shfl_up_sync(0xffffffffu, previous3, 1);
      if (writes && step >= 0)
        *out += S.x + fromPreviousLane + previousSlow + fromPreviousBoth;
      previousSlow = slowCorner;
      previous3 = S.w;
      h[0] += hSlow[0];
      h[1] += hSlow[1];
      h[2] += hSlow[2];
      slowCell += 1.f;
    }
  }
}

/** The records kernel (GatherRecordsAxis()): one block per tile, as Gather<false>; four blocks per
 * multiprocessor (64 registers: on problem S on an H100, 0.291 s against 0.312 s with three blocks and
 * the 85 registers that allows). */
__global__ void
__launch_bounds__(Threads, 4)
GatherRecords(const CudaJosephGatherLaunch p)
{
  __shared__ float sums[TileY * SlicePitch]; // 2^16 times the voxels' sums
  int lo[3], n[3];
  Tile(p.size, blockIdx.x, blockIdx.y, blockIdx.z, lo, n);
  const int from[3] = { lo[0] + p.start[0], lo[1] + p.start[1], lo[2] + p.start[2] };
  for (int v = threadIdx.x; v < TileY * SlicePitch; v += Threads)
    sums[v] = 0.f;
  const JosephGatherPlan * plans =
    p.plans + (static_cast<long long>(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * p.count * 3;
  const long long pixels = static_cast<long long>(p.columns) * p.rows;
  int previousAxis = -1;
  for (int m = 0; m < p.count; ++m)
  {
    const float4 * lines = p.lines + m * pixels;
    for (int a = 0; a < 3; ++a)
    {
      const JosephGatherPlan plan = plans[m * 3 + a];
      if (plan.halfU < 0.f || plan.exhaustive != 0)
        continue;
      // The warps own slices across a: another axis gives them other voxels.
      if (a != previousAxis)
        __syncthreads();
      previousAxis = a;
      const float * weighted = p.steps + (Pick(p.plane, a) * static_cast<long long>(p.count) + m) * pixels;
      if (a == 2)
        GatherRecordsAxis<2>(p, plan, lines, weighted, from, n, sums);
      else if (a == 0)
        GatherRecordsAxis<0>(p, plan, lines, weighted, from, n, sums);
      else
        GatherRecordsAxis<1>(p, plan, lines, weighted, from, n, sums);
    }
  }
  if (previousAxis < 0)
    return; // no plan of this tile in front of the source
  __syncthreads();
  for (int v = threadIdx.x; v < n[0] * n[1] * n[2]; v += Threads)
  {
    const int x = v % n[0], y = v / n[0] % n[1], z = v / n[0] / n[1];
    p.volume[(static_cast<long long>(lo[2] + z) * p.size[1] + (lo[1] + y)) * p.size[0] + (lo[0] + x)] +=
      sums[y * SlicePitch + z * RowPitch + x] * (1.f / 65536.f);
  }
}

// The runs kernel's sums: the tile's voxels with one voxel of padding on each side of every axis
// ([y][z][x], x fastest), where corners that fall outside the tile go and are never read.
// A lane's corners differ from its neighbours' along the lane axis and, by the row each lane is at,
// along the slow axis: the pitches put lanes along x or z on 32 banks whatever their slow index is
// when the slow axis is y (a multiple of 32 along y, 33 along z).
constexpr int RunsRowPitch = TileX + 2;                          // 33
constexpr int RunsSlicePitch = ((TileZ + 2) * RunsRowPitch + 31) / 32 * 32; // 1120
constexpr int RunsSums = (TileY + 2) * RunsSlicePitch;

/** The gather of the tiles in front of the source by runs (CudaJosephGatherRuns), for the rays of
 * dominant axis A of one projection. The tile, its plans, warps (slices across A) and lanes (cells
 * along the lane axis, the cell before the tile and the tile's 31) are the records kernel's; a lane
 * takes its whole run of cells along the slow axis at once (the cell before the tile and the tile's
 * 8): its candidates are the pixels of the run's box (the images of its first and last cell centres,
 * the run being a segment that the projective map keeps one, widened by the plan's bounds on a cell),
 * each tested with JosephCellWeights()'s test (its lane coordinate in the lane's cell, its slow
 * coordinate in the run: the cell is the floor of each) and quantised fractions; its four weighted
 * values go straight to the four voxels of its cell in `sums` (2^16 times the sums; a candidate
 * outside the run adds 0): first the two on the lane's own line along the slow axis, then, after a
 * __syncwarp(), the two on the next lane's (where that lane has just added its own), so that lanes
 * of one instruction write different voxels; warps own their slices: no atomics and no exchange of
 * values between lanes. Compared with a box per cell: one box per run
 * instead of nine, and a row of pixels that straddles two cells is read once. */
template <int A>
__device__ inline void
GatherRunsAxis(const CudaJosephGatherLaunch & p, const JosephGatherPlan & plan, const float4 * lines, const float * weighted,
               const int from[3], const int n[3], float * sums)
{
  constexpr int LaneAxis = A == 0 ? 2 : 0, SlowAxis = 3 - A - LaneAxis;
  constexpr bool LaneIsB = LaneAxis == (A + 1) % 3;
  constexpr int Stride[3] = { 1, RunsSlicePitch, RunsRowPitch };
  constexpr int SliceStride = Stride[A], LaneStride = Stride[LaneAxis], SlowStride = Stride[SlowAxis];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int columnLo = p.firstColumn, columnHi = p.firstColumn + p.columns - 1;
  const int rowLo = p.firstRow, rowHi = p.firstRow + p.rows - 1;
  const int columns = p.columns;
  const int laneCells = n[LaneAxis] + 1, slowCells = n[SlowAxis], slices = n[A];
  const bool laneWorks = lane < laneCells; // a partial tile's lanes past it have no cell (and add 0)
  const float laneCell = static_cast<float>(from[LaneAxis] - 1 + lane), laneCell1 = laneCell + 1.f;
  const float firstSlowCell = static_cast<float>(from[SlowAxis] - 1);
  const float lastSlowCell = static_cast<float>(from[SlowAxis] + slowCells - 1);
  const float lastIndex = static_cast<float>(slowCells); // of the run's cells, the first being 0
  float hFirst[3], hRun[3];
  for (int r = 0; r < 3; ++r)
  {
    // h of this lane's cell centre at the run's first cell (the one before the tile), slice 0, and
    // from there to the run's last cell.
    const float hSlow = LaneIsB ? plan.hc[r] : plan.hb[r];
    hFirst[r] = plan.base[r] + static_cast<float>(lane - 1) * (LaneIsB ? plan.hb[r] : plan.hc[r]) - hSlow;
    hRun[r] = static_cast<float>(slowCells) * hSlow;
  }
  for (int slice = warp; slice < slices; slice += Warps)
  {
    const float sf = static_cast<float>(from[A] + slice);
    float h0[3], h1[3];
    for (int r = 0; r < 3; ++r)
    {
      h0[r] = hFirst[r] + static_cast<float>(slice) * plan.ha[r];
      h1[r] = h0[r] + hRun[r];
    }
    float r0, r1;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r0) : "f"(h0[2]));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r1) : "f"(h1[2]));
    const float u0 = h0[0] * r0, v0 = h0[1] * r0, u1 = h1[0] * r1, v1 = h1[1] * r1;
    const int i0 = max(__float2int_ru(fminf(u0, u1) - plan.halfU), columnLo);
    const int i1 = min(__float2int_rd(fmaxf(u0, u1) + plan.halfU), columnHi);
    const int j0 = max(__float2int_ru(fminf(v0, v1) - plan.halfV), rowLo);
    const int j1 = min(__float2int_rd(fmaxf(v0, v1) + plan.halfV), rowHi);
    const int width = i1 - i0 + 1;
    const int count = laneWorks && width > 0 && j1 >= j0 ? width * (j1 - j0 + 1) : 0;
    const int first = (j0 - rowLo) * columns + (i0 - columnLo);
    const float4 * line = lines + first;
    const float * value = weighted + first;
    const int nextRow = columns - width + 1;
    // The voxel of corner 0 of the run's first cell (one before the tile along the lane and slow
    // axes: the padding).
    float * run = sums + (slice + 1) * SliceStride + lane * LaneStride;
    // Every lane runs the warp's largest count (those past their own add 0), so that the lanes meet
    // at the __syncwarp()s below: the corners along the lane axis of lane L are the voxels of lane
    // L + 1's cell, so a round adds the corners of each lane's own voxels, then (the warp's writes
    // seen) those of its neighbour's.
    const int rounds = __reduce_max_sync(0xffffffffu, count);
#pragma unroll 1
    for (int c = 0, column = 1; c < rounds; ++c)
    {
      const bool active = c < count;
      const float4 l = active ? __ldg(line) : make_float4(0.f, 0.f, 0.f, 0.f);
      const float sv = active ? __ldg(value) : 0.f;
      const float pb = AddRn(l.x, MulRn(sf, l.y));
      const float pc = AddRn(l.z, MulRn(sf, l.w));
      const float laneCoordinate = LaneIsB ? pb : pc, slowCoordinate = LaneIsB ? pc : pb;
      const float slowCell = floorf(slowCoordinate);
      const bool inside = laneCoordinate >= laneCell && laneCoordinate < laneCell1 && slowCell >= firstSlowCell && slowCell <= lastSlowCell;
      // Every candidate adds (0 when it is not in the run, to a cell of the run): no branch, which a
      // warp would take whenever one of its lanes has a candidate inside, and the value's read
      // issued with the line's instead of after the test. The fractions of a sample outside are
      // finite and multiplied by 0.
      const float w = inside && active ? sv : 0.f;
      const float wl = floorf(fmaf(AddRn(laneCoordinate, -laneCell), 256.f, 0.5f));
      const float ws = floorf(fmaf(AddRn(slowCoordinate, -slowCell), 256.f, 0.5f));
      const float vl = 256.f - wl, vs = 256.f - ws;
      const float vsw = vs * w, wsw = ws * w;
      float * corner = run + static_cast<int>(fminf(fmaxf(slowCell - firstSlowCell, 0.f), lastIndex)) * SlowStride;
      corner[0] += vl * vsw;
      corner[SlowStride] += vl * wsw;
      __syncwarp();
      corner[LaneStride] += wl * vsw;
      corner[LaneStride + SlowStride] += wl * wsw;
      __syncwarp();
      const int advance = active ? (column == width ? nextRow : 1) : 0;
      column = column == width ? 1 : column + 1;
      line += advance;
      value += advance;
    }
  }
}

/** The runs kernel (GatherRunsAxis()): one block per tile, as Gather<false>, sums with padding. */
__global__ void
__launch_bounds__(Threads, 4)
GatherRuns(const CudaJosephGatherLaunch p)
{
  __shared__ float sums[RunsSums]; // 2^16 times the voxels' sums, padded
  int lo[3], n[3];
  Tile(p.size, blockIdx.x, blockIdx.y, blockIdx.z, lo, n);
  const int from[3] = { lo[0] + p.start[0], lo[1] + p.start[1], lo[2] + p.start[2] };
  for (int v = threadIdx.x; v < RunsSums; v += Threads)
    sums[v] = 0.f;
  const JosephGatherPlan * plans =
    p.plans + (static_cast<long long>(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * p.count * 3;
  const long long pixels = static_cast<long long>(p.columns) * p.rows;
  int previousAxis = -1;
  for (int m = 0; m < p.count; ++m)
  {
    const float4 * lines = p.lines + m * pixels;
    for (int a = 0; a < 3; ++a)
    {
      const JosephGatherPlan plan = plans[m * 3 + a];
      if (plan.halfU < 0.f || plan.exhaustive != 0)
        continue;
      // The warps own slices across a, and the zeroing must be done: another axis gives them other
      // voxels.
      if (a != previousAxis)
        __syncthreads();
      previousAxis = a;
      const float * weighted = p.steps + (Pick(p.plane, a) * static_cast<long long>(p.count) + m) * pixels;
      if (a == 2)
        GatherRunsAxis<2>(p, plan, lines, weighted, from, n, sums);
      else if (a == 0)
        GatherRunsAxis<0>(p, plan, lines, weighted, from, n, sums);
      else
        GatherRunsAxis<1>(p, plan, lines, weighted, from, n, sums);
    }
  }
  if (previousAxis < 0)
    return; // no plan of this tile in front of the source
  __syncthreads();
  for (int v = threadIdx.x; v < n[0] * n[1] * n[2]; v += Threads)
  {
    const int x = v % n[0], y = v / n[0] % n[1], z = v / n[0] / n[1];
    p.volume[(static_cast<long long>(lo[2] + z) * p.size[1] + (lo[1] + y)) * p.size[0] + (lo[0] + x)] +=
      sums[(y + 1) * RunsSlicePitch + (z + 1) * RunsRowPitch + (x + 1)] * (1.f / 65536.f);
  }
}

} // namespace

void
JosephGatherTiles(const int size[3], int tiles[3])
{
  tiles[0] = (size[0] + TileX - 1) / TileX;
  tiles[1] = (size[1] + TileY - 1) / TileY;
  tiles[2] = (size[2] + TileZ - 1) / TileZ;
}

cudaError_t
LaunchJosephGatherSetUp(const CudaJosephGatherLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  SetUp<<<dim3((launch.columns + 127) / 128, launch.rows, launch.count), 128, 0, stream>>>(launch);
  int tiles[3];
  JosephGatherTiles(launch.size, tiles);
  const int count = tiles[0] * tiles[1] * tiles[2];
  Plan<<<(count * launch.count * 3 + 127) / 128, 128, 0, stream>>>(launch, tiles[0], tiles[1], count);
  return cudaGetLastError();
}

cudaError_t
LaunchJosephGather(const CudaJosephGatherLaunch & launch, cudaStream_t stream)
{
  if (launch.count <= 0)
    return cudaSuccess;
  int tiles[3];
  JosephGatherTiles(launch.size, tiles);
  if (launch.kernel == CudaJosephGatherRecords)
    GatherRecords<<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  else if (launch.kernel == CudaJosephGatherRuns)
    GatherRuns<<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  else
    Gather<false><<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  if (launch.exhaustive)
    Gather<true><<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
