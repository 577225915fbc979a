#ifndef cbctEmissionTestHelpers_h
#define cbctEmissionTestHelpers_h

// Helpers of the emission tests (CPU and CUDA): SPECT-like geometries, an attenuation cylinder
// voxelized with exact area fractions, point sources, and the analytic path to a cylinder's edge.
#include "cbctIterativeTestHelpers.h"

#include <cmath>

namespace cbct::test
{

/** `count` parallel projections over 360 degrees, the detector `radius` mm from the rotation axis. */
inline ThreeDCircularProjectionGeometry::Pointer
SpectGeometry(unsigned int count, double radius = 200., double firstDegrees = 0.)
{
  return CircularGeometry(count, 360., radius, 0., 0., 0., firstDegrees);
}

/** A centred volume of `voxels`^3 voxels of `spacing` mm, filled with `value`. */
inline ImageType::Pointer
Volume(unsigned int voxels, double spacing, float value = 0.f)
{
  auto source = ConstantImageSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { voxels, voxels, voxels } }, spacing, spacing, spacing);
  source->SetConstant(value);
  source->Update();
  ImageType::Pointer image = source->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** A centred stack of `pixels`^2 pixels of `spacing` mm for every projection of `geometry`, zeros. */
inline ImageType::Pointer
Detector(const ThreeDCircularProjectionGeometry * geometry, unsigned int pixels, double spacing)
{
  auto source = ConstantImageSource<ImageType>::New();
  CentredGrid(source, ImageType::SizeType{ { pixels, pixels, geometry->GetNumberOfProjections() } }, spacing, spacing, 1.);
  auto origin = source->GetOrigin();
  origin[2] = 0.;
  source->SetOrigin(origin);
  source->Update();
  ImageType::Pointer image = source->GetOutput();
  image->DisconnectPipeline();
  return image;
}

/** `mu` times the fraction of each voxel of `like`'s grid inside the cylinder of `radius` mm about
 * the y axis (through x = cx, z = cz): exact to 1/4096 of a voxel's cross-section (64 x 64 samples). */
inline ImageType::Pointer
Cylinder(const ImageType * like, double radius, float mu, double cx = 0., double cz = 0.)
{
  auto image = Zeros(like);
  const auto size = like->GetLargestPossibleRegion().GetSize();
  const auto spacing = like->GetSpacing();
  const auto origin = like->GetOrigin();
  constexpr int n = 64;
  for (unsigned int k = 0; k < size[2]; ++k)
    for (unsigned int i = 0; i < size[0]; ++i)
    {
      int inside = 0;
      for (int b = 0; b < n; ++b)
        for (int a = 0; a < n; ++a)
        {
          const double x = origin[0] + (i + (a + 0.5) / n - 0.5) * spacing[0] - cx;
          const double z = origin[2] + (k + (b + 0.5) / n - 0.5) * spacing[2] - cz;
          inside += x * x + z * z <= radius * radius;
        }
      const float value = mu * static_cast<float>(inside) / (n * n);
      for (unsigned int j = 0; j < size[1]; ++j)
        image->SetPixel({ { i, j, k } }, value);
    }
  return image;
}

/** Distance from `p` along the unit direction `d` (no y component) to the edge of the cylinder of
 * `radius` about the y axis: the attenuating path of a point source inside it. */
inline double
PathToCylinderEdge(const double p[3], const itk::Vector<double, 3> & d, double radius)
{
  const double pd = p[0] * d[0] + p[2] * d[2], dd = d[0] * d[0] + d[2] * d[2];
  const double c = p[0] * p[0] + p[2] * p[2] - radius * radius;
  return (-pd + std::sqrt(pd * pd - dd * c)) / dd;
}

/** The world position of voxel `index` of `image`. */
inline void
VoxelCentre(const ImageType * image, const ImageType::IndexType & index, double p[3])
{
  ImageType::PointType point;
  image->TransformIndexToPhysicalPoint(index, point);
  for (int d = 0; d < 3; ++d)
    p[d] = point[d];
}

/** Sum of projection k of `stack` (pixels). */
inline double
ProjectionSum(const ImageType * stack, unsigned int k)
{
  const auto size = stack->GetLargestPossibleRegion().GetSize();
  const float * p = stack->GetBufferPointer() + static_cast<std::size_t>(k) * size[0] * size[1];
  double sum = 0.;
  for (std::size_t i = 0; i < size[0] * size[1]; ++i)
    sum += p[i];
  return sum;
}

} // namespace cbct::test

#endif
