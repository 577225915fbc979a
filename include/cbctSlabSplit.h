#ifndef cbctSlabSplit_h
#define cbctSlabSplit_h

#include <itkImageRegion.h>

#include <algorithm>
#include <vector>

namespace cbct
{

/** \class SlabSplit
 * \brief Cuts a volume region into slabs along y, the rotation axis: a slab then projects onto a band
 * of detector rows only, so it needs only those rows of every projection.
 *
 * Equal() gives the shares of several devices or MPI ranks (contiguous, sizes differing by at most
 * one row, in order); Tapered() the pieces of one share, all of two units but the last of one, since
 * the last piece's download is the one no computation hides. Both cover the region exactly once.
 * \ingroup ConeBeamCT
 */
class SlabSplit
{
public:
  using RegionType = itk::ImageRegion<3>;

  /** `parts` slabs (fewer if the region has fewer rows) of rows/parts rows each, give or take one. */
  static std::vector<RegionType>
  Equal(const RegionType & region, std::size_t parts)
  {
    const std::size_t rows = region.GetSize(1);
    parts = std::max<std::size_t>(1, std::min(parts, rows));
    std::vector<RegionType> slabs;
    for (std::size_t p = 0, first = 0; p < parts; ++p)
    {
      const std::size_t end = (p + 1) * rows / parts;
      slabs.push_back(Rows(region, first, end - first));
      first = end;
    }
    return slabs;
  }

  /** `count` slabs (fewer if the region has fewer rows), the last half as thick as the others. */
  static std::vector<RegionType>
  Tapered(const RegionType & region, std::size_t count)
  {
    const std::size_t rows = region.GetSize(1);
    count = std::max<std::size_t>(1, std::min(count, rows));
    const std::size_t units = 2 * count - 1;
    std::vector<RegionType> slabs;
    for (std::size_t p = 0, first = 0; p < count; ++p)
    {
      // Ends at 2(p+1)/units of the rows, rounded, leaving at least one row for each later slab.
      std::size_t end = p + 1 == count ? rows : (2 * (p + 1) * rows + units / 2) / units;
      end = std::min(std::max(end, first + 1), rows - (count - p - 1));
      slabs.push_back(Rows(region, first, end - first));
      first = end;
    }
    return slabs;
  }

  /** Rows [first, first + count) of `region` along y. */
  static RegionType
  Rows(const RegionType & region, std::size_t first, std::size_t count)
  {
    RegionType part = region;
    part.SetIndex(1, region.GetIndex(1) + static_cast<itk::IndexValueType>(first));
    part.SetSize(1, count);
    return part;
  }
};

} // namespace cbct

#endif
