#ifndef cbctCudaIterativeSupport_h
#define cbctCudaIterativeSupport_h

// Host helpers of the CUDA iterative filters (CGLS, OSEM) and projection filters: uploads and
// downloads of whole images, and the deterministic squared norm of a device buffer.
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaVectorKernels.hcu"

#include <string>

namespace cbct
{

/** Copies `count` floats from the host to the device buffer `device` (synchronously). */
inline void
CudaUpload(float * device, const float * host, std::size_t count, const std::string & what)
{
  CudaCheck(cudaMemcpy(device, host, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy (" + what + ")",
            count * sizeof(float));
}

/** Copies `count` floats from the device to the host (synchronously: waits for the queued work). */
inline void
CudaDownload(float * host, const float * device, std::size_t count, const std::string & what)
{
  CudaCheck(cudaMemcpy(host, device, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy (" + what + ")",
            count * sizeof(float));
}

/** sum of v[i]^2 over a device buffer of `count` floats, in double; deterministic (LaunchSquaredNorm). */
class CudaSquaredNorm
{
public:
  CudaSquaredNorm()
    : m_Partials(CudaSquaredNormBlocks)
    , m_Result(1)
  {}
  double
  operator()(const float * v, std::size_t count)
  {
    CudaCheck(LaunchSquaredNorm(v, static_cast<long long>(count), m_Partials.Data(), m_Result.Data(), nullptr),
              "LaunchSquaredNorm");
    double result = 0.;
    CudaCheck(cudaMemcpy(&result, m_Result.Data(), sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (norm)",
              sizeof(double));
    return result;
  }

private:
  CudaDeviceBuffer<double> m_Partials;
  CudaDeviceBuffer<double> m_Result;
};

} // namespace cbct

#endif
