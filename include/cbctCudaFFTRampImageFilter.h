#ifndef cbctCudaFFTRampImageFilter_h
#define cbctCudaFFTRampImageFilter_h

#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaImageToImageFilter.h"
#include "cbctFFTRampImageFilter.h"

#include <cufft.h>

namespace cbct
{

/** \class CudaRampFilterPlan
 * \brief Batched double-precision cuFFT plans (D2Z and Z2D) for rows of one padded length, kept while the length and
 * batch hold, with their work buffers; shared by the CUDA ramp filter and the CUDA FDK.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaRampFilterPlan
{
public:
  CudaRampFilterPlan() = default;
  ~CudaRampFilterPlan();
  CudaRampFilterPlan(const CudaRampFilterPlan &) = delete;
  CudaRampFilterPlan &
  operator=(const CudaRampFilterPlan &) = delete;

  /** Plans for `rows` rows of `length` reals (reused when unchanged), and uploads `response`
   * (length/2+1 values, RampFilterResponse()) when it differs from the one held. */
  void
  Prepare(int length, int rows, const std::vector<double> & response);

  /** Filters the planned rows of `length` doubles in PaddedRows() in place, on `stream`. */
  void
  Filter(cudaStream_t stream);

  /** Makes PaddedRows() hold at least `rows` rows (a multiple of the planned batch), zeroed when it
   * grows, for FilterRows(). */
  void
  ReserveRows(std::size_t rows);

  /** Filters the first `rows` rows of PaddedRows() in place, in chunks of the planned batch (the
   * last chunk's rows beyond `rows` are scratch, within ReserveRows()): the plan, so each row's
   * arithmetic, stays the same whatever `rows` is. */
  void
  FilterRows(cudaStream_t stream, std::size_t rows);

  /** Device buffer for the planned rows, zero-padded to the FFT length, in double. */
  double *
  PaddedRows()
  {
    return m_Padded.Data();
  }

private:
  void
  Destroy();

  cufftHandle m_Forward = 0;
  cufftHandle m_Inverse = 0;
  int m_Length = 0;
  int m_Rows = 0;
  std::vector<double> m_Response;
  CudaDeviceBuffer<double> m_DeviceResponse;
  CudaDeviceBuffer<double> m_Padded;
  CudaDeviceBuffer<cufftDoubleComplex> m_Spectra;
};

/** \class CudaFFTRampImageFilter
 * \brief FFTRampImageFilter on the GPU: rows zero-padded by a kernel, batched cuFFT D2Z, the same
 * response as the CPU filter, Z2D, and a cropping copy to the output; in double, as on the CPU. The
 * truncation correction extends the padded rows before the transform (LaunchTruncationExtension()),
 * and the Hann low-pass along v is a convolution of every filtered row of a projection done while
 * cropping (LaunchCropSmoothColumns()).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT CudaFFTRampImageFilter
  : public CudaImageToImageFilter<TImage, TImage, FFTRampImageFilter<TImage, TImage>>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFFTRampImageFilter);

  using Self = CudaFFTRampImageFilter;
  using Superclass = CudaImageToImageFilter<TImage, TImage, FFTRampImageFilter<TImage, TImage>>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(CudaFFTRampImageFilter, CudaImageToImageFilter);

  /** Device memory the filter may use for padded rows and spectra at once (default 512 MiB). */
  itkSetMacro(WorkMemoryBytes, std::size_t);
  itkGetConstMacro(WorkMemoryBytes, std::size_t);

protected:
  CudaFFTRampImageFilter() = default;
  ~CudaFFTRampImageFilter() override = default;

  void
  GPUGenerateData() override;

private:
  CudaRampFilterPlan m_Plan;
  std::size_t m_WorkMemoryBytes = std::size_t(512) << 20;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFFTRampImageFilter.hxx"
#endif

#endif
