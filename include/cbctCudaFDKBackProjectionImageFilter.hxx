#ifndef cbctCudaFDKBackProjectionImageFilter_hxx
#define cbctCudaFDKBackProjectionImageFilter_hxx

#include "cbctCudaCheck.h"
#include "cbctCudaCylindricalFDKBackProjection.hcu"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaHelicalFDKBackProjection.hcu"
#include "cbctCylindricalFDK.h"
#include "cbctHelicalFDK.h"
#include "cbctInputChecks.h"

#include <algorithm>

namespace cbct
{

namespace detail
{
/** Copies `region` of a device volume laid out as `from` into a device volume laid out as `to`. */
inline void
CopyVolumeRegion(const float * source, const itk::ImageRegion<3> & from, float * destination,
                 const itk::ImageRegion<3> & to, const itk::ImageRegion<3> & region, cudaMemcpyKind kind,
                 cudaStream_t stream)
{
  auto offset = [](const itk::ImageRegion<3> & layout, const itk::ImageRegion<3> & r) {
    return (static_cast<std::size_t>(r.GetIndex(2) - layout.GetIndex(2)) * layout.GetSize(1) +
            static_cast<std::size_t>(r.GetIndex(1) - layout.GetIndex(1))) *
             layout.GetSize(0) +
           static_cast<std::size_t>(r.GetIndex(0) - layout.GetIndex(0));
  };
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<float *>(source + offset(from, region)), from.GetSize(0) * sizeof(float),
                                    from.GetSize(0), from.GetSize(1));
  copy.dstPtr = make_cudaPitchedPtr(destination + offset(to, region), to.GetSize(0) * sizeof(float), to.GetSize(0), to.GetSize(1));
  copy.extent = make_cudaExtent(region.GetSize(0) * sizeof(float), region.GetSize(1), region.GetSize(2));
  copy.kind = kind;
  CudaCheck(cudaMemcpy3DAsync(&copy, stream), "cudaMemcpy3DAsync (volume region)", region.GetNumberOfPixels() * sizeof(float));
}
} // namespace detail

