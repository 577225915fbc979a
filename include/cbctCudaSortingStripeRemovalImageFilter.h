#ifndef cbctCudaSortingStripeRemovalImageFilter_h
#define cbctCudaSortingStripeRemovalImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctSortingStripeRemovalImageFilter.h"

namespace cbct
{

/** \class CudaSortingStripeRemovalImageFilter
 * \brief SortingStripeRemovalImageFilter on the GPU (CudaImage in and out), bit for bit the same
 * values, the whole chain on the device: each column of each sinogram is sorted along the angle in
 * shared memory (a bitonic sort of (value, angle) keys, 32 neighbouring columns per block so that
 * reads are coalesced); with the stripe detection (SNR > 0, the default) a warp per column takes the
 * median and quartiles over the ranks of its differences from its references (a bitonic sort in
 * shared memory; FirstOffsets(), SecondOffsets(), CorrectionOffsets() of SortingStripeRemoval), a
 * kernel pools the measures over each row's band of DetectionRows rows, a block per row runs the
 * paper's detection on them (SortingStripeRemoval::DetectStripes(), compiled without fused
 * multiply-adds so that its sums and thresholds are the CPU's), and a last kernel writes each value
 * back to its angle, the stripes' corrected (SortingStripeRemoval::Correct()). No host round trip
 * but one check of the input's finiteness per band of rows. Without the detection (SNR 0) a kernel
 * writes the median of the sorted profiles back.
 *
 * Shared memory bounds the projections: a column's keys (8 bytes each, padded to a power of two)
 * must fit a block's shared memory (up to 16384 projections on an H100 or H200; more is refused with
 * that number). Work memory: 8 bytes per pixel of a band of rows (at most 512 MiB; larger stacks go
 * band by band, each with the rows its detection needs around it) and 41 bytes per column and row.
 *
 * SetTimeStages(true) times the sort, the detection and the correction with CUDA events (summed over
 * the bands; it waits for each stage): GetStageMilliseconds() (cbct-bench --method rings prints them).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaSortingStripeRemovalImageFilter
  : public CudaImageToImageFilter<TImage, TImage, SortingStripeRemovalImageFilter<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaSortingStripeRemovalImageFilter);
  using Self = CudaSortingStripeRemovalImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, SortingStripeRemovalImageFilter<TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaSortingStripeRemovalImageFilter, CudaImageToImageFilter);

  /** The device time of the last update's stages, in milliseconds (with SetTimeStages(true)). */
  struct StageMilliseconds
  {
    double sort = 0.;
    double detection = 0.;
    double correction = 0.;
  };
  itkSetMacro(TimeStages, bool);
  itkGetConstMacro(TimeStages, bool);
  const StageMilliseconds &
  GetStageMilliseconds() const
  {
    return m_StageMilliseconds;
  }

protected:
  CudaSortingStripeRemovalImageFilter() = default;
  ~CudaSortingStripeRemovalImageFilter() override = default;

  void
  GPUGenerateData() override;

private:
  bool m_TimeStages = false;
  StageMilliseconds m_StageMilliseconds;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaSortingStripeRemovalImageFilter.hxx"
#endif

#endif
