#ifndef cbctFDKBackProjectionImageFilter_hxx
#define cbctFDKBackProjectionImageFilter_hxx

#include "cbctCylindricalFDK.h"
#include "cbctDetectorCoordinates.h"
#include "cbctInputChecks.h"
#include "cbctVoxelRunBackProjection.h"
#include "cbctWorkerErrors.h"

#include <itkImageAlgorithm.h>
#include <itkProgressTransformer.h>
#include <itkTotalProgressReporter.h>
#include <vnl/vnl_matrix_fixed.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <sstream>

namespace cbct
{

namespace detail
{
/** Voxel index (x, y, z, 1) -> world (mm) as a 4x4 matrix. */
template <typename TImage>
vnl_matrix_fixed<double, 4, 4>
VoxelIndexToWorld(const TImage * volume)
{
  vnl_matrix_fixed<double, 4, 4> v;
  v.set_identity();
  for (unsigned int r = 0; r < 3; ++r)
  {
    for (unsigned int c = 0; c < 3; ++c)
      v(r, c) = volume->GetDirection()(r, c) * volume->GetSpacing()[c];
    v(r, 3) = volume->GetOrigin()[r];
  }
  return v;
}

/** World (mm) -> homogeneous detector pixel index of projection k (absolute pixel indices). */
inline vnl_matrix_fixed<double, 3, 4>
WorldToPixelIndex(const ThreeDCircularProjectionGeometry * geometry, const DetectorCoordinates & detector, unsigned int k)
{
  return detector.PhysicalToIndex().GetVnlMatrix() * geometry->GetMatrix(k).GetVnlMatrix();
}
} // namespace detail

template <typename TImage>
std::vector<ConeProjection>
VoxelToPixelMatrices(const TImage * volume,
                     const itk::ImageBase<3> * projections,
                     const ThreeDCircularProjectionGeometry * geometry,
                     unsigned int first,
                     unsigned int count)
{
  geometry->RequireFlatPanel("the voxel-driven backprojection");
  return VoxelToFlatPanelPixelMatrices(volume, projections, geometry, first, count);
}

template <typename TImage>
std::vector<ConeProjection>
VoxelToFlatPanelPixelMatrices(const TImage * volume,
                              const itk::ImageBase<3> * projections,
                              const ThreeDCircularProjectionGeometry * geometry,
                              unsigned int first,
                              unsigned int count)
{
  const DetectorCoordinates detector(projections);
  const vnl_matrix_fixed<double, 4, 4> voxelToWorld = detail::VoxelIndexToWorld(volume);
  std::vector<ConeProjection> matrices(count);
  for (unsigned int c = 0; c < count; ++c)
  {
    const vnl_matrix_fixed<double, 3, 4> m = detail::WorldToPixelIndex(geometry, detector, first + c) * voxelToWorld;
    for (unsigned int r = 0; r < 3; ++r)
    {
      // A coefficient that is zero but for the rounding of the products above (e.g. 1e-16 of its
      // row where the rotation axis meets the detector's u axis) is set to zero: its voxel terms are
      // far below a float's resolution, and an exact zero tells the CUDA kernel that u and w do not
      // change along y (the CUDA kernel's runs along y).
      double largest = 0.;
      for (unsigned int col = 0; col < 3; ++col)
        largest = std::max(largest, std::abs(m(r, col)));
      for (unsigned int col = 0; col < 4; ++col)
        matrices[c].matrix[r * 4 + col] =
          col < 3 && std::abs(m(r, col)) <= 1e-12 * largest ? 0.f : static_cast<float>(m(r, col));
    }
  }
  return matrices;
}

template <typename TInputImage, typename TOutputImage>
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::FDKBackProjectionImageFilter()
{
  this->SetNumberOfRequiredInputs(2);
  this->DynamicMultiThreadingOn();
  this->SetInPlace(true);
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::SetProjectionRange(itk::SizeValueType first,
                                                                           itk::SizeValueType count)
{
  if (first != m_ProjectionRangeFirst || count != m_ProjectionRangeCount)
  {
    m_ProjectionRangeFirst = first;
    m_ProjectionRangeCount = count;
    this->Modified();
  }
}

template <typename TInputImage, typename TOutputImage>
std::pair<itk::SizeValueType, itk::SizeValueType>
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::ProjectionsToBackProject(
  const ProjectionImageType * projections) const
{
  const auto & buffered = projections->GetBufferedRegion();
  const auto firstBuffered =
    static_cast<itk::SizeValueType>(buffered.GetIndex(2) - projections->GetLargestPossibleRegion().GetIndex(2));
  itk::SizeValueType first = firstBuffered, end = firstBuffered + buffered.GetSize(2);
  if (m_ProjectionRangeCount > 0)
  {
    first = std::max(first, m_ProjectionRangeFirst);
    end = std::min(end, m_ProjectionRangeFirst + m_ProjectionRangeCount);
    if (first != m_ProjectionRangeFirst || end != m_ProjectionRangeFirst + m_ProjectionRangeCount)
      itkExceptionMacro(<< "projections [" << m_ProjectionRangeFirst << ", " << m_ProjectionRangeFirst + m_ProjectionRangeCount
                        << ") were asked for, but the input holds [" << firstBuffered << ", "
                        << firstBuffered + buffered.GetSize(2) << ")");
  }
  return { first, end > first ? end - first : 0 };
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::VerifyPreconditions() ITKv5_CONST
{
  Superclass::VerifyPreconditions();
  if (m_Geometry.IsNull())
    ThrowBadParameter("FDKBackProjectionImageFilter geometry", "none", "a ThreeDCircularProjectionGeometry");
  m_Geometry->RequireConeBeam("FDK");
  RequireFlatOrCentredCylinder(m_Geometry, "FDK");
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  Superclass::GenerateOutputInformation();
  // Checked here rather than in VerifyPreconditions(): only now is the inputs' information known.
  const auto * projections = static_cast<const ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  const auto count = projections->GetLargestPossibleRegion().GetSize(2);
  if (count != m_Geometry->GetNumberOfProjections())
  {
    ThrowBadParameter("number of projection images",
                      count,
                      "the geometry's number of projections (" + std::to_string(m_Geometry->GetNumberOfProjections()) + ")");
  }
  if (this->GetInput(0)->GetLargestPossibleRegion().GetNumberOfPixels() == 0)
    ThrowBadParameter("volume size", this->GetInput(0)->GetLargestPossibleRegion().GetSize(), "a non-empty volume");
  if (projections->GetLargestPossibleRegion().GetNumberOfPixels() == 0)
    ThrowBadParameter("projection image size", projections->GetLargestPossibleRegion().GetSize(), "a non-empty stack");
}

template <typename TInputImage, typename TOutputImage>
std::vector<ConeProjection>
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::ComputeProjectionMatrices(const TOutputImage * volume,
                                                                                  const ProjectionImageType * projections,
                                                                                  unsigned int first,
                                                                                  unsigned int count) const
{
  return VoxelToPixelMatrices(volume, projections, m_Geometry.GetPointer(), first, count);
}

template <typename TInputImage, typename TOutputImage>
typename TInputImage::RegionType
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::ComputeProjectionRegion(
  const TOutputImage * volume,
  const OutputImageRegionType & volumeRegion,
  const ProjectionImageType * projections) const
{
  if (m_Geometry->IsCylindrical())
    return CylindricalProjectionRegion(m_Geometry.GetPointer(), volume, volumeRegion, projections);
  const auto & largest = projections->GetLargestPossibleRegion();
  const DetectorCoordinates detector(projections);
  const vnl_matrix_fixed<double, 4, 4> voxelToWorld = detail::VoxelIndexToWorld(volume);
  double lo[2] = { std::numeric_limits<double>::max(), std::numeric_limits<double>::max() };
  double hi[2] = { std::numeric_limits<double>::lowest(), std::numeric_limits<double>::lowest() };
  bool behindSource = false;
  for (unsigned int k = 0; k < m_Geometry->GetNumberOfProjections() && !behindSource; ++k)
  {
    const vnl_matrix_fixed<double, 3, 4> m = detail::WorldToPixelIndex(m_Geometry, detector, k) * voxelToWorld;
    for (unsigned int corner = 0; corner < 8; ++corner)
    {
      vnl_vector_fixed<double, 4> x;
      for (unsigned int d = 0; d < 3; ++d)
        x(d) = volumeRegion.GetIndex(d) + ((corner >> d) & 1u ? volumeRegion.GetSize(d) - 1. : 0.);
      x(3) = 1.;
      const vnl_vector_fixed<double, 3> h = m * x;
      if (!(h(2) < 0.))
      {
        behindSource = true; // the region surrounds the source: every pixel may be needed
        break;
      }
      for (unsigned int d = 0; d < 2; ++d)
      {
        lo[d] = std::min(lo[d], h(d) / h(2));
        hi[d] = std::max(hi[d], h(d) / h(2));
      }
    }
  }
  auto region = largest;
  if (behindSource)
    return region;
  for (unsigned int d = 0; d < 2; ++d)
  {
    // Bilinear interpolation at x reads floor(x) and floor(x)+1; one more pixel absorbs rounding.
    const double first = std::floor(lo[d]) - 1., last = std::floor(hi[d]) + 2.;
    const double clampedFirst = std::max(first, static_cast<double>(largest.GetIndex(d)));
    const double clampedLast = std::min(last, static_cast<double>(largest.GetIndex(d) + largest.GetSize(d) - 1));
    region.SetIndex(d, static_cast<itk::IndexValueType>(std::min(clampedFirst, static_cast<double>(largest.GetUpperIndex()[d]))));
    region.SetSize(d, clampedLast >= clampedFirst ? static_cast<itk::SizeValueType>(clampedLast - clampedFirst + 1.) : 0);
  }
  return region;
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::CheckVolumeProjectsOntoDetector(
  const itk::ImageBase<3> * volume,
  const itk::ImageBase<3> * projections) const
{
  // A volume no projection sees is a geometry or detector error, not an empty result.
  auto volumeInfo = TOutputImage::New();
  volumeInfo->CopyInformation(volume);
  auto projectionInfo = ProjectionImageType::New();
  projectionInfo->CopyInformation(projections);
  const auto whole = this->ComputeProjectionRegion(volumeInfo, volume->GetLargestPossibleRegion(), projectionInfo);
  if (whole.GetNumberOfPixels() == 0)
  {
    std::ostringstream detectorSize;
    detectorSize << projections->GetLargestPossibleRegion().GetSize(0) << "x"
                 << projections->GetLargestPossibleRegion().GetSize(1) << " pixels of " << projections->GetSpacing()[0]
                 << "x" << projections->GetSpacing()[1] << " mm at origin " << projections->GetOrigin()[0] << ","
                 << projections->GetOrigin()[1];
    ThrowBadParameter("detector", detectorSize.str(), "a detector onto which at least one voxel of the volume projects");
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * projections = static_cast<ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  const TOutputImage * output = this->GetOutput();
  if (!projections || m_Geometry.IsNull() ||
      projections->GetLargestPossibleRegion().GetSize(2) != m_Geometry->GetNumberOfProjections())
    return; // VerifyPreconditions() reports it

  this->CheckVolumeProjectsOntoDetector(output, projections);
  const auto whole = this->ComputeProjectionRegion(output, output->GetLargestPossibleRegion(), projections);
  auto region = this->ComputeProjectionRegion(output, output->GetRequestedRegion(), projections);
  if (region.GetNumberOfPixels() == 0)
  {
    // This slab projects off the detector: ask for one row, which the voxels will not reach.
    region.SetSize(0, 1);
    region.SetSize(1, 1);
    region.SetIndex(0, whole.GetIndex(0));
    region.SetIndex(1, whole.GetIndex(1));
  }
  if (m_ProjectionRangeCount > 0)
  {
    region.SetIndex(2, projections->GetLargestPossibleRegion().GetIndex(2) +
                         static_cast<itk::IndexValueType>(m_ProjectionRangeFirst));
    region.SetSize(2, m_ProjectionRangeCount);
    if (!projections->GetLargestPossibleRegion().IsInside(region))
      ThrowBadParameter("FDK backprojection's projection range",
                        "[" + std::to_string(m_ProjectionRangeFirst) + ", " +
                          std::to_string(m_ProjectionRangeFirst + m_ProjectionRangeCount) + ")",
                        "projections of the stack of " +
                          std::to_string(projections->GetLargestPossibleRegion().GetSize(2)));
  }
  projections->SetRequestedRegion(region);
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::BeforeThreadedGenerateData()
{
  const auto * projections = static_cast<const ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  const auto range = this->ProjectionsToBackProject(projections);
  m_FirstBufferedSlice = static_cast<std::size_t>(range.first) -
                         static_cast<std::size_t>(projections->GetBufferedRegion().GetIndex(2) -
                                                  projections->GetLargestPossibleRegion().GetIndex(2));
  const auto first = static_cast<unsigned int>(range.first);
  const auto count = static_cast<unsigned int>(range.second);
  m_FirstProjection = range.first;
  m_Matrices.clear();
  m_CylindricalMatrices.clear();
  m_Helix.reset();
  if (IsHelicalGeometry(m_Geometry))
  {
    const auto & d = this->GetOutput()->GetDirection();
    if (d(0, 1) != 0. || d(2, 1) != 0.)
      ThrowBadParameter("helical FDK volume direction", d, "a volume whose y axis is the rotation axis (world y)");
    m_Helix = std::make_shared<const HelicalFDKSetup>(HelicalFDKSetup::Of(m_Geometry, projections));
  }
  if (m_Geometry->IsCylindrical())
    m_CylindricalMatrices = CylindricalVoxelToPixel(this->GetOutput(), projections, m_Geometry.GetPointer(), first, count);
  else
    m_Matrices = this->ComputeProjectionMatrices(this->GetOutput(), projections, first, count);
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::ComputeFieldOfView()
{
  const auto * projections = static_cast<const ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  m_Mask = FieldOfViewMask();
  if (m_FieldOfView != FieldOfViewMode::Off && (m_Geometry->IsCylindrical() || m_Helix))
    ThrowBadParameter("field of view", m_Helix ? "a helical orbit" : "a cylindrical detector",
                      "a circular orbit and a flat panel (the field of view of helices and cylinders is not drawn yet)");
  if (m_FieldOfView != FieldOfViewMode::Off)
  {
    // The field of view of every projection of the scan on the whole detector (the stack's largest
    // region), whatever rows and projections this update holds.
    const GeometryType * scan = m_FieldOfViewGeometry ? m_FieldOfViewGeometry.GetPointer() : m_Geometry.GetPointer();
    const auto matrices = FieldOfViewMask::MatricesFor(this->GetOutput(), projections, scan);
    m_Mask.Compute(matrices, FieldOfViewMask::DetectorOf(projections), FieldOfViewMask::AxisFor(matrices),
                   this->GetOutput()->GetRequestedRegion());
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::AfterThreadedGenerateData()
{
  if (m_FieldOfView == FieldOfViewMode::Off)
    return;
  if constexpr (std::is_same<TOutputImage, itk::Image<float, 3>>::value)
    m_Mask.Blank(this->GetOutput(), FieldOfViewMask::OutsideValue(m_FieldOfView));
  else
    ThrowBadParameter("field of view output pixel type", "not float", "an itk::Image<float, 3> volume");
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::GenerateData()
{
  this->BeforeThreadedGenerateData();
  this->ComputeFieldOfView();
  const bool columns =
    m_ColumnsAlongY && m_CylindricalMatrices.empty() && !m_Helix && std::is_same<typename ProjectionImageType::PixelType, float>::value &&
    std::all_of(m_Matrices.begin(), m_Matrices.end(), [](const ConeProjection & p) { return ColumnsAllowed(p); });
  if (columns)
    this->GenerateDataInColumns();
  else
    Superclass::GenerateData();
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::GenerateDataInColumns()
{
  this->AllocateOutputs();
  const TInputImage * input = this->GetInput(0);
  TOutputImage * output = this->GetOutput();
  const auto * projections = static_cast<const ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  const auto & buffered = projections->GetBufferedRegion();
  const int nx = static_cast<int>(buffered.GetSize(0)), ny = static_cast<int>(buffered.GetSize(1));
  const std::size_t slice = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  // Only float stacks come here (GenerateData()); the cast keeps other instantiations compiling.
  const auto * data = reinterpret_cast<const float *>(projections->GetBufferPointer()) + m_FirstBufferedSlice * slice;
  const auto region = output->GetRequestedRegion();
  auto * threader = this->GetMultiThreader();
  const std::size_t count = m_Matrices.size();
  const std::size_t batches = std::max<std::size_t>(1, (count + BackProjectionBatch - 1) / BackProjectionBatch);
  // Slabs of a few slices, each a job of the thread pool: threads that fall behind (a machine shared
  // with other work) take fewer. A voxel's sum does not depend on the slab it is in.
  constexpr itk::SizeValueType SlabSlices = 8;
  const itk::SizeValueType slabs = std::max<itk::SizeValueType>(1, (region.GetSize(2) + SlabSlices - 1) / SlabSlices);
  ColumnStack stack;
  // Progress per slab, published from this (the pipeline's) thread as the thread pool finishes slabs:
  // batch b covers [b, b + 1) / batches of this filter's progress.
  threader->SetUpdateProgress(this->GetThreaderUpdateProgress());
  for (std::size_t b = 0; b < batches; ++b)
  {
    itk::ProgressTransformer progress(static_cast<float>(b) / static_cast<float>(batches),
                                      static_cast<float>(b + 1) / static_cast<float>(batches), this);
    const std::size_t first = b * BackProjectionBatch;
    const int n = static_cast<int>(std::min<std::size_t>(BackProjectionBatch, count - std::min(first, count)));
    stack.Resize(n, nx, ny, static_cast<int>(buffered.GetIndex(0)), static_cast<int>(buffered.GetIndex(1)));
    threader->SetNumberOfWorkUnits(static_cast<itk::ThreadIdType>(std::max(n, 1)));
    ParallelizeArray(
      threader, 0, static_cast<itk::SizeValueType>(n),
      [&](itk::SizeValueType k) { stack.Fill(static_cast<int>(k), data + (first + k) * slice); });
    threader->SetNumberOfWorkUnits(static_cast<itk::ThreadIdType>(slabs));
    ParallelizeArray(
      threader, 0, slabs,
      [&](itk::SizeValueType s) {
        // An abort (a progress observer's, e.g. Python's callback raising) skips the remaining slabs;
        // the exception is thrown below, on this thread, once the batch's jobs have returned.
        if (this->GetAbortGenerateData())
          return;
        auto piece = region;
        piece.SetIndex(2, region.GetIndex(2) + static_cast<itk::IndexValueType>(s * SlabSlices));
        piece.SetSize(2, std::min(SlabSlices, region.GetSize(2) - s * SlabSlices));
        if (b == 0 && !this->GetRunningInPlace())
          itk::ImageAlgorithm::Copy(input, output, piece, piece);
        this->BackProjectColumns(stack, first, n, piece);
      },
      progress.GetProcessObject());
    if (this->GetAbortGenerateData())
    {
      itk::ProcessAborted aborted(__FILE__, __LINE__);
      aborted.SetDescription(std::string("Object ") + this->GetNameOfClass() + ": AbortGenerateDataOn");
      throw aborted;
    }
  }
  this->AfterThreadedGenerateData();
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::BackProjectColumns(const ColumnStack & stack,
                                                                           std::size_t first,
                                                                           int count,
                                                                           const OutputImageRegionType & piece)
{
  if (count == 0 || piece.GetNumberOfPixels() == 0)
    return;
  TOutputImage * output = this->GetOutput();
  const int width = static_cast<int>(piece.GetSize(0)), height = static_cast<int>(piece.GetSize(1));
  const int rows = HeightPadded(height);
  const std::size_t sliceSums = static_cast<std::size_t>(width) * static_cast<std::size_t>(rows);
  // Slices per block: their sums (256 KiB) and one laid-out projection stay in the core's L2 cache
  // while the block goes through the batch's projections.
  const int block = static_cast<int>(std::max<std::size_t>(1, (std::size_t{ 1 } << 16) / sliceSums));
  std::vector<float> sum;
  ColumnLaunch launch;
  launch.stack = &stack;
  launch.x0 = static_cast<int>(piece.GetIndex(0));
  launch.width = width;
  launch.y0 = static_cast<int>(piece.GetIndex(1));
  launch.height = height;
  launch.distanceWeight = true;
  const int zFirst = static_cast<int>(piece.GetIndex(2)), zEnd = zFirst + static_cast<int>(piece.GetSize(2));
  // With a field of view, the voxels of each column it holds (counted from the piece's first y); a
  // slice with none is skipped.
  const bool masked = m_FieldOfView != FieldOfViewMode::Off && m_Mask.GetAxis() == 1;
  std::vector<int> yBegin, yEnd;
  std::vector<char> sliceNeeded(static_cast<std::size_t>(block), 1);
  for (int z0 = zFirst; z0 < zEnd; z0 += block)
  {
    const int slices = std::min(block, zEnd - z0);
    sum.assign(sliceSums * static_cast<std::size_t>(slices), 0.f);
    if (masked)
    {
      yBegin.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(slices), 0);
      yEnd.assign(yBegin.size(), 0);
      for (int s = 0; s < slices; ++s)
      {
        sliceNeeded[static_cast<std::size_t>(s)] = 0;
        for (int x = 0; x < width; ++x)
        {
          const FieldOfViewColumn & c = m_Mask.ColumnAt(launch.x0 + x, launch.y0, z0 + s);
          const std::size_t i = static_cast<std::size_t>(s) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x);
          yBegin[i] = std::max(c.first - launch.y0, 0);
          yEnd[i] = std::min(c.last + 1 - launch.y0, height);
          if (yBegin[i] < yEnd[i])
            sliceNeeded[static_cast<std::size_t>(s)] = 1;
        }
      }
    }
    for (int k = 0; k < count; ++k)
    {
      launch.matrix = m_Matrices[first + static_cast<std::size_t>(k)].matrix;
      launch.projection = k;
      for (int s = 0; s < slices; ++s)
      {
        if (!sliceNeeded[static_cast<std::size_t>(s)])
          continue;
        launch.z = static_cast<float>(z0 + s);
        launch.sum = sum.data() + static_cast<std::size_t>(s) * sliceSums;
        if (masked)
        {
          launch.yBegin = yBegin.data() + static_cast<std::size_t>(s) * static_cast<std::size_t>(width);
          launch.yEnd = yEnd.data() + static_cast<std::size_t>(s) * static_cast<std::size_t>(width);
        }
        AccumulateColumns(launch);
      }
    }
    // The batch's sums added to the volume, as the runs along z add theirs.
    auto index = piece.GetIndex();
    for (int s = 0; s < slices; ++s)
    {
      index[2] = z0 + s;
      const float * sums = sum.data() + static_cast<std::size_t>(s) * sliceSums;
      for (int y = 0; y < height; ++y)
      {
        index[1] = piece.GetIndex(1) + y;
        auto * out = output->GetBufferPointer() + output->ComputeOffset(index);
        for (int x = 0; x < width; ++x)
          out[x] += static_cast<typename TOutputImage::PixelType>(sums[static_cast<std::size_t>(x) * rows + y]);
      }
    }
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::AddRun(const std::vector<float> & sum,
                                                               TOutputImage * output,
                                                               const OutputImageRegionType & region,
                                                               typename TOutputImage::IndexType index,
                                                               int run,
                                                               int zFirst,
                                                               int zEnd) const
{
  const auto width = region.GetSize(0);
  for (int r = 0; r < BackProjectionRun; ++r)
  {
    if (run + r < zFirst || run + r >= zEnd)
      continue;
    index[0] = region.GetIndex(0);
    index[2] = run + r;
    auto * out = output->GetBufferPointer() + output->ComputeOffset(index);
    for (itk::SizeValueType x = 0; x < width; ++x)
      out[x] += static_cast<typename TOutputImage::PixelType>(sum[r * width + x]);
  }
}

template <typename TInputImage, typename TOutputImage>
void
FDKBackProjectionImageFilter<TInputImage, TOutputImage>::DynamicThreadedGenerateData(const OutputImageRegionType & region)
{
  const TInputImage * input = this->GetInput(0);
  TOutputImage * output = this->GetOutput();
  if (!this->GetRunningInPlace())
    itk::ImageAlgorithm::Copy(input, output, region, region);

  const auto * projections = static_cast<const ProjectionImageType *>(this->itk::ProcessObject::GetInput(1));
  const auto & buffered = projections->GetBufferedRegion();
  const int nx = static_cast<int>(buffered.GetSize(0)), ny = static_cast<int>(buffered.GetSize(1));
  const int firstColumn = static_cast<int>(buffered.GetIndex(0)), firstRow = static_cast<int>(buffered.GetIndex(1));
  const std::size_t slice = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  const auto * data = projections->GetBufferPointer() + m_FirstBufferedSlice * slice;
  itk::TotalProgressReporter progress(this, output->GetRequestedRegion().GetNumberOfPixels());
  if (m_Helix)
  {
    // The views of this update's projections (a batch of them, or those buffered).
    const std::size_t count = m_CylindricalMatrices.empty() ? m_Matrices.size() : m_CylindricalMatrices.size();
    const std::vector<HelicalView> views(m_Helix->Views().begin() + m_FirstProjection,
                                         m_Helix->Views().begin() + m_FirstProjection + count);
    const vnl_matrix_fixed<double, 4, 4> world = detail::VoxelIndexToWorld(output);
    double voxelToWorld[12];
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        voxelToWorld[4 * r + c] = world(r, c);
    BackProjectHelix(m_Helix->Scan(), views, m_Matrices, m_CylindricalMatrices,
                     m_CylindricalMatrices.empty() ? CylindricalDetectorGrid{} : CylindricalGrid(m_Geometry.GetPointer(), projections),
                     voxelToWorld, data, nx, ny, firstColumn, firstRow, output, region, progress);
    return;
  }
  if (!m_CylindricalMatrices.empty())
  {
    BackProjectOntoCylinder(CylindricalGrid(m_Geometry.GetPointer(), projections), m_CylindricalMatrices, data, nx, ny,
                            firstColumn, firstRow, output, region, progress);
    return;
  }

  // Runs of BackProjectionRun voxels along z, aligned to absolute z, each stepped from its first
  // voxel exactly as the CUDA kernel steps them (see cbctFDKBackProjection.hcu).
  const auto width = region.GetSize(0);
  const int zFirst = static_cast<int>(region.GetIndex(2));
  const int zEnd = zFirst + static_cast<int>(region.GetSize(2));
  std::vector<float> sum(width * BackProjectionRun);
  auto index = region.GetIndex();
  for (itk::SizeValueType y = 0; y < region.GetSize(1); ++y)
  {
    index[1] = region.GetIndex(1) + static_cast<itk::IndexValueType>(y);
    const float fy = static_cast<float>(index[1]);
    for (int run = RunStart(zFirst); run < zEnd; run += BackProjectionRun)
    {
      if (m_FieldOfView != FieldOfViewMode::Off && m_Mask.GetAxis() == 2)
      {
        // Skipped when no voxel of the run's row (x, y, [run, run + BackProjectionRun)) is inside.
        bool needed = false;
        for (itk::SizeValueType x = 0; x < width && !needed; ++x)
        {
          const FieldOfViewColumn & c = m_Mask.ColumnAt(region.GetIndex(0) + static_cast<long long>(x), index[1], run);
          needed = c.first <= std::min(c.last, run + BackProjectionRun - 1) && c.last >= run;
        }
        if (!needed)
        {
          for (int r = 0; r < BackProjectionRun; ++r)
            if (run + r >= zFirst && run + r < zEnd)
              progress.Completed(width);
          continue;
        }
      }
      const float fz = static_cast<float>(run);
      VoxelRunLaunch<typename ProjectionImageType::PixelType> launch;
      launch.nx = nx;
      launch.ny = ny;
      launch.firstColumn = firstColumn;
      launch.firstRow = firstRow;
      launch.x0 = static_cast<int>(region.GetIndex(0));
      launch.width = static_cast<int>(width);
      launch.y = fy;
      launch.z = fz;
      launch.rFirst = std::max(0, zFirst - run);
      launch.rEnd = std::min(BackProjectionRun, zEnd - run);
      launch.distanceWeight = true;
      launch.sum = sum.data();
      for (std::size_t k = 0; k < m_Matrices.size(); ++k)
      {
        if (k % BackProjectionBatch == 0)
          std::fill(sum.begin(), sum.end(), 0.f);
        launch.matrix = m_Matrices[k].matrix;
        launch.projection = data + k * slice;
        AccumulateVoxelRun(launch);
        if ((k + 1) % BackProjectionBatch == 0 || k + 1 == m_Matrices.size())
          this->AddRun(sum, output, region, index, run, zFirst, zEnd);
      }
      for (int r = 0; r < BackProjectionRun; ++r)
        if (run + r >= zFirst && run + r < zEnd)
          progress.Completed(width);
    }
  }
}

} // namespace cbct

#endif
