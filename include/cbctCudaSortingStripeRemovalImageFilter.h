#ifndef cbctCudaSortingStripeRemovalImageFilter_h
#define cbctCudaSortingStripeRemovalImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctSortingStripeRemovalImageFilter.h"

namespace cbct
{

/** \class CudaSortingStripeRemovalImageFilter
 * \brief SortingStripeRemovalImageFilter on the GPU (CudaImage in and out), bit for bit the same
 * values: each column of each sinogram is sorted along the angle in shared memory (a bitonic sort of
 * (value, angle) keys, 32 neighbouring columns per block so that reads are coalesced), then a
 * kernel takes the median across the detector of the sorted profiles and writes each value back to
 * its angle.
 *
 * Shared memory bounds the projections: a column's keys (8 bytes each, padded to a power of two)
 * must fit a block's shared memory (up to 16384 projections on an H100 or H200; more is refused with
 * that number). Work memory: 8 bytes per pixel of a band of rows (at most 512 MiB; larger stacks go
 * band by band).
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
