#ifndef cbctCudaProjectionTexture_h
#define cbctCudaProjectionTexture_h

#include "ConeBeamCTExport.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cbct
{

/** \class CudaProjectionTexture
 * \brief A layered 2D float texture of projections for the backprojector: hardware bilinear
 * filtering, unnormalised coordinates, zero outside the detector.
 *
 * Owns its cudaArray and texture object; grows when asked for a larger size and is reused
 * otherwise, so a filter keeps one (or two, double-buffered) across batches and pieces.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaProjectionTexture
{
public:
  CudaProjectionTexture() = default;
  ~CudaProjectionTexture();
  CudaProjectionTexture(const CudaProjectionTexture &) = delete;
  CudaProjectionTexture &
  operator=(const CudaProjectionTexture &) = delete;

  /** Makes sure the texture holds at least `layers` layers of `width` x `height` texels. */
  void
  Reserve(int width, int height, int layers);

  /** Copies `layers` projections from device memory (rows of `pitchBytes`, `rowsPerLayer` rows per
   * projection, the first `width` floats of each row) into layers 0.. of the texture. */
  void
  CopyFromDevice(const float * source, std::size_t pitchBytes, int width, int height, int rowsPerLayer, int layers,
                 cudaStream_t stream);

  /** Copies one projection (`height` rows of `width` floats, `pitchBytes` apart) from device memory
   * into layer `layer`, which Reserve() must have made. */
  void
  CopyLayerFromDevice(const float * source, std::size_t pitchBytes, int width, int height, int layer, cudaStream_t stream);
  cudaTextureObject_t
  Texture() const
  {
    return m_Texture;
  }
  std::size_t
  Bytes() const
  {
    return static_cast<std::size_t>(m_Width) * m_Height * m_Layers * sizeof(float);
  }

private:
  void
  Release();

  cudaArray_t m_Array = nullptr;
  cudaTextureObject_t m_Texture = 0;
  int m_Width = 0;
  int m_Height = 0;
  int m_Layers = 0;
};

} // namespace cbct

#endif
