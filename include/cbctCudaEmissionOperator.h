#ifndef cbctCudaEmissionOperator_h
#define cbctCudaEmissionOperator_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaEmission.hcu"
#include "cbctCudaProjectorOperator.h"
#include "cbctEmissionLattice.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaEmissionOperator
 * \brief The emission projector pair on the GPU, the twin of EmissionOperator (same lattice, same
 * arithmetic, cbctEmission.hcu): A splats the activity into each view's lattice (runs of voxels along
 * y with atomics, or, opt-in, by lattice rows in shared memory: SetSplatTiles()), lets
 * every cell through exp(-mu l) and composites the slices back to front, each view in a thread-block
 * cluster whose blocks hold bands of the detector plane in shared memory (sm_90; elsewhere, or when
 * the bands do not fit, one block per view: CudaEmissionPlanComposite()); A^T composites front to back
 * and gathers each voxel's cells. A subset's views go in batches whose lattices fit the device memory
 * budget (default: a third of the free memory at construction, at most 4 GiB). The attenuation map
 * stays on the device, and so do the transmissions exp(-mu l) of every view's cells, computed once,
 * when they fit a quarter of the free memory (otherwise each batch computes its own). The environment
 * variables CBCT_EMISSION_CLUSTER_SIZE, CBCT_EMISSION_CLUSTER_SPREAD, CBCT_EMISSION_SPLAT_TILES,
 * CBCT_EMISSION_SPLAT_RUN and CBCT_EMISSION_GATHER_RUN override the defaults (benchmarks/README.md).
 * \ingroup ConeBeamCT
 */
class CudaEmissionOperator : public CudaProjectorOperator
{
public:
  /** `attenuation`: mu per mm on any grid, or null (read once, here). Throws for a negative or
   * non-finite mu, or a bad blur. */
  CudaEmissionOperator(const itk::ImageBase<3> * activity, const itk::ImageBase<3> * projections,
                       const ThreeDCircularProjectionGeometry * geometry, const itk::Image<float, 3> * attenuation,
                       const CollimatorBlur & blur)
    : m_Lattice(activity, attenuation, projections, geometry, blur)
  {
    if (attenuation != nullptr)
    {
      EmissionLattice::CheckAttenuation(attenuation);
      const std::size_t n = attenuation->GetBufferedRegion().GetNumberOfPixels();
      m_Mu.Reserve(n, "attenuation map");
      CudaCheck(cudaMemcpy(m_Mu.Data(), attenuation->GetBufferPointer(), n * sizeof(float), cudaMemcpyHostToDevice),
                "cudaMemcpy (attenuation map)", n * sizeof(float));
      for (int d = 0; d < 3; ++d)
        m_Launch.muSize[d] = m_Lattice.AttenuationSize()[d];
      m_Launch.mu = m_Mu.Data();
    }
    m_Views.Upload(m_Lattice.Views());
    m_Steps.Upload(m_Lattice.BlurSteps());
    m_Taps.Upload(m_Lattice.Taps());
    for (int d = 0; d < 3; ++d)
      m_Launch.size[d] = m_Lattice.ActivitySize()[d];
    m_Launch.columns = m_Lattice.Columns();
    m_Launch.rows = m_Lattice.Rows();
    m_Launch.views = m_Views.Data();
    m_Launch.steps = m_Steps.Data();
    m_Launch.taps = m_Taps.Data();
    m_SharedPlanes = CudaEmissionPlanesFitSharedMemory(m_Launch.columns, m_Launch.rows);
    for (const EmissionBlurStep & step : m_Lattice.BlurSteps())
    {
      m_Launch.blurReachU = std::max(m_Launch.blurReachU, step.radiusU);
      m_Launch.blurReachV = std::max(m_Launch.blurReachV, step.radiusV);
    }
    this->SetCompositeClusterSize(0);
    this->SetSplatRun(DefaultSplatRun);
    if (const char * run = std::getenv("CBCT_EMISSION_SPLAT_RUN")) // a tuning knob (benchmarks/README.md)
      this->SetSplatRun(std::atoi(run));
    if (const char * tiles = std::getenv("CBCT_EMISSION_SPLAT_TILES")) // the same (1: on)
      m_SplatTiles = std::atoi(tiles) != 0;
    if (const char * run = std::getenv("CBCT_EMISSION_GATHER_RUN")) // the same
      this->SetGatherRun(std::atoi(run));
    std::size_t freeBytes = 0, totalBytes = 0;
    CudaMemoryInfo(freeBytes, totalBytes);
    m_BudgetBytes = std::min<double>(freeBytes / 3., 4. * (1ull << 30));
    m_CacheBytes = 0.25 * static_cast<double>(freeBytes);
  }

