// 4D ROOSTER on the GPU against its CPU twin: the 4D steps alone (frame weighting, positivity, the
// motion mask, the temporal total variation) on random data, and the whole method with every step on
// (motion mask, spatial and temporal TV, positivity) with Joseph's projector and with the ray caster.
// Skips without a device.
#include "cbctCudaDevice.h"
#include "cbctCudaFourDOperations.h"
#include "cbctCudaFourDROOSTERConeBeamReconstructionFilter.h"
#include "cbctCudaIterativeSupport.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#include "cbctFourDTestProblem.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>
#include <itkImageRegionIteratorWithIndex.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>

using namespace cbct;
using namespace cbct::test;

class CudaFourDROOSTER : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    std::string why;
    if (!CudaDeviceAvailable(&why))
      GTEST_SKIP() << why;
  }
};

namespace
{
/** ||a - b|| / ||b|| over all values; NaN if any difference is NaN. */
double
RelativeDifference(const std::vector<std::vector<float>> & a, const std::vector<std::vector<float>> & b)
{
  double difference = 0., norm = 0.;
  for (std::size_t f = 0; f < a.size(); ++f)
    for (std::size_t i = 0; i < a[f].size(); ++i)
    {
      const double d = static_cast<double>(a[f][i]) - b[f][i];
      if (std::isnan(d))
        return std::numeric_limits<double>::quiet_NaN();
      difference += d * d;
      norm += static_cast<double>(b[f][i]) * b[f][i];
    }
  return norm > 0. ? std::sqrt(difference / norm) : std::sqrt(difference);
}

double
SeriesDifference(const SeriesType * a, const SeriesType * b)
{
  const std::size_t n = b->GetBufferedRegion().GetNumberOfPixels();
  return RelativeDifference({ std::vector<float>(a->GetBufferPointer(), a->GetBufferPointer() + n) },
                            { std::vector<float>(b->GetBufferPointer(), b->GetBufferPointer() + n) });
}

std::vector<float>
Random(std::size_t n, unsigned int seed, float lo, float hi)
{
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(lo, hi);
  std::vector<float> v(n);
  for (float & x : v)
    x = uniform(generator);
  return v;
}

/** The device frames' values. */
std::vector<std::vector<float>>
Download(const std::vector<CudaDeviceBuffer<float>> & frames, std::size_t voxels)
{
  std::vector<std::vector<float>> host(frames.size(), std::vector<float>(voxels));
  for (std::size_t f = 0; f < frames.size(); ++f)
    CudaDownload(host[f].data(), frames[f].Data(), voxels, "frame");
  return host;
}
} // namespace

TEST_F(CudaFourDROOSTER, StepsMatchTheCPU)
{
  const unsigned int frames = 5, projections = 7;
  const std::size_t voxels = 3001, pixels = 37;
  std::vector<std::vector<float>> weights(frames, std::vector<float>(projections, 0.f));
  for (unsigned int k = 0; k < projections; ++k) // each projection in two neighbouring frames
  {
    weights[k % frames][k] = 0.3f + 0.1f * k;
    weights[(k + 1) % frames][k] = 0.7f - 0.1f * k;
  }
  FourDOperations cpu(weights, pixels, voxels);
  CudaFourDOperations gpu(weights, pixels, voxels);

  // Frame weighting, writing and adding.
  const std::vector<float> in = Random(pixels * projections, 1, -2.f, 2.f), start = Random(pixels * projections, 2, -1.f, 1.f);
  CudaDeviceBuffer<float> dIn(in.size()), dOut(in.size());
  CudaUpload(dIn.Data(), in.data(), in.size(), "in");
  for (bool add : { false, true })
    for (unsigned int f = 0; f < frames; ++f)
    {
      std::vector<float> out = start, back(start.size());
      CudaUpload(dOut.Data(), start.data(), start.size(), "out");
      cpu.WeightFrame(f, in, out, add);
      gpu.WeightFrame(f, dIn, dOut, add);
      CudaDownload(back.data(), dOut.Data(), back.size(), "out");
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(back[i], out[i]) << "frame " << f << " add " << add << " pixel " << i;
    }

  // Positivity, the motion mask and the temporal TV on random frames.
  std::vector<std::vector<float>> host;
  std::vector<CudaDeviceBuffer<float>> device = gpu.MakeFrames(frames);
  for (unsigned int f = 0; f < frames; ++f)
  {
    host.push_back(Random(voxels, 10 + f, -0.5f, 2.f));
    CudaUpload(device[f].Data(), host[f].data(), voxels, "frame");
  }
  std::vector<float> mask = Random(voxels, 3, 0.f, 1.f);
  for (float & m : mask)
    m = m < 0.4f ? 0.f : 1.f;
  CudaDeviceBuffer<float> dMask(voxels);
  CudaUpload(dMask.Data(), mask.data(), voxels, "mask");
  for (unsigned int f = 0; f < frames; ++f)
  {
    cpu.ClampNonNegative(host[f]);
    gpu.ClampNonNegative(device[f]);
  }
  EXPECT_EQ(RelativeDifference(Download(device, voxels), host), 0.) << "positivity";
  cpu.AverageOutsideMask(host, mask);
  gpu.AverageOutsideMask(device, dMask);
  EXPECT_EQ(RelativeDifference(Download(device, voxels), host), 0.) << "motion mask";
  cpu.TemporalTotalVariation(host, 0.2, 30);
  gpu.TemporalTotalVariation(device, 0.2, 30);
  const double tv = RelativeDifference(Download(device, voxels), host);
  std::cout << "temporal TV, GPU vs CPU: relative difference " << tv << std::endl;
  EXPECT_LE(tv, 1e-6); // the same float operations in the same order
}

