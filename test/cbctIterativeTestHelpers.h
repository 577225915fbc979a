#ifndef cbctIterativeTestHelpers_h
#define cbctIterativeTestHelpers_h

// Helpers shared by the iterative reconstruction tests (SART, CGLS, OSEM).
#include "cbctTestHelpers.h"

#include <array>

namespace cbct::test
{

/** An image of zeros on the grid of `like`. */
inline ImageType::Pointer
Zeros(const ImageType * like)
{
  auto image = ImageType::New();
  image->CopyInformation(like);
  image->SetRegions(like->GetLargestPossibleRegion());
  image->Allocate(true);
  return image;
}

/** A skull-like shell, a brain and two inserts: the "ellipsoid phantom" of the iterative tests.
 * Its densities are all >= 0 (shell 1, brain 0.5, inserts 1 and 0.2), so it also suits OSEM. */
inline GeometricPhantom::Pointer
Ellipsoids()
{
  auto phantom = GeometricPhantom::New();
  auto add = [&](double density, std::array<double, 3> c, std::array<double, 3> a, double angle) {
    GeometricPhantom::Ellipsoid e;
    e.density = density;
    e.center = c;
    e.semiAxes = a;
    e.angleY = angle;
    phantom->AddEllipsoid(e);
  };
  add(1., { { 0., 0., 0. } }, { { 45., 40., 55. } }, 0.);
  add(-0.5, { { 0., 0., 0. } }, { { 40., 36., 50. } }, 0.);
  add(0.5, { { -15., 5., 10. } }, { { 12., 15., 8. } }, 0.5);
  add(-0.3, { { 18., -8., -12. } }, { { 8., 10., 14. } }, -0.3);
  return phantom;
}

} // namespace cbct::test

#endif
