#ifndef cbctPhantomProjectionSource_h
#define cbctPhantomProjectionSource_h

#include "cbctGeometricPhantom.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkGenerateImageSource.h>

namespace cbct
{

/** \class PhantomProjectionSource
 * \brief Exact projections (line integrals) of a GeometricPhantom for every projection of a geometry.
 *
 * The output is a projection stack: size, spacing, origin and direction of its first two axes are
 * the detector's (set them as on any itk::GenerateImageSource); its third axis has one slice per
 * projection of the geometry, which SetGeometry() sizes. Each pixel is the integral of the density
 * along the ray from the source through the pixel centre (ray-ellipsoid intersection, in double),
 * so the values are exact up to rounding to the pixel type (the pixel centre on the cylinder for a
 * cylindrical detector); for a parallel projection along the
 * whole line through the pixel in the rays' direction. Multi-threaded, streams.
 * \ingroup ConeBeamCT
 */
template <typename TOutputImage>
class ITK_TEMPLATE_EXPORT PhantomProjectionSource : public itk::GenerateImageSource<TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(PhantomProjectionSource);

  using Self = PhantomProjectionSource;
  using Superclass = itk::GenerateImageSource<TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using OutputImageRegionType = typename TOutputImage::RegionType;
  using GeometryType = ThreeDCircularProjectionGeometry;

  itkNewMacro(Self);
  itkTypeMacro(PhantomProjectionSource, itk::GenerateImageSource);

  itkSetConstObjectMacro(Geometry, GeometryType);
  itkGetConstObjectMacro(Geometry, GeometryType);
  itkSetConstObjectMacro(Phantom, GeometricPhantom);
  itkGetConstObjectMacro(Phantom, GeometricPhantom);

protected:
  PhantomProjectionSource();
  ~PhantomProjectionSource() override = default;

  void
  GenerateOutputInformation() override;
  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  DynamicThreadedGenerateData(const OutputImageRegionType & region) override;

private:
  GeometryType::ConstPointer m_Geometry;
  GeometricPhantom::ConstPointer m_Phantom;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctPhantomProjectionSource.hxx"
#endif

#endif
