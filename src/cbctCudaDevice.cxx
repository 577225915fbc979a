#include "cbctCudaDevice.h"

#include "cbctConfiguration.h"

#if CBCT_USE_CUDA
#  include <cuda_runtime_api.h>
#endif

#include "cbctInputChecks.h"

#include <sstream>

namespace cbct
{

bool
CudaDeviceAvailable(std::string * description)
{
#if CBCT_USE_CUDA
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0)
  {
    if (description)
      *description = std::string("no CUDA device: ") + (status != cudaSuccess ? cudaGetErrorString(status) : "none found");
    cudaGetLastError(); // clear the sticky-free error so later calls start clean
    return false;
  }
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess)
  {
    if (description)
      *description = "no CUDA device: properties unreadable";
    return false;
  }
  if (description)
  {
    std::ostringstream text;
    text << properties.name << " (" << properties.totalGlobalMem / (1024 * 1024) << " MiB, compute capability "
         << properties.major << "." << properties.minor << ")";
    *description = text.str();
  }
  return true;
#else
  if (description)
    *description = "this build has no CUDA";
  return false;
#endif
}

void
CheckCudaDevices(const std::vector<int> & devices)
{
  int available = 0;
#if CBCT_USE_CUDA
  if (cudaGetDeviceCount(&available) != cudaSuccess)
  {
    cudaGetLastError();
    available = 0;
  }
#endif
  for (int d : devices)
    if (d < 0 || d >= available)
      ThrowBadParameter("CUDA device", d, "a device index below the number of devices (" + std::to_string(available) + ")");
}

} // namespace cbct
