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
 *   host stack (page-locked) --one upload, grouped by frame--> device: [frame 0 | frame 1 | ... ]
 *   frame f: CudaFDKDevicePipeline on its group (weighting with the frame's angular weights, ramp
 *            filter, backprojection), pieces along y, each piece downloaded into frame f of the
 *            page-locked 4D output while the next piece computes
 * \endverbatim
 *
 * The projections are copied to the device once, in frame order (with the default nearest-frame
 * gating each projection belongs to one frame, so each is uploaded, weighted, filtered and
 * backprojected once; a wider window copies a shared projection once per frame that uses it).
 * Each frame is then the 3D CUDA FDK's pipeline (CudaFDKDevicePipeline, one object kept for all
 * frames, so its buffers, plans and textures are made once) run on the frame's group with the
 * frame's angular weight in each projection's FDK constant, reading the projections from device
 * memory; the weighting, the ramp filter's chunked FFT and the backprojection kernel are the 3D
 * FDK's, so a frame equals the CPU filter's frame to float rounding. The weighting of a projection
 * is repeated per frame only where a wider window shares it.
 *
 * Downloads: within a frame, piece p goes to the host while piece p + 1 computes; between frames
 * only the last piece's final chunks are waited for. The 4D output is a CudaImage whose host buffer
 * is page-locked once (and stays so while its size does not grow): on repeated updates of one
 * filter nothing is pinned again. A constant initial volume is filled on the device.
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
  /** Minimum number of pieces along y per frame (default: 4 for a frame over 256 MiB, 2 over
   * 64 MiB, so downloads overlap). */
  itkSetMacro(MinimumPieces, unsigned int);
  itkGetConstMacro(MinimumPieces, unsigned int);
  /** Pieces per frame of the last update. */
  itkGetConstMacro(NumberOfPieces, unsigned int);

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
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