  std::size_t
  PixelsPerProjection() const override
  {
    return static_cast<std::size_t>(m_Launch.columns) * m_Launch.rows;
  }
  std::size_t
  Voxels() const override
  {
    return static_cast<std::size_t>(m_Launch.size[0]) * m_Launch.size[1] * m_Launch.size[2];
  }

  /** The device memory the lattices of a batch may take (bytes). */
  void
  SetMemoryBudget(double bytes)
  {
    m_BudgetBytes = bytes;
    m_Batches.clear();
  }
  /** The device memory every view's transmissions may take to be kept (bytes; default a quarter of
   * the free memory at construction); 0 computes them for each batch. Before the first projection. */
  void
  SetTransmissionCacheBytes(double bytes)
  {
    m_CacheBytes = bytes;
  }

  /** Blocks of the thread-block cluster that composites each view: 0 the default (8, or
   * CBCT_EMISSION_CLUSTER_SIZE), 1 one block per view (the plane whole in one block), fewer when the
   * device or the detector cannot have them (CudaEmissionPlanComposite()). The results are the same. */
  void
  SetCompositeClusterSize(int blocks)
  {
    const CudaEmissionCompositePlan plan =
      CudaEmissionPlanComposite(m_Launch.columns, m_Launch.rows, m_Launch.blurReachU, m_Launch.blurReachV, blocks);
    m_Launch.clusterSize = plan.clusterSize;
    m_Launch.clusterSharedBytes = plan.sharedBytes;
    m_Batches.clear(); // the global planes are reserved (or not) with the batches
  }
  /** Voxels along y that one thread splats (their shared cells summed in registers, four atomics a
   * voxel); 0 or 1: one voxel per thread (eight atomics). The results differ in the order of float
   * additions only. */
  void
  SetSplatRun(int voxels)
  {
    m_Launch.splatRun = std::max(0, voxels);
  }
  static constexpr int DefaultSplatRun = 32;
  /** Whether the splat may go by lattice rows, one block per row with its cells in shared memory and
   * no global atomics, in the batches whose views all suit it (CudaEmissionSplatTilesApply(): parallel
   * views with the detector's rows along y); the other batches splat runs of voxels. Off by default:
   * on the H100 it made an OSEM iteration of problem E 4 ms slower than runs of voxels with global
   * atomics (a shared-memory float atomicAdd is a compare-and-swap loop on sm_90, and each voxel is
   * visited by two rows). */
  void
  SetSplatTiles(bool tiles)
  {
    m_SplatTiles = tiles;
    m_Batches.clear();
  }
  /** Whether a batch made so far splats by lattice rows. */
  bool
  SplatTilesUsed() const
  {
    return m_SplatTilesUsed;
  }
  /** Voxels along y that one gather thread takes (2, 4, 8 or 16: the cells neighbours share are
   * loaded once; 0 or 1, the default: one voxel per thread, measured faster on the H100); the results
   * are the same bit for bit. */
  void
  SetGatherRun(int voxels)
  {
    m_Launch.gatherRun = std::max(0, voxels);
  }

  /** The blocks per view's cluster in use (0: one block per view). */
  int
  CompositeClusterSize() const
  {
    return m_Launch.clusterSize;
  }

  /** projections[k] = A_k volume for the k of `subset` (device buffers). */
  void
  Forward(const float * volume, float * projections, const CudaDeviceBuffer<unsigned int> * subset, int count) override
  {
    (void)count;
    for (const Batch & batch : this->Batches(subset))
    {
      CudaEmissionLaunch launch = this->Prepare(batch);
      launch.volume = const_cast<float *>(volume);
      launch.projections = projections;
      launch.splatTiles = batch.tiles ? 1 : 0;
      if (!batch.tiles) // the tiles write every cell
        CudaCheck(cudaMemsetAsync(launch.cells, 0, batch.cells * sizeof(float), nullptr), "cudaMemsetAsync (emission lattice)");
      if (!m_TransmissionsCached)
        CudaCheck(LaunchEmissionTransmission(launch, nullptr), "LaunchEmissionTransmission");
      CudaCheck(LaunchEmissionSplat(launch, nullptr), "LaunchEmissionSplat");
      CudaCheck(LaunchEmissionForwardComposite(launch, nullptr), "LaunchEmissionForwardComposite");
    }
  }

