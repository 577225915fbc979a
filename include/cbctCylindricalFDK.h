#ifndef cbctCylindricalFDK_h
#define cbctCylindricalFDK_h

#include "ConeBeamCTExport.h"
#include "cbctCylindricalDetector.hcu"
#include "cbctDetectorCoordinates.h"
#include "cbctRayAxisDistance.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <vnl/vnl_matrix_fixed.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace cbct
{

/** Throws, naming `method` and the first projection that breaks it, unless the geometry's detector is
 * a flat panel or a cylinder centred on the source in every projection (R = SDD, no SourceOffsetX):
 * FDK's equiangular weighting and filtering need the latter (cbctCylindricalDetector.hcu). */
ConeBeamCT_EXPORT void
RequireFlatOrCentredCylinder(const ThreeDCircularProjectionGeometry * geometry, const std::string & method);

/** The cylinder and the pixel grid of `projections` for a geometry of cylinders centred on the source. */
inline CylindricalDetectorGrid
CylindricalGrid(const ThreeDCircularProjectionGeometry * geometry, const itk::ImageBase<3> * projections)
{
  const DetectorCoordinates detector(projections);
  CylindricalDetectorGrid g;
  g.radius = static_cast<float>(geometry->GetRadiusCylindricalDetector());
  g.inverseRadius = static_cast<float>(1. / geometry->GetRadiusCylindricalDetector());
  g.toPixel[0] = static_cast<float>(detector.PhysicalToIndex()(0, 0));
  g.toPixel[1] = static_cast<float>(detector.PhysicalToIndex()(0, 1));
  g.toPixel[2] = static_cast<float>(detector.PhysicalToIndex()(1, 0));
  g.toPixel[3] = static_cast<float>(detector.PhysicalToIndex()(1, 1));
  return g;
}

/** The CylindricalProjection of projections [first, first + count) of `geometry` (a cylinder centred
 * on the source) for the voxels of `volume` and the pixels of `projections`. */
template <typename TVolume>
std::vector<CylindricalProjection>
CylindricalVoxelToPixel(const TVolume * volume, const itk::ImageBase<3> * projections,
                        const ThreeDCircularProjectionGeometry * geometry, unsigned int first, unsigned int count)
{
  RequireFlatOrCentredCylinder(geometry, "the backprojection onto a cylinder");
  const DetectorCoordinates detector(projections);
  vnl_matrix_fixed<double, 4, 4> voxelToWorld;
  voxelToWorld.set_identity();
  for (unsigned int r = 0; r < 3; ++r)
  {
    for (unsigned int c = 0; c < 3; ++c)
      voxelToWorld(r, c) = volume->GetDirection()(r, c) * volume->GetSpacing()[c];
    voxelToWorld(r, 3) = volume->GetOrigin()[r];
  }
  const auto & toIndex = detector.PhysicalToIndex();
  std::vector<CylindricalProjection> projectionsOut(count);
  for (unsigned int c = 0; c < count; ++c)
  {
    const unsigned int k = first + c;
    const double u0 = geometry->GetPrincipalPointU(k), v0 = geometry->GetPrincipalPointV(k);
    // (u w, v w, w) -> ((u - u0) w, (v - v0) w, w).
    vnl_matrix_fixed<double, 3, 3> fromPrincipal;
    fromPrincipal.set_identity();
    fromPrincipal(0, 2) = -u0;
    fromPrincipal(1, 2) = -v0;
    const vnl_matrix_fixed<double, 3, 4> m = fromPrincipal * geometry->GetMatrix(k).GetVnlMatrix() * voxelToWorld;
    CylindricalProjection & p = projectionsOut[c];
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int e = 0; e < 4; ++e)
        p.matrix[4 * r + e] = static_cast<float>(m(r, e));
    for (unsigned int r = 0; r < 2; ++r)
      p.pixelOffset[r] = static_cast<float>(toIndex(r, 0) * u0 + toIndex(r, 1) * v0 + toIndex(r, 2));
  }
  return projectionsOut;
}

/** The detector region (pixel indices, the projection axis whole) that `volumeRegion` of `volume`
 * projects onto in some projection of `geometry`, on its cylinder, with one pixel of margin: the
 * cylinder's columns from the flat panel's (u - u0 = R atan((flat u - u0) / R) keeps their order), its
 * rows within the flat panel's (v - v0 = (flat v - v0) cos(gamma) is nearer v0). Empty-sized when it
 * misses the detector; the whole detector when the region surrounds a source. */
