#ifndef cbctCudaRayThreads_cuh
#define cbctCudaRayThreads_cuh

/* How the ray-driven kernels (Joseph's, the ray caster's) spread rays over threads: one thread per
 * detector pixel, blocks of Columns x Rows pixels, one grid layer per projection of the subset.
 * CUDA only (included by .cu files). */

#include <cuda_runtime.h>

namespace cbct
{

template <int Columns, int Rows>
struct RayThreads
{
  static constexpr int Count = Columns * Rows;

  static dim3
  Block()
  {
    return dim3(Columns, Rows);
  }
  static dim3
  Grid(int columns, int rows, int projections)
  {
    return dim3((columns + Columns - 1) / Columns, (rows + Rows - 1) / Rows, projections);
  }
  /** This thread's pixel (i, j) and projection k of the launch's subset; false past the detector's
   * edge. */
  template <typename TLaunch>
  __device__ static bool
  Pixel(const TLaunch & p, int & i, int & j, unsigned int & k)
  {
    i = blockIdx.x * Columns + threadIdx.x;
    j = blockIdx.y * Rows + threadIdx.y;
    k = p.subset[blockIdx.z];
    return i < p.columns && j < p.rows;
  }
};

} // namespace cbct

#endif
