#ifndef cbctTestHelpers_h
#define cbctTestHelpers_h

// Small data made by the tests themselves: circular geometries, phantom projections, grids, and
// image comparisons written so that NaN fails them; where a test writes its files (cbctTestFolder.h).

#include "cbctConstantImageSource.h"
#include "cbctGeometricPhantom.h"
#include "cbctImageQuality.h"
#include "cbctPhantomProjectionSource.h"
#include "cbctPhantomVolumeSource.h"
#include "cbctTestFolder.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkImageRegionConstIterator.h>
#include <itkImageRegionIterator.h>

#include <cmath>
#include <limits>
#include <vector>

namespace cbct::test
{

/** CUDA against the CPU (relative L2) for a whole FDK through the texture unit's bilinear filter: it
 * blends neighbouring texels with less than float precision (about 1e-6 of their difference, see
 * TextureBlendProbe), and FDK sums ramp-filtered terms that largely cancel, which magnified that to
 * 3.3e-4 on cbctCudaFDKTest's problem (H100). */
constexpr double HardwareFilterTolerance = 5e-4;

/** `geometry` with its detector bent into a cylinder centred on the source (R = projection 0's SDD). */
inline ThreeDCircularProjectionGeometry::Pointer
CentredCylinder(const ThreeDCircularProjectionGeometry * geometry)
{
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  auto curved = geometry->Subset(all);
  curved->SetRadiusCylindricalDetector(geometry->GetSourceToDetectorDistance(0));
  return curved;
}

using ImageType = itk::Image<float, 3>;

/** The Shepp-Logan phantom in a sphere of 60 mm (the FDK and iterative tests' problem). */
inline GeometricPhantom::Pointer
SheppLogan()
{
  auto phantom = GeometricPhantom::New();
  phantom->SetToSheppLogan(60.);
  return phantom;
}

/** `count` projections evenly over `arcDegrees` starting at `firstDegrees`. */
inline ThreeDCircularProjectionGeometry::Pointer
CircularGeometry(unsigned int count,
                 double arcDegrees = 360.,
                 double sid = 1000.,
                 double sdd = 1500.,
                 double projectionOffsetX = 0.,
                 double projectionOffsetY = 0.,
                 double firstDegrees = 0.)
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < count; ++k)
    geometry->AddProjection(sid, sdd, firstDegrees + k * arcDegrees / count, projectionOffsetX, projectionOffsetY);
  return geometry;
}

/** A centred grid of `size`^3 voxels of `spacing` mm (or size x size x count for projections). */
inline void
CentredGrid(itk::GenerateImageSource<ImageType> * source, const ImageType::SizeType & size, double spacingU, double spacingV, double spacingW)
{
  ImageType::SpacingType spacing;
  spacing[0] = spacingU;
  spacing[1] = spacingV;
  spacing[2] = spacingW;
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
    origin[d] = -0.5 * (size[d] - 1.) * spacing[d];
  source->SetSize(size);
  source->SetSpacing(spacing);
  source->SetOrigin(origin);
}

/** An image of `size` voxels of `spacing` mm centred on the origin, with no buffer: the grid a
 * volume or a projection stack describes (e.g. to compute backprojection matrices). */
inline ImageType::Pointer
CentredInformation(const ImageType::SizeType & size, double spacingU, double spacingV, double spacingW)
{
  auto image = ImageType::New();
  image->SetRegions(size);
  ImageType::SpacingType spacing;
  spacing[0] = spacingU;
  spacing[1] = spacingV;
  spacing[2] = spacingW;
  image->SetSpacing(spacing);
  ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
    origin[d] = -0.5 * (size[d] - 1.) * spacing[d];
  image->SetOrigin(origin);
  return image;
}

inline ImageType::Pointer
ProjectPhantom(const ThreeDCircularProjectionGeometry * geometry,
               const GeometricPhantom * phantom,
               unsigned int detectorPixels,
               double pixelMm,
               double originShiftU = 0.)
{
  auto source = PhantomProjectionSource<ImageType>::New();
  ImageType::SizeType size{ { detectorPixels, detectorPixels, geometry->GetNumberOfProjections() } };
  CentredGrid(source, size, pixelMm, pixelMm, 1.);
  auto origin = source->GetOrigin();
  origin[0] += originShiftU;
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->SetGeometry(geometry);
  source->SetPhantom(phantom);
  source->Update();
  return source->GetOutput();
}

inline ConstantImageSource<ImageType>::Pointer
ZeroVolume(unsigned int voxels, double spacingMm)
{
  auto source = ConstantImageSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { voxels, voxels, voxels } }, spacingMm, spacingMm, spacingMm);
  return source;
}

inline ImageType::Pointer
VoxelizedPhantom(const GeometricPhantom * phantom, unsigned int voxels, double spacingMm, unsigned int supersampling)
{
  auto source = PhantomVolumeSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { voxels, voxels, voxels } }, spacingMm, spacingMm, spacingMm);
  source->SetPhantom(phantom);
  source->SetSupersampling(supersampling);
  source->Update();
  return source->GetOutput();
}

using Quality = ImageQuality;

/** CompareImages() with the Shepp-Logan volume's peak of 2 by default. */
inline Quality
Compare(const ImageType * image, const ImageType * reference, const ImageType::RegionType & region, double peak = 2.)
{
  return CompareImages<ImageType>(image, reference, region, peak);
}

/** Relative L2 difference ||a - b|| / ||b|| over the whole images; NaN if any value is NaN, so a
 * comparison `< threshold` fails. (L2 rather than the largest difference: the texture-faithful
 * interpolation rounds weights to 1/256, and a perturbation of a matrix in its last bit may move one
 * sample across a rounding boundary.) */
inline double
RelativeDifference(const ImageType * a, const ImageType * b)
{
  itk::ImageRegionConstIterator<ImageType> ia(a, a->GetBufferedRegion()), ib(b, b->GetBufferedRegion());
  double difference = 0., norm = 0.;
  for (; !ia.IsAtEnd(); ++ia, ++ib)
  {
    const double d = static_cast<double>(ia.Get()) - ib.Get();
    if (std::isnan(d))
      return std::numeric_limits<double>::quiet_NaN();
    difference += d * d;
    norm += static_cast<double>(ib.Get()) * ib.Get();
  }
  return norm > 0. ? std::sqrt(difference / norm) : std::sqrt(difference);
}

} // namespace cbct::test

#endif
