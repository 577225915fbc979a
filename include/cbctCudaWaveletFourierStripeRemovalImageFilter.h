#ifndef cbctCudaWaveletFourierStripeRemovalImageFilter_h
#define cbctCudaWaveletFourierStripeRemovalImageFilter_h

#include "cbctCudaImageToImageFilter.h"
#include "cbctWaveletFourierStripeRemovalImageFilter.h"

namespace cbct
{

/** \class CudaWaveletFourierStripeRemovalImageFilter
 * \brief WaveletFourierStripeRemovalImageFilter on the GPU (CudaImage in and out): the same levels,
 * wavelet, damping and padding, every row of a band at once. Coefficients are stored [angle][row]
 * [column], so a level's wavelet steps are one kernel each and the damping of its vertical details
 * along the angle is one batched cuFFT transform (strided lines, one per row and column) each way.
 *
 * Single precision (the CPU filter works in double): the two agree to about 1e-6 of the sinogram's
 * values. Work memory: about four times a band of padded rows (bands of at most 64 Mi padded pixels).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaWaveletFourierStripeRemovalImageFilter
  : public CudaImageToImageFilter<TImage, TImage, WaveletFourierStripeRemovalImageFilter<TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaWaveletFourierStripeRemovalImageFilter);
  using Self = CudaWaveletFourierStripeRemovalImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, WaveletFourierStripeRemovalImageFilter<TImage>>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(CudaWaveletFourierStripeRemovalImageFilter, CudaImageToImageFilter);

protected:
  CudaWaveletFourierStripeRemovalImageFilter() = default;
  ~CudaWaveletFourierStripeRemovalImageFilter() override = default;

  void
  GPUGenerateData() override;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaWaveletFourierStripeRemovalImageFilter.hxx"
#endif

#endif
