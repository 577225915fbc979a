#ifndef cbctCudaFDKConeBeamReconstructionFilter_h
#define cbctCudaFDKConeBeamReconstructionFilter_h

#include "cbctCudaFDKBackProjectionImageFilter.h"
#include "cbctCudaFDKWeightProjectionFilter.h"
#include "cbctCudaFFTRampImageFilter.h"
#include "cbctFDKConeBeamReconstructionFilter.h"

namespace cbct
{

/** \class CudaFDKConeBeamReconstructionFilter
 * \brief FDKConeBeamReconstructionFilter on the GPU, with transfers overlapped with computation.
 *
 * The constructor swaps the CUDA weighting, ramp and backprojection filters into the CPU composite,
 * which keeps its wiring, its regions (so ITK streaming works unchanged), its parameters and its
 * stage timers. GenerateData() then runs the three stages fused, batch by batch:
 *
 * \verbatim
 *   filter stream:  upload batch b | weight+pad | cuFFT R2C, ramp, C2R | copy to texture b%2 ...
 *   BP stream:                                          wait ---------> backproject batch b ...
 *   host:           piece p's batches queued, then piece p-1 downloaded while p computes
 * \endverbatim
 *
 * Batches hold CudaBackProjectionBatch projections, double-buffered so that the upload and filtering
 * of batch b+1 run while batch b is backprojected. The requested volume is cut along y (the rotation
 * axis) into pieces; each piece needs only the detector rows it projects onto, and the download of
 * one piece overlaps the backprojection of the next. The number of pieces follows from the device
 * memory budget (by default 90% of the free memory): a volume larger than the GPU is reconstructed
 * piece by piece, and an allocation that still fails is retried with twice as many pieces before a
 * clear error says how much was needed and how much is free.
 *
 * Images are CudaImages. A constant initial volume (a ConstantImageSource) is filled on the device
 * instead of uploaded.
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

  /** Device memory the filter may use, in bytes; 0 (default) means 90% of the free memory. */
  itkSetMacro(DeviceMemoryBudget, std::size_t);
  itkGetConstMacro(DeviceMemoryBudget, std::size_t);
  /** Minimum number of pieces along y (default 4 for volumes over 64 MiB, so downloads overlap). */
  itkSetMacro(MinimumPieces, unsigned int);
  itkGetConstMacro(MinimumPieces, unsigned int);
  /** Pieces the last update used (after any fallback). */
  itkGetConstMacro(NumberOfPieces, unsigned int);

protected:
  CudaFDKConeBeamReconstructionFilter();
  ~CudaFDKConeBeamReconstructionFilter() override = default;

  void
  GenerateData() override;

private:
  struct Plan;
  /** Bytes of device memory a piece of `rows` detector rows and `pieceVoxels` voxels needs. */
  std::size_t
  BytesFor(std::size_t pieceVoxels, std::size_t rows, std::size_t columns, std::size_t paddedColumns,
           std::size_t length) const;
  void
  Reconstruct(unsigned int pieces);

  std::size_t m_DeviceMemoryBudget = 0;
  unsigned int m_MinimumPieces = 0;
  unsigned int m_NumberOfPieces = 0;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctCudaFDKConeBeamReconstructionFilter.hxx"
#endif

#endif
