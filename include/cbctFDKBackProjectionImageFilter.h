#ifndef cbctFDKBackProjectionImageFilter_h
#define cbctFDKBackProjectionImageFilter_h

#include "cbctColumnBackProjection.h"
#include "cbctCylindricalDetector.hcu"
#include "cbctHelicalFDK.h"
#include "cbctFDKBackProjection.hcu"
#include "cbctFieldOfViewMask.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkInPlaceImageFilter.h>

#include <memory>
#include <utility>
#include <vector>

namespace cbct
{

/** The 3x4 matrices (ConeProjection) from the voxel indices of `volume` to the stack pixel indices
 * of `projections`, for projections [first, first + count) of `geometry`: what the voxel-driven
 * backprojectors (FDK's, the iterative methods' voxel-based one; CPU and CUDA) use. */
template <typename TImage>
std::vector<ConeProjection>
VoxelToPixelMatrices(const TImage * volume,
                     const itk::ImageBase<3> * projections,
                     const ThreeDCircularProjectionGeometry * geometry,
                     unsigned int first,
                     unsigned int count);

/** The same matrices to the flat panel's pixel indices, whatever the detector (a cylinder's pixels are
 * then found from them: cbctCylindricalRays.hcu). VoxelToPixelMatrices() refuses a cylinder. */
template <typename TImage>
std::vector<ConeProjection>
VoxelToFlatPanelPixelMatrices(const TImage * volume,
                              const itk::ImageBase<3> * projections,
                              const ThreeDCircularProjectionGeometry * geometry,
                              unsigned int first,
                              unsigned int count);

/** \class FDKBackProjectionImageFilter
 * \brief Voxel-driven FDK backprojection: volume (input 0) + sum over projections (input 1).
 *
 * For each voxel and projection, the voxel is projected with the projection's 3x4 matrix, the
 * filtered projection is sampled bilinearly at that point (zero off the detector), weighted by
 * 1/w^2 (w: distance from the source along the principal ray) and added to the voxel. Works for
 * any matrix, so for any trajectory the geometry holds.
 *
 * Interpolation follows the GPU texture unit exactly: the bilinear weights are quantised to 1/256
 * (see TextureFraction()), which changes a value by at most 1/512 of the difference between
 * neighbouring pixels and lets the CPU and CUDA filters agree to float rounding.
 *
 * On the CPU the volume is walked in columns of voxels along y where the geometry allows it (a
 * circular orbit without out-of-plane tilt: AccumulateColumns(), vectorised, each voxel's
 * coordinates computed from the voxel itself), else in runs of BackProjectionRun voxels along z
 * stepped as the CUDA kernel steps them (AccumulateVoxelRun()); both sum each batch of
 * BackProjectionBatch projections before adding it to the volume, and agree to float rounding.
 *
 * Field of view (SetFieldOfView(), off by default as RTK's output): voxels that some projection of
 * the scan does not see (FieldOfViewMask: outside the cylinder the detector covers, or the cone's top
 * and bottom corners) are not backprojected and are written as 0 or NaN; runs and columns of voxels
 * wholly outside are skipped. The voxels inside get the sums they get without it, bit for bit.
 * On a cylindrical detector centred on the source each voxel's ray is followed to the cylinder and
 * weighted by 1/L^2 instead (cbctCylindricalDetector.hcu, cbctCylindricalFDK.h), voxel by voxel. On a
 * helical orbit each sample is also weighted by helical FDK's 2 w(x, lambda) (cbctHelicalFDKWeights.hcu,
 * BackProjectHelix()), on either detector.
 *
 * Streaming: a region of the volume asks only for the detector rows and columns its eight corners
 * project onto (plus one pixel for interpolation), for every projection. Throws when no voxel of
 * the whole volume projects onto the detector in any projection (detector too small or misplaced).
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT FDKBackProjectionImageFilter : public itk::InPlaceImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FDKBackProjectionImageFilter);

  using Self = FDKBackProjectionImageFilter;
  using Superclass = itk::InPlaceImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;
  using ProjectionImageType = TInputImage;
  using GeometryType = ThreeDCircularProjectionGeometry;

  itkNewMacro(Self);
  itkTypeMacro(FDKBackProjectionImageFilter, itk::InPlaceImageFilter);

  itkSetConstObjectMacro(Geometry, GeometryType);
  itkGetConstObjectMacro(Geometry, GeometryType);

  /** Walk the volume in columns along y where every projection allows it (ColumnsAllowed(): a
   * circular orbit without out-of-plane tilt) and the projections are float (default); false: always
   * the runs along z that any matrix allows (tests compare the two: they differ by float rounding). */
  itkSetMacro(ColumnsAlongY, bool);
  itkGetConstMacro(ColumnsAlongY, bool);
  itkBooleanMacro(ColumnsAlongY);