template <typename TVolume, typename TRegion>
itk::ImageRegion<3>
CylindricalProjectionRegion(const ThreeDCircularProjectionGeometry * geometry, const TVolume * volume,
                            const TRegion & volumeRegion, const itk::ImageBase<3> * projections)
{
  const auto & largest = projections->GetLargestPossibleRegion();
  const DetectorCoordinates detector(projections);
  double lo[2] = { std::numeric_limits<double>::max(), std::numeric_limits<double>::max() };
  double hi[2] = { std::numeric_limits<double>::lowest(), std::numeric_limits<double>::lowest() };
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    const auto & m = geometry->GetMatrix(k);
    const double u0 = geometry->GetPrincipalPointU(k), v0 = geometry->GetPrincipalPointV(k);
    double uLow = std::numeric_limits<double>::max(), uHigh = std::numeric_limits<double>::lowest();
    double vLow = v0, vHigh = v0;
    for (unsigned int corner = 0; corner < 8; ++corner)
    {
      typename TVolume::IndexType index;
      for (unsigned int d = 0; d < 3; ++d)
        index[d] = volumeRegion.GetIndex(d) + ((corner >> d) & 1u ? static_cast<itk::IndexValueType>(volumeRegion.GetSize(d)) - 1 : 0);
      typename TVolume::PointType x;
      volume->TransformIndexToPhysicalPoint(index, x);
      double h[3];
      for (unsigned int r = 0; r < 3; ++r)
        h[r] = m(r, 0) * x[0] + m(r, 1) * x[1] + m(r, 2) * x[2] + m(r, 3);
      if (!(h[2] < 0.))
        return largest; // the region surrounds the source: every pixel may be needed
      double u = 0., v = 0.;
      geometry->CylindricalFromFlat(k, h[0] / h[2], h[1] / h[2], u, v);
      uLow = std::min(uLow, u);
      uHigh = std::max(uHigh, u);
      vLow = std::min(vLow, h[1] / h[2]);
      vHigh = std::max(vHigh, h[1] / h[2]);
    }
    for (double u : { uLow, uHigh })
      for (double v : { vLow, vHigh })
      {
        const double i = detector.PhysicalToIndex()(0, 0) * u + detector.PhysicalToIndex()(0, 1) * v + detector.PhysicalToIndex()(0, 2);
        const double j = detector.PhysicalToIndex()(1, 0) * u + detector.PhysicalToIndex()(1, 1) * v + detector.PhysicalToIndex()(1, 2);
        lo[0] = std::min(lo[0], i);
        hi[0] = std::max(hi[0], i);
        lo[1] = std::min(lo[1], j);
        hi[1] = std::max(hi[1], j);
      }
  }
  auto region = largest;
  for (unsigned int d = 0; d < 2; ++d)
  {
    // Bilinear interpolation at x reads floor(x) and floor(x)+1; one more pixel absorbs rounding.
    const double firstIndex = std::floor(lo[d]) - 1., lastIndex = std::floor(hi[d]) + 2.;
    const double clampedFirst = std::max(firstIndex, static_cast<double>(largest.GetIndex(d)));
    const double clampedLast = std::min(lastIndex, static_cast<double>(largest.GetIndex(d) + static_cast<itk::IndexValueType>(largest.GetSize(d)) - 1));
    region.SetIndex(d, static_cast<itk::IndexValueType>(std::min(clampedFirst, static_cast<double>(largest.GetUpperIndex()[d]))));
    region.SetSize(d, clampedLast >= clampedFirst ? static_cast<itk::SizeValueType>(clampedLast - clampedFirst + 1.) : 0);
  }
  return region;
}

/** The FDK backprojection of `region` of `output` onto a cylinder: the projections' samples of each
 * voxel times 1/L^2 (`grid`: CylindricalGrid(); `matrices`: CylindricalVoxelToPixel() of the stack's
 * buffered projections; `data`: those projections, nx x ny pixels each from stack pixel (firstColumn,
 * firstRow)), summed over batches of BackProjectionBatch projections before each batch is added to the
 * voxel, as the CUDA kernel does. Each voxel's coordinates are CylindricalPixel()'s of the voxel
 * itself; where every matrix keeps hu and hw constant along y (a circular orbit without out-of-plane
 * tilt) the slice is walked in columns along y, each column's angle computed once per projection
 * (CylindricalColumn: the same values). */
