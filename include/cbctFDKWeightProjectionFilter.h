#ifndef cbctFDKWeightProjectionFilter_h
#define cbctFDKWeightProjectionFilter_h

#include "cbctCylindricalDetector.hcu"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctFDKWeighting.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkInPlaceImageFilter.h>

#include <limits>
#include <vector>

namespace cbct
{

/** \class FDKWeightProjectionFilter
 * \brief FDK's pre-weighting of a projection stack: cosine, redundancy and the FDK constant.
 *
 * Each pixel is multiplied by
 *   SID * SDD * (angular gap / 2) * SDD / sqrt(SDD^2 + (u-u0)^2 + (v-v0)^2) * redundancy,
 * with (u0, v0) the principal point and the angular gap in source azimuth. The redundancy weight is
 * a function of where the pixel's ray passes the rotation axis (RayAxisDistance: s), since that, not
 * the detector position, says which rays measure the same line:
 * - a short scan (source azimuths spanning less than 360 degrees minus three angular steps) gets
 *   Parker's weights (doubled), with the fan angle asin(s / source radius) of the actual ray;
 * - a full scan gets Wang's displaced-detector weights in s when DisplacedDetectorCoverage says the
 *   detector does not see the field of view from both sides (FieldOfViewRadius; the FDK filter sets
 *   it from its volume), with the overlap every projection covers on both sides of the axis;
 * - and 1 otherwise. With the FDKBackProjectionImageFilter's 1/w^2 distance weight this gives
 * attenuation in mm^-1 (1/the unit of the geometry).
 *
 * With displaced-detector weighting the output is wider than the input: it is padded with zeros so
 * that in every projection it reaches as far on the near side of the axis (in s) as the detector
 * reaches on the wide side, because the ramp filter spreads the weighted data into that band and
 * the backprojector must read it there (as RTK's displaced-detector filter does). Otherwise the
 * output has the input's grid.
 *
 * The third axis of the input indexes projections in the geometry (the stack's largest possible
 * region starts at projection 0). Pixel-wise, so it streams.
 * \ingroup ConeBeamCT
 */
template <typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT FDKWeightProjectionFilter : public itk::InPlaceImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(FDKWeightProjectionFilter);

  using Self = FDKWeightProjectionFilter;
  using Superclass = itk::InPlaceImageFilter<TInputImage, TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;
  using GeometryType = ThreeDCircularProjectionGeometry;

  itkNewMacro(Self);
  itkTypeMacro(FDKWeightProjectionFilter, itk::InPlaceImageFilter);

  itkSetConstObjectMacro(Geometry, GeometryType);
  itkGetConstObjectMacro(Geometry, GeometryType);

  /** On by default: displaced-detector weights where DisplacedDetectorCoverage says they are needed.
   * Off: never (e.g. an off-centre detector that sees the object, though not the whole volume, from
   * both sides). */
  itkSetMacro(DisplacedDetectorWeighting, bool);
  itkGetConstMacro(DisplacedDetectorWeighting, bool);
  itkBooleanMacro(DisplacedDetectorWeighting);

  /** Radius (mm from the rotation axis) of the field of view the reconstruction needs right
   * (DisplacedDetectorCoverage::ReconstructedRadius() of the volume; the FDK filter sets it).
   * Infinite by default: then any off-centre detector is weighted, as RTK does. */
  itkSetMacro(FieldOfViewRadius, double);
  itkGetConstMacro(FieldOfViewRadius, double);

  /** Per-projection weighting parameters for projections [first, first + count) of the geometry,
   * laid out for the pixel indices of `projections` (shared with the CUDA filter). */
  std::vector<FDKWeightingProjection>
  ComputeProjectionParameters(const TInputImage * projections, unsigned int first, unsigned int count) const;
  /** The same for a cylindrical detector centred on the source (equiangular columns: see
   * cbctCylindricalDetector.hcu); the geometry says which of the two applies. */
  std::vector<CylindricalWeightingProjection>
  ComputeCylindricalParameters(const TInputImage * projections, unsigned int first, unsigned int count) const;
  /** Scan-wide settings: short scan (Parker) or full scan, with or without displaced-detector
   * weights for the detector layout of `projections`. */
  FDKWeightingScan
  ComputeScanParameters(const TInputImage * projections) const;
  /** How the detector of `projections` covers the field of view, which decides the displaced-
   * detector weighting of a full scan (its Describe() is what --verbose prints). */
  DisplacedDetectorCoverage
  ComputeCoverage(const TInputImage * projections) const;
  /** Whether the geometry is a short scan (Parker weights; never displaced-detector weights). */
  bool
  IsShortScan() const;

  /** Output columns (pixel indices along u, inclusive): the input's own columns, widened when the
   * detector is weighted as displaced so that every projection reaches as far on the near side of
   * the axis as on the wide side. */
  std::pair<itk::IndexValueType, itk::IndexValueType>
  ComputeOutputColumns(const TInputImage * input) const;

protected:
  FDKWeightProjectionFilter();
  ~FDKWeightProjectionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateOutputInformation() override;
  void
  GenerateInputRequestedRegion() override;
  void
  BeforeThreadedGenerateData() override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

  GeometryType::ConstPointer m_Geometry;
  bool m_DisplacedDetectorWeighting = true;
  double m_FieldOfViewRadius = std::numeric_limits<double>::infinity();

private:
  std::vector<FDKWeightingProjection> m_Parameters; // for the whole geometry, index = projection
  std::vector<CylindricalWeightingProjection> m_CylindricalParameters; // instead, on a cylinder
  FDKWeightingScan m_Scan{};
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFDKWeightProjectionFilter.hxx"
#endif

#endif
