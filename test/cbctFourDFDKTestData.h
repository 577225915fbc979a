#ifndef cbctFourDFDKTestData_h
#define cbctFourDFDKTestData_h

// A small breathing scan for the 4D FDK tests (CPU and CUDA): a static sphere and a sphere that
// moves along y with the phase, projected exactly (line integrals of ellipsoids) projection by
// projection at each projection's phase.

#include "cbctTestHelpers.h"

#include <itkImage.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace cbct::test
{

/** Displacement along y (mm) of the moving sphere at `phase`: 0 at phase 0 (end-exhale), `amplitude`
 * at phase 0.5, (1 - cos 2 pi p) / 2 in between. */
inline double
FourDDisplacement(double phase, double amplitude = 10.)
{
  return 0.5 * amplitude * (1. - std::cos(2. * 3.14159265358979323846 * phase));
}

struct FourDScan
{
  ThreeDCircularProjectionGeometry::Pointer geometry;
  ImageType::Pointer projections;
  std::vector<double> phases;
};

/** `count` projections over 360 degrees, `cycles` regular breathing cycles; the moving sphere
 * (radius 8 mm, density 1) sits at the origin at phase 0, the static one (radius 6 mm, density 0.5)
 * at x = -18 mm. Detector `pixels`^2 of 2 mm, SID 1000, SDD 1500. */
inline FourDScan
MakeFourDScan(unsigned int count = 240, double cycles = 6., unsigned int pixels = 64)
{
  FourDScan scan;
  scan.geometry = CircularGeometry(count);
  scan.phases.resize(count);
  auto stack = ImageType::New();
  {
    auto info = ProjectPhantom(CircularGeometry(1), SheppLogan(), pixels, 2.); // only for the grid
    ImageType::RegionType region = info->GetLargestPossibleRegion();
    region.SetSize(2, count);
    stack->CopyInformation(info);
    stack->SetRegions(region);
    stack->Allocate();
  }
  const std::size_t slice = static_cast<std::size_t>(pixels) * pixels;
  for (unsigned int k = 0; k < count; ++k)
  {
    const double x = cycles * k / count;
    scan.phases[k] = x - std::floor(x);
    auto phantom = GeometricPhantom::New();
    GeometricPhantom::Ellipsoid moving;
    moving.density = 1.;
    moving.center = { { 0., FourDDisplacement(scan.phases[k]), 0. } };
    moving.semiAxes = { { 8., 8., 8. } };
    phantom->AddEllipsoid(moving);
    GeometricPhantom::Ellipsoid still;
    still.density = 0.5;
    still.center = { { -18., 0., 0. } };
    still.semiAxes = { { 6., 6., 6. } };
    phantom->AddEllipsoid(still);
    auto one = ThreeDCircularProjectionGeometry::New();
    one->AddProjection(1000., 1500., 360. * k / count);
    auto projection = ProjectPhantom(one, phantom, pixels, 2.);
    std::memcpy(stack->GetBufferPointer() + k * slice, projection->GetBufferPointer(), slice * sizeof(float));
  }
  scan.projections = stack;
  return scan;
}

/** Centroid (mm, world) of the voxels of `frame` of a 4D image above half its maximum within
 * |x| < 12 mm (the moving sphere's column, clear of the static sphere). */
template <typename TFourD>
std::array<double, 3>
MovingCentroid(const TFourD * image, unsigned int frame)
{
  const auto & region = image->GetLargestPossibleRegion();
  const std::size_t nx = region.GetSize(0), ny = region.GetSize(1), nz = region.GetSize(2);
  const float * data = image->GetBufferPointer() + frame * nx * ny * nz;
  const auto spacing = image->GetSpacing();
  const auto origin = image->GetOrigin();
  float peak = 0.f;
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x)
        if (std::abs(origin[0] + x * spacing[0]) < 12.)
          peak = std::max(peak, data[(z * ny + y) * nx + x]);
  std::array<double, 3> c{ { 0., 0., 0. } };
  double sum = 0.;
  for (std::size_t z = 0; z < nz; ++z)
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x)
      {
        const double px = origin[0] + x * spacing[0];
        const float v = data[(z * ny + y) * nx + x];
        if (std::abs(px) < 12. && v > 0.5f * peak)
        {
          c[0] += v * px;
          c[1] += v * (origin[1] + y * spacing[1]);
          c[2] += v * (origin[2] + z * spacing[2]);
          sum += v;
        }
      }
  for (double & v : c)
    v = sum > 0. ? v / sum : std::nan("");
  return c;
}

} // namespace cbct::test

#endif