template <typename TPixel, typename TVolume, typename TProgress>
void
BackProjectOntoCylinder(const CylindricalDetectorGrid & grid, const std::vector<CylindricalProjection> & matrices,
                        const TPixel * data, int nx, int ny, int firstColumn, int firstRow, TVolume * output,
                        const typename TVolume::RegionType & region, TProgress & progress)
{
  const int width = static_cast<int>(region.GetSize(0)), height = static_cast<int>(region.GetSize(1));
  const std::size_t slice = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  const bool columns = std::all_of(matrices.begin(), matrices.end(),
                                   [](const CylindricalProjection & p) { return p.matrix[1] == 0.f && p.matrix[9] == 0.f; });
  // One slice's sums, x fastest (rows) or y fastest (columns).
  std::vector<float> sum(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  auto index = region.GetIndex();
  for (itk::SizeValueType z = 0; z < region.GetSize(2); ++z)
  {
    index[2] = region.GetIndex(2) + static_cast<itk::IndexValueType>(z);
    const float fz = static_cast<float>(index[2]);
    for (std::size_t k = 0; k < matrices.size(); ++k)
    {
      if (k % BackProjectionBatch == 0)
        std::fill(sum.begin(), sum.end(), 0.f);
      const CylindricalProjection & p = matrices[k];
      const TPixel * projection = data + k * slice;
      for (int x = 0; x < width; ++x)
      {
        const float fx = static_cast<float>(region.GetIndex(0) + x);
        if (columns)
        {
          float hu, hv, hw;
          HomogeneousAt(p.matrix, fx, static_cast<float>(region.GetIndex(1)), fz, hu, hv, hw);
          if (!(hw < 0.f))
            continue; // behind the source (the whole column: hw does not change along y)
          CylindricalColumn column;
          column.Column(grid, p.pixelOffset, hu, hw);
          float * columnSum = sum.data() + static_cast<std::size_t>(x) * height;
          for (int y = 0; y < height; ++y)
          {
            HomogeneousAt(p.matrix, fx, static_cast<float>(region.GetIndex(1) + y), fz, hu, hv, hw);
            float i, j;
            column.At(grid, p.pixelOffset, hv, i, j);
            columnSum[y] += DetectorSample(projection, nx, ny, firstColumn, firstRow, i, j) * column.weight;
          }
        }
        else
        {
          for (int y = 0; y < height; ++y)
          {
            float hu, hv, hw;
            HomogeneousAt(p.matrix, fx, static_cast<float>(region.GetIndex(1) + y), fz, hu, hv, hw);
            if (!(hw < 0.f))
              continue; // behind the source
            float i, j, weight;
            CylindricalPixel(grid, p.pixelOffset, hu, hv, hw, i, j, weight);
            sum[static_cast<std::size_t>(x) * height + y] += DetectorSample(projection, nx, ny, firstColumn, firstRow, i, j) * weight;
          }
        }
      }
      if ((k + 1) % BackProjectionBatch == 0 || k + 1 == matrices.size())
      {
        for (int y = 0; y < height; ++y)
        {
          index[1] = region.GetIndex(1) + y;
          auto * out = output->GetBufferPointer() + output->ComputeOffset(index);
          for (int x = 0; x < width; ++x)
            out[x] += static_cast<typename TVolume::PixelType>(sum[static_cast<std::size_t>(x) * height + y]);
        }
      }
    }
    progress.Completed(static_cast<itk::SizeValueType>(width) * static_cast<itk::SizeValueType>(height));
  }
}

/** What the FDK weighting needs of projections [first, first + count) on a cylinder centred on the
 * source, for the pixel indices of `detector`. */
ConeBeamCT_EXPORT std::vector<CylindricalWeightingProjection>
CylindricalWeightingParameters(const ThreeDCircularProjectionGeometry * geometry, const DetectorCoordinates & detector,
                               unsigned int first, unsigned int count);

} // namespace cbct

#endif
