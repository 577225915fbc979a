#ifndef cbctCudaDevice_h
#define cbctCudaDevice_h

#include "ConeBeamCTExport.h"

#include <string>

namespace cbct
{

/** Whether this build has CUDA and a CUDA device can be used. When `description` is given it
 * receives the device's name, memory and compute capability, or why there is none
 * ("this build has no CUDA", "no CUDA device: <driver message>"). Safe to call in any build. */
ConeBeamCT_EXPORT bool
CudaDeviceAvailable(std::string * description = nullptr);

} // namespace cbct

#endif
