#ifndef cbctCudaDeviceBuffer_h
#define cbctCudaDeviceBuffer_h

#include "cbctCudaCheck.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class CudaDeviceBuffer
 * \brief An owned device array of T that grows on demand (work buffers, parameter arrays).
 * Allocation failures throw with the size asked and the memory free.
 * \ingroup ConeBeamCT
 */
template <typename T>
class CudaDeviceBuffer
{
public:
  CudaDeviceBuffer() = default;
  explicit CudaDeviceBuffer(std::size_t count) { this->Reserve(count); }
  ~CudaDeviceBuffer()
  {
    if (m_Data)
      cudaFree(m_Data);
  }
  CudaDeviceBuffer(const CudaDeviceBuffer &) = delete;
  CudaDeviceBuffer &
  operator=(const CudaDeviceBuffer &) = delete;

  /** At least `count` elements; previous contents are lost when it grows. */
  void
  Reserve(std::size_t count, const std::string & what = "work buffer")
  {
    if (count <= m_Capacity)
      return;
    if (m_Data)
      cudaFree(m_Data);
    m_Data = nullptr;
    m_Capacity = 0;
    CudaCheck(cudaMalloc(reinterpret_cast<void **>(&m_Data), count * sizeof(T)), "cudaMalloc (" + what + ")",
              count * sizeof(T));
    m_Capacity = count;
  }

  /** Copies `values` to the device (synchronously; for small parameter arrays). */
  void
  Upload(const std::vector<T> & values)
  {
    this->Reserve(values.size(), "parameters");
    if (!values.empty())
    {
      CudaCheck(cudaMemcpy(m_Data, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice),
                "cudaMemcpy (parameters)", values.size() * sizeof(T));
      // From pageable memory cudaMemcpy may return once the values are staged, before they reach the
      // device; kernels on non-blocking streams (the FDK pipeline's) are not ordered after it. Wait
      // for the copy itself.
      CudaCheck(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize (parameters)");
    }
  }

  T *
  Data() const
  {
    return m_Data;
  }
  std::size_t
  Capacity() const
  {
    return m_Capacity;
  }

private:
  T * m_Data = nullptr;
  std::size_t m_Capacity = 0;
};

} // namespace cbct

#endif
