#ifndef cbctImageQuality_h
#define cbctImageQuality_h

#include <itkImageRegionConstIterator.h>

#include <cmath>
#include <limits>

namespace cbct
{

/** Mean absolute error and PSNR of an image against a reference, over a region. */
struct ImageQuality
{
  double meanAbsoluteError = std::numeric_limits<double>::quiet_NaN();
  double psnr = std::numeric_limits<double>::quiet_NaN();
  std::size_t voxels = 0;
};

/** MAE and PSNR (20 log10(peak) - 10 log10(MSE), as RTK's tests measure it: peak 2 for the
 * Shepp-Logan volume, 255 for projections) of `image` against `reference` over `region`. A NaN
 * anywhere makes both NaN, so any threshold comparison with them fails. */
template <typename TImage>
ImageQuality
CompareImages(const TImage * image, const TImage * reference, const typename TImage::RegionType & region, double peak)
{
  itk::ImageRegionConstIterator<TImage> a(image, region), b(reference, region);
  double absolute = 0., squared = 0.;
  std::size_t n = 0;
  for (; !a.IsAtEnd(); ++a, ++b, ++n)
  {
    const double d = static_cast<double>(a.Get()) - b.Get();
    absolute += std::abs(d);
    squared += d * d;
  }
  ImageQuality q;
  q.voxels = n;
  if (n > 0)
  {
    q.meanAbsoluteError = absolute / n;
    q.psnr = 20. * std::log10(peak) - 10. * std::log10(squared / n);
  }
  return q;
}

} // namespace cbct

#endif
