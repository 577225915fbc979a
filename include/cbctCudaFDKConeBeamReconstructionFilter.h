#ifndef cbctCudaFDKConeBeamReconstructionFilter_h
#define cbctCudaFDKConeBeamReconstructionFilter_h

#include "cbctCudaFDKBackProjectionImageFilter.h"
#include "cbctCudaFDKDevicePipeline.h"
#include "cbctCudaFDKWeightProjectionFilter.h"
#include "cbctCudaFFTRampImageFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"

#include <atomic>
#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaFDKConeBeamReconstructionFilter
 * \brief FDKConeBeamReconstructionFilter on one or several GPUs, with transfers overlapped with
 * computation.
 *
 * The constructor swaps the CUDA weighting, ramp and backprojection filters into the CPU composite,
 * which keeps its wiring, its regions (so ITK streaming works unchanged), its parameters and its
 * stage timers. GenerateData() then runs the three stages fused, batch by batch, on each device of
 * SetDevices() (CudaFDKDevicePipeline):
 *
 * \verbatim
 *   y (rotation axis)      device 0            device 1
 *   ^   +---------+     pieces p0, p1, p2    pieces p0, p1, p2
 *   |   | share 1 |  -> each with the detector rows it projects onto, uploaded,
 *   |   |---------|     weighted, filtered and backprojected in batches of 64
 *   |   | share 0 |     projections; each piece downloaded straight into the host
 *   +-- +---------+     volume while the next one computes
 * \endverbatim
 *
 * The requested volume is cut along y (the rotation axis) into one share per device, one host thread
 * each; a device's share is cut into pieces that fit its memory budget (by default 90% of its free
 * memory), and an allocation that still fails is retried with twice as many pieces before a clear
 * error says how much was needed and how much is free. Each voxel gets the same batches in the same
 * order, and each detector row the same filtering, however the volume is cut: the result does not
 * depend on the devices or the pieces, bit for bit.
 *
 * Images are CudaImages; their host buffers are page-locked (portable, for every device) once. A
 * constant initial volume (a ConstantImageSource) is filled on the device instead of uploaded, and
 * the source is asked for one voxel only: the host then holds one volume (the output), not two.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaFDKConeBeamReconstructionFilter : public FDKConeBeamReconstructionFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFDKConeBeamReconstructionFilter);

  using Self = CudaFDKConeBeamReconstructionFilter;
  using Superclass = FDKConeBeamReconstructionFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(CudaFDKConeBeamReconstructionFilter, FDKConeBeamReconstructionFilter);

  /** The CUDA devices to use (indices as cudaSetDevice counts them). Empty, the default: the current
   * device only. A device may be listed twice (two shares on one GPU: it tests the multi-device
   * path on one GPU). */
  void
  SetDevices(const std::vector<int> & devices);
  const std::vector<int> &
  GetDevices() const
  {
    return m_Devices;
  }

  /** Device memory the filter may use on each device, in bytes; 0 (default) means 90% of the free
   * memory. */
  itkSetMacro(DeviceMemoryBudget, std::size_t);
  itkGetConstMacro(DeviceMemoryBudget, std::size_t);
  /** Minimum number of pieces along y per device (default 0: one piece, more only when the share
   * does not fit the device memory budget). More pieces let a piece's download overlap the next
   * piece's computation, but every piece filters again the detector rows it shares with its
   * neighbours: on an H100 one piece was faster (benchmarks/README.md). */
  itkSetMacro(MinimumPieces, unsigned int);
  itkGetConstMacro(MinimumPieces, unsigned int);
  /** Pieces the last update used, over all devices (after any fallback). */
  itkGetConstMacro(NumberOfPieces, unsigned int);

  /** Whether the device buffers, cuFFT plans, textures and streams of each device are kept after an
   * update for the next one (off by default: an update leaves no device memory behind). Measured on
   * an H100 (benchmarks/README.md): keeping them saves nothing visible on S or R, since cudaMalloc and
   * cudaFree of a few buffers cost well under a millisecond next to the work; it is there for loops of
   * many small updates. */
  itkSetMacro(KeepDeviceMemory, bool);
  itkGetConstMacro(KeepDeviceMemory, bool);
  itkBooleanMacro(KeepDeviceMemory);

  /** Frees the device memory kept from the last update (with KeepDeviceMemory on); destruction frees
   * it too. */
  void
  ReleaseDeviceMemory();
  /** Device memory held now for the next update, over all devices (0 unless KeepDeviceMemory). */
  std::size_t
  GetHeldDeviceMemory() const;

  /** 16-bit detector readings, as the detector wrote them. */
  using CountImageType = typename TImage::template Rebind<unsigned short>::Type;

  /** Reconstructs from 16-bit readings instead of line integrals: they are uploaded as they are (half
   * the bytes of floats) and turned into line integrals in the weighting kernel, with the expression
   * of IntensityToLineIntegralImageFilter: `logFlatPerProjection[k]` = ln(max(I0 - Idark, minimum)) of
   * projection k (one per projection of the readings' largest region, GetLogFlatFields() of that
   * filter) and `conversion` (its GetConversion()). The readings take the place of the projections
   * input (their grid is its grid); SetProjections() afterwards goes back to line integrals. The
   * readings must be up to date (they are read, not updated); modifying them re-runs the filter. */
  void
  SetCountProjections(const CountImageType * readings, const std::vector<double> & logFlatPerProjection,
                      const LineIntegralConversion & conversion);

  /** Includes the readings' modification time (they are not a pipeline input). */
  itk::ModifiedTimeType
  GetMTime() const override;

