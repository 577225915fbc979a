#ifndef cbctCudaSlicedVolume_h
#define cbctCudaSlicedVolume_h

#include "ConeBeamCTExport.h"

#include <cuda_runtime_api.h>

namespace cbct
{

struct CudaSARTLaunch; // cbctCudaJoseph.hcu

/** \class CudaSlicedVolume
 * \brief A volume as stacks of slices for Joseph's forward projector: for each axis a asked for, a
 * layered 2D texture whose layers are the slices across a (layer s holds the voxels with index s
 * along a, axis (a + 1) % 3 along the texture's width and (a + 2) % 3 along its height), read with
 * the hardware's bilinear filter and zero outside the volume. A ray whose dominant axis is a then
 * samples each slice with one fetch. Arrays are allocated for the axes asked for only (circular
 * scans about y need two of the three).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaSlicedVolume
{
public:
  CudaSlicedVolume() = default;
  ~CudaSlicedVolume();
  CudaSlicedVolume(const CudaSlicedVolume &) = delete;
  CudaSlicedVolume &
  operator=(const CudaSlicedVolume &) = delete;

  /** Copies a contiguous device volume of size[0] x size[1] x size[2] floats (x fastest) into the
   * slice stacks of the axes in `axes` (bit a for axis a). */
  void
  CopyFromDevice(const float * volume, const int size[3], unsigned int axes, cudaStream_t stream);

  /** SART's update of a contiguous device volume (LaunchSARTUpdate(): `update` names the volume,
   * correction and sensitivity) that writes the updated volume into the slice stacks in the same
   * pass (LaunchSARTUpdateSlices()): the state of CopyFromDevice() after the update, one read of the
   * volume fewer. */
  void
  UpdateFromDevice(const CudaSARTLaunch & update, const int size[3], unsigned int axes, cudaStream_t stream);

  /** The texture of the slices across axis a (0 when that axis was not asked for). */
  cudaTextureObject_t
  Slices(int a) const
  {
    return m_Texture[a];
  }

private:
  /** (Re)allocates the arrays, textures and surfaces when the size or the axes changed. */
  void
  Reserve(const int size[3], unsigned int axes);
  void
  Release();

  cudaArray_t m_Array[3] = { nullptr, nullptr, nullptr };
  cudaTextureObject_t m_Texture[3] = { 0, 0, 0 };
  cudaSurfaceObject_t m_Surface[3] = { 0, 0, 0 };
  int m_Size[3] = { 0, 0, 0 };
  unsigned int m_Axes = 0;
};

} // namespace cbct

#endif
