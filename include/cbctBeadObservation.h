#ifndef cbctBeadObservation_h
#define cbctBeadObservation_h

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace cbct
{

/** One bead seen in one projection: where its centre was found on the detector (mm), which bead
 * (index into cbct::BeadPhantom::GetBeads()) and which projection. */
struct BeadObservation
{
  unsigned int projection = 0;
  unsigned int bead = 0;
  double u = 0.;
  double v = 0.;
};

/** The linear map from detector mm to pixels (the inverse of spacing times direction): a
 * reprojection error in mm times this is in pixels, whatever the detector's orientation. */
struct DetectorPixels
{
  std::array<double, 4> mmToPixels{ { 1., 0., 0., 1. } }; // row major 2 x 2

  /** The length in pixels of the detector displacement (du, dv) mm. */
  double
  Length(double du, double dv) const
  {
    const double di = mmToPixels[0] * du + mmToPixels[1] * dv, dj = mmToPixels[2] * du + mmToPixels[3] * dv;
    return std::sqrt(di * di + dj * dj);
  }

  /** The displacement (du, dv) mm in pixels along the detector's two axes. */
  std::array<double, 2>
  Pixels(double du, double dv) const
  {
    return { { mmToPixels[0] * du + mmToPixels[1] * dv, mmToPixels[2] * du + mmToPixels[3] * dv } };
  }
};

/** Mean and largest of a set of reprojection errors (pixels). */
struct ReprojectionError
{
  double mean = 0.;
  double max = 0.;
  std::size_t count = 0;

  void
  Add(double error)
  {
    mean = (mean * count + error) / (count + 1);
    max = std::max(max, error);
    ++count;
  }
};

} // namespace cbct

#endif