protected:
  CudaFDKConeBeamReconstructionFilter();
  ~CudaFDKConeBeamReconstructionFilter() override = default;

  /** The superclass's regions, except a constant initial volume's: one voxel of it (its value is
   * all the filter reads). */
  void
  GenerateInputRequestedRegion() override;
  /** With readings: the projections input's grid refreshed from theirs first. */
  void
  GenerateOutputInformation() override;
  void
  GenerateData() override;

public:
  /** The last update's device timeline and stage times (CudaFDKTimes: the first batch's cost before
   * any backprojection, the device's whole span, the host's time in the pipelines), and the host's
   * time before the pipelines start (preparing the problem: matrices, weights, filter response,
   * pinned buffers) and after they end (freeing device memory): where the time of an update goes
   * outside the backprojection (benchmarks/README.md). */
  const CudaFDKTimes &
  GetDeviceTimes() const
  {
    return m_DeviceTimes;
  }
  double
  GetHostSetupTime() const
  {
    return m_HostSetupSeconds;
  }
  double
  GetHostFinishTime() const
  {
    return m_HostFinishSeconds;
  }

private:
  /** Cuts `share` (a range of y of the requested region) into `count` pieces with their detector rows. */
  std::vector<CudaFDKPiece>
  PlanPieces(const typename TImage::RegionType & share, unsigned int count);
  /** Reconstructs one device's share, with more pieces while the device runs out of memory. */
  CudaFDKTimes
  ReconstructShare(CudaFDKDevicePipeline & pipeline, const CudaFDKProblem & problem, const typename TImage::RegionType & share,
                   const std::atomic<bool> & abort, const CudaFDKDevicePipeline::PieceCallback & pieceDone,
                   std::atomic<unsigned int> & piecesUsed);

  std::vector<int> m_Devices;
  std::size_t m_DeviceMemoryBudget = 0;
  unsigned int m_MinimumPieces = 0;
  unsigned int m_NumberOfPieces = 0;
  bool m_KeepDeviceMemory = false;
  CudaFDKTimes m_DeviceTimes;
  double m_HostSetupSeconds = 0.;
  double m_HostFinishSeconds = 0.;
  // One pipeline per share of the last update, with its device memory (KeepDeviceMemory).
  std::vector<std::unique_ptr<CudaFDKDevicePipeline>> m_Pipelines;
  // SetCountProjections(): the readings, and the image without pixels that stands for them as the
  // projections input (their grid, for the stages' geometry and regions).
  typename CountImageType::ConstPointer m_Counts;
  typename TImage::Pointer m_CountsGrid;
  std::vector<double> m_LogFlat;
  LineIntegralConversion m_Conversion;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
