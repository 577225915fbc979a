#ifndef cbctCudaDevice_h
#define cbctCudaDevice_h

#include "ConeBeamCTExport.h"

#include <string>
#include <vector>

namespace cbct
{

/** Whether this build has CUDA and a CUDA device can be used. When `description` is given it
 * receives the device's name, memory and compute capability, or why there is none
 * ("this build has no CUDA", "no CUDA device: <driver message>"). Safe to call in any build. */
ConeBeamCT_EXPORT bool
CudaDeviceAvailable(std::string * description = nullptr);

/** Throws itk::ExceptionObject naming the first index of `devices` that is not a CUDA device of this
 * machine (a build without CUDA has none). */
ConeBeamCT_EXPORT void
CheckCudaDevices(const std::vector<int> & devices);

} // namespace cbct

#endif
