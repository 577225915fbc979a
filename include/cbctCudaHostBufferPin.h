#ifndef cbctCudaHostBufferPin_h
#define cbctCudaHostBufferPin_h

#include <cuda_runtime_api.h>
#include <itkMacro.h>

#include <cstddef>

namespace cbct
{

/** \class CudaHostBufferPin
 * \brief Page-locks a host buffer while it lives (cudaHostRegister), when it can, so that repeated
 * transfers to and from it run at the bus's speed instead of staging through a bounce buffer. A
 * refusal (the buffer already registered, no room to lock) leaves it pageable, which is only slower.
 * For buffers the caller owns (CudaDataManager::PinHostBuffer() pins a CudaImage's own).
 * \ingroup ConeBeamCT
 */
class CudaHostBufferPin
{
public:
  CudaHostBufferPin(void * host, std::size_t bytes)
  {
    if (host != nullptr && bytes > 0)
    {
      if (cudaHostRegister(host, bytes, cudaHostRegisterPortable) == cudaSuccess)
        m_Host = host;
      else
        cudaGetLastError();
    }
  }
  ~CudaHostBufferPin()
  {
    if (m_Host != nullptr)
      cudaHostUnregister(m_Host);
  }
  ITK_DISALLOW_COPY_AND_MOVE(CudaHostBufferPin);

private:
  void * m_Host = nullptr;
};

} // namespace cbct

#endif
