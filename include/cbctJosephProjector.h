#ifndef cbctJosephProjector_h
#define cbctJosephProjector_h

#include "cbctDetectorCoordinates.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_matrix_fixed.h>

#include <cmath>

namespace cbct
{

/** \class JosephProjector
 * \brief Joseph's ray discretisation, shared by the forward projector and its exact adjoint.
 *
 * A ray from the source through a detector pixel crosses the volume; along its dominant axis (in
 * voxel index space) it meets every slice once, and there the volume is interpolated bilinearly in
 * the slice plane (zero outside the volume). Each sample stands for the ray's length between two
 * slices (mm). Visit() calls `f(offset, weight)` for the four voxels of each sample, so the forward
 * projector sums weight * volume[offset] and the backprojector adds weight * value to
 * volume[offset]: the two are transposes of each other by construction.
 * \ingroup ConeBeamCT
 */
class JosephProjector
{
public:
  /** For `volume` (its grid) and projection k of `geometry` laid out as `projections`. */
  template <typename TVolume, typename TProjections>
  JosephProjector(const TVolume * volume, const TProjections * projections, const ThreeDCircularProjectionGeometry * geometry,
                  unsigned int k)
    : m_Detector(projections)
  {
    const auto & size = volume->GetLargestPossibleRegion().GetSize();
    const auto & start = volume->GetLargestPossibleRegion().GetIndex();
    for (unsigned int d = 0; d < 3; ++d)
    {
      m_Size[d] = static_cast<long>(size[d]);
      m_Stride[d] = d == 0 ? 1 : m_Stride[d - 1] * m_Size[d - 1];
      m_Start[d] = static_cast<double>(start[d]);
    }
    // World to voxel index: inverse of origin + direction * spacing * index.
    vnl_matrix_fixed<double, 3, 3> toWorld;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        toWorld(r, c) = volume->GetDirection()(r, c) * volume->GetSpacing()[c];
    m_ToIndex = vnl_matrix_inverse<double>(toWorld.as_ref()).as_matrix();
    for (unsigned int d = 0; d < 3; ++d)
      m_Origin[d] = volume->GetOrigin()[d];
    const auto & m = geometry->GetMatrix(k);
    vnl_matrix_fixed<double, 3, 3> left;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        left(r, c) = m(r, c);
    m_Inverse = vnl_matrix_inverse<double>(left.as_ref()).as_matrix();
    const auto s = geometry->GetSourcePosition(k);
    for (unsigned int d = 0; d < 3; ++d)
      m_Source[d] = s[d];
    m_Sdd = geometry->GetSourceToDetectorDistance(k);
  }

  /** The ray through pixel (i, j) in closed form, for the CUDA projector: the source in voxel index
   * coordinates `q0`, and 3x3 matrices (row major) taking (i, j, 1) to the ray's direction in voxel
   * index coordinates (`toIndex`) and in world mm (`toWorld`), as Visit() computes them. */
  void
  RayParameters(double q0[3], double toIndex[9], double toWorld[9]) const
  {
    const auto & d = m_Detector.IndexToPhysical();
    for (unsigned int r = 0; r < 3; ++r)
    {
      q0[r] = -m_Start[r];
      for (unsigned int c = 0; c < 3; ++c)
        q0[r] += m_ToIndex(r, c) * (m_Source[c] - m_Origin[c]);
      for (unsigned int c = 0; c < 3; ++c)
        toWorld[r * 3 + c] = -m_Sdd * (m_Inverse(r, 0) * d(0, c) + m_Inverse(r, 1) * d(1, c) + m_Inverse(r, 2) * d(2, c));
    }
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        toIndex[r * 3 + c] = m_ToIndex(r, 0) * toWorld[c] + m_ToIndex(r, 1) * toWorld[3 + c] + m_ToIndex(r, 2) * toWorld[6 + c];
  }

  /** Visits the samples of the ray through pixel (i, j) of the projection (pixel indices). */
  template <typename F>
  void
  Visit(double i, double j, F && f) const
  {
    const double u = m_Detector.U(i, j), v = m_Detector.V(i, j);
    double world[3], q0[3], dq[3];
    for (unsigned int r = 0; r < 3; ++r) // towards the detector point (see PhantomProjectionSource)
      world[r] = -m_Sdd * (m_Inverse(r, 0) * u + m_Inverse(r, 1) * v + m_Inverse(r, 2));
    const double length = std::sqrt(world[0] * world[0] + world[1] * world[1] + world[2] * world[2]);
    for (unsigned int r = 0; r < 3; ++r)
    {
      q0[r] = -m_Start[r];
      dq[r] = 0.;
      for (unsigned int c = 0; c < 3; ++c)
      {
        q0[r] += m_ToIndex(r, c) * (m_Source[c] - m_Origin[c]);
        dq[r] += m_ToIndex(r, c) * world[c];
      }
    }
    unsigned int a = 0;
    for (unsigned int d = 1; d < 3; ++d)
      if (std::abs(dq[d]) > std::abs(dq[a]))
        a = d;
    if (dq[a] == 0.)
      return;
    const unsigned int b = (a + 1) % 3, c = (a + 2) % 3;
    const double step = length / std::abs(dq[a]); // mm of ray per slice
    for (long s = 0; s < m_Size[a]; ++s)
    {
      const double t = (s - q0[a]) / dq[a];
      if (t < 0.)
        continue; // behind the source
      const double pb = q0[b] + t * dq[b], pc = q0[c] + t * dq[c];
      const double fb = std::floor(pb), fc = std::floor(pc);
      const long ib = static_cast<long>(fb), ic = static_cast<long>(fc);
      if (ib < -1 || ic < -1 || ib >= m_Size[b] || ic >= m_Size[c])
        continue;
      const double wb = pb - fb, wc = pc - fc;
      const long base = s * m_Stride[a];
      const double weights[4] = { (1. - wb) * (1. - wc) * step, wb * (1. - wc) * step, (1. - wb) * wc * step, wb * wc * step };
      const long db[4] = { 0, 1, 0, 1 }, dc[4] = { 0, 0, 1, 1 };
      for (int n = 0; n < 4; ++n)
      {
        const long xb = ib + db[n], xc = ic + dc[n];
        if (xb >= 0 && xc >= 0 && xb < m_Size[b] && xc < m_Size[c])
          f(base + xb * m_Stride[b] + xc * m_Stride[c], weights[n]);
      }
    }
  }

private:
  DetectorCoordinates m_Detector;
  long m_Size[3];
  long m_Stride[3];
  double m_Start[3];
  double m_Origin[3];
  double m_Source[3];
  double m_Sdd;
  vnl_matrix_fixed<double, 3, 3> m_ToIndex;
  vnl_matrix_fixed<double, 3, 3> m_Inverse;
};

} // namespace cbct

#endif
