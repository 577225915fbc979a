// cbct-bench --method helical: helical FDK of a clinical-like scan (problem H): 4000 projections of
// 736 x 64 pixels on a cylindrical detector centred on the source (R = SDD 1085.6 mm, SID 595 mm: a
// 64-row CT scanner's), 1000 a turn over 4 turns at pitch --pitch (1 by default: 35.1 mm per turn, the
// 64 rows of 1.0 mm at the detector being 35.1 mm at the isocentre), reconstructed on 512 x 1024 x 512
// voxels (x, y along the axis, z) of 0.5 mm across and the helix's travel over 1024 along it. Host to
// host (the projections in host memory, the volume back in host memory), warm, median of the timed
// runs; the stage times are the CUDA FDK's. The projections are a smooth synthetic pattern (the speed
// does not depend on the values): cbctHelicalFDKTest measures the accuracy.

#include "cbctBench.h"

#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctHelicalFDK.h"
#include "cbctThreeDCircularProjectionGeometry.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace cbct::bench
{
namespace
{

struct HelicalProblem
{
  static constexpr unsigned int Columns = 736, Rows = 64, Views = 4000, PerTurn = 1000;
  static constexpr double Sid = 595., Sdd = 1085.6, ColumnMm = 0.7, RowMm = 1.0, VoxelMm = 0.5;
  static constexpr unsigned int Across = 512, Along = 1024;

  static ThreeDCircularProjectionGeometry::Pointer
  Geometry(double pitch)
  {
    const double feed = pitch * Rows * RowMm * Sid / Sdd;
    const double travel = feed * (Views - 1.) / PerTurn;
    auto geometry = ThreeDCircularProjectionGeometry::New();
    geometry->SetRadiusCylindricalDetector(Sdd);
    for (unsigned int k = 0; k < Views; ++k)
    {
      const double table = feed * k / PerTurn - 0.5 * travel;
      geometry->AddProjection(Sid, Sdd, 360. * k / PerTurn, 0., table, 0., 0., 0., table);
    }
    return geometry;
  }
};

inline double
HelicalMedian(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v.empty() ? 0. : v[v.size() / 2];
}

/** Times helical FDK (TFDK on TImage) on problem H: one JSON line per timed run and one for the median. */
template <typename TImage, typename TFDK>
void
RunHelicalOn(const std::string & hardware, const std::string & device, unsigned int runs, double pitch)
{
  using P = HelicalProblem;
  auto geometry = P::Geometry(pitch);
  auto projections = TImage::New();
  projections->SetRegions(typename TImage::SizeType{ { P::Columns, P::Rows, P::Views } });
  typename TImage::SpacingType spacing;
  spacing[0] = P::ColumnMm;
  spacing[1] = P::RowMm;
  spacing[2] = 1.;
  projections->SetSpacing(spacing);
  typename TImage::PointType origin;
  origin[0] = -0.5 * (P::Columns - 1.) * P::ColumnMm;
  origin[1] = -0.5 * (P::Rows - 1.) * P::RowMm;
  origin[2] = 0.;
  projections->SetOrigin(origin);
  projections->Allocate();
  float * values = projections->GetBufferPointer();
  for (std::size_t k = 0; k < P::Views; ++k)
    for (std::size_t j = 0; j < P::Rows; ++j)
      for (std::size_t i = 0; i < P::Columns; ++i)
      {
        const double u = (i - 0.5 * (P::Columns - 1.)) / (0.4 * P::Columns);
        values[(k * P::Rows + j) * P::Columns + i] = static_cast<float>(std::abs(u) < 1. ? 20. * std::sqrt(1. - u * u) : 0.);
      }

  const double feed = pitch * P::Rows * P::RowMm * P::Sid / P::Sdd;
  const double travel = feed * (P::Views - 1.) / P::PerTurn;
  auto zero = ConstantImageSource<TImage>::New();
  typename TImage::SpacingType voxel;
  voxel[0] = voxel[2] = P::VoxelMm;
  voxel[1] = travel / P::Along;
  typename TImage::PointType volumeOrigin;
  volumeOrigin[0] = volumeOrigin[2] = -0.5 * (P::Across - 1.) * P::VoxelMm;
  volumeOrigin[1] = -0.5 * (P::Along - 1.) * voxel[1];
  zero->SetSize(typename TImage::SizeType{ { P::Across, P::Along, P::Across } });
  zero->SetSpacing(voxel);
  zero->SetOrigin(volumeOrigin);

  auto fdk = TFDK::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  std::vector<double> totals, backprojections;
  for (unsigned int r = 0; r <= runs; ++r) // run 0 is the untimed warm-up
  {
    projections->GetBufferPointer(); // host access: a CudaImage's device copy is now stale
    projections->Modified();
    fdk->Modified();
    fdk->ResetStageTimes();
    const auto start = std::chrono::steady_clock::now();
    fdk->Update();
    volatile float touch = fdk->GetOutput()->GetBufferPointer()[0]; // the volume in host memory
    (void)touch;
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r == 0)
      continue;
    totals.push_back(total);
    backprojections.push_back(fdk->GetBackProjectionTime());
    std::printf("{\"problem\":\"H\",\"method\":\"helical-fdk\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"%u\",\"pitch\":%.3g,"
                "\"projections\":%u,\"detector\":\"%ux%u cylinder R %.1f\",\"volume\":\"%ux%ux%u\",\"total_s\":%.4f,"
                "\"upload_s\":%.4f,\"weighting_s\":%.4f,\"filtering_s\":%.4f,\"backprojection_s\":%.4f,\"download_s\":%.4f}\n",
                hardware.c_str(), device.c_str(), r, pitch, P::Views, P::Columns, P::Rows, P::Sdd, P::Across, P::Across,
                P::Along, total, fdk->GetUploadTime(), fdk->GetWeightingTime(), fdk->GetFilteringTime(),
                fdk->GetBackProjectionTime(), fdk->GetDownloadTime());
  }
  std::printf("{\"problem\":\"H\",\"method\":\"helical-fdk\",\"hardware\":\"%s\",\"device\":\"%s\",\"run\":\"median\",\"pitch\":%.3g,"
              "\"total_s\":%.4f,\"backprojection_s\":%.4f}\n",
              hardware.c_str(), device.c_str(), pitch, HelicalMedian(totals), HelicalMedian(backprojections));
}

} // namespace

void
RunHelical(const std::string & hardware, const std::string & device, unsigned int runs, double pitch)
{
  if (hardware == "cpu")
  {
    using CpuImage = itk::Image<float, 3>;
    RunHelicalOn<CpuImage, FDKConeBeamReconstructionFilter<CpuImage>>(hardware, device, runs, pitch);
    return;
  }
#if CBCT_USE_CUDA
  using GpuImage = CudaImage<float, 3>;
  RunHelicalOn<GpuImage, CudaFDKConeBeamReconstructionFilter<GpuImage>>(hardware, device, runs, pitch);
#endif
}

} // namespace cbct::bench
