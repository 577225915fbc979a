#ifndef cbctStripeRemovalImageFilter_h
#define cbctStripeRemovalImageFilter_h

#include <itkImageToImageFilter.h>

#include <cstddef>
#include <type_traits>

namespace cbct
{

/** \class StripeRemovalImageFilter
 * \brief Base of the ring (stripe) removal filters of the projection preprocessing: each detector row
 * across all projections is one sinogram (projections x columns), filtered alone by
 * FilterSinogram().
 *
 * A detector column whose gain is off makes a stripe in every row's sinogram and a ring around the
 * rotation axis in the volume. The filters act on line integrals (after the logarithm, as TomoPy's),
 * where a gain error is an offset.
 *
 * Cone beam: a detector row is a true sinogram (the projections of one plane of the object) only in
 * the central plane, the row the source's orbit crosses. Away from it a row sees, at each angle, a
 * different tilted plane of the object, and a point of the object drifts along v as well as u with the
 * angle. The filters do not need a true sinogram: they remove what is constant (or, for the sorting
 * filter, what keeps its rank) along the angle in one detector column, which is what a detector
 * defect does in every row alike, and keep what changes with the angle, which an object off the
 * axis does in every row too. Rows far from the central plane see objects whose traces also cross
 * rows; such a trace is shorter in one row's sinogram, so a wide filter (a large median size, a
 * low sigma) takes a little more of it. Their ring, in turn, is the backprojection of a stripe of
 * that row: an arc on the cone of rays through that row, not a circle in one axial slice.
 *
 * Regions: an output row needs its whole sinogram, so the output is asked for whole projections
 * across u and every projection, and the input for the same rows: streaming and MPI bands along v
 * work unchanged. Rows are filtered in parallel. Non-finite input is refused, naming the row.
 * Float images in and out.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT StripeRemovalImageFilter : public itk::ImageToImageFilter<TImage, TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(StripeRemovalImageFilter);
  static_assert(std::is_same<typename TImage::PixelType, float>::value && TImage::ImageDimension == 3,
                "stripe removal works on 3D float projection stacks");

  using Self = StripeRemovalImageFilter;
  using Superclass = itk::ImageToImageFilter<TImage, TImage>;
  using Pointer = itk::SmartPointer<Self>;

  itkTypeMacro(StripeRemovalImageFilter, itk::ImageToImageFilter);

protected:
  StripeRemovalImageFilter() = default;
  ~StripeRemovalImageFilter() override = default;

  /** Whole rows of every projection: the output's requested region grows along u and the projections. */
  void
  EnlargeOutputRequestedRegion(itk::DataObject * output) override;
  void
  GenerateInputRequestedRegion() override;
  void
  GenerateData() override;

  /** Throws, naming the first row, when the rows of `rows` (whole rows of every projection) of the
   * input hold a NaN or an infinity. */
  void
  ThrowIfNotFinite(const typename TImage::RegionType & rows) const;

  /** Called once per update before the rows, with the sinogram's size (checks, plans). */
  virtual void
  BeforeSinograms(std::size_t projections, std::size_t columns) = 0;
  /** Filters one sinogram: in[k * inStride + u] into out[k * outStride + u]. Called from several
   * threads at once. */
  virtual void
  FilterSinogram(const float * in, std::ptrdiff_t inStride, float * out, std::ptrdiff_t outStride) const = 0;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctStripeRemovalImageFilter.hxx"
#endif

#endif