  /** volume = (add ? volume : 0) + sum over k of `subset` of A_k^T projections[k]. */
  void
  Back(const float * projections, float * volume, const CudaDeviceBuffer<unsigned int> * subset, int count, bool add) override
  {
    (void)count;
    bool accumulate = add;
    for (const Batch & batch : this->Batches(subset))
    {
      CudaEmissionLaunch launch = this->Prepare(batch);
      launch.volume = volume;
      launch.projections = const_cast<float *>(projections);
      launch.accumulate = accumulate ? 1 : 0;
      if (!m_TransmissionsCached)
        CudaCheck(LaunchEmissionTransmission(launch, nullptr), "LaunchEmissionTransmission");
      CudaCheck(LaunchEmissionBackComposite(launch, nullptr), "LaunchEmissionBackComposite");
      CudaCheck(LaunchEmissionGather(launch, nullptr), "LaunchEmissionGather");
      accumulate = true;
    }
    if (!accumulate) // an empty subset
      CudaCheck(cudaMemsetAsync(volume, 0, this->Voxels() * sizeof(float), nullptr), "cudaMemsetAsync (backprojection)");
  }

private:
  /** A run of a subset's views whose lattices fit the budget together, with its device lists. */
  struct Batch
  {
    std::shared_ptr<CudaDeviceBuffer<unsigned int>> views;
    std::shared_ptr<CudaDeviceBuffer<long long>> offsets;
    std::shared_ptr<CudaDeviceBuffer<long long>> transmissionOffsets; // into the cache, or `offsets`
    int count = 0;
    std::size_t cells = 0;
    long long largestCells = 0;
    bool tiles = false; // splat by lattice rows (CudaEmissionSplatTilesApply() to every view)
  };

  /** Every view's transmissions in one device buffer, computed now, when they take at most `bytes`. */
  void
  CacheTransmissions(double bytes)
  {
    const unsigned int count = static_cast<unsigned int>(m_Lattice.Views().size());
    std::vector<unsigned int> ids(count);
    std::vector<long long> offsets(count);
    std::size_t cells = 0;
    long long largest = 0;
    for (unsigned int k = 0; k < count; ++k)
    {
      ids[k] = k;
      offsets[k] = static_cast<long long>(cells);
      cells += m_Lattice.Cells(k);
      largest = std::max<long long>(largest, static_cast<long long>(m_Lattice.Cells(k)));
    }
    if (count == 0 || static_cast<double>(cells) * sizeof(float) > bytes)
      return;
    m_TransmissionCache.Reserve(std::max<std::size_t>(cells, 1), "emission transmissions");
    m_CacheOffsets.Upload(offsets);
    m_CacheOffsetsHost = offsets;
    CudaDeviceBuffer<unsigned int> all;
    all.Upload(ids);
    // At most 65535 views per launch (the grid's y extent).
    for (unsigned int first = 0; first < count; first += 65535)
    {
      CudaEmissionLaunch launch = m_Launch;
      launch.batch = all.Data() + first;
      launch.transmissionOffsets = m_CacheOffsets.Data() + first;
      launch.count = static_cast<int>(std::min<unsigned int>(65535, count - first));
      launch.largestCells = largest;
      launch.transmission = m_TransmissionCache.Data();
      CudaCheck(LaunchEmissionTransmission(launch, nullptr), "LaunchEmissionTransmission");
    }
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (emission transmissions)");
    m_TransmissionsCached = true;
  }