namespace
{
void
ExpectMatchesCPU(ForwardProjectorKind projector)
{
  const FourDProblem problem(3, 45, 4.3);
  auto initial = ZeroSeries(FourDProblem::Voxels, FourDProblem::Spacing, problem.frames);
  auto mask = Frame(initial, 0);
  itk::ImageRegionIteratorWithIndex<ImageType> it(mask, mask->GetLargestPossibleRegion());
  for (; !it.IsAtEnd(); ++it)
    it.Set(it.GetIndex()[0] >= 10 ? 1.f : 0.f);
  auto configure = [&](FourDROOSTERConeBeamReconstructionFilter<SeriesType> * r) {
    r->SetInput(initial);
    r->SetProjections(problem.projections);
    r->SetGeometry(problem.geometry);
    r->SetPhases(problem.phases);
    r->SetMotionMask(mask);
    r->SetNumberOfIterations(3);
    r->SetNumberOfCGIterations(3);
    r->SetNumberOfTVIterations(10);
    r->SetGammaSpace(0.05);
    r->SetGammaTime(0.05);
    r->SetForwardProjector(projector);
  };
  auto cpu = FourDROOSTERConeBeamReconstructionFilter<SeriesType>::New();
  auto gpu = CudaFourDROOSTERConeBeamReconstructionFilter<SeriesType>::New();
  configure(cpu);
  configure(gpu);
  cpu->Update();
  gpu->Update();
  const double difference = SeriesDifference(gpu->GetOutput(), cpu->GetOutput());
  std::cout << ToString(projector) << ": 4D ROOSTER GPU vs CPU relative difference " << difference << std::endl;
  // The projectors' GPU and CPU sums differ in their last bits and conjugate gradients carry that
  // through their steps (CUDA CGLS's own bound against the CPU is the same, cbctCudaCGLSOSEMTest).
  EXPECT_LE(difference, 1e-3);
  EXPECT_GT(SeriesDifference(cpu->GetOutput(), initial), 0.5) << "the method did nothing";
  ASSERT_EQ(gpu->GetResidualNorms().size(), cpu->GetResidualNorms().size());
  for (std::size_t i = 0; i < cpu->GetResidualNorms().size(); ++i)
    EXPECT_NEAR(gpu->GetResidualNorms()[i], cpu->GetResidualNorms()[i], 1e-3 * cpu->GetResidualNorms()[i]) << "iteration " << i;
  EXPECT_EQ(gpu->GetCurrentIteration(), 3u);
}
} // namespace

TEST_F(CudaFourDROOSTER, JosephMatchesTheCPU)
{
  ExpectMatchesCPU(ForwardProjectorKind::Joseph);
}

TEST_F(CudaFourDROOSTER, RayCastMatchesTheCPU)
{
  ExpectMatchesCPU(ForwardProjectorKind::RayCast);
}
