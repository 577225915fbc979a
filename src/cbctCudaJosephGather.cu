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
  const float scale = p.kernel == CudaJosephGatherRecords ? p.projections[(static_cast<long long>(k) * p.rows + j) * p.columns + i] : 1.f;
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

/** The gather of the tiles in front of the source with the records of CudaJosephGatherRecords: the
 * same tiles, warps, lanes, cells and combination of cells into voxels as Gather<false>, and per
 * cell the same candidates (JosephGatherCandidates()) and the same test and weights
 * (JosephCellWeights(): the cell is floor of the float sample, the fraction quantised as the
 * texture unit does); what differs is the cost of a candidate. `steps` holds step x value per axis
 * plane (0 for rays of another axis), so a candidate is two reads issued together (its line, its
 * weighted value) and a select instead of three reads each waiting on a test; a cell's candidates
 * run as one flat loop; offsets within a projection are 32-bit. The weights are the forward
 * projector's up to the rounding of (vb vc) (step value) instead of ((vb vc) step) value. */
__global__ void
__launch_bounds__(Threads, 4)
GatherRecords(const CudaJosephGatherLaunch p)
{
  __shared__ float sums[TileY * SlicePitch];
  int lo[3], n[3];
  Tile(p.size, blockIdx.x, blockIdx.y, blockIdx.z, lo, n);
  const int from[3] = { lo[0] + p.start[0], lo[1] + p.start[1], lo[2] + p.start[2] };
  for (int v = threadIdx.x; v < TileY * SlicePitch; v += Threads)
    sums[v] = 0.f;
  const JosephGatherPlan * plans =
    p.plans + (static_cast<long long>(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * p.count * 3;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int columnLo = p.firstColumn, columnHi = p.firstColumn + p.columns - 1;
  const int rowLo = p.firstRow, rowHi = p.firstRow + p.rows - 1;
  const int columns = p.columns;
  const int pixels = p.columns * p.rows;
  int previousAxis = -1;
  for (int m = 0; m < p.count; ++m)
  {
    const float4 * lines = p.lines + static_cast<long long>(m) * pixels;
    for (int a = 0; a < 3; ++a)
    {
      const JosephGatherPlan plan = plans[m * 3 + a];
      if (plan.halfU < 0.f || plan.exhaustive != 0)
        continue;
      if (a != previousAxis)
        __syncthreads();
      previousAxis = a;
      const float * weighted = p.steps + (static_cast<long long>(Pick(p.plane, a)) * p.count + m) * pixels;
      const int laneAxis = a == 0 ? 2 : 0, slowAxis = 3 - a - laneAxis;
      const bool laneIsB = laneAxis == (a + 1) % 3;
      const int laneCells = Pick(n, laneAxis) + 1, slowCells = Pick(n, slowAxis), slices = Pick(n, a);
      const int laneCell = Pick(from, laneAxis) - 1 + lane;
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
        const float sf = static_cast<float>(s);
        float previousSlow = 0.f, previous3 = 0.f;
        float h[3];
        for (int r = 0; r < 3; ++r)
          h[r] = hLane[r] + static_cast<float>(slice) * hSlice[r] - hSlow[r];
        for (int step = -1; step < slowCells; ++step, h[0] += hSlow[0], h[1] += hSlow[1], h[2] += hSlow[2])
        {
          const int slowCell = Pick(from, slowAxis) + step;
          const int cb = laneIsB ? laneCell : slowCell, cc = laneIsB ? slowCell : laneCell;
          const float fb = static_cast<float>(cb), fc = static_cast<float>(cc);
          const float fb1 = fb + 1.f, fc1 = fc + 1.f;
          float4 S = make_float4(0.f, 0.f, 0.f, 0.f);
          int i0, i1, j0, j1;
          JosephGatherCandidates(plan, h[0], h[1], h[2], columnLo, columnHi, rowLo, rowHi, i0, i1, j0, j1);
          const int width = i1 - i0 + 1;
          const int count = lane < laneCells && width > 0 && j1 >= j0 ? width * (j1 - j0 + 1) : 0;
          int at = (j0 - rowLo) * columns + (i0 - columnLo), column = 0;
          for (int c = 0; c < count; ++c)
          {
            const float4 l = __ldg(lines + at);
            const float value = __ldg(weighted + at);
            // JosephCellWeights()'s test and fraction (floor of a number in [0, 256.5) once the
            // sample is in the cell; outside it the select below discards whatever it gives).
            const float pb = AddRn(l.x, MulRn(sf, l.y));
            const float pc = AddRn(l.z, MulRn(sf, l.w));
            const bool inside = pb >= fb && pb < fb1 && pc >= fc && pc < fc1;
            const float wb = floorf(AddRn(pb, -fb) * 256.f + 0.5f) * (1.f / 256.f);
            const float wc = floorf(AddRn(pc, -fc) * 256.f + 0.5f) * (1.f / 256.f);
            const float vb = AddRn(1.f, -wb), vc = AddRn(1.f, -wc);
            const float w = inside ? value : 0.f;
            const float vcw = vc * w, wcw = wc * w;
            S.x = fmaf(vb, vcw, S.x);
            S.y = fmaf(wb, vcw, S.y);
            S.z = fmaf(vb, wcw, S.z);
            S.w = fmaf(wb, wcw, S.w);
            if (++column == width)
            {
              column = 0;
              at += columns - width + 1;
            }
            else
              ++at;
          }
          const float laneCorner = laneIsB ? S.y : S.z, slowCorner = laneIsB ? S.z : S.y;
          const float fromPreviousLane = __shfl_up_sync(0xffffffffu, laneCorner, 1);
          const float fromPreviousBoth = __shfl_up_sync(0xffffffffu, previous3, 1);
          if (lane >= 1 && lane < laneCells && step >= 0)
          {
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
  if (previousAxis < 0)
    return; // no plan of this tile in front of the source
  __syncthreads();
  for (int v = threadIdx.x; v < n[0] * n[1] * n[2]; v += Threads)
  {
    const int x = v % n[0], y = v / n[0] % n[1], z = v / n[0] / n[1];
    p.volume[(static_cast<long long>(lo[2] + z) * p.size[1] + (lo[1] + y)) * p.size[0] + (lo[0] + x)] +=
      sums[y * SlicePitch + z * RowPitch + x];
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
  else
    Gather<false><<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  if (launch.exhaustive)
    Gather<true><<<dim3(tiles[0], tiles[1], tiles[2]), Threads, 0, stream>>>(launch);
  return cudaGetLastError();
}

} // namespace cbct
