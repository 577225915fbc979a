// The CPU kernels under Joseph's projector pair: the forward projection row by row (JosephForwardRow:
// eight rays per step with AVX2) equals the ray-driven reference (RayDrivenOperator::Forward) bit for
// bit, on cones and parallel beams, rays along every axis and at the switch between axes, slabs,
// detectors whose rows are no multiple of eight and stacks that do not start at index 0; and the
// gather's cell sums with AVX2 (JosephGatherSliceCells: each candidate pixel tested once and added to
// its cell) equal the reference loop's (each cell testing its own candidates) bit for bit.
#include "cbctJosephForwardRow.h"
#include "cbctJosephGatherBackProjector.h"
#include "cbctJosephOperator.h"
#include "cbctIterativeTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

using namespace cbct;
using namespace cbct::test;

namespace
{
ImageType::Pointer
Grid(const std::array<unsigned int, 3> & size, const std::array<double, 3> & spacing, const std::array<double, 3> & origin,
     const std::array<long, 3> & start = { { 0, 0, 0 } })
{
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(ImageType::IndexType{ { start[0], start[1], start[2] } },
                                          ImageType::SizeType{ { size[0], size[1], size[2] } }));
  ImageType::SpacingType s;
  ImageType::PointType o;
  for (unsigned int d = 0; d < 3; ++d)
  {
    s[d] = spacing[d];
    o[d] = origin[d];
  }
  image->SetSpacing(s);
  image->SetOrigin(o);
  image->Allocate(true);
  return image;
}

/** Forward projections of a random volume by JosephOperator (row kernel) and by the ray-driven
 * reference, overwriting and adding: the number of pixels that differ in any bit (NaN included). */
std::size_t
ForwardMismatches(const ImageType * volume, const ImageType * projections, const ThreeDCircularProjectionGeometry * geometry,
                  unsigned int seed)
{
  auto x = Copy<ImageType>(volume, false, seed);
  JosephOperator<ImageType> rows(x, projections, geometry);
  RayDrivenOperator<ImageType, JosephProjector> reference(
    x, projections, [&](unsigned int k) { return JosephProjector(x.GetPointer(), projections, geometry, k); });
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  std::size_t mismatches = 0;
  double norm = 0.;
  for (bool add : { false, true })
  {
    auto a = Copy<ImageType>(projections, false, seed + 1), b = Copy<ImageType>(projections, false, seed + 1);
    rows.Forward(x->GetBufferPointer(), a->GetBufferPointer(), all, add);
    reference.Forward(x->GetBufferPointer(), b->GetBufferPointer(), all, add);
    const float * p = a->GetBufferPointer();
    const float * q = b->GetBufferPointer();
    for (std::size_t i = 0; i < a->GetBufferedRegion().GetNumberOfPixels(); ++i)
    {
      mismatches += std::memcmp(p + i, q + i, sizeof(float)) != 0 || !std::isfinite(p[i]);
      norm += std::fabs(q[i]);
    }
  }
  EXPECT_GT(norm, 0.);
  return mismatches;
}
} // namespace

