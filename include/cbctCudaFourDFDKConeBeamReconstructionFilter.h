#ifndef cbctCudaFourDFDKConeBeamReconstructionFilter_h
#define cbctCudaFourDFDKConeBeamReconstructionFilter_h

#include "cbctCudaFDKConeBeamReconstructionFilter.h"
#include "cbctCudaImage.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"

#include <memory>

namespace cbct
{

/** \class CudaFourDFDKConeBeamReconstructionFilter
 * \brief FourDFDKConeBeamReconstructionFilter on the current CUDA device: the projections uploaded
 * once for all frames, each frame reconstructed from its projections where they lie.
 *
 * \verbatim
 *   host stack (page-locked) --one upload, grouped by frame, frame by frame--> device:
 *                                              [frame 0 | frame 1 | ... ]
 *   worker 0 (host thread, own pipeline): frame 0, 2, 4, ...   each: weighting with the frame's
 *   worker 1 (host thread, own pipeline): frame 1, 3, 5, ...   angular weights, ramp filter,
 *                                                              backprojection, download into frame f
 *                                                              of the page-locked 4D output
 * \endverbatim
 *
 * The projections are copied to the device once, in frame order (with the default nearest-frame
 * gating each projection belongs to one frame, so each is uploaded, weighted, filtered and
 * backprojected once; a wider window copies a shared projection once per frame that uses it); frame
 * f waits only for its own group, the later groups arrive while it computes. Each frame is then the
 * 3D CUDA FDK's pipeline (CudaFDKDevicePipeline, one object per worker kept for all its frames, so
 * its buffers, plans and textures are made once) run on the frame's group with the frame's angular
 * weight in each projection's FDK constant, reading the projections from device memory; the
 * weighting, the ramp filter's chunked FFT and the backprojection kernel are the 3D FDK's, so a
 * frame equals the CPU filter's frame to float rounding.
 *
 * Downloads: a frame is final only after its last batch, so its 512 MB (at 512^3) overlap at most
 * that batch's computation; ConcurrentFrames (default 2) pipelines, each in its own host thread, take the frames
 * in turn, so one frame's download overlaps the next frame's computation (the 3D FDK instead cuts a
 * volume into pieces, but pieces filter the detector rows they share again). The 4D output is a
 * CudaImage whose host buffer is page-locked once (and stays so while its size does not grow): on
 * repeated updates of one filter nothing is pinned again. A constant initial volume is filled on the
 * device.
 * \ingroup ConeBeamCT
 */
template <typename TImage = CudaImage<float, 3>>
class ITK_TEMPLATE_EXPORT CudaFourDFDKConeBeamReconstructionFilter
  : public FourDFDKConeBeamReconstructionFilter<TImage, typename TImage::template Rebind<float, 4>::Type>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaFourDFDKConeBeamReconstructionFilter);

  using Self = CudaFourDFDKConeBeamReconstructionFilter;
  using OutputImageType = typename TImage::template Rebind<float, 4>::Type;
  using Superclass = FourDFDKConeBeamReconstructionFilter<TImage, OutputImageType>;
  using Pointer = itk::SmartPointer<Self>;
  using GeometryType = typename Superclass::GeometryType;

  itkNewMacro(Self);
  itkTypeMacro(CudaFourDFDKConeBeamReconstructionFilter, FourDFDKConeBeamReconstructionFilter);

  /** Device memory the filter may use, in bytes; 0 (default): 90% of the free memory. */
  itkSetMacro(DeviceMemoryBudget, std::size_t);
  itkGetConstMacro(DeviceMemoryBudget, std::size_t);
  /** Minimum number of pieces along y per frame (default 0: one, more only where memory needs them;
   * each piece weights and filters the detector rows it projects onto, so the rows pieces share are
   * filtered again). */
  itkSetMacro(MinimumPieces, unsigned int);
  itkGetConstMacro(MinimumPieces, unsigned int);
  /** Pieces per frame of the last update (the most any frame used). */
  itkGetConstMacro(NumberOfPieces, unsigned int);
  /** Frames reconstructed at once (default 2), each by its own pipeline in its own host thread:
   * while one frame is downloaded, the other computes. 1: frame after frame. The result does not
   * depend on it. */
  itkSetMacro(ConcurrentFrames, unsigned int);
  itkGetConstMacro(ConcurrentFrames, unsigned int);

protected:
  CudaFourDFDKConeBeamReconstructionFilter() = default;
  ~CudaFourDFDKConeBeamReconstructionFilter() override = default;

  /** A constant initial volume (ConstantImageSource) is asked for one voxel: its value is all the
   * filter reads. */
  void
  GenerateInputRequestedRegion() override;
  void
  GenerateData() override;

private:
  std::size_t m_DeviceMemoryBudget = 0;
  unsigned int m_MinimumPieces = 0;
  unsigned int m_NumberOfPieces = 0;
  unsigned int m_ConcurrentFrames = 2;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