  /** The batches of `subset` (made once per subset). */
  const std::vector<Batch> &
  Batches(const CudaDeviceBuffer<unsigned int> * subset)
  {
    auto found = m_Batches.find(subset);
    if (found != m_Batches.end())
      return found->second;
    if (!m_CacheDecided && m_Launch.mu)
      this->CacheTransmissions(m_CacheBytes);
    m_CacheDecided = true;
    const std::vector<unsigned int> & views = this->HostSubset(subset);
    const double perCell = m_Launch.mu && !m_TransmissionsCached ? 2. * sizeof(float) : sizeof(float); // lattice (+ transmission)
    std::vector<Batch> batches;
    std::vector<unsigned int> ids;
    std::vector<long long> offsets;
    std::size_t cells = 0;
    long long largest = 0;
    auto flush = [&]() {
      if (ids.empty())
        return;
      Batch b;
      b.views = std::make_shared<CudaDeviceBuffer<unsigned int>>();
      b.views->Upload(ids);
      b.offsets = std::make_shared<CudaDeviceBuffer<long long>>();
      b.offsets->Upload(offsets);
      b.transmissionOffsets = b.offsets;
      if (m_TransmissionsCached)
      {
        std::vector<long long> cached;
        for (unsigned int k : ids)
          cached.push_back(m_CacheOffsetsHost[k]);
        b.transmissionOffsets = std::make_shared<CudaDeviceBuffer<long long>>();
        b.transmissionOffsets->Upload(cached);
      }
      b.count = static_cast<int>(ids.size());
      b.cells = cells;
      b.largestCells = largest;
      b.tiles = m_SplatTiles;
      const int largestSlices = static_cast<int>(largest / (static_cast<long long>(m_Launch.columns) * m_Launch.rows));
      for (unsigned int k : ids)
        b.tiles = b.tiles && CudaEmissionSplatTilesApply(m_Lattice.Views()[k], m_Launch.size, m_Launch.columns, largestSlices);
      m_SplatTilesUsed = m_SplatTilesUsed || b.tiles;
      batches.push_back(b);
      ids.clear();
      offsets.clear();
      cells = 0;
      largest = 0;
    };
    for (unsigned int k : views)
    {
      const std::size_t n = m_Lattice.Cells(k);
      if (!ids.empty() && (cells + n) * perCell > m_BudgetBytes)
        flush();
      ids.push_back(k);
      offsets.push_back(static_cast<long long>(cells));
      cells += n;
      largest = std::max<long long>(largest, static_cast<long long>(n));
    }
    flush();
    for (const Batch & b : batches)
    {
      m_Cells.Reserve(std::max<std::size_t>(b.cells, 1), "emission lattices");
      if (m_Launch.mu && !m_TransmissionsCached)
        m_Transmission.Reserve(std::max<std::size_t>(b.cells, 1), "emission transmissions");
      if (!m_SharedPlanes && m_Launch.clusterSize <= 1)
        m_Scratch.Reserve(2 * this->PixelsPerProjection() * b.count, "emission detector planes");
    }
    return m_Batches.emplace(subset, std::move(batches)).first->second;
  }

  CudaEmissionLaunch
  Prepare(const Batch & batch) const
  {
    CudaEmissionLaunch launch = m_Launch;
    launch.batch = batch.views->Data();
    launch.offsets = batch.offsets->Data();
    launch.count = batch.count;
    launch.largestCells = batch.largestCells;
    launch.transmissionOffsets = batch.transmissionOffsets->Data();
    launch.cells = m_Cells.Data();
    launch.transmission = !m_Launch.mu ? nullptr : (m_TransmissionsCached ? m_TransmissionCache.Data() : m_Transmission.Data());
    launch.scratch = m_SharedPlanes || m_Launch.clusterSize > 1 ? nullptr : m_Scratch.Data();
    return launch;
  }

  EmissionLattice m_Lattice;
  CudaEmissionLaunch m_Launch;
  CudaDeviceBuffer<EmissionView> m_Views;
  CudaDeviceBuffer<EmissionBlurStep> m_Steps;
  CudaDeviceBuffer<float> m_Taps;
  CudaDeviceBuffer<float> m_Mu;
  CudaDeviceBuffer<float> m_Cells;
  CudaDeviceBuffer<float> m_Transmission;
  CudaDeviceBuffer<float> m_Scratch;
  CudaDeviceBuffer<float> m_TransmissionCache;
  CudaDeviceBuffer<long long> m_CacheOffsets;
  std::vector<long long> m_CacheOffsetsHost;
  bool m_TransmissionsCached = false;
  bool m_CacheDecided = false;
  double m_CacheBytes = 0.;
  std::map<const CudaDeviceBuffer<unsigned int> *, std::vector<Batch>> m_Batches;
  bool m_SharedPlanes = true;
  bool m_SplatTiles = false;
  bool m_SplatTilesUsed = false;
  double m_BudgetBytes = 0.;
};

} // namespace cbct

#endif