TEST(JosephRowKernels, ForwardRowsEqualTheRayDrivenForwardBitForBit)
{
  std::cout << "AVX2 forward rows: " << (JosephForwardRowUsesAvx2() ? "yes" : "no (the reference loop)") << std::endl;
  // A circular scan with detector offsets, rays along y (75 degrees out of plane), the 45-degree
  // switch between x- and z-dominant rays, a bare matrix; 61 columns (7 rays after the last eight).
  auto geometry = CircularGeometry(16, 360., 400., 700., 3., -2.);
  geometry->AddProjection(400., 700., 30., 0., 0., 75.);
  geometry->AddProjection(400., 700., 45.);
  geometry->AddProjection(400., 700., 135., 1., 1.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  const unsigned int n = geometry->GetNumberOfProjections();
  EXPECT_EQ(ForwardMismatches(Grid({ { 45, 38, 21 } }, { { 2., 2.5, 3. } }, { { -44., -44.75, -27. } }),
                              Grid({ { 61, 50, n } }, { { 2.2, 2.6, 1. } }, { { -70., -60., 0. } }, { { 5, -3, 0 } }), geometry, 3),
            0u);
}

TEST(JosephRowKernels, ForwardRowsEqualTheReferenceOnSlabsParallelBeamsAndTheSourceInside)
{
  // A slab (index space from y = 17), as a GPU or MPI rank holds it.
  auto geometry = CircularGeometry(12, 360., 500., 800., -4., 6.);
  EXPECT_EQ(ForwardMismatches(Grid({ { 40, 12, 40 } }, { { 1.5, 1.5, 1.5 } }, { { -29.25, -29.25, -29.25 } }, { { 0, 17, 0 } }),
                              Grid({ { 72, 64, 12 } }, { { 1.2, 1.2, 1. } }, { { -43., -38., 0. } }), geometry, 5),
            0u);
  // Parallel beam (SDD 0): every ray its own origin.
  auto parallel = CircularGeometry(10, 360., 300., 0., 2., -1.);
  EXPECT_EQ(ForwardMismatches(Grid({ { 32, 24, 32 } }, { { 1., 1., 1. } }, { { -15.5, -11.5, -15.5 } }),
                              Grid({ { 53, 30, 10 } }, { { 0.8, 1., 1. } }, { { -21., -14.5, 0. } }), parallel, 7),
            0u);
  // A source 20 mm from the isocenter of a 48 mm volume: rays start inside it.
  auto inside = CircularGeometry(6, 360., 20., 60.);
  EXPECT_EQ(ForwardMismatches(Grid({ { 24, 24, 24 } }, { { 2., 2., 2. } }, { { -23., -23., -23. } }),
                              Grid({ { 64, 40, 6 } }, { { 3., 3., 1. } }, { { -94.5, -58.5, 0. } }), inside, 9),
            0u);
}

TEST(JosephRowKernels, GatherCellsEqualTheReferenceLoopBitForBit)
{
  std::cout << "AVX2 gather cells: " << (JosephGatherSliceCellsUsesAvx2() ? "yes" : "no (the reference loop)") << std::endl;
  // Every tile and slice of a 40 x 20 x 36 volume seen from 8 angles (both axes, the 45-degree
  // switch), a dense detector (several rays per cell), random values.
  auto geometry = CircularGeometry(7, 360., 300., 500., 1., 0.5);
  geometry->AddProjection(300., 500., 45.);
  auto volume = Grid({ { 40, 20, 36 } }, { { 2., 2., 2. } }, { { -39., -19., -35. } });
  auto projections = Grid({ { 150, 70, 8 } }, { { 0.8, 0.8, 1. } }, { { -60., -28., 0. } });
  const int size[3] = { 40, 20, 36 }, columns = 150, rows = 70;
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<float> values(columns * rows);
  std::vector<float> b0(values.size()), kb(values.size()), c0(values.size()), kc(values.size()), step(values.size());
  std::vector<int> axis(values.size());
  std::size_t cellsCompared = 0, hits = 0, mismatches = 0;
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    const JosephRay ray = JosephProjector(volume.GetPointer(), projections.GetPointer(), geometry, k).Ray();
    const JosephGatherProjection projection = MakeJosephGatherProjection(ray, size);
    for (int j = 0; j < rows; ++j)
      for (int i = 0; i < columns; ++i)
      {
        const std::size_t p = static_cast<std::size_t>(j) * columns + i;
        JosephLine line;
        values[p] = uniform(generator);
        if (!JosephSetup(ray, size, i, j, line))
        {
          line.b0 = line.kb = line.c0 = line.kc = line.step = 0.f;
          line.a = -1;
        }
        b0[p] = line.b0;
        kb[p] = line.kb;
        c0[p] = line.c0;
        kc[p] = line.kc;
        step[p] = line.step;
        axis[p] = line.a;
      }
    const int extent[3] = { JosephGatherTileX, JosephGatherTileY, JosephGatherTileZ };
    for (int tz = 0; tz * extent[2] < size[2]; ++tz)
      for (int ty = 0; ty * extent[1] < size[1]; ++ty)
        for (int tx = 0; tx * extent[0] < size[0]; ++tx)
        {
          const int lo[3] = { tx * extent[0], ty * extent[1], tz * extent[2] };
          const int hi[3] = { std::min(lo[0] + extent[0], size[0]), std::min(lo[1] + extent[1], size[1]), std::min(lo[2] + extent[2], size[2]) };
          for (int a = 0; a < 3; ++a)
          {
            JosephGatherPlan plan;
            if (!JosephGatherPlanTile(projection, a, lo, hi, plan) || plan.exhaustive)
              continue;
            const int b = (a + 1) % 3, c = (a + 2) % 3;
            JosephGatherSliceLaunch l;
            l.plan = &plan;
            l.a = a;
            l.fromB = lo[b];
            l.fromC = lo[c];
            l.nb = hi[b] - lo[b];
            l.nc = hi[c] - lo[c];
            l.b0 = b0.data();
            l.kb = kb.data();
            l.c0 = c0.data();
            l.kc = kc.data();
            l.step = step.data();
            l.axis = axis.data();
            l.values = values.data();
            l.columns = columns;
            l.columnLo = 0;
            l.columnHi = columns - 1;
            l.rowLo = 0;
            l.rowHi = rows - 1;
            std::vector<double> fast((l.nb + 1) * (l.nc + 1) * 4), reference(fast.size());
            for (int rs = 0; rs < hi[a] - lo[a]; ++rs)
            {
              l.s = lo[a] + rs;
              l.rs = rs;
              l.cells = fast.data();
              JosephGatherSliceCells(l);
              l.cells = reference.data();
              JosephGatherSliceCellsScalar(l);
              for (std::size_t n = 0; n < fast.size(); ++n)
              {
                mismatches += std::memcmp(&fast[n], &reference[n], sizeof(double)) != 0 || !std::isfinite(fast[n]);
                hits += reference[n] != 0.;
              }
              cellsCompared += fast.size() / 4;
            }
          }
        }
  }
  std::cout << cellsCompared << " cells compared, " << hits << " non-zero sums, " << mismatches << " differ" << std::endl;
  EXPECT_GT(hits, 10000u);
  EXPECT_EQ(mismatches, 0u);
}
