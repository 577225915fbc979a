#ifndef cbctCudaFDKDevicePipeline_h
#define cbctCudaFDKDevicePipeline_h

#include "ConeBeamCTExport.h"
#include "cbctCudaHelicalFDKBackProjection.hcu"
#include "cbctCylindricalDetector.hcu"
#include "cbctFDKBackProjection.hcu"
#include "cbctFDKWeighting.hcu"
#include "cbctFieldOfView.hcu"
#include "cbctLineIntegralConversion.hcu"

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace cbct
{

/** A box of voxels: the first voxel's index and the size along x, y, z (x fastest in memory). */
struct VoxelBox
{
  long long index[3] = { 0, 0, 0 };
  std::size_t size[3] = { 0, 0, 0 };

  std::size_t
  Voxels() const
  {
    return size[0] * size[1] * size[2];
  }
};

/** One piece of the volume (a range of y) and the detector rows it projects onto. */
struct CudaFDKPiece
{
  VoxelBox box;
  int firstRow = 0; ///< stack row index
  int rows = 0;     ///< 0: the piece sees no row of the detector (it stays at its initial value)
};

/** What every device's share of a CUDA FDK reconstruction reads, in host memory (or, for the
 * projections, possibly in one device's memory). Made once by CudaFDKConeBeamReconstructionFilter. */
struct CudaFDKProblem
{
  // Projections: `count` projections of `stackRows` x `columns` floats, whose first pixel is stack
  // pixel (stackFirstColumn, stackFirstRow); page-locked host memory, or device memory of
  // `stackDevice` (then only that device may read it). Or, with `counts` set instead of `stack`, the
  // same as 16-bit detector readings: uploaded as they are (half the bytes) and turned into line
  // integrals by the weighting kernel with `logFlat` (`count` entries: ln(max(I0 - Idark, minimum)) of
  // each projection) and `conversion`, the CPU's IntensityToLineIntegralImageFilter's expression.
  const float * stack = nullptr;
  const unsigned short * counts = nullptr;
  const double * logFlat = nullptr;
  LineIntegralConversion conversion{};
  int stackDevice = -1;
  std::size_t columns = 0;
  std::size_t stackRows = 0;
  int stackFirstColumn = 0;
  int stackFirstRow = 0;
  unsigned int count = 0;
  // Weighting and ramp filter: columns after displaced-detector padding, FFT length and response.
  const FDKWeightingProjection * parameters = nullptr; ///< `count` entries
  FDKWeightingScan scan{};
  int paddedFirst = 0;
  std::size_t paddedColumns = 0;
  int length = 0;
  const std::vector<double> * response = nullptr;
  // The ramp filter's options, as FFTRampImageFilter applies them: the truncation correction (RTK's
  // --pad) extends each weighted row by `truncationExtent` pixels a side before the transform; the
  // Hann low-pass along v (--hannY), with its `smoothingTaps` (HannLowPassKernel(), null: none), mixes
  // every detector row of a projection, so each piece then weights and filters all `stackRows` rows
  // and keeps its own while cropping.
  int truncationExtent = 0;
  const std::vector<double> * smoothingTaps = nullptr;
  // Backprojection.
  const ConeProjection * matrices = nullptr; ///< `count` entries
  // The scan's field of view (FieldOfViewMask): with a mode other than Off, the voxels that some of
  // the `fieldOfViewCount` projections of `fieldOfViewMatrices` (voxel to stack pixel indices, every
  // projection of the scan) do not see on `fieldOfViewDetector` are not backprojected and are set to
  // 0 or NaN; columns along `fieldOfViewAxis` (FieldOfViewMask::AxisFor()).
  FieldOfViewMode fieldOfView = FieldOfViewMode::Off;
  const ConeProjection * fieldOfViewMatrices = nullptr;
  unsigned int fieldOfViewCount = 0;
  FieldOfViewDetector fieldOfViewDetector;
  int fieldOfViewAxis = 1;
  // A cylindrical detector centred on the source instead of a flat panel: its weighting parameters and
  // backprojection matrices (`count` entries each, in place of `parameters` and `matrices`) and grid.
  const CylindricalWeightingProjection * cylindricalParameters = nullptr;
  const CylindricalProjection * cylindricalMatrices = nullptr;
  CylindricalDetectorGrid cylindricalGrid{};
  // A helical orbit: helical FDK's backprojection (cbctCudaHelicalFDKBackProjection.hcu) with `count`
  // views (matrices texel-centred), the helix, the volume's voxel-to-world matrix, and how far from a
  // source's height (mm along y) any voxel of the volume can project onto the detector: a piece of the
  // volume skips the batches whose views are all farther.
  const CudaHelicalView * helicalViews = nullptr;
  HelicalScan helicalScan{};
  float voxelToWorld[12] = {};
  float helicalReach = 0.f;
  // The volume: the output (page-locked host memory) holds `output`'s box; the initial volume is a
  // constant, or host memory laid out as `initialBox`.
  float * output = nullptr;
  VoxelBox outputBox;
  bool constantInitial = true;
  float constantValue = 0.f;
  const float * initial = nullptr;
  VoxelBox initialBox;
};

/** Stage times of one device (seconds; the GPU's own intervals, summed over batches) and the host
 * time spent waiting for downloads that nothing hid. */
struct CudaFDKTimes
{
  double upload = 0., weighting = 0., filtering = 0., backprojection = 0., download = 0.;
  /** The run's timeline on the device (CUDA events): from the first upload's start to the first
   * backprojection's start (what the first batch costs before any backprojection), and to the last
   * download's end; and the host's time inside Run(). Several devices: the longest. */
  double firstBackProjection = 0., deviceSpan = 0., hostRun = 0.;

  CudaFDKTimes &
  operator+=(const CudaFDKTimes & t)
  {
    upload += t.upload;
    weighting += t.weighting;
    filtering += t.filtering;
    backprojection += t.backprojection;
    download += t.download;
    firstBackProjection = firstBackProjection > t.firstBackProjection ? firstBackProjection : t.firstBackProjection;
    deviceSpan = deviceSpan > t.deviceSpan ? deviceSpan : t.deviceSpan;
    hostRun = hostRun > t.hostRun ? hostRun : t.hostRun;
    return *this;
  }
};

/** \class CudaFDKDevicePipeline
 * \brief One device's part of a CUDA FDK: its pieces of the volume, weighted, filtered and
 * backprojected batch by batch, each piece downloaded into the host volume while the next computes.
 *
 * \verbatim
 *   filter stream (high priority): upload batch b | weight+pad | cuFFT, ramp | texture b%2 ...
 *   BP stream:                                            wait ---> backproject batch b ...
 *   download stream:   piece p-1 -> host (one 2D copy: a contiguous run of rows per z) while p computes;
 *                      the last piece's final batch in z-chunks, each downloaded once added
 * \endverbatim
 *
 * The host enqueues a piece and waits only for the previous piece's backprojection, so the device
 * always has work queued and an abort takes effect between pieces. The filter stream has the higher
 * priority: its kernels take free multiprocessors as the backprojection's blocks retire, so batch b+1
 * is ready before batch b's backprojection ends. The FFT runs in chunks of a fixed number of rows,
 * whatever the piece, so a row's filtered values never depend on how the volume was cut (several
 * devices give the one-device volume bit for bit).
 *
 * The object keeps its device buffers, cuFFT plans, textures and streams from one Run() to the next
 * (they only grow) until Release() or destruction; the FDK filter keeps the object between updates
 * only when asked (KeepDeviceMemory: on an H100 it saved nothing measurable on S or R). Not
 * thread-safe itself: one object per device thread. CUDA errors throw itk::ExceptionObject (out of
 * memory as itk::MemoryAllocationError, after which the object holds nothing).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaFDKDevicePipeline
{
public:
  /** Called from the device's thread after each piece is downloaded (its index in `pieces`). */
  using PieceCallback = std::function<void(std::size_t)>;

  explicit CudaFDKDevicePipeline(int device);
  ~CudaFDKDevicePipeline();
  CudaFDKDevicePipeline(const CudaFDKDevicePipeline &) = delete;
  CudaFDKDevicePipeline &
  operator=(const CudaFDKDevicePipeline &) = delete;

  /** Device memory the run needs for pieces of at most `voxels` voxels and `rows` detector rows. */
  static std::size_t
  BytesFor(const CudaFDKProblem & problem, std::size_t voxels, std::size_t rows, std::size_t pieces = 2);

  int
  GetDevice() const
  {
    return m_Device;
  }

  /** Device memory held between runs (BytesFor() of the largest run so far; 0 after Release()). */
  std::size_t
  GetHeldBytes() const
  {
    return m_HeldBytes;
  }

  /** Frees the held device memory, plans and streams. */
  void
  Release();

  /** Reconstructs `pieces` on this object's device (made current for the calling thread). Stops
   * between pieces when `abort` becomes true. */
  CudaFDKTimes
  Run(const CudaFDKProblem & problem, const std::vector<CudaFDKPiece> & pieces, const std::atomic<bool> & abort,
      const PieceCallback & pieceDone);

private:
  struct Resources; // device buffers, plan, textures, streams (CUDA types stay in the .cxx)

  CudaFDKTimes
  RunWithResources(const CudaFDKProblem & problem, const std::vector<CudaFDKPiece> & pieces,
                   const std::atomic<bool> & abort, const PieceCallback & pieceDone);

  int m_Device = 0;
  std::unique_ptr<Resources> m_Resources;
  std::size_t m_HeldBytes = 0;
};

} // namespace cbct

#endif
