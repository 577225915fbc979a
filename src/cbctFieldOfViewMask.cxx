#include "cbctFieldOfViewMask.h"

#include "cbctColumnBackProjection.h"
#include "cbctDetectorCoordinates.h"
#include "cbctFDKBackProjectionImageFilter.h"
#include "cbctInputChecks.h"
#include "cbctWorkerErrors.h"

#include <algorithm>
#include <atomic>
#include <limits>

namespace cbct
{

int
FieldOfViewMask::AxisFor(const std::vector<ConeProjection> & matrices)
{
  return std::all_of(matrices.begin(), matrices.end(), [](const ConeProjection & p) { return ColumnsAllowed(p); }) ? 1 : 2;
}

FieldOfViewDetector
FieldOfViewMask::DetectorOf(const itk::ImageBase<3> * projections)
{
  const auto & region = projections->GetLargestPossibleRegion();
  FieldOfViewDetector d;
  d.uMin = static_cast<double>(region.GetIndex(0)) - 0.5;
  d.uMax = static_cast<double>(region.GetIndex(0) + static_cast<itk::IndexValueType>(region.GetSize(0))) - 0.5;
  d.vMin = static_cast<double>(region.GetIndex(1)) - 0.5;
  d.vMax = static_cast<double>(region.GetIndex(1) + static_cast<itk::IndexValueType>(region.GetSize(1))) - 0.5;
  return d;
}

std::vector<ConeProjection>
FieldOfViewMask::MatricesFor(const itk::ImageBase<3> * volume, const itk::ImageBase<3> * projections,
                             const ThreeDCircularProjectionGeometry * geometry)
{
  if (!geometry)
    ThrowBadParameter("field of view geometry", "none", "a ThreeDCircularProjectionGeometry");
  return VoxelToPixelMatrices(volume, projections, geometry, 0, geometry->GetNumberOfProjections());
}

void
FieldOfViewMask::Compute(const std::vector<ConeProjection> & matrices, const FieldOfViewDetector & detector, int axis,
                         const RegionType & region)
{
  if (axis != 1 && axis != 2)
    ThrowBadParameter("field of view column axis", axis, "1 (y) or 2 (z)");
  m_Axis = axis;
  m_Region = region;
  const int other = axis == 1 ? 2 : 1;
  const long long a0 = region.GetIndex(0), b0 = region.GetIndex(other);
  const std::size_t na = region.GetSize(0), nb = region.GetSize(other);
  const int first = static_cast<int>(region.GetIndex(axis));
  const int last = first + static_cast<int>(region.GetSize(axis)) - 1;
  m_Columns.assign(na * nb, FieldOfViewColumn{});
  std::atomic<std::size_t> inside{ 0 };
  ParallelizeArray(0, nb, [&](itk::SizeValueType j) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < na; ++i)
    {
      FieldOfViewColumn & c = m_Columns[j * na + i];
      c.axis = axis;
      c.a = static_cast<int>(a0 + static_cast<long long>(i));
      c.b = static_cast<int>(b0 + static_cast<long long>(j));
      c.first = first;
      c.last = last;
      ClipToFieldOfView(matrices.data(), static_cast<int>(matrices.size()), detector, c);
      if (c.last >= c.first)
        count += static_cast<std::size_t>(c.last - c.first + 1);
    }
    inside += count;
  });
  m_Inside = inside.load();
}

const FieldOfViewColumn &
FieldOfViewMask::ColumnAt(long long x, long long y, long long z) const
{
  const int other = m_Axis == 1 ? 2 : 1;
  const long long b = other == 1 ? y : z;
  const std::size_t i = static_cast<std::size_t>(x - m_Region.GetIndex(0));
  const std::size_t j = static_cast<std::size_t>(b - m_Region.GetIndex(other));
  return m_Columns[j * m_Region.GetSize(0) + i];
}

bool
FieldOfViewMask::Inside(long long x, long long y, long long z) const
{
  const FieldOfViewColumn & c = this->ColumnAt(x, y, z);
  const long long t = m_Axis == 1 ? y : z;
  return t >= c.first && t <= c.last;
}

void
FieldOfViewMask::Blank(itk::Image<float, 3> * image, float value) const
{
  auto region = image->GetBufferedRegion();
  if (!region.Crop(m_Region))
    return;
  const long long x0 = region.GetIndex(0), y0 = region.GetIndex(1), z0 = region.GetIndex(2);
  const long long nx = static_cast<long long>(region.GetSize(0)), ny = static_cast<long long>(region.GetSize(1));
  ParallelizeArray(0, region.GetSize(2), [&](itk::SizeValueType s) {
    itk::Index<3> index{ { x0, y0, z0 + static_cast<long long>(s) } };
    for (long long y = y0; y < y0 + ny; ++y)
    {
      index[1] = y;
      float * row = image->GetBufferPointer() + image->ComputeOffset(index);
      for (long long x = 0; x < nx; ++x)
        if (!this->Inside(x0 + x, y, index[2]))
          row[x] = value;
    }
  });
}

FieldOfViewMode
FieldOfViewMask::ParseMode(const std::string & name)
{
  if (name == "zero" || name == "0")
    return FieldOfViewMode::Zero;
  if (name == "nan" || name == "NaN")
    return FieldOfViewMode::NaN;
  if (name == "off")
    return FieldOfViewMode::Off;
  ThrowBadParameter("field of view mode", "'" + name + "'", "zero (voxels no projection sees written as 0), nan (as NaN) or off");
  return FieldOfViewMode::Off;
}

std::string
FieldOfViewMask::ModeName(FieldOfViewMode mode)
{
  switch (mode)
  {
    case FieldOfViewMode::Zero:
      return "zero";
    case FieldOfViewMode::NaN:
      return "nan";
    default:
      return "off";
  }
}

float
FieldOfViewMask::OutsideValue(FieldOfViewMode mode)
{
  return mode == FieldOfViewMode::NaN ? std::numeric_limits<float>::quiet_NaN() : 0.f;
}

} // namespace cbct
