#ifndef cbctAppRanks_h
#define cbctAppRanks_h

// Several GPUs and several processes for the reconstruction apps: --gpus, and the MPI job an app runs
// in when mpirun starts it (one rank, one slab of the volume; built with MPI only).
#include "cbctAppSupport.h"
#include "cbctConfiguration.h"

#if CBCT_USE_MPI
#  include "cbctMPIContext.h"
#endif
#if CBCT_USE_CUDA
#  include <cuda_runtime_api.h>
#endif

#include <functional>
#include <memory>

namespace cbct::apps
{

/** The devices of --gpus: "all", or a comma-separated list of device indices (as nvidia-smi counts
 * them, after CUDA_VISIBLE_DEVICES). Empty text: empty list (the filter's default, the first device). */
inline std::vector<int>
ParseGpus(const std::string & text)
{
  if (text.empty())
    return {};
  int count = 0;
#if CBCT_USE_CUDA
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError();
    count = 0;
  }
#else
  Bad("--gpus", Quoted(text), "no --gpus: this build has no CUDA");
#endif
  std::vector<int> devices;
  if (text == "all")
  {
    for (int d = 0; d < count; ++d)
      devices.push_back(d);
    if (devices.empty())
      Bad("--gpus", Quoted(text), "CUDA devices to use, but none is available");
    return devices;
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
  {
    char * end = nullptr;
    const long d = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || d < 0 || d >= count)
      Bad("--gpus", Quoted(text),
          "all, or device indices separated by commas, each below the number of CUDA devices (" + std::to_string(count) + ")");
    devices.push_back(static_cast<int>(d));
  }
  return devices;
}

/** Every CUDA device, or none in a build without CUDA or on a machine without a device. */
inline std::vector<int>
ParseGpusIfAny()
{
  int count = 0;
#if CBCT_USE_CUDA
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError();
    count = 0;
  }
#endif
  std::vector<int> devices;
  for (int d = 0; d < count; ++d)
    devices.push_back(d);
  return devices;
}

/** The MPI job this process belongs to (a job of one when mpirun did not start it, or the build has
 * no MPI): its rank, its size, and the prefix of its --verbose lines. */
class AppRanks
{
public:
  AppRanks(int * argc, char *** argv)
  {
#if CBCT_USE_MPI
    m_Context = std::make_unique<cbct::MPIContext>(argc, argv);
#else
    (void)argc;
    (void)argv;
#endif
  }

  int
  Rank() const
  {
#if CBCT_USE_MPI
    return m_Context->Rank();
#else
    return 0;
#endif
  }
  int
  Size() const
  {
#if CBCT_USE_MPI
    return m_Context->Size();
#else
    return 1;
#endif
  }
  int
  LocalRank() const
  {
#if CBCT_USE_MPI
    return m_Context->LocalRank();
#else
    return 0;
#endif
  }
  bool
  Distributed() const
  {
    return this->Size() > 1;
  }
  /** "cbct-fdk" alone, or "cbct-fdk [rank 1 of 4]". */
  std::string
  Prefix(const std::string & app) const
  {
    return this->Distributed() ? app + " [rank " + std::to_string(this->Rank()) + " of " + std::to_string(this->Size()) + "]"
                               : app;
  }

  /** Runs `work` on every rank; when any rank fails, rank 0 throws Error("rank R: <message>") (the
   * app prints it once) and the others return 1 quietly. Collective. */
  int
  Collectively(const std::function<void()> & work) const
  {
    std::string message;
    try
    {
      work();
    }
    catch (const Error & e)
    {
      message = e.what();
    }
    catch (const itk::ExceptionObject & e)
    {
      message = WithoutItkPrefix(e.GetDescription());
    }
    catch (const std::bad_alloc &)
    {
      message = "out of memory (try more MPI ranks, a smaller volume or more --divisions)";
    }
    catch (const std::exception & e)
    {
      message = e.what();
    }
#if CBCT_USE_MPI
    std::string failure;
    if (cbct::MPIContext::AgreeOnSuccess(MPI_COMM_WORLD, message.empty(), message, failure))
      return 0;
    if (this->Rank() == 0)
      throw Error(this->Distributed() ? failure : message);
    return 1;
#else
    if (!message.empty())
      throw Error(message);
    return 0;
#endif
  }

private:
#if CBCT_USE_MPI
  std::unique_ptr<cbct::MPIContext> m_Context;
#endif
};

} // namespace cbct::apps

#endif
