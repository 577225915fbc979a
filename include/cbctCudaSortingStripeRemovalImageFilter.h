#ifndef cbctCudaSortingStripeRemovalImageFilter_h
#define cbctCudaSortingStripeRemovalImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctSortingStripeRemovalImageFilter.h"

namespace cbct
{

/** \class CudaSortingStripeRemovalImageFilter
 * \brief SortingStripeRemovalImageFilter on the GPU (CudaImage in and out), bit for bit the same
 * values: each column of each sinogram is sorted along the angle in shared memory (a bitonic sort of
 * (value, angle) keys, 32 neighbouring columns per block so that reads are coalesced). With the
 * stripe detection (SNR > 0, the default) a kernel takes the median across the detector of the
 * sorted profiles (TomoPy's reference), a kernel per column the median over the ranks of its
 * offsets (three passes, as the CPU), the detection itself runs on the host on those offsets (a few
 * floats per column: SortingStripeRemoval::DetectStripes, so that it is the CPU's), and a last
 * kernel writes each value back to its angle, the stripes' replaced by their neighbours' line.
 * Without it (SNR 0) a kernel writes the median of the sorted profiles back.
 *
 * Shared memory bounds the projections: a column's keys (8 bytes each, padded to a power of two)
 * must fit a block's shared memory (up to 16384 projections on an H100 or H200; more is refused with
 * that number). Work memory: 8 bytes per pixel of a band of rows, 16 with the detection (at most
 * 512 MiB; larger stacks go band by band).
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

protected:
  CudaSortingStripeRemovalImageFilter() = default;
  ~CudaSortingStripeRemovalImageFilter() override = default;

  void
  GPUGenerateData() override;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaSortingStripeRemovalImageFilter.hxx"
#endif

#endif
