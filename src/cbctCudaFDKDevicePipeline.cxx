#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaFDKDevicePipeline.h"

#  include "cbctCudaCheck.h"
#  include "cbctCudaDeviceBuffer.h"
#  include "cbctCudaCylindricalFDKBackProjection.hcu"
#  include "cbctCudaFDKBackProjection.hcu"
#  include "cbctCudaFDKWeighting.hcu"
#  include "cbctCudaFFTRampImageFilter.h"
#  include "cbctCudaProjectionTexture.h"
#  include "cbctCudaRampExtensions.hcu"
#  include "cbctCudaRampFilter.hcu"

#  include <itkMacro.h>

#  include <algorithm>
#  include <chrono>
#  include <cmath>
#  include <cstdlib>
#  include <limits>

namespace cbct
{

namespace
{
/** Rows per cuFFT call: a fixed plan, so that a row's filtered values do not depend on how many
 * rows a piece has (8 MB of doubles for S's 1024-long rows). Measured on an H100 (S and R): the
 * chunked filter totals the same as one plan over the whole batch, since it hides behind the
 * backprojection; a fixed size keeps small pieces' memory small. */
constexpr std::size_t FFTChunkRows = 1024;

/** z-chunks of the last piece's final batch, each downloaded as soon as it is complete. */
constexpr int FinalChunks = 8;

/** Streams and events of one device's run; synchronised and destroyed whatever happens. */
class Streams
{
public:
  Streams()
  {
    int least = 0, greatest = 0;
    CudaCheck(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    CudaCheck(cudaStreamCreateWithPriority(&filter, cudaStreamNonBlocking, greatest), "cudaStreamCreateWithPriority (filter)");
    CudaCheck(cudaStreamCreateWithPriority(&backProjection, cudaStreamNonBlocking, least),
              "cudaStreamCreateWithPriority (backprojection)");
    CudaCheck(cudaStreamCreateWithFlags(&download, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (download)");
  }
  ~Streams()
  {
    for (cudaStream_t s : { filter, backProjection, download })
      if (s)
        cudaStreamSynchronize(s);
    for (cudaEvent_t e : m_Events)
      cudaEventDestroy(e);
    for (cudaStream_t s : { filter, backProjection, download })
      if (s)
        cudaStreamDestroy(s);
  }
  Streams(const Streams &) = delete;
  Streams &
  operator=(const Streams &) = delete;

  /** A new event recorded on `stream` (kept until destruction). */
  cudaEvent_t
  Record(cudaStream_t stream, bool timing = true)
  {
    cudaEvent_t e = nullptr;
    CudaCheck(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
    m_Events.push_back(e);
    CudaCheck(cudaEventRecord(e, stream), "cudaEventRecord");
    return e;
  }

  /** Destroys the events recorded so far (the streams must be idle: after a run). */
  void
  ClearEvents()
  {
    for (cudaEvent_t e : m_Events)
      cudaEventDestroy(e);
    m_Events.clear();
  }

  cudaStream_t filter = nullptr;
  cudaStream_t backProjection = nullptr;
  cudaStream_t download = nullptr;

private:
  std::vector<cudaEvent_t> m_Events;
};

double
Seconds(cudaEvent_t start, cudaEvent_t end)
{
  float ms = 0.f;
  CudaCheck(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
  return 1e-3 * ms;
}

/** Offset (in voxels) of `box`'s first voxel in memory laid out as `layout`. */
std::size_t
Offset(const VoxelBox & layout, const VoxelBox & box)
{
  return (static_cast<std::size_t>(box.index[2] - layout.index[2]) * layout.size[1] +
          static_cast<std::size_t>(box.index[1] - layout.index[1])) *
           layout.size[0] +
         static_cast<std::size_t>(box.index[0] - layout.index[0]);
}

/** Copies the voxels of `box` from memory laid out as `from` to memory laid out as `to`. Where the
 * box spans whole rows of both, each z-plane of it is one contiguous run in both, and the copy is
 * one 2D copy of those runs (full-speed DMA); otherwise a 3D copy row by row. */
void
CopyBox(const float * source, const VoxelBox & from, float * destination, const VoxelBox & to, const VoxelBox & box,
        cudaMemcpyKind kind, cudaStream_t stream)
{
  const float * src = source + Offset(from, box);
  float * dst = destination + Offset(to, box);
  const std::size_t bytes = box.Voxels() * sizeof(float);
  if (box.size[0] == from.size[0] && box.size[0] == to.size[0])
  {
    const std::size_t run = box.size[0] * box.size[1] * sizeof(float);
    CudaCheck(cudaMemcpy2DAsync(dst, to.size[0] * to.size[1] * sizeof(float), src, from.size[0] * from.size[1] * sizeof(float),
                                run, box.size[2], kind, stream),
              "cudaMemcpy2DAsync (volume piece)", bytes);
    return;
  }
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<float *>(src), from.size[0] * sizeof(float), from.size[0], from.size[1]);
  copy.dstPtr = make_cudaPitchedPtr(dst, to.size[0] * sizeof(float), to.size[0], to.size[1]);
  copy.extent = make_cudaExtent(box.size[0] * sizeof(float), box.size[1], box.size[2]);
  copy.kind = kind;
  CudaCheck(cudaMemcpy3DAsync(&copy, stream), "cudaMemcpy3DAsync (volume piece)", bytes);
}

/** The whole piece as its own layout (its device buffer). */
VoxelBox
Layout(const VoxelBox & box)
{
  return box;
}

/** `box` limited to z in [z0, z1) (absolute voxel indices). */
VoxelBox
ZRange(const VoxelBox & box, long long z0, long long z1)
{
  VoxelBox part = box;
  part.index[2] = z0;
  part.size[2] = static_cast<std::size_t>(z1 - z0);
  return part;
}

std::size_t
RoundUp(std::size_t n, std::size_t to)
{
  return (n + to - 1) / to * to;
}

/** Detector rows a piece that backprojects `rows` rows weights and filters: its own, or with the
 * low-pass along v every row of the stack (each filtered row mixes them all). */
std::size_t
FilteredRows(const CudaFDKProblem & problem, std::size_t rows)
{
  return problem.smoothingTaps ? problem.stackRows : rows;
}

/** Whether any view of projections [k0, k0 + n) of a helical problem can see a voxel of `box`: the
 * box's world heights within helicalReach of some view's source height. */
bool
HelicalBatchSeesBox(const CudaFDKProblem & problem, const VoxelBox & box, unsigned int k0, unsigned int n)
{
  const float * m = problem.voxelToWorld;
  float low = std::numeric_limits<float>::max(), high = std::numeric_limits<float>::lowest();
  for (unsigned int corner = 0; corner < 8; ++corner)
  {
    float x[3];
    for (unsigned int d = 0; d < 3; ++d)
      x[d] = static_cast<float>(box.index[d] + ((corner >> d) & 1u ? static_cast<long long>(box.size[d]) - 1 : 0));
    const float y = m[4] * x[0] + m[5] * x[1] + m[6] * x[2] + m[7];
    low = std::min(low, y);
    high = std::max(high, y);
  }
  const HelicalScan & s = problem.helicalScan;
  for (unsigned int k = k0; k < k0 + n; ++k)
  {
    const float source = s.axialAtZero + s.axialPerRadian * problem.helicalViews[k].view.lambda;
    if (high >= source - problem.helicalReach && low <= source + problem.helicalReach)
      return true;
  }
  return false;
}

/** The voxels of `part` (absolute indices) that views [k0, k0 + n) of a helical problem can reach:
 * the y (axis) indices whose world heights lie within helicalReach of one of the views' source
 * heights. A batch of views spans a few degrees of the helix, so it reaches a band of the volume a
 * little taller than the detector's coverage; launching over the whole piece would compute every
 * other voxel's weights only to find them zero. An empty box when none is reached. The whole part
 * when the volume's y does not follow its index alone (a rotated direction). */
VoxelBox
HelicalBatchBand(const CudaFDKProblem & problem, const VoxelBox & part, unsigned int k0, unsigned int n)
{
  const float * m = problem.voxelToWorld;
  if (m[4] != 0.f || m[6] != 0.f || m[5] == 0.f)
    return part;
  const HelicalScan & s = problem.helicalScan;
  float low = std::numeric_limits<float>::max(), high = std::numeric_limits<float>::lowest();
  for (unsigned int k = k0; k < k0 + n; ++k)
  {
    const float source = s.axialAtZero + s.axialPerRadian * problem.helicalViews[k].view.lambda;
    low = std::min(low, source - problem.helicalReach);
    high = std::max(high, source + problem.helicalReach);
  }
  // World height -> y index, either way up; one index of margin against rounding.
  double j0 = (static_cast<double>(low) - m[7]) / m[5], j1 = (static_cast<double>(high) - m[7]) / m[5];
  if (j0 > j1)
    std::swap(j0, j1);
  const long long first = std::max<long long>(part.index[1], static_cast<long long>(std::floor(j0)) - 1);
  const long long end = std::min<long long>(part.index[1] + static_cast<long long>(part.size[1]), static_cast<long long>(std::ceil(j1)) + 2);
  VoxelBox band = part;
  band.index[1] = first;
  band.size[1] = end > first ? static_cast<std::size_t>(end - first) : 0;
  return band;
}
} // namespace

std::size_t
CudaFDKDevicePipeline::BytesFor(const CudaFDKProblem & problem, std::size_t voxels, std::size_t rows, std::size_t pieces)
{
  const std::size_t batch = CudaBackProjectionBatch;
  const std::size_t length = static_cast<std::size_t>(problem.length);
  const std::size_t filterRows = FilteredRows(problem, rows);
  const std::size_t pixel = problem.counts ? sizeof(unsigned short) : sizeof(float);
  const std::size_t volume = std::min<std::size_t>(pieces, 2) * voxels * sizeof(float); // two pieces in flight
  const std::size_t raw = batch * filterRows * problem.columns * pixel;              // one uploaded batch
  const std::size_t padded = RoundUp(batch * filterRows, FFTChunkRows) * length * sizeof(double); // FFT rows
  const std::size_t spectra = FFTChunkRows * (length / 2 + 1) * 2 * sizeof(double);  // one chunk's spectra
  const std::size_t filtered = batch * rows * problem.paddedColumns * sizeof(float); // cropped, for the texture
  const std::size_t textures = 2 * filtered;                                         // double-buffered
  const std::size_t cufftWork = 2 * FFTChunkRows * length * sizeof(double);          // cuFFT's scratch, at most
  return volume + raw + padded + spectra + filtered + textures + cufftWork + (std::size_t(64) << 20);
}

/** What a pipeline keeps between runs. The streams are declared last so that they are destroyed
 * (synchronised) first, before the buffers their work may still use are freed. */
struct CudaFDKDevicePipeline::Resources
{
  CudaDeviceBuffer<float> pieceVolumes[2];
  CudaDeviceBuffer<float> raw;
  CudaDeviceBuffer<unsigned short> rawCounts;
  CudaDeviceBuffer<float> filtered;
  CudaRampFilterPlan plan;
  CudaProjectionTexture textures[2];
  CudaDeviceBuffer<FDKWeightingProjection> parameters;
  CudaDeviceBuffer<CylindricalWeightingProjection> cylindricalParameters;
  CudaDeviceBuffer<CudaHelicalView> helicalViews;
  CudaDeviceBuffer<double> taps;
  CudaDeviceBuffer<double> logFlat;
  CudaDeviceBuffer<ConeProjection> fieldOfViewMatrices;
  CudaDeviceBuffer<int> fieldOfViewColumns;
  Streams streams;
};

CudaFDKDevicePipeline::CudaFDKDevicePipeline(int device)
  : m_Device(device)
{}

CudaFDKDevicePipeline::~CudaFDKDevicePipeline()
{
  this->Release();
}

void
CudaFDKDevicePipeline::Release()
{
  if (!m_Resources)
    return;
  // Free on the device that holds them, and leave the caller's current device as it was.
  int current = -1;
  const bool known = cudaGetDevice(&current) == cudaSuccess;
  cudaSetDevice(m_Device);
  m_Resources.reset();
  if (known)
    cudaSetDevice(current);
  cudaGetLastError(); // nothing to report from a release
  m_HeldBytes = 0;
}

CudaFDKTimes
CudaFDKDevicePipeline::Run(const CudaFDKProblem & problem, const std::vector<CudaFDKPiece> & pieces,
                           const std::atomic<bool> & abort, const PieceCallback & pieceDone)
{
  const int device = m_Device;
  CudaCheck(cudaSetDevice(device), "cudaSetDevice (" + std::to_string(device) + ")");
  CudaFDKTimes times;
  if (pieces.empty())
    return times;
  if (problem.stackDevice >= 0 && problem.stackDevice != device)
    itkGenericExceptionMacro(<< "CUDA FDK: the projections are in the memory of device " << problem.stackDevice
                             << " and cannot be read by device " << device);
  try
  {
    const auto start = std::chrono::steady_clock::now();
    if (!m_Resources)
      m_Resources = std::make_unique<Resources>();
    times = this->RunWithResources(problem, pieces, abort, pieceDone);
    times.hostRun = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  catch (...)
  {
    // Whatever was queued is waited for and everything freed: the caller may retry with smaller
    // pieces (out of memory) and nothing half-made is kept.
    this->Release();
    throw;
  }
  return times;
}

CudaFDKTimes
CudaFDKDevicePipeline::RunWithResources(const CudaFDKProblem & problem, const std::vector<CudaFDKPiece> & pieces,
                                        const std::atomic<bool> & abort, const PieceCallback & pieceDone)
{
  Resources & r = *m_Resources;
  CudaFDKTimes times;
  const std::size_t batch = CudaBackProjectionBatch;
  const std::size_t columns = problem.columns, paddedColumns = problem.paddedColumns;
  const std::size_t length = static_cast<std::size_t>(problem.length);
  std::size_t maxRows = 1, maxVoxels = 1;
  for (const CudaFDKPiece & p : pieces)
  {
    maxRows = std::max<std::size_t>(maxRows, static_cast<std::size_t>(p.rows));
    maxVoxels = std::max(maxVoxels, p.box.Voxels());
  }

  // Device buffers, kept from earlier runs where large enough (an allocation failure throws
  // itk::MemoryAllocationError: the caller retries with smaller pieces).
  CudaDeviceBuffer<float> * pieceVolumes = r.pieceVolumes;
  pieceVolumes[0].Reserve(maxVoxels, "volume piece");
  if (pieces.size() > 1) // the next piece computes while the last one downloads
    pieceVolumes[1].Reserve(maxVoxels, "volume piece");
  const std::size_t maxFilterRows = FilteredRows(problem, maxRows);
  CudaDeviceBuffer<float> & raw = r.raw;
  CudaDeviceBuffer<unsigned short> & rawCounts = r.rawCounts;
  if (problem.counts)
    rawCounts.Reserve(batch * maxFilterRows * columns, "16-bit projections");
  else
    raw.Reserve(batch * maxFilterRows * columns, "projections");
  CudaDeviceBuffer<float> & filtered = r.filtered;
  filtered.Reserve(batch * maxRows * paddedColumns, "filtered projections");
  CudaRampFilterPlan & plan = r.plan;
  plan.Prepare(problem.length, static_cast<int>(FFTChunkRows), *problem.response);
  plan.ReserveRows(batch * maxFilterRows);
  CudaDeviceBuffer<double> & taps = r.taps;
  CudaDeviceBuffer<double> & logFlat = r.logFlat;
  if (problem.smoothingTaps)
    taps.Upload(*problem.smoothingTaps);
  if (problem.counts)
    logFlat.Upload(std::vector<double>(problem.logFlat, problem.logFlat + problem.count));
  CudaProjectionTexture * textures = r.textures;
  textures[0].Reserve(static_cast<int>(paddedColumns), static_cast<int>(maxRows), static_cast<int>(batch));
  textures[1].Reserve(static_cast<int>(paddedColumns), static_cast<int>(maxRows), static_cast<int>(batch));
  CudaDeviceBuffer<FDKWeightingProjection> & parameters = r.parameters;
  CudaDeviceBuffer<CylindricalWeightingProjection> & cylindricalParameters = r.cylindricalParameters;
  if (problem.cylindricalParameters)
    cylindricalParameters.Upload(std::vector<CylindricalWeightingProjection>(problem.cylindricalParameters,
                                                                             problem.cylindricalParameters + problem.count));
  else
    parameters.Upload(std::vector<FDKWeightingProjection>(problem.parameters, problem.parameters + problem.count));
  CudaDeviceBuffer<CudaHelicalView> & helicalViews = r.helicalViews;
  if (problem.helicalViews)
    helicalViews.Upload(std::vector<CudaHelicalView>(problem.helicalViews, problem.helicalViews + problem.count));
  // The field of view: the scan's matrices, and room for the columns of the largest piece.
  const bool fieldOfView = problem.fieldOfView != FieldOfViewMode::Off;
  const int fieldOfViewOther = problem.fieldOfViewAxis == 1 ? 2 : 1;
  if (fieldOfView)
  {
    r.fieldOfViewMatrices.Upload(
      std::vector<ConeProjection>(problem.fieldOfViewMatrices, problem.fieldOfViewMatrices + problem.fieldOfViewCount));
    std::size_t most = 1;
    for (const CudaFDKPiece & p : pieces)
      most = std::max(most, p.box.size[0] * p.box.size[fieldOfViewOther]);
    r.fieldOfViewColumns.Reserve(2 * most, "field of view columns");
  }
  const float outsideValue = problem.fieldOfView == FieldOfViewMode::NaN ? std::numeric_limits<float>::quiet_NaN() : 0.f;
  m_HeldBytes = std::max(m_HeldBytes, BytesFor(problem, maxVoxels, maxRows, pieces.size()));

  const cudaMemcpyKind uploadKind = problem.stackDevice >= 0 ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  Streams & streams = r.streams;
  struct Timing
  {
    cudaEvent_t uploadStart, uploaded, weighted, filtered, bpStart, bpEnd;
  };
  std::vector<Timing> timings;
  cudaEvent_t textureFree[2] = { nullptr, nullptr };
  std::vector<cudaEvent_t> downloaded(pieces.size(), nullptr);
  unsigned int batchNumber = 0;
  // CBCT_FDK_SERIAL=1, a measuring knob (benchmarks/README.md): each batch is uploaded and filtered
  // only after the previous batch's backprojection ended, so the backprojection runs alone.
  static const bool serial = std::getenv("CBCT_FDK_SERIAL") != nullptr;
  cudaEvent_t lastBackProjection = nullptr;

  for (std::size_t p = 0; p < pieces.size(); ++p)
  {
    const CudaFDKPiece & piece = pieces[p];
    const VoxelBox & box = piece.box;
    float * pieceData = pieceVolumes[p % 2].Data();
    const bool last = p + 1 == pieces.size();
    // The buffer's previous piece must be on the host before it is overwritten.
    if (p >= 2)
      CudaCheck(cudaStreamWaitEvent(streams.backProjection, downloaded[p - 2], 0), "cudaStreamWaitEvent (buffer free)");
    const int firstRow = piece.firstRow, rows = piece.rows;
    if (fieldOfView && rows == 0)
      // No voxel of the piece projects onto the detector: all outside the field of view.
      CudaCheck(LaunchFill(pieceData, box.Voxels(), outsideValue, streams.backProjection), "LaunchFill (outside the field of view)");
    else if (problem.constantInitial)
      CudaCheck(LaunchFill(pieceData, box.Voxels(), problem.constantValue, streams.backProjection), "LaunchFill (initial volume)");
    else
      CopyBox(problem.initial, problem.initialBox, pieceData, Layout(box), box, cudaMemcpyHostToDevice, streams.backProjection);
    if (fieldOfView && rows > 0)
    {
      // The piece's columns clipped to the field of view, on the backprojection stream before its
      // first launch (the previous piece's launches, which read the same buffer, come before).
      CudaFieldOfViewColumnsLaunch columnsLaunch;
      columnsLaunch.matrices = r.fieldOfViewMatrices.Data();
      columnsLaunch.count = static_cast<int>(problem.fieldOfViewCount);
      columnsLaunch.detector = problem.fieldOfViewDetector;
      columnsLaunch.axis = problem.fieldOfViewAxis;
      for (unsigned int d = 0; d < 3; ++d)
      {
        columnsLaunch.first[d] = static_cast<int>(box.index[d]);
        columnsLaunch.size[d] = static_cast<int>(box.size[d]);
      }
      columnsLaunch.columns = r.fieldOfViewColumns.Data();
      CudaCheck(LaunchFieldOfViewColumns(columnsLaunch, streams.backProjection), "LaunchFieldOfViewColumns");
    }
    // The rows weighted and filtered: the piece's, or with the low-pass along v all of the stack's.
    const int filterRows = static_cast<int>(FilteredRows(problem, static_cast<std::size_t>(rows)));
    const int filterFirstRow = problem.smoothingTaps ? problem.stackFirstRow : firstRow;
    unsigned int batchesOfPiece = rows > 0 ? (problem.count + static_cast<unsigned int>(batch) - 1) / static_cast<unsigned int>(batch) : 0;
    // The batches this piece needs: all of them, or on a helix those whose views can see it.
    std::vector<unsigned int> batchList;
    for (unsigned int b = 0; b < batchesOfPiece; ++b)
      if (!problem.helicalViews ||
          HelicalBatchSeesBox(problem, box, b * static_cast<unsigned int>(batch),
                              std::min<unsigned int>(static_cast<unsigned int>(batch), problem.count - b * static_cast<unsigned int>(batch))))
        batchList.push_back(b);
    for (std::size_t listed = 0; listed < batchList.size(); ++listed, ++batchNumber)
    {
      const unsigned int b = batchList[listed];
      const unsigned int k0 = b * static_cast<unsigned int>(batch);
      const int n = static_cast<int>(std::min<std::size_t>(batch, problem.count - k0));
      const int t = static_cast<int>(batchNumber % 2);
      Timing timing{};
      // Filter stream: wait until the backprojector is done with this texture, then refill it.
      if (textureFree[t])
        CudaCheck(cudaStreamWaitEvent(streams.filter, textureFree[t], 0), "cudaStreamWaitEvent (texture free)");
      if (serial && lastBackProjection)
        CudaCheck(cudaStreamWaitEvent(streams.filter, lastBackProjection, 0), "cudaStreamWaitEvent (serial)");
      timing.uploadStart = streams.Record(streams.filter);
      // The batch's rows in one 2D copy: a contiguous run of filterRows rows per projection.
      const std::size_t pixel = problem.counts ? sizeof(unsigned short) : sizeof(float);
      const std::size_t sourceOffset =
        (static_cast<std::size_t>(k0) * problem.stackRows + static_cast<std::size_t>(filterFirstRow - problem.stackFirstRow)) * columns;
      const void * source = problem.counts ? static_cast<const void *>(problem.counts + sourceOffset)
                                           : static_cast<const void *>(problem.stack + sourceOffset);
      void * destination = problem.counts ? static_cast<void *>(rawCounts.Data()) : static_cast<void *>(raw.Data());
      CudaCheck(cudaMemcpy2DAsync(destination, columns * filterRows * pixel, source, columns * problem.stackRows * pixel,
                                  columns * filterRows * pixel, n, uploadKind, streams.filter),
                "cudaMemcpy2DAsync (upload projections)", columns * filterRows * n * pixel);
      timing.uploaded = streams.Record(streams.filter);

      CudaWeightingLaunch w;
      if (problem.counts)
      {
        w.inputCounts = rawCounts.Data();
        w.logFlat = logFlat.Data() + k0;
        w.conversion = problem.conversion;
      }
      else
        w.input = raw.Data();
      w.outputDouble = plan.PaddedRows();
      w.inputColumns = static_cast<int>(columns);
      w.inputProjectionStride = static_cast<long long>(columns) * filterRows;
      w.inputFirstColumn = problem.stackFirstColumn;
      w.outputColumns = static_cast<int>(paddedColumns);
      w.outputPitch = problem.length;
      w.outputProjectionStride = static_cast<long long>(length) * filterRows;
      w.outputFirstColumn = problem.paddedFirst;
      w.rows = filterRows;
      w.firstRow = filterFirstRow;
      w.projections = n;
      if (problem.cylindricalParameters)
        w.cylindricalParameters = cylindricalParameters.Data() + k0;
      else
        w.parameters = parameters.Data() + k0;
      w.scan = problem.scan;
      CudaCheck(LaunchFDKWeighting(w, streams.filter), "LaunchFDKWeighting");
      if (problem.truncationExtent > 0)
      {
        CudaTruncationExtensionLaunch extend;
        extend.rows = plan.PaddedRows();
        extend.pitch = problem.length;
        extend.columns = static_cast<int>(paddedColumns);
        extend.extent = problem.truncationExtent;
        extend.count = static_cast<long long>(n) * filterRows;
        CudaCheck(LaunchTruncationExtension(extend, streams.filter), "LaunchTruncationExtension");
      }
      timing.weighted = streams.Record(streams.filter);
      plan.FilterRows(streams.filter, static_cast<std::size_t>(n) * filterRows);
      if (problem.smoothingTaps)
      {
        // Crop with the low-pass along v: the piece's rows, each mixing every filtered row.
        CudaCropSmoothColumnsLaunch crop;
        crop.input = plan.PaddedRows();
        crop.inputPitch = problem.length;
        crop.inputProjectionStride = static_cast<long long>(length) * filterRows;
        crop.rows = filterRows;
        crop.firstColumn = 0;
        crop.output = filtered.Data();
        crop.outputPitch = static_cast<int>(paddedColumns);
        crop.outputProjectionStride = static_cast<long long>(paddedColumns) * rows;
        crop.columns = static_cast<int>(paddedColumns);
        crop.firstOutputRow = firstRow - filterFirstRow;
        crop.outputRows = rows;
        crop.projections = n;
        crop.taps = taps.Data();
        crop.tapCount = static_cast<int>(problem.smoothingTaps->size());
        CudaCheck(LaunchCropSmoothColumns(crop, streams.filter), "LaunchCropSmoothColumns");
      }
      else
      {
        CudaCropRowsLaunch crop;
        crop.input = plan.PaddedRows();
        crop.inputPitch = problem.length;
        crop.output = filtered.Data();
        crop.outputPitch = static_cast<int>(paddedColumns);
        crop.columns = static_cast<int>(paddedColumns);
        crop.rows = static_cast<long long>(n) * rows;
        CudaCheck(LaunchCropRows(crop, streams.filter), "LaunchCropRows");
      }
      textures[t].CopyFromDevice(filtered.Data(), paddedColumns * sizeof(float), static_cast<int>(paddedColumns), rows, rows, n,
                                 streams.filter);
      timing.filtered = streams.Record(streams.filter);

      // Backprojection stream: wait for the texture, backproject, release the texture. The last
      // piece's final batch goes in z-chunks, each downloaded as soon as it is complete.
      CudaCheck(cudaStreamWaitEvent(streams.backProjection, timing.filtered, 0), "cudaStreamWaitEvent (texture ready)");
      timing.bpStart = streams.Record(streams.backProjection);
      CudaBackProjectionLaunch launch;
      launch.projections = textures[t].Texture();
      launch.columnOffset = static_cast<float>(problem.paddedFirst);
      launch.rowOffset = static_cast<float>(firstRow);
      launch.count = n;
      CudaCylindricalBackProjectionLaunch cylinder; // a cylindrical detector's launch instead
      if (problem.cylindricalMatrices)
      {
        cylinder.projections = launch.projections;
        cylinder.columnOffset = launch.columnOffset;
        cylinder.rowOffset = launch.rowOffset;
        cylinder.count = n;
        cylinder.grid = problem.cylindricalGrid;
        std::transform(problem.cylindricalMatrices + k0, problem.cylindricalMatrices + k0 + n, cylinder.matrices,
                       TexelCentredCylindrical);
      }
      else
        std::transform(problem.matrices + k0, problem.matrices + k0 + n, launch.matrices, TexelCentred);
      if (fieldOfView)
      {
        launch.fieldOfView = r.fieldOfViewColumns.Data();
        launch.fieldOfViewAxis = problem.fieldOfViewAxis;
        launch.fieldOfViewFirst[0] = static_cast<int>(box.index[0]);
        launch.fieldOfViewFirst[1] = static_cast<int>(box.index[fieldOfViewOther]);
        launch.fieldOfViewColumns = static_cast<int>(box.size[0]);
        launch.writeOutside = listed + 1 == batchList.size(); // the piece's last batch blanks the outside
        launch.outsideValue = outsideValue;
      }
      const bool chunked = last && listed + 1 == batchList.size();
      const long long z0 = box.index[2], z1 = z0 + static_cast<long long>(box.size[2]);
      // Chunk boundaries on run starts (multiples of BackProjectionRun in absolute z).
      const long long step = chunked ? std::max<long long>(BackProjectionRun, ((z1 - z0) / FinalChunks + BackProjectionRun - 1) /
                                                                                 BackProjectionRun * BackProjectionRun)
                                     : z1 - z0;
      for (long long c0 = z0; c0 < z1;)
      {
        long long c1 = chunked ? std::min<long long>(z1, RunStart(static_cast<int>(c0)) + step) : z1;
        if (c1 <= c0)
          c1 = z1;
        const VoxelBox part = ZRange(box, c0, c1);
        launch.volume = pieceData + Offset(Layout(box), part);
        for (unsigned int d = 0; d < 3; ++d)
        {
          launch.size[d] = static_cast<int>(part.size[d]);
          launch.first[d] = static_cast<int>(part.index[d]);
        }
        if (problem.helicalViews)
        {
          CudaHelicalBackProjectionLaunch helix;
          const VoxelBox band = HelicalBatchBand(problem, part, k0, static_cast<unsigned int>(n));
          helix.volume = pieceData + Offset(Layout(box), band);
          helix.planeStride = static_cast<long long>(box.size[0] * box.size[1]);
          for (unsigned int d = 0; d < 3; ++d)
          {
            helix.size[d] = static_cast<int>(band.size[d]);
            helix.first[d] = static_cast<int>(band.index[d]);
          }
          helix.projections = launch.projections;
          helix.columnOffset = launch.columnOffset;
          helix.rowOffset = launch.rowOffset;
          helix.count = n;
          helix.views = helicalViews.Data() + k0;
          helix.scan = problem.helicalScan;
          helix.cylindrical = problem.cylindricalMatrices ? 1 : 0;
          helix.grid = problem.cylindricalGrid;
          std::copy(problem.voxelToWorld, problem.voxelToWorld + 12, helix.voxelToWorld);
          CudaCheck(LaunchHelicalFDKBackProjection(helix, streams.backProjection), "LaunchHelicalFDKBackProjection");
        }
        else if (problem.cylindricalMatrices)
        {
          cylinder.volume = launch.volume;
          std::copy(launch.size, launch.size + 3, cylinder.size);
          std::copy(launch.first, launch.first + 3, cylinder.first);
          CudaCheck(LaunchCylindricalFDKBackProjection(cylinder, streams.backProjection), "LaunchCylindricalFDKBackProjection");
        }
        else
          CudaCheck(LaunchFDKBackProjection(launch, streams.backProjection), "LaunchFDKBackProjection");
        if (chunked)
        {
          cudaEvent_t ready = streams.Record(streams.backProjection, false);
          CudaCheck(cudaStreamWaitEvent(streams.download, ready, 0), "cudaStreamWaitEvent (chunk done)");
          CopyBox(pieceData, Layout(box), problem.output, problem.outputBox, part, cudaMemcpyDeviceToHost, streams.download);
        }
        c0 = c1;
      }
      timing.bpEnd = streams.Record(streams.backProjection);
      textureFree[t] = timing.bpEnd;
      lastBackProjection = timing.bpEnd;
      timings.push_back(timing);
    }
    if (!last || batchList.empty())
    {
      // The whole piece at once (also a piece that sees no detector row: its initial value).
      cudaEvent_t done = streams.Record(streams.backProjection, false);
      CudaCheck(cudaStreamWaitEvent(streams.download, done, 0), "cudaStreamWaitEvent (piece done)");
      CopyBox(pieceData, Layout(box), problem.output, problem.outputBox, box, cudaMemcpyDeviceToHost, streams.download);
    }
    downloaded[p] = streams.Record(streams.download, false);

    // Piece p is queued: wait for the previous one to reach the host (its download ran while p
    // computed), report it, and stop here if asked.
    if (p > 0)
    {
      CudaCheck(cudaEventSynchronize(downloaded[p - 1]), "cudaEventSynchronize (piece downloaded)");
      if (pieceDone)
        pieceDone(p - 1);
      if (abort.load())
        break;
    }
  }
  // What the computation did not hide: from the end of the last backprojection to the end of the
  // last download.
  cudaEvent_t computed = streams.Record(streams.backProjection);
  cudaEvent_t landed = streams.Record(streams.download);
  CudaCheck(cudaStreamSynchronize(streams.backProjection), "cudaStreamSynchronize (backprojection)");
  CudaCheck(cudaStreamSynchronize(streams.download), "cudaStreamSynchronize (download)");
  times.download = std::max(0., Seconds(computed, landed));
  if (!timings.empty())
  {
    times.firstBackProjection = Seconds(timings.front().uploadStart, timings.front().bpStart);
    times.deviceSpan = Seconds(timings.front().uploadStart, landed);
  }
  if (!abort.load() && pieceDone)
    pieceDone(pieces.size() - 1);

  for (const Timing & t : timings)
  {
    times.upload += Seconds(t.uploadStart, t.uploaded);
    times.weighting += Seconds(t.uploaded, t.weighted);
    times.filtering += Seconds(t.weighted, t.filtered);
    times.backprojection += Seconds(t.bpStart, t.bpEnd);
  }
  streams.ClearEvents(); // the streams are idle: this run's events go, the streams stay
  return times;
}

} // namespace cbct

#endif
