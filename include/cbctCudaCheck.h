#ifndef cbctCudaCheck_h
#define cbctCudaCheck_h

#include "ConeBeamCTExport.h"

#include <cuda_runtime.h> // make_cudaExtent, cudaCreateChannelDesc<T>: host helpers g++ compiles too
#include <cufft.h>

#include <cstddef>
#include <string>

namespace cbct
{

/** Turns a failed CUDA runtime call into an itk::ExceptionObject naming the call, the bytes it
 * concerned and, for out of memory, how much the device has free. Host code only: kernels and
 * launchers in .cu files return cudaError_t and never see ITK. */
ConeBeamCT_EXPORT void
CudaCheck(cudaError_t status, const std::string & call, std::size_t bytes = 0);

/** The same for cuFFT. */
ConeBeamCT_EXPORT void
CufftCheck(cufftResult status, const std::string & call, std::size_t bytes = 0);

/** Device memory free and total, in bytes. */
ConeBeamCT_EXPORT void
CudaMemoryInfo(std::size_t & freeBytes, std::size_t & totalBytes);

/** "1.50 GiB" style sizes for messages. */
ConeBeamCT_EXPORT std::string
FormatBytes(std::size_t bytes);

} // namespace cbct

#endif
