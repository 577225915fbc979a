#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaCheck.h"

#  include <itkMacro.h>

#  include <cstdio>
#  include <sstream>

namespace cbct
{

std::string
FormatBytes(std::size_t bytes)
{
  char text[64];
  const double b = static_cast<double>(bytes);
  if (b >= 1024. * 1024. * 1024.)
    std::snprintf(text, sizeof(text), "%.2f GiB", b / (1024. * 1024. * 1024.));
  else if (b >= 1024. * 1024.)
    std::snprintf(text, sizeof(text), "%.1f MiB", b / (1024. * 1024.));
  else
    std::snprintf(text, sizeof(text), "%zu bytes", bytes);
  return text;
}

void
CudaMemoryInfo(std::size_t & freeBytes, std::size_t & totalBytes)
{
  freeBytes = totalBytes = 0;
  if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess)
    cudaGetLastError();
}

void
CudaCheck(cudaError_t status, const std::string & call, std::size_t bytes)
{
  if (status == cudaSuccess)
    return;
  cudaGetLastError(); // clear non-sticky errors so the caller may recover (e.g. with more slabs)
  std::ostringstream message;
  message << "CUDA call " << call << " failed: " << cudaGetErrorString(status);
  if (bytes > 0)
    message << " (" << FormatBytes(bytes) << " requested";
  if (status == cudaErrorMemoryAllocation)
  {
    std::size_t freeBytes = 0, totalBytes = 0;
    CudaMemoryInfo(freeBytes, totalBytes);
    message << (bytes > 0 ? ", " : " (") << FormatBytes(freeBytes) << " free of " << FormatBytes(totalBytes);
  }
  if (bytes > 0 || status == cudaErrorMemoryAllocation)
    message << ")";
  if (status == cudaErrorMemoryAllocation) // callers may fall back to smaller pieces
    throw itk::MemoryAllocationError(__FILE__, __LINE__, message.str(), ITK_LOCATION);
  itkGenericExceptionMacro(<< message.str());
}

void
CufftCheck(cufftResult status, const std::string & call, std::size_t bytes)
{
  if (status == CUFFT_SUCCESS)
    return;
  std::ostringstream message;
  message << "cuFFT call " << call << " failed with cufftResult " << static_cast<int>(status);
  if (status == CUFFT_ALLOC_FAILED)
  {
    std::size_t freeBytes = 0, totalBytes = 0;
    CudaMemoryInfo(freeBytes, totalBytes);
    message << " (out of device memory";
    if (bytes > 0)
      message << ": " << FormatBytes(bytes) << " requested";
    message << ", " << FormatBytes(freeBytes) << " free)";
    throw itk::MemoryAllocationError(__FILE__, __LINE__, message.str(), ITK_LOCATION);
  }
  itkGenericExceptionMacro(<< message.str());
}

} // namespace cbct

#endif
