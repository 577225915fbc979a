#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaDataManager.h"

#  include "cbctCudaCheck.h"

namespace cbct
{

CudaDataManager::~CudaDataManager()
{
  if (m_Pinned)
    cudaHostUnregister(m_Host);
  if (m_Device)
    cudaFree(m_Device); // no throwing from a destructor; a failure here leaves nothing to recover
}

void
CudaDataManager::SetHostBuffer(void * host, std::size_t bytes)
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_Pinned && (host != m_Host || bytes != m_Bytes))
  {
    cudaHostUnregister(m_Host);
    m_Pinned = false;
  }
  if (bytes != m_Bytes && m_Device)
  {
    cudaFree(m_Device);
    m_Device = nullptr;
  }
  m_Host = host;
  m_Bytes = bytes;
  m_HostCurrent = true;
  m_DeviceCurrent = false;
}

void
CudaDataManager::AllocateDevice()
{
  if (!m_Device && m_Bytes > 0)
    CudaCheck(cudaMalloc(&m_Device, m_Bytes), "cudaMalloc (image buffer)", m_Bytes);
}

void
CudaDataManager::Upload()
{
  this->AllocateDevice();
  if (!m_DeviceCurrent && m_Bytes > 0)
  {
    CudaCheck(cudaMemcpy(m_Device, m_Host, m_Bytes, cudaMemcpyHostToDevice), "cudaMemcpy (upload image)", m_Bytes);
    ++m_Uploads;
  }
  m_DeviceCurrent = true;
}

const void *
CudaDataManager::DeviceBufferForRead()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  this->Upload();
  return m_Device;
}

void *
CudaDataManager::DeviceBufferForWrite()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  this->AllocateDevice();
  m_DeviceCurrent = true;
  m_HostCurrent = false;
  return m_Device;
}

void *
CudaDataManager::DeviceBufferForReadWrite()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  this->Upload();
  m_HostCurrent = false;
  return m_Device;
}

void
CudaDataManager::SynchronizeHost()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_HostCurrent || !m_Device || !m_Host)
  {
    m_HostCurrent = true;
    return;
  }
  CudaCheck(cudaMemcpy(m_Host, m_Device, m_Bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (download image)", m_Bytes);
  ++m_Downloads;
  m_HostCurrent = true;
}

void
CudaDataManager::MarkHostModified()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  m_HostCurrent = true;
  m_DeviceCurrent = false;
}

void
CudaDataManager::PinHostBuffer()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_Pinned || !m_Host || m_Bytes == 0)
    return;
  // Portable: page-locked for every device, so that several GPUs may read and write it at full speed.
  if (cudaHostRegister(m_Host, m_Bytes, cudaHostRegisterPortable) == cudaSuccess)
    m_Pinned = true;
  else
    cudaGetLastError(); // e.g. already registered elsewhere, or no room to lock: stay pageable
}

void
CudaDataManager::UnpinHostBuffer()
{
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_Pinned)
    cudaHostUnregister(m_Host);
  m_Pinned = false;
}

void
CudaDataManager::ReleaseDeviceBuffer()
{
  this->SynchronizeHost();
  std::lock_guard<std::mutex> lock(m_Mutex);
  if (m_Device)
    CudaCheck(cudaFree(m_Device), "cudaFree (image buffer)", m_Bytes);
  m_Device = nullptr;
  m_DeviceCurrent = false;
}

void
CudaDataManager::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Bytes: " << m_Bytes << ", host current: " << m_HostCurrent << ", device current: " << m_DeviceCurrent
     << ", uploads: " << m_Uploads << ", downloads: " << m_Downloads << std::endl;
}

} // namespace cbct

#endif
