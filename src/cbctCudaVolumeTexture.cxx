#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaVolumeTexture.h"

#  include "cbctCudaCheck.h"

namespace cbct
{

CudaVolumeTexture::~CudaVolumeTexture()
{
  this->Release();
}

void
CudaVolumeTexture::Release()
{
  if (m_Linear)
    cudaDestroyTextureObject(m_Linear);
  if (m_Array)
    cudaFreeArray(m_Array);
  m_Linear = 0;
  m_Array = nullptr;
  m_Size[0] = m_Size[1] = m_Size[2] = 0;
}

void
CudaVolumeTexture::CopyFromDevice(const float * volume, const int size[3], cudaStream_t stream)
{
  const std::size_t bytes = static_cast<std::size_t>(size[0]) * size[1] * size[2] * sizeof(float);
  if (!m_Array || size[0] != m_Size[0] || size[1] != m_Size[1] || size[2] != m_Size[2])
  {
    this->Release();
    const cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    CudaCheck(cudaMalloc3DArray(&m_Array, &format, make_cudaExtent(size[0], size[1], size[2])), "cudaMalloc3DArray (volume texture)",
              bytes);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = m_Array;
    cudaTextureDesc texture{};
    for (int d = 0; d < 3; ++d)
      texture.addressMode[d] = cudaAddressModeBorder; // zero outside the volume
    texture.readMode = cudaReadModeElementType;
    texture.normalizedCoords = 0;
    texture.filterMode = cudaFilterModeLinear;
    CudaCheck(cudaCreateTextureObject(&m_Linear, &resource, &texture, nullptr), "cudaCreateTextureObject (volume)");
    for (int d = 0; d < 3; ++d)
      m_Size[d] = size[d];
  }
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<float *>(volume), size[0] * sizeof(float), size[0], size[1]);
  copy.dstArray = m_Array;
  copy.extent = make_cudaExtent(size[0], size[1], size[2]);
  copy.kind = cudaMemcpyDeviceToDevice;
  CudaCheck(cudaMemcpy3DAsync(&copy, stream), "cudaMemcpy3DAsync (volume to texture)", bytes);
}

} // namespace cbct

#endif
