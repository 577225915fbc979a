#include "cbctEmissionLattice.h"

#include "cbctDetectorCoordinates.h"
#include "cbctDiscreteGaussianKernel.h"
#include "cbctInputChecks.h"

#include <vnl/algo/vnl_determinant.h>
#include <vnl/algo/vnl_matrix_inverse.h>
#include <vnl/vnl_cross.h>
#include <vnl/vnl_matrix_fixed.h>
#include <vnl/vnl_vector_fixed.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace cbct
{

namespace
{
using Vector3 = vnl_vector_fixed<double, 3>;
using Matrix3 = vnl_matrix_fixed<double, 3, 3>;

/** Index (local, from 0) to world of a grid: X = origin + W (x + start). */
struct Grid
{
  Matrix3 toWorld;
  Vector3 origin; // world of local index (0, 0, 0)
  int size[3] = { 0, 0, 0 };

  explicit Grid(const itk::ImageBase<3> * image)
  {
    const auto & region = image->GetLargestPossibleRegion();
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 3; ++c)
        toWorld(r, c) = image->GetDirection()(r, c) * image->GetSpacing()[c];
    Vector3 start;
    for (unsigned int d = 0; d < 3; ++d)
    {
      start(d) = static_cast<double>(region.GetIndex(d));
      size[d] = static_cast<int>(region.GetSize(d));
    }
    for (unsigned int d = 0; d < 3; ++d)
      origin(d) = image->GetOrigin()[d];
    origin += toWorld * start;
  }
  Vector3
  World(double x, double y, double z) const
  {
    return origin + toWorld * Vector3(x, y, z);
  }
  /** Smallest and largest n . (X - p) over the voxel centres' corners. */
  void
  DepthRange(const Vector3 & n, const Vector3 & p, double & low, double & high) const
  {
    low = 1e300;
    high = -1e300;
    for (int c = 0; c < 8; ++c)
    {
      const double t = dot_product(n, this->World((c & 1) ? size[0] - 1 : 0, (c & 2) ? size[1] - 1 : 0, (c & 4) ? size[2] - 1 : 0) - p);
      low = std::min(low, t);
      high = std::max(high, t);
    }
  }
};

Vector3
ToVector(const ThreeDCircularProjectionGeometry::PointType & p)
{
  return Vector3(p[0], p[1], p[2]);
}

void
Store(const Vector3 & v, float out[3])
{
  for (int d = 0; d < 3; ++d)
    out[d] = static_cast<float>(v(d));
}
} // namespace

void
CollimatorBlur::Check() const
{
  if (!std::isfinite(sigma0) || sigma0 < 0.)
    ThrowBadParameter("collimator blur sigma0 (mm)", sigma0, "a finite value >= 0");
  if (!std::isfinite(slope) || slope < 0.)
    ThrowBadParameter("collimator blur slope (mm of sigma per mm of distance)", slope, "a finite value >= 0");
}

void
EmissionLattice::CheckAttenuation(const itk::Image<float, 3> * mu)
{
  const float * p = mu->GetBufferPointer();
  const std::size_t n = mu->GetBufferedRegion().GetNumberOfPixels();
  for (std::size_t i = 0; i < n; ++i)
    if (!(p[i] >= 0.f) || !std::isfinite(p[i]))
    {
      const auto index = mu->ComputeIndex(static_cast<itk::OffsetValueType>(i));
      std::ostringstream where;
      where << "attenuation map at voxel (" << index[0] << ", " << index[1] << ", " << index[2] << ")";
      ThrowBadParameter(where.str(), p[i], "a finite value >= 0 (linear attenuation coefficient per mm)");
    }
}

