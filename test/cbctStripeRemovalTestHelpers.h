#ifndef cbctStripeRemovalTestHelpers_h
#define cbctStripeRemovalTestHelpers_h

// A small scan with detector columns whose gain is off, its FDK reconstruction and the ring amplitude
// (the polar mean deviation around the rotation axis), shared by the CPU and CUDA stripe removal tests.

#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace cbct::test
{

/** A sinogram of `projections` x `columns` (row-major, angle by angle) of line integrals as a
 * water-like object gives them: a background rising to `background` across the detector, a centred disc of peak `disc` (its
 * trace is constant along the angle: rings make it up), and a blob of peak 0.3 and 2.5 pixels' width
 * off the axis whose trace is a sinusoid of `amplitude` columns. */
inline std::vector<float>
SyntheticSinogram(std::size_t projections, std::size_t columns, double amplitude, double disc = 1., double background = 0.05)
{
  std::vector<float> sinogram(projections * columns);
  const double centre = 0.5 * (columns - 1.);
  for (std::size_t k = 0; k < projections; ++k)
  {
    const double angle = 2. * M_PI * k / projections;
    const double blob = centre + amplitude * std::sin(angle);
    for (std::size_t u = 0; u < columns; ++u)
    {
      const double x = (u - centre) / (0.45 * columns);
      const double round = std::abs(x) < 1. ? disc * std::sqrt(1. - x * x) : 0.;
      const double d = (u - blob) / 2.5;
      sinogram[k * columns + u] = static_cast<float>(round + 0.3 * std::exp(-0.5 * d * d) + background * u / columns);
    }
  }
  return sinogram;
}

/** Line integrals of a detector whose columns `columns[i]` have a gain of 1 + gains[i]: a reading I
 * becomes (1 + g) I, a line integral p becomes p - ln(1 + g), in every row and projection. */
inline void
AddColumnGainErrors(ImageType * projections, const std::vector<unsigned int> & columns, const std::vector<double> & gains)
{
  const auto size = projections->GetBufferedRegion().GetSize();
  float * p = projections->GetBufferPointer();
  for (std::size_t i = 0; i < columns.size(); ++i)
  {
    const auto offset = static_cast<float>(std::log1p(gains[i]));
    for (std::size_t row = 0; row < size[1] * size[2]; ++row)
      p[row * size[0] + columns[i]] -= offset;
  }
}

/** CPU FDK of `projections` on a centred volume of voxels^3 of `spacing` mm. */
inline ImageType::Pointer
ReconstructFDK(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections, unsigned int voxels,
               double spacing)
{
  auto zero = ZeroVolume(voxels, spacing);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}

/** The polar mean of `difference` around the rotation axis (y) in the axial slices (y = const) of
 * indices [firstSlice, lastSlice]: the mean over the angle in rings of one voxel's width, out to
 * `radiusVoxels`. A ring artefact is a circle around the axis, so it survives this mean while other
 * errors average out. Index r: voxels at a distance in [r, r + 1) voxels from the axis. */
inline std::vector<double>
PolarMeanProfile(const ImageType * difference, unsigned int firstSlice, unsigned int lastSlice, unsigned int radiusVoxels)
{
  const auto size = difference->GetBufferedRegion().GetSize();
  std::vector<double> sum(radiusVoxels, 0.), count(radiusVoxels, 0.);
  const double cx = 0.5 * (size[0] - 1.), cz = 0.5 * (size[2] - 1.);
  const float * v = difference->GetBufferPointer();
  for (unsigned int y = firstSlice; y <= lastSlice; ++y)
    for (std::size_t z = 0; z < size[2]; ++z)
      for (std::size_t x = 0; x < size[0]; ++x)
      {
        const auto r = static_cast<std::size_t>(std::hypot(x - cx, z - cz));
        if (r >= radiusVoxels)
          continue;
        sum[r] += v[(z * size[1] + y) * size[0] + x];
        count[r] += 1.;
      }
  for (std::size_t r = 0; r < radiusVoxels; ++r)
    sum[r] = count[r] > 0. ? sum[r] / count[r] : 0.;
  return sum;
}

/** `a - b`, voxel by voxel. */
inline ImageType::Pointer
Difference(const ImageType * a, const ImageType * b)
{
  auto d = ImageType::New();
  d->CopyInformation(a);
  d->SetRegions(a->GetBufferedRegion());
  d->Allocate();
  const std::size_t n = a->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < n; ++i)
    d->GetBufferPointer()[i] = a->GetBufferPointer()[i] - b->GetBufferPointer()[i];
  return d;
}

/** The ring amplitude: the largest |polar mean| of `volume - reference` (NaN when any is NaN). */
inline double
RingAmplitude(const ImageType * volume, const ImageType * reference, unsigned int firstSlice, unsigned int lastSlice,
              unsigned int radiusVoxels)
{
  const auto profile = PolarMeanProfile(Difference(volume, reference), firstSlice, lastSlice, radiusVoxels);
  double largest = 0.;
  for (double m : profile)
  {
    if (std::isnan(m))
      return std::numeric_limits<double>::quiet_NaN();
    largest = std::max(largest, std::abs(m));
  }
  return largest;
}

} // namespace cbct::test

#endif
