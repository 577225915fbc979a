#ifndef cbctCudaDataManager_h
#define cbctCudaDataManager_h

#include "ConeBeamCTExport.h"

#include <itkObject.h>
#include <itkObjectFactory.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>

namespace cbct
{

/** \class CudaDataManager
 * \brief The device twin of an image's pixel buffer, and which of the two copies is current.
 *
 * A CudaImage hands its host buffer to its manager whenever it (re)allocates. The device buffer is
 * allocated on first use. A transfer happens only when one side reads a copy the other side has
 * written since: DeviceBufferForRead() uploads a stale device copy, SynchronizeHost() downloads a
 * stale host copy. Asking for a buffer to write marks the other copy stale. Calls are serialised
 * by a mutex, so two threads may ask at once. The device buffer is freed with the manager or by
 * ReleaseDeviceBuffer().
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT CudaDataManager : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(CudaDataManager);

  using Self = CudaDataManager;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(CudaDataManager, itk::Object);

  /** The host buffer (owned by the image) and its size; the host copy becomes the current one. */
  void
  SetHostBuffer(void * host, std::size_t bytes);
  void *
  GetHostBuffer() const
  {
    return m_Host;
  }
  std::size_t
  GetBufferSize() const
  {
    return m_Bytes;
  }

  /** Device pointer holding the current data (uploaded first if the device copy is stale). */
  const void *
  DeviceBufferForRead();
  /** Device pointer to be overwritten entirely: no upload; the host copy becomes stale. */
  void *
  DeviceBufferForWrite();
  /** Device pointer to be read and modified: uploaded if stale; the host copy becomes stale. */
  void *
  DeviceBufferForReadWrite();

  /** Downloads the device copy if the host copy is stale. */
  void
  SynchronizeHost();
  /** The host copy was (or may have been) written: the device copy is stale. */
  void
  MarkHostModified();

  bool
  IsHostCurrent() const
  {
    return m_HostCurrent;
  }
  bool
  IsDeviceCurrent() const
  {
    return m_DeviceCurrent;
  }
  /** Number of host-to-device and device-to-host transfers so far (for tests and reports). */
  unsigned int
  GetNumberOfUploads() const
  {
    return m_Uploads;
  }
  unsigned int
  GetNumberOfDownloads() const
  {
    return m_Downloads;
  }

  /** Page-locks the host buffer (cudaHostRegister) so that transfers run at full speed and never
   * stage through a bounce buffer. Costs about as much as one transfer, once per buffer: worth it
   * for buffers transferred repeatedly (a projection stack reconstructed again, an output volume
   * reused between updates). A refusal leaves the buffer pageable, which is only slower. */
  void
  PinHostBuffer();
  /** Undoes PinHostBuffer(); must happen before the host buffer is freed (CudaImage does it). */
  void
  UnpinHostBuffer();
  bool
  IsHostBufferPinned() const
  {
    return m_Pinned;
  }

  /** Frees the device buffer, downloading it first if it holds the only current copy. */
  void
  ReleaseDeviceBuffer();

protected:
  CudaDataManager() = default;
  ~CudaDataManager() override;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  void
  AllocateDevice();
  void
  Upload();

  std::mutex m_Mutex;
  void * m_Host = nullptr;
  void * m_Device = nullptr;
  std::size_t m_Bytes = 0;
  bool m_HostCurrent = true;
  bool m_DeviceCurrent = false;
  bool m_Pinned = false;
  unsigned int m_Uploads = 0;
  unsigned int m_Downloads = 0;
};

} // namespace cbct

#endif