EmissionLattice::EmissionLattice(const itk::ImageBase<3> * activity,
                                 const itk::ImageBase<3> * attenuation,
                                 const itk::ImageBase<3> * projections,
                                 const ThreeDCircularProjectionGeometry * geometry,
                                 const CollimatorBlur & blur)
{
  blur.Check();
  const Grid act(activity);
  for (int d = 0; d < 3; ++d)
    m_ActivitySize[d] = act.size[d];
  if (act.size[0] * static_cast<long long>(act.size[1]) * act.size[2] == 0)
    ThrowBadParameter("activity volume size", activity->GetLargestPossibleRegion().GetSize(), "a volume with voxels");
  const Grid mu(attenuation != nullptr ? attenuation : activity);
  if (attenuation != nullptr)
    for (int d = 0; d < 3; ++d)
      m_AttenuationSize[d] = mu.size[d];
  const Matrix3 muToIndex = vnl_matrix_inverse<double>(mu.toWorld.as_ref()).as_matrix();
  auto muIndex = [&](const Vector3 & world) { return Vector3(muToIndex * (world - mu.origin)); };

  const DetectorCoordinates detector(projections);
  const auto & region = projections->GetLargestPossibleRegion();
  m_Columns = static_cast<int>(region.GetSize(0));
  m_Rows = static_cast<int>(region.GetSize(1));
  const double firstColumn = static_cast<double>(region.GetIndex(0)), firstRow = static_cast<double>(region.GetIndex(1));

  // Slices one smallest activity voxel spacing apart.
  const double step =
    std::min({ activity->GetSpacing()[0], activity->GetSpacing()[1], activity->GetSpacing()[2] });
  const double voxelVolume = std::abs(vnl_determinant(act.toWorld));

  std::map<double, std::pair<int, int>> kernels; // pixel variance -> (first tap, radius)
  auto kernel = [&](double variance) {
    auto found = kernels.find(variance);
    if (found != kernels.end())
      return found->second;
    const std::vector<double> taps = DiscreteGaussianKernel(variance);
    const std::pair<int, int> entry(static_cast<int>(m_Taps.size()), static_cast<int>(taps.size()) - 1);
    for (double t : taps)
      m_Taps.push_back(static_cast<float>(t));
    kernels[variance] = entry;
    return entry;
  };
  auto sigma = [&](double depth) { return blur.sigma0 + blur.slope * depth; };

  const unsigned int count = geometry->GetNumberOfProjections();
  m_Views.resize(count);
  for (unsigned int k = 0; k < count; ++k)
  {
    EmissionView & v = m_Views[k];
    v.parallel = geometry->IsParallel(k) ? 1 : 0;
    auto point = [&](double i, double j) {
      return ToVector(geometry->GetDetectorPoint(k, detector.U(firstColumn + i, firstRow + j), detector.V(firstColumn + i, firstRow + j)));
    };
    const Vector3 d00 = point(0., 0.), di = point(1., 0.) - d00, dj = point(0., 1.) - d00;
    const auto along = geometry->GetRayDirection(k);
    const Vector3 normal(-along[0], -along[1], -along[2]); // from the detector towards the source's side
    const Vector3 source = ToVector(geometry->GetSourcePosition(k));
    const double sdd = geometry->GetSourceToDetectorDistance(k);
    v.sdd = static_cast<float>(sdd);

    // The slices: from the farthest activity voxel towards the detector, down to the attenuation
    // map's near side, not behind the detector plane (nor, in cone beam, within a slice of the source).
    double actLow, actHigh, muLow, muHigh;
    act.DepthRange(normal, d00, actLow, actHigh);
    mu.DepthRange(normal, d00, muLow, muHigh);
    const double low = std::max(0., attenuation != nullptr ? std::min(actLow, muLow) : actLow);
    const double high = v.parallel ? actHigh : std::min(actHigh, sdd - step);
    v.step = static_cast<float>(step);
    if (high < low)
    {
      v.slices = 0;
      v.tFirst = 0.f;
    }
    else
    {
      v.slices = static_cast<int>(std::floor((high - low) / step + 1e-6)) + 1;
      v.tFirst = static_cast<float>(high - (v.slices - 1) * step);
    }

    // Activity voxel index -> lattice pixel: parallel, X = d00 + i di + j dj + t normal; cone beam,
    // X - S = mu (d00 + i di + j dj - S), as homogeneous (i w, j w, w) with w = -mu < 0 in front.
    Matrix3 frame;
    frame.set_column(0, di);
    frame.set_column(1, dj);
    frame.set_column(2, v.parallel ? normal : Vector3(d00 - source));
    const Matrix3 inverse = vnl_matrix_inverse<double>(frame.as_ref()).as_matrix();
    const Vector3 anchor = v.parallel ? d00 : source;
    const Matrix3 linear = (v.parallel ? 1. : -1.) * inverse * act.toWorld;
    const Vector3 shift = (v.parallel ? 1. : -1.) * inverse * (act.origin - anchor);
    for (int r = 0; r < 3; ++r)
    {
      for (int c = 0; c < 3; ++c)
        v.toPixel[4 * r + c] = static_cast<float>(linear(r, c));
      v.toPixel[4 * r + 3] = static_cast<float>(shift(r));
    }
    if (v.parallel) // exactly w = 1
    {
      v.toPixel[8] = v.toPixel[9] = v.toPixel[10] = 0.f;
      v.toPixel[11] = 1.f;
    }
    const Vector3 slicePerIndex = act.toWorld.transpose() * normal / step;
    for (int c = 0; c < 3; ++c)
      v.toSlice[c] = static_cast<float>(slicePerIndex(c));
    v.toSlice[3] = static_cast<float>((dot_product(normal, act.origin - d00) - v.tFirst) / step);

    Store(muIndex(d00), v.muOrigin);
    Store(muToIndex * di, v.muStepI);
    Store(muToIndex * dj, v.muStepJ);
    Store(v.parallel ? Vector3(muToIndex * normal) : muIndex(source), v.muTowards);
    Store(d00, v.worldOrigin);
    Store(di, v.worldStepI);
    Store(dj, v.worldStepJ);
    Store(source, v.worldSource);
    v.sampleScale = static_cast<float>(voxelVolume / vnl_cross_3d(di, dj).magnitude());

    // Blur steps: the increment from slice s + 1 to s, and the last one (to the detector) sigma(t_0).
    v.blurFirst = static_cast<int>(m_BlurSteps.size());
    const double du2 = di.squared_magnitude(), dv2 = dj.squared_magnitude();
    for (int s = 0; s < v.slices; ++s)
    {
      double variance = 0.;
      if (blur.IsOn())
      {
        const double first = sigma(v.tFirst), near = sigma(v.tFirst + s * step);
        variance = s + 1 < v.slices ? std::pow(sigma(v.tFirst + (s + 1) * step), 2) - near * near : first * first;
        variance = std::max(variance, 0.);
      }
      const auto u = kernel(variance / du2), w = kernel(variance / dv2);
      m_BlurSteps.push_back(EmissionBlurStep{ u.first, u.second, w.first, w.second });
    }
  }
}

} // namespace cbct
