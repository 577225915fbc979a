#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaSlicedVolume.h"

#  include "cbctCudaCheck.h"
#  include "cbctCudaJoseph.hcu"

#  include <string>

namespace cbct
{

CudaSlicedVolume::~CudaSlicedVolume()
{
  this->Release();
}

void
CudaSlicedVolume::Release()
{
  for (int a = 0; a < 3; ++a)
  {
    if (m_Texture[a])
      cudaDestroyTextureObject(m_Texture[a]);
    if (m_Surface[a])
      cudaDestroySurfaceObject(m_Surface[a]);
    if (m_Array[a])
      cudaFreeArray(m_Array[a]);
    m_Texture[a] = 0;
    m_Surface[a] = 0;
    m_Array[a] = nullptr;
    m_Size[a] = 0;
  }
  m_Axes = 0;
}

void
CudaSlicedVolume::CopyFromDevice(const float * volume, const int size[3], unsigned int axes, cudaStream_t stream)
{
  this->Reserve(size, axes);
  for (int a = 0; a < 3; ++a)
    if (m_Surface[a])
      CudaCheck(LaunchSliceCopy(volume, size, a, m_Surface[a], stream), "LaunchSliceCopy");
}

void
CudaSlicedVolume::UpdateFromDevice(const CudaSARTLaunch & update, const int size[3], unsigned int axes, cudaStream_t stream)
{
  this->Reserve(size, axes);
  CudaCheck(LaunchSARTUpdateSlices(update, size, m_Surface, stream), "LaunchSARTUpdateSlices");
}

void
CudaSlicedVolume::Reserve(const int size[3], unsigned int axes)
{
  const std::size_t bytes = static_cast<std::size_t>(size[0]) * size[1] * size[2] * sizeof(float);
  if (axes != m_Axes || size[0] != m_Size[0] || size[1] != m_Size[1] || size[2] != m_Size[2])
  {
    this->Release();
    const cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    for (int a = 0; a < 3; ++a)
    {
      if (!(axes & (1u << a)))
        continue;
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      CudaCheck(cudaMalloc3DArray(&m_Array[a], &format, make_cudaExtent(size[b], size[c], size[a]), cudaArrayLayered | cudaArraySurfaceLoadStore),
                "cudaMalloc3DArray (volume slices across axis " + std::to_string(a) + ")", bytes);
      cudaResourceDesc resource{};
      resource.resType = cudaResourceTypeArray;
      resource.res.array.array = m_Array[a];
      cudaTextureDesc texture{};
      texture.addressMode[0] = cudaAddressModeBorder; // zero outside the volume
      texture.addressMode[1] = cudaAddressModeBorder;
      texture.filterMode = cudaFilterModeLinear;
      texture.readMode = cudaReadModeElementType;
      texture.normalizedCoords = 0;
      CudaCheck(cudaCreateTextureObject(&m_Texture[a], &resource, &texture, nullptr), "cudaCreateTextureObject (volume slices)");
      CudaCheck(cudaCreateSurfaceObject(&m_Surface[a], &resource), "cudaCreateSurfaceObject (volume slices)");
    }
    for (int d = 0; d < 3; ++d)
      m_Size[d] = size[d];
    m_Axes = axes;
  }
}

} // namespace cbct

#endif