  /** Skip the voxels outside the scan's field of view and write them as 0 (FieldOfViewMode::Zero) or
   * NaN; Off (the default): backproject every voxel. */
  void
  SetFieldOfView(FieldOfViewMode mode)
  {
    if (mode != m_FieldOfView)
    {
      m_FieldOfView = mode;
      this->Modified();
    }
  }
  FieldOfViewMode
  GetFieldOfView() const
  {
    return m_FieldOfView;
  }
  /** The scan whose projections define the field of view (default: null, this filter's geometry).
   * The 4D FDK gives the whole scan, so that every frame keeps the same voxels. */
  itkSetConstObjectMacro(FieldOfViewGeometry, GeometryType);
  itkGetConstObjectMacro(FieldOfViewGeometry, GeometryType);
  /** The field of view of the last update's region (empty with FieldOfViewMode::Off). */
  const FieldOfViewMask &
  GetFieldOfViewMask() const
  {
    return m_Mask;
  }
  /** Backprojects only projections [first, first + count) of the stack (indices from the stack's first
   * projection; count 0, the default: all of them). The input is asked for those projections alone,
   * so that a pipeline of projections streams them in batches (FDKConeBeamReconstructionFilter's
   * SetProjectionsPerBatch()); a batch that starts at a multiple of BackProjectionBatch adds to each
   * voxel exactly what the same projections add within a whole stack. */
  void
  SetProjectionRange(itk::SizeValueType first, itk::SizeValueType count);
  itk::SizeValueType
  GetProjectionRangeFirst() const
  {
    return m_ProjectionRangeFirst;
  }
  itk::SizeValueType
  GetProjectionRangeCount() const
  {
    return m_ProjectionRangeCount;
  }

  /** Input 1: the (weighted, filtered) projection stack. */
  void
  SetProjections(const ProjectionImageType * projections)
  {
    this->SetNthInput(1, const_cast<ProjectionImageType *>(projections));
  }

  /** Matrices from `volume` voxel indices to pixel indices of `projections`, for projections
   * [first, first + count) of the geometry (shared with the CUDA filter). */
  std::vector<ConeProjection>
  ComputeProjectionMatrices(const TOutputImage * volume,
                            const ProjectionImageType * projections,
                            unsigned int first,
                            unsigned int count) const;

  /** Detector region (pixel indices, with the projection axis whole) that `volumeRegion` of
   * `volume` projects onto, with one pixel of margin; empty-sized when it misses the detector. */
  typename ProjectionImageType::RegionType
  ComputeProjectionRegion(const TOutputImage * volume,
                          const OutputImageRegionType & volumeRegion,
                          const ProjectionImageType * projections) const;

  /** Throws, naming the detector, when no voxel of `volume` projects onto `projections`' detector
   * in any projection (only the images' information is used). */
  void
  CheckVolumeProjectsOntoDetector(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections) const;

protected:
  FDKBackProjectionImageFilter();
  ~FDKBackProjectionImageFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  /** The volume and the projections live in different spaces: skip ITK's same-grid check. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  /** Columns along y where allowed (GenerateDataInColumns()), else ITK's threads over
   * DynamicThreadedGenerateData() (runs along z). */
  void
  GenerateData() override;
  void
  BeforeThreadedGenerateData() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  /** The field of view of the output's requested region (m_Mask), when asked for. */
  void
  ComputeFieldOfView();
  /** Writes the voxels outside the field of view (runs along z). */
  void
  AfterThreadedGenerateData() override;

  /** The projections to backproject, [first, first + count) as indices of the stack's largest
   * possible region along its third axis: the buffered ones, within SetProjectionRange()'s when one is
   * set (then the input must hold them all). */
  std::pair<itk::SizeValueType, itk::SizeValueType>
  ProjectionsToBackProject(const ProjectionImageType * projections) const;

  GeometryType::ConstPointer m_Geometry;

private:
  /** The backprojection in columns of voxels along y (AccumulateColumns()): per batch of
   * BackProjectionBatch projections, the batch is laid out in a ColumnStack by all threads, then
   * each thread adds it to its pieces of the volume, a few slices at a time so that their sums and
   * one projection stay in the core's cache together. Sums per batch, as the runs along z do. */
  void
  GenerateDataInColumns();
  /** One batch (projections [first, first + count) of m_Matrices, laid out in `stack`) added to
   * `piece` of the output. */
  void
  BackProjectColumns(const ColumnStack & stack, std::size_t first, int count, const OutputImageRegionType & piece);

  /** Adds a batch's sums of one run of voxels to the output (as the CUDA kernel does per launch). */
  void
  AddRun(const std::vector<float> & sum, TOutputImage * output, const OutputImageRegionType & region,
         typename TOutputImage::IndexType index, int run, int zFirst, int zEnd) const;

  std::vector<ConeProjection> m_Matrices;
  std::size_t m_FirstBufferedSlice = 0; // slice of the projections' buffer that holds m_Matrices[0]'s projection
  std::size_t m_FirstProjection = 0;    // index (in the whole stack) of m_Matrices[0]'s projection
  std::vector<CylindricalProjection> m_CylindricalMatrices; // instead, on a cylindrical detector
  std::shared_ptr<const HelicalFDKSetup> m_Helix;           // a helical orbit's weights (else none)
  bool m_ColumnsAlongY = true;
  FieldOfViewMode m_FieldOfView = FieldOfViewMode::Off;
  GeometryType::ConstPointer m_FieldOfViewGeometry;
  FieldOfViewMask m_Mask;
  itk::SizeValueType m_ProjectionRangeFirst = 0;
  itk::SizeValueType m_ProjectionRangeCount = 0;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFDKBackProjectionImageFilter.hxx"
#endif

#endif
