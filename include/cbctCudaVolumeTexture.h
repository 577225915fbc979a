#ifndef cbctCudaVolumeTexture_h
#define cbctCudaVolumeTexture_h

#include "ConeBeamCTExport.h"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cbct
{

/** \class CudaVolumeTexture
 * \brief A 3D float texture of a volume for the ray caster: unnormalised coordinates, zero outside
 * the volume, read with the hardware's trilinear filter.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaVolumeTexture
{
public:
  CudaVolumeTexture() = default;
  ~CudaVolumeTexture();
  CudaVolumeTexture(const CudaVolumeTexture &) = delete;
  CudaVolumeTexture &
  operator=(const CudaVolumeTexture &) = delete;

  /** Copies a contiguous device volume of size[0] x size[1] x size[2] floats (x fastest) into the
   * texture, (re)allocating it when the size changed. */
  void
  CopyFromDevice(const float * volume, const int size[3], cudaStream_t stream);

  cudaTextureObject_t
  Linear() const
  {
    return m_Linear;
  }

private:
  void
  Release();

  cudaArray_t m_Array = nullptr;
  cudaTextureObject_t m_Linear = 0;
  int m_Size[3] = { 0, 0, 0 };
};

} // namespace cbct

#endif
