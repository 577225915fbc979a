#ifndef cbctCudaFourDOperations_h
#define cbctCudaFourDOperations_h

#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFourDROOSTER.hcu"

#include <memory>
#include <vector>

namespace cbct
{

/** \class CudaFourDOperations
 * \brief FourDOperations on the GPU: the same calls on device buffers (CudaDeviceBuffer<float>),
 * queued on the default stream, with the CPU's float arithmetic (cbctCudaFourDROOSTER.hcu). The
 * frames' weights are uploaded once; the temporal total variation's dual (one 4D volume) is
 * allocated on its first use.
 * \ingroup ConeBeamCT
 */
class CudaFourDOperations
{
public:
  using Vector = CudaDeviceBuffer<float>;

  CudaFourDOperations(const std::vector<std::vector<float>> & frameWeights, std::size_t pixelsPerProjection, std::size_t voxels)
    : m_PixelsPerProjection(pixelsPerProjection)
    , m_Voxels(voxels)
  {
    for (const std::vector<float> & weights : frameWeights)
    {
      m_Weights.emplace_back(new CudaDeviceBuffer<float>());
      m_Weights.back()->Upload(weights);
      m_Counts.push_back(static_cast<int>(weights.size()));
    }
  }

  /** `count` frames of Voxels() floats on the device. */
  std::vector<Vector>
  MakeFrames(unsigned int count) const
  {
    std::vector<Vector> frames(count);
    for (Vector & frame : frames)
      frame.Reserve(m_Voxels, "4D volume frame");
    return frames;
  }

  void
  WeightFrame(unsigned int frame, const Vector & in, Vector & out, bool add) const
  {
    CudaFrameWeighting w;
    w.in = in.Data();
    w.out = out.Data();
    w.weights = m_Weights[frame]->Data();
    w.count = m_Counts[frame];
    w.pixelsPerProjection = static_cast<long long>(m_PixelsPerProjection);
    w.add = add ? 1 : 0;
    CudaCheck(LaunchFrameWeighting(w, nullptr), "LaunchFrameWeighting");
  }

  void
  ClampNonNegative(Vector & v) const
  {
    CudaCheck(LaunchClampNonNegative(v.Data(), static_cast<long long>(m_Voxels), nullptr), "LaunchClampNonNegative");
  }

  void
  AverageOutsideMask(std::vector<Vector> & frames, const Vector & mask)
  {
    CudaCheck(LaunchAverageOutsideMask(this->Frames(frames), mask.Data(), nullptr), "LaunchAverageOutsideMask");
  }

  void
  TemporalTotalVariation(std::vector<Vector> & frames, double lambda, unsigned int iterations)
  {
    if (frames.size() < 2 || iterations == 0)
      return;
    m_Dual.Reserve(frames.size() * m_Voxels, "temporal total variation dual");
    CudaTemporalTV tv;
    tv.frames = this->Frames(frames);
    tv.dual = m_Dual.Data();
    tv.lambda = static_cast<float>(lambda);
    tv.scale = static_cast<float>(-1. / lambda);
    tv.iterations = static_cast<int>(iterations);
    CudaCheck(LaunchTemporalTotalVariation(tv, nullptr), "LaunchTemporalTotalVariation");
  }

private:
  /** The frames' device pointers, uploaded (once per set of frames). */
  CudaFrames
  Frames(std::vector<Vector> & frames)
  {
    std::vector<float *> pointers;
    for (Vector & frame : frames)
      pointers.push_back(frame.Data());
    if (pointers != m_HostPointers)
    {
      m_Pointers.Upload(pointers);
      m_HostPointers = pointers;
    }
    CudaFrames f;
    f.frames = m_Pointers.Data();
    f.count = static_cast<int>(frames.size());
    f.voxels = static_cast<long long>(m_Voxels);
    return f;
  }

  std::vector<std::unique_ptr<CudaDeviceBuffer<float>>> m_Weights;
  std::vector<int> m_Counts;
  std::size_t m_PixelsPerProjection;
  std::size_t m_Voxels;
  CudaDeviceBuffer<float *> m_Pointers;
  std::vector<float *> m_HostPointers;
  CudaDeviceBuffer<float> m_Dual;
};

} // namespace cbct

#endif
