#ifndef cbctEmissionTestHelpers_h
#define cbctEmissionTestHelpers_h

// Helpers of the emission tests (CPU and CUDA): SPECT-like geometries, an attenuation cylinder
// voxelized with exact area fractions, point sources, and the analytic path to a cylinder's edge.
#include "cbctEmissionLattice.h"
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

/** 20 parallel views whose detector distance and offsets vary, one tilted out of plane and one in plane. */
inline ThreeDCircularProjectionGeometry::Pointer
IrregularSpectGeometry()
{
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (unsigned int k = 0; k < 20; ++k)
    geometry->AddProjection(150. + 3. * k, 0., 18. * k + 1., 2. - 0.3 * k, 1.5, k == 7 ? 25. : 0., k == 9 ? 10. : 0.);
  return geometry;
}

/** 21 cone-beam views with detector offsets, a bare matrix and a tilted view with source offsets. */
inline ThreeDCircularProjectionGeometry::Pointer
IrregularConeGeometry()
{
  auto geometry = CircularGeometry(19, 360., 400., 650., 4., -3.);
  auto m = geometry->GetMatrix(4);
  m(0, 3) += 30.;
  geometry->AddProjection(m);
  geometry->AddProjection(400., 650., 33., 0., 0., 20., 5., 10., -5.);
  return geometry;
}

/** Random data for the emission pair's adjoint and CPU-GPU tests: an activity volume (24^3 of 4 mm),
 * an attenuation map on its own grid (mu up to 0.03/mm), a projection stack that does not start at
 * index 0 with non-square pixels, and a collimator blur. */
struct EmissionProblem
{
  ImageType::Pointer x, mu, y;
  CollimatorBlur blur;
};

inline EmissionProblem
RandomEmissionProblem(const ThreeDCircularProjectionGeometry * geometry, unsigned int columns = 36, unsigned int rows = 30)
{
  EmissionProblem e;
  e.x = Copy<ImageType>(Volume(24, 4.), false, 5);
  auto muGrid = ImageType::New();
  muGrid->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 2, -1, 0 } }, ImageType::SizeType{ { 22, 19, 23 } }));
  const double spacing[3] = { 5., 4.5, 5. };
  muGrid->SetSpacing(spacing);
  ImageType::PointType origin;
  origin[0] = -60.;
  origin[1] = -40.;
  origin[2] = -50.;
  muGrid->SetOrigin(origin);
  muGrid->Allocate();
  e.mu = Copy<ImageType>(muGrid, false, 6);
  for (float * m = e.mu->GetBufferPointer(); m < e.mu->GetBufferPointer() + e.mu->GetBufferedRegion().GetNumberOfPixels(); ++m)
    *m *= 0.03f;
  auto stack = ImageType::New();
  stack->SetRegions(ImageType::RegionType(ImageType::IndexType{ { 3, -2, 0 } },
                                          ImageType::SizeType{ { columns, rows, geometry->GetNumberOfProjections() } }));
  const double pixel[3] = { 126. / columns, 120. / rows, 1. };
  stack->SetSpacing(pixel);
  ImageType::PointType stackOrigin;
  stackOrigin[0] = -70.;
  stackOrigin[1] = -55.;
  stackOrigin[2] = 0.;
  stack->SetOrigin(stackOrigin);
  stack->Allocate();
  e.y = Copy<ImageType>(stack, false, 7);
  e.blur.sigma0 = 2.;
  e.blur.slope = 0.02;
  return e;
}

} // namespace cbct::test

#endif
