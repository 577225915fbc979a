#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaProjectionTexture.h"

#  include "cbctCudaCheck.h"

#  include <stdexcept>
#  include <string>

namespace cbct
{

CudaProjectionTexture::~CudaProjectionTexture()
{
  this->Release();
}

void
CudaProjectionTexture::Release()
{
  if (m_Texture)
    cudaDestroyTextureObject(m_Texture);
  if (m_Array)
    cudaFreeArray(m_Array);
  m_Texture = 0;
  m_Array = nullptr;
  m_Width = m_Height = m_Layers = 0;
}

void
CudaProjectionTexture::Reserve(int width, int height, int layers)
{
  if (m_Array && width == m_Width && height == m_Height && layers <= m_Layers)
    return;
  this->Release();
  const cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  const std::size_t bytes = static_cast<std::size_t>(width) * height * layers * sizeof(float);
  CudaCheck(cudaMalloc3DArray(&m_Array, &format, make_cudaExtent(width, height, layers), cudaArrayLayered),
            "cudaMalloc3DArray (layered projection texture)", bytes);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = m_Array;
  cudaTextureDesc texture{};
  texture.addressMode[0] = cudaAddressModeBorder; // zero off the detector
  texture.addressMode[1] = cudaAddressModeBorder;
  texture.filterMode = cudaFilterModeLinear;      // the hardware's bilinear interpolation
  texture.readMode = cudaReadModeElementType;
  texture.normalizedCoords = 0;
  CudaCheck(cudaCreateTextureObject(&m_Texture, &resource, &texture, nullptr), "cudaCreateTextureObject");
  m_Width = width;
  m_Height = height;
  m_Layers = layers;
}

void
CudaProjectionTexture::CopyFromDevice(const float * source,
                                      std::size_t pitchBytes,
                                      int width,
                                      int height,
                                      int rowsPerLayer,
                                      int layers,
                                      cudaStream_t stream)
{
  this->Reserve(width, height, layers);
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<float *>(source), pitchBytes, width, rowsPerLayer);
  copy.dstArray = m_Array;
  copy.extent = make_cudaExtent(width, height, layers);
  copy.kind = cudaMemcpyDeviceToDevice;
  CudaCheck(cudaMemcpy3DAsync(&copy, stream), "cudaMemcpy3DAsync (projections to texture)", this->Bytes());
}

void
CudaProjectionTexture::CopyLayerFromDevice(const float * source, std::size_t pitchBytes, int width, int height, int layer,
                                           cudaStream_t stream)
{
  if (width > m_Width || height > m_Height || layer < 0 || layer >= m_Layers)
    throw std::logic_error("CudaProjectionTexture::CopyLayerFromDevice: layer " + std::to_string(layer) + " of " +
                           std::to_string(width) + " x " + std::to_string(height) + " outside the reserved texture");
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(const_cast<float *>(source), pitchBytes, width, height);
  copy.dstArray = m_Array;
  copy.dstPos = make_cudaPos(0, 0, layer);
  copy.extent = make_cudaExtent(width, height, 1);
  copy.kind = cudaMemcpyDeviceToDevice;
  CudaCheck(cudaMemcpy3DAsync(&copy, stream), "cudaMemcpy3DAsync (projection to texture layer)",
            static_cast<std::size_t>(width) * height * sizeof(float));
}

} // namespace cbct

#endif
