#ifndef cbctCudaFDKDevicePipeline_h
#define cbctCudaFDKDevicePipeline_h

#include "ConeBeamCTExport.h"
#include "cbctFDKBackProjection.hcu"
#include "cbctFDKWeighting.hcu"

#include <atomic>
#include <cstddef>
#include <functional>
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
  // `stackDevice` (then only that device may read it).
  const float * stack = nullptr;
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
  // Backprojection.
  const ConeProjection * matrices = nullptr; ///< `count` entries
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

  CudaFDKTimes &
  operator+=(const CudaFDKTimes & t)
  {
    upload += t.upload;
    weighting += t.weighting;
    filtering += t.filtering;
    backprojection += t.backprojection;
    download += t.download;
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
 * devices give the one-device volume bit for bit). Not thread-safe itself: one object per device
 * thread. CUDA errors throw itk::ExceptionObject (out of memory as itk::MemoryAllocationError).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaFDKDevicePipeline
{
public:
  /** Called from the device's thread after each piece is downloaded (its index in `pieces`). */
  using PieceCallback = std::function<void(std::size_t)>;

  /** Device memory the run needs for pieces of at most `voxels` voxels and `rows` detector rows. */
  static std::size_t
  BytesFor(const CudaFDKProblem & problem, std::size_t voxels, std::size_t rows);

  /** Reconstructs `pieces` on `device` (cudaSetDevice'd by the caller's thread here). Stops between
   * pieces when `abort` becomes true. */
  static CudaFDKTimes
  Run(int device, const CudaFDKProblem & problem, const std::vector<CudaFDKPiece> & pieces,
      const std::atomic<bool> & abort, const PieceCallback & pieceDone);
};

} // namespace cbct

#endif