template <typename TImage>
void
CudaFDKBackProjectionImageFilter<TImage>::GPUGenerateData()
{
  const TImage * volume = this->GetInput(0);
  TImage * output = this->GetOutput();
  const auto * projections = static_cast<const TImage *>(this->itk::ProcessObject::GetInput(1));
  const auto & region = output->GetBufferedRegion();

  float * out = nullptr;
  if (volume->GetCudaDataManager() == output->GetCudaDataManager())
    out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForReadWrite()); // in place
  else
  {
    const auto * in = static_cast<const float *>(volume->GetCudaDataManager()->DeviceBufferForRead());
    out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
    detail::CopyVolumeRegion(in, volume->GetBufferedRegion(), out, region, region, cudaMemcpyDeviceToDevice, nullptr);
  }

  const auto & buffered = projections->GetBufferedRegion();
  const auto range = this->ProjectionsToBackProject(projections); // SetProjectionRange()'s, or all buffered
  const int width = static_cast<int>(buffered.GetSize(0)), height = static_cast<int>(buffered.GetSize(1));
  const auto firstSlice = static_cast<std::size_t>(
    range.first - static_cast<itk::SizeValueType>(buffered.GetIndex(2) - projections->GetLargestPossibleRegion().GetIndex(2)));
  const auto * data = static_cast<const float *>(projections->GetCudaDataManager()->DeviceBufferForRead()) +
                      firstSlice * static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const auto firstProjection = static_cast<unsigned int>(range.first);
  const int total = static_cast<int>(range.second);
  if (IsHelicalGeometry(this->GetGeometry()))
  {
    // A helical orbit: helical FDK's kernel (cbctCudaHelicalFDKBackProjection.hcu), either detector.
    const ThreeDCircularProjectionGeometry * geometry = this->GetGeometry();
    const auto & d = output->GetDirection();
    if (d(0, 1) != 0. || d(2, 1) != 0.)
      ThrowBadParameter("helical FDK volume direction", d, "a volume whose y axis is the rotation axis (world y)");
    const HelicalFDKSetup setup = HelicalFDKSetup::Of(geometry, projections);
    std::vector<CudaHelicalView> views(static_cast<std::size_t>(total));
    if (geometry->IsCylindrical())
    {
      const auto cylinders = CylindricalVoxelToPixel(output, projections, geometry, firstProjection, static_cast<unsigned int>(total));
      for (int c = 0; c < total; ++c)
      {
        const CylindricalProjection centred = TexelCentredCylindrical(cylinders[c]);
        std::copy(centred.matrix, centred.matrix + 12, views[c].matrix);
        std::copy(centred.pixelOffset, centred.pixelOffset + 2, views[c].pixelOffset);
      }
    }
    else
    {
      const auto flat = this->ComputeProjectionMatrices(output, projections, firstProjection, static_cast<unsigned int>(total));
      for (int c = 0; c < total; ++c)
      {
        const ConeProjection centred = TexelCentred(flat[c]);
        std::copy(centred.matrix, centred.matrix + 12, views[c].matrix);
      }
    }
    for (int c = 0; c < total; ++c)
      views[c].view = setup.Views()[firstProjection + static_cast<unsigned int>(c)];
    CudaDeviceBuffer<CudaHelicalView> deviceViews;
    deviceViews.Upload(views);
    CudaHelicalBackProjectionLaunch launch;
    launch.volume = out;
    for (unsigned int a = 0; a < 3; ++a)
    {
      launch.size[a] = static_cast<int>(region.GetSize(a));
      launch.first[a] = static_cast<int>(region.GetIndex(a));
      for (unsigned int c = 0; c < 3; ++c)
        launch.voxelToWorld[4 * a + c] = static_cast<float>(d(a, c) * output->GetSpacing()[c]);
      launch.voxelToWorld[4 * a + 3] = static_cast<float>(output->GetOrigin()[a]);
    }
    launch.columnOffset = static_cast<float>(buffered.GetIndex(0));
    launch.rowOffset = static_cast<float>(buffered.GetIndex(1));
    launch.scan = setup.Scan();
    launch.cylindrical = geometry->IsCylindrical() ? 1 : 0;
    if (geometry->IsCylindrical())
      launch.grid = CylindricalGrid(geometry, projections);
    for (int k0 = 0; k0 < total; k0 += CudaBackProjectionBatch)
    {
      launch.count = std::min(CudaBackProjectionBatch, total - k0);
      m_Texture.CopyFromDevice(data + static_cast<std::size_t>(k0) * width * height, width * sizeof(float), width, height,
                               height, launch.count, nullptr);
      launch.projections = m_Texture.Texture();
      launch.views = deviceViews.Data() + k0;
      CudaCheck(LaunchHelicalFDKBackProjection(launch, nullptr), "LaunchHelicalFDKBackProjection");
    }
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (backprojection)");
    return;
  }
  if (this->GetGeometry()->IsCylindrical())
  {
    // A cylindrical detector: its own kernels (cbctCudaCylindricalFDKBackProjection.hcu).
    const auto matrices = CylindricalVoxelToPixel(output, projections, this->GetGeometry(), firstProjection, static_cast<unsigned int>(total));
    CudaCylindricalBackProjectionLaunch launch;
    launch.volume = out;
    for (unsigned int d = 0; d < 3; ++d)
    {
      launch.size[d] = static_cast<int>(region.GetSize(d));
      launch.first[d] = static_cast<int>(region.GetIndex(d));
    }
    launch.columnOffset = static_cast<float>(buffered.GetIndex(0));
    launch.rowOffset = static_cast<float>(buffered.GetIndex(1));
    launch.grid = CylindricalGrid(this->GetGeometry(), projections);
    for (int k0 = 0; k0 < total; k0 += CudaBackProjectionBatch)
    {
      launch.count = std::min(CudaBackProjectionBatch, total - k0);
      m_Texture.CopyFromDevice(data + static_cast<std::size_t>(k0) * width * height, width * sizeof(float), width, height,
                               height, launch.count, nullptr);
      launch.projections = m_Texture.Texture();
      std::transform(matrices.begin() + k0, matrices.begin() + k0 + launch.count, launch.matrices, TexelCentredCylindrical);
      CudaCheck(LaunchCylindricalFDKBackProjection(launch, nullptr), "LaunchCylindricalFDKBackProjection");
    }
    CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (backprojection)");
    return;
  }
  const auto matrices = this->ComputeProjectionMatrices(output, projections, firstProjection, static_cast<unsigned int>(total));

  CudaBackProjectionLaunch launch;
  launch.volume = out;
  for (unsigned int d = 0; d < 3; ++d)
  {
    launch.size[d] = static_cast<int>(region.GetSize(d));
    launch.first[d] = static_cast<int>(region.GetIndex(d));
  }
  launch.columnOffset = static_cast<float>(buffered.GetIndex(0));
  launch.rowOffset = static_cast<float>(buffered.GetIndex(1));
  // The field of view: the region's columns clipped on the device, with the host's arithmetic.
  CudaDeviceBuffer<ConeProjection> fieldOfViewMatrices;
  CudaDeviceBuffer<int> fieldOfViewColumns;
  const FieldOfViewMode mode = this->GetFieldOfView();
  if (mode != FieldOfViewMode::Off)
  {
    const auto * scan = this->GetFieldOfViewGeometry() ? this->GetFieldOfViewGeometry() : this->GetGeometry();
    const auto all = FieldOfViewMask::MatricesFor(output, projections, scan);
    fieldOfViewMatrices.Upload(all);
    CudaFieldOfViewColumnsLaunch columns;
    columns.matrices = fieldOfViewMatrices.Data();
    columns.count = static_cast<int>(all.size());
    columns.detector = FieldOfViewMask::DetectorOf(projections);
    columns.axis = FieldOfViewMask::AxisFor(all);
    for (unsigned int d = 0; d < 3; ++d)
    {
      columns.first[d] = launch.first[d];
      columns.size[d] = launch.size[d];
    }
    const int other = columns.axis == 1 ? 2 : 1;
    fieldOfViewColumns.Reserve(2 * static_cast<std::size_t>(launch.size[0]) * static_cast<std::size_t>(launch.size[other]),
                               "field of view columns");
    columns.columns = fieldOfViewColumns.Data();
    CudaCheck(LaunchFieldOfViewColumns(columns, nullptr), "LaunchFieldOfViewColumns");
    launch.fieldOfView = columns.columns;
    launch.fieldOfViewAxis = columns.axis;
    launch.fieldOfViewFirst[0] = launch.first[0];
    launch.fieldOfViewFirst[1] = launch.first[other];
    launch.fieldOfViewColumns = launch.size[0];
    launch.outsideValue = FieldOfViewMask::OutsideValue(mode);
  }
  for (int k0 = 0; k0 < total; k0 += CudaBackProjectionBatch)
  {
    launch.count = std::min(CudaBackProjectionBatch, total - k0);
    launch.writeOutside = k0 + launch.count >= total; // the last batch blanks the outside
    m_Texture.CopyFromDevice(data + static_cast<std::size_t>(k0) * width * height, width * sizeof(float), width, height,
                             height, launch.count, nullptr);
    launch.projections = m_Texture.Texture();
    std::transform(matrices.begin() + k0, matrices.begin() + k0 + launch.count, launch.matrices, TexelCentred);
    CudaCheck(LaunchFDKBackProjection(launch, nullptr), "LaunchFDKBackProjection");
  }
  CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (backprojection)");
}

} // namespace cbct

#endif
