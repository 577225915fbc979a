#ifndef cbctFDKWeightProjectionFilter_h
#define cbctFDKWeightProjectionFilter_h

#include "cbctFDKWeighting.hcu"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkInPlaceImageFilter.h>

#include <vector>

namespace cbct
{

/** \class FDKWeightProjectionFilter
 * \brief FDK's pre-weighting of a projection stack: cosine, redundancy and the FDK constant.
 *
 * Each pixel is multiplied by
 *   SID * SDD * (angular gap / 2) * SDD / sqrt(SDD^2 + (u-u0)^2 + (v-v0)^2) * redundancy,
 * where the redundancy weight is Parker's (doubled) for a short scan, detected from the angular
 * range (less than 360 degrees minus three angular steps), Wang's displaced-detector weight for a
 * full scan whose detector is off-centre (it extends more than a pixel further on one side of the
 * principal point than on the other), and 1 otherwise. With the FDKBackProjectionImageFilter's
 * 1/w^2 distance weight this gives attenuation in mm^-1 (1/the unit of the geometry).
 *
 * With a displaced detector the output is wider than the input: it is padded with zeros so that it
 * extends as far on the truncated side of the principal point as on the other, because the ramp
 * filter spreads the weighted data into that band and the backprojector must read it there (as RTK's
 * displaced-detector filter does). Otherwise the output has the input's grid.
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

  /** On by default; switch displaced-detector weighting off when the detector is off-centre but
   * still sees the whole object from every angle. */
  itkSetMacro(DisplacedDetectorWeighting, bool);
  itkGetConstMacro(DisplacedDetectorWeighting, bool);
  itkBooleanMacro(DisplacedDetectorWeighting);

  /** Per-projection weighting parameters for projections [first, first + count) of the geometry,
   * laid out for the pixel indices of `projections` (shared with the CUDA filter). */
  std::vector<FDKWeightingProjection>
  ComputeProjectionParameters(const TInputImage * projections, unsigned int first, unsigned int count) const;
  /** Short-scan settings of the geometry. */
  FDKWeightingScan
  ComputeScanParameters() const;

  /** Output columns (pixel indices along u, inclusive) that cover `input`'s detector mirrored about
   * every projection's principal point: the input's own columns unless the detector is displaced. */
  std::pair<itk::IndexValueType, itk::IndexValueType>
  ComputeOutputColumns(const TInputImage * input) const;

  /** For a displaced detector in projection k: the half-width (mm) of the band seen from both sides
   * and +1/-1 for the side that extends further; {0, 1} when the detector is centred within a pixel. */
  std::pair<double, double>
  DisplacedExtent(const TInputImage * projections, unsigned int k) const;

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

private:
  std::vector<FDKWeightingProjection> m_Parameters; // for the whole geometry, index = projection
  FDKWeightingScan m_Scan{};
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctFDKWeightProjectionFilter.hxx"
#endif

#endif
