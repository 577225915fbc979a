// The exact adjoint of Joseph's projector computed as a gather (JosephGatherBackProjector) on the CPU:
// adjoint to the forward projector and equal to the ray-driven scatter, on circular scans, any grid,
// rays along every axis and at the 45-degree switch between axes, rays that graze the volume's faces,
// dense and sparse detectors, a source inside the volume, and slabs of a volume (index space not from 0).
#include "cbctJosephOperator.h"
#include "cbctIterativeTestHelpers.h"

#include <itkImageRegionIterator.h>

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

using namespace cbct;
using namespace cbct::test;

namespace
{
struct GatherCheck
{
  double adjoint;      ///< |<Ax, y> - <x, A^T y>| / |<Ax, y>| with the gather
  double versusScatter; ///< relative L2 difference of the gather from the scatter
  double scatterNorm;  ///< <x, A^T y> of the scatter (not trivially zero)
};

/** Random x on the volume's grid and y on the projections', A x, and A^T y by gather and scatter. */
GatherCheck
Check(const ImageType * volume, const ImageType * projections, const ThreeDCircularProjectionGeometry * geometry, unsigned int seed)
{
  auto x = Copy<ImageType>(volume, false, seed);
  auto y = Copy<ImageType>(projections, false, seed + 1);
  JosephOperator<ImageType> A(x, y, geometry);
  std::vector<unsigned int> all(geometry->GetNumberOfProjections());
  for (unsigned int k = 0; k < all.size(); ++k)
    all[k] = k;
  auto ax = Zeros(y), gathered = Zeros(x), scattered = Zeros(x);
  A.Forward(x->GetBufferPointer(), ax->GetBufferPointer(), all, false);
  A.Back(y->GetBufferPointer(), gathered->GetBufferPointer(), all, false);
  A.SetAdjoint(JosephAdjoint::Scatter);
  A.Back(y->GetBufferPointer(), scattered->GetBufferPointer(), all, false);
  const double axy = Dot(ax, y), xaty = Dot(x, gathered);
  return { std::fabs(axy - xaty) / std::fabs(axy), RelativeDifference(gathered, scattered), Dot(x, scattered) };
}

void
Expect(const GatherCheck & r, const std::string & what)
{
  std::cout << what << ": gather |<Ax, y> - <x, A^T y>| / <Ax, y> = " << r.adjoint << ", gather vs scatter " << r.versusScatter
            << std::endl;
  EXPECT_LT(r.adjoint, 1e-5) << what;
  EXPECT_LT(r.versusScatter, 1e-5) << what;
  EXPECT_GT(r.scatterNorm, 0.) << what;
}

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
} // namespace

TEST(JosephGather, IsAdjointAndEqualsTheScatterOnACircularScan)
{
  // As the Joseph adjoint test: 64^3, 180 projections of 64^2, a detector offset and a bare matrix.
  auto geometry = CircularGeometry(179, 360., 1000., 1500., 3., -2.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  Expect(Check(Grid({ { 64, 64, 64 } }, { { 2., 2., 2. } }, { { -63., -63., -63. } }),
               Grid({ { 64, 64, 180 } }, { { 3., 3., 1. } }, { { -94.5, -94.5, 0. } }), geometry, 1),
         "64^3, 180 projections");
}

TEST(JosephGather, EqualsTheScatterOnAnyGrid)
{
  // Sizes of no common factor, voxels that are not cubes, a stack that does not start at index 0,
  // rays along y (75 degrees out of plane), a source off the orbit, a bare matrix, and angles at the
  // switch between x- and z-dominant rays (45 and 135 degrees exactly).
  auto geometry = CircularGeometry(24, 360., 400., 700., 3., -2.);
  geometry->AddProjection(400., 700., 30., 0., 0., 75.);
  geometry->AddProjection(400., 700., 200., 5., 0., -60., 10.);
  geometry->AddProjection(400., 700., 45.);
  geometry->AddProjection(400., 700., 135., 1., 1.);
  auto m = geometry->GetMatrix(5);
  m(0, 3) += 40.;
  geometry->AddProjection(m);
  const unsigned int n = geometry->GetNumberOfProjections();
  Expect(Check(Grid({ { 45, 38, 21 } }, { { 2., 2.5, 3. } }, { { -44., -44.75, -27. } }),
               Grid({ { 70, 50, n } }, { { 2.2, 2.6, 1. } }, { { -80., -60., 0. } }, { { 5, -3, 0 } }), geometry, 3),
         "45 x 38 x 21 grid");
}

TEST(JosephGather, EqualsTheScatterForRaysAlongTheVolumesFaces)
{
  // A source a kilometre away and a detector through the isocenter: nearly parallel rays, some of
  // them a hair's breadth from the planes one voxel outside the volume, where a clip of the slices
  // that was not conservative would drop samples the forward projector keeps; at 0, 90, 45 degrees.
  auto geometry = ThreeDCircularProjectionGeometry::New();
  for (double angle : { 0., 90., 45., 180., 270. })
    geometry->AddProjection(1e6, 1e6, angle);
  // 16 voxels of 1 mm centred: index -1 and 16 at -8.5 and 8.5 mm; pixels of 0.5 mm from -9.5 mm.
  Expect(Check(Grid({ { 16, 16, 16 } }, { { 1., 1., 1. } }, { { -7.5, -7.5, -7.5 } }),
               Grid({ { 39, 39, 5 } }, { { 0.5, 0.5, 1. } }, { { -9.5, -9.5, 0. } }), geometry, 5),
         "nearly parallel rays along the faces");
}

TEST(JosephGather, EqualsTheScatterWithDenseAndSparseDetectors)
{
  auto geometry = CircularGeometry(20, 360., 300., 500., 1., 0.5);
  // Pixels a quarter of a (magnified) voxel: many rays per cell; and four voxels: most cells have none.
  Expect(Check(Grid({ { 24, 20, 24 } }, { { 2., 2., 2. } }, { { -23., -19., -23. } }),
               Grid({ { 160, 130, 20 } }, { { 0.8, 0.8, 1. } }, { { -64., -52., 0. } }), geometry, 7),
         "dense detector");
  Expect(Check(Grid({ { 40, 36, 40 } }, { { 1., 1., 1. } }, { { -19.5, -17.5, -19.5 } }),
               Grid({ { 12, 11, 20 } }, { { 8., 8., 1. } }, { { -44., -40., 0. } }), geometry, 9),
         "sparse detector");
}

TEST(JosephGather, EqualsTheScatterWithTheSourceInsideTheVolume)
{
  // A source 20 mm from the isocenter of a 48 mm volume: tiles that reach the plane of the source
  // take every pixel as a candidate and check its side of the source; rays go both ways from it.
  auto geometry = CircularGeometry(6, 360., 20., 60.);
  Expect(Check(Grid({ { 24, 10, 24 } }, { { 2., 2., 2. } }, { { -23., -9., -23. } }),
               Grid({ { 24, 12, 6 } }, { { 6., 6., 1. } }, { { -69., -33., 0. } }), geometry, 11),
         "source inside the volume");
}

TEST(JosephGather, CellWeightsAreJosephSamplesBitForBit)
{
  // Random lines and slices: where JosephSample() puts the sample in a cell, JosephCellWeights() finds
  // it there with the same four weights, bit for bit, and nowhere else around it.
  std::mt19937 generator(13);
  std::uniform_real_distribution<float> position(-1.5f, 40.f), slope(-1.f, 1.f), step(0.5f, 3.f);
  std::uniform_int_distribution<int> slice(0, 63);
  long samples = 0, mismatches = 0;
  for (int n = 0; n < 200000; ++n)
  {
    JosephLine line;
    line.b0 = position(generator);
    line.c0 = position(generator);
    line.kb = slope(generator) * 0.5f;
    line.kc = slope(generator) * 0.5f;
    line.step = step(generator);
    line.sa = line.sb = line.sc = 0; // the voxels in memory from index 0 (JosephSample()'s bounds)
    const int s = slice(generator);
    int ib, ic;
    float w[4];
    if (!JosephSample(line, 40, 40, s, ib, ic, w))
      continue;
    ++samples;
    for (int db = -1; db <= 1; ++db)
      for (int dc = -1; dc <= 1; ++dc)
      {
        float v[4];
        const bool in = JosephCellWeights(line, s, ib + db, ic + dc, v);
        const bool expected = db == 0 && dc == 0;
        if (in != expected || (in && std::memcmp(v, w, sizeof(w)) != 0))
          ++mismatches;
      }
  }
  std::cout << samples << " samples, " << mismatches << " mismatches" << std::endl;
  EXPECT_GT(samples, 100000);
  EXPECT_EQ(mismatches, 0);
}

namespace
{
/** A slab of `whole` (same grid and index space, region `region`), filled from it. */
ImageType::Pointer
SlabOf(const ImageType * whole, const ImageType::RegionType & region)
{
  auto slab = ImageType::New();
  slab->CopyInformation(whole);
  slab->SetRegions(region);
  slab->Allocate();
  itk::ImageRegionConstIterator<ImageType> from(whole, region);
  itk::ImageRegionIterator<ImageType> to(slab, region);
  for (; !from.IsAtEnd(); ++from, ++to)
    to.Set(from.Get());
  return slab;
}
} // namespace

TEST(JosephGather, ASlabGathersWhatTheWholeVolumeGathersThere)
{
  // Joseph samples in the volume's index space, so a slab (its region's index not 0: one rank's or
  // one GPU's part of the volume) must gather exactly the whole volume's A^T y over its voxels, be the
  // adjoint of the slab's forward projection and equal the slab's scatter. Slabs along y (as ranks and
  // GPUs split), and one cut along all three axes; circular projections, the 45-degree switch, rays
  // along y; then a source inside the volume (the exhaustive path).
  auto circular = CircularGeometry(12, 360., 400., 700., 3., -2.);
  circular->AddProjection(400., 700., 45.);
  circular->AddProjection(400., 700., 30., 0., 0., 75.);
  auto inside = CircularGeometry(6, 360., 20., 60.);
  struct Case
  {
    const ThreeDCircularProjectionGeometry * geometry;
    ImageType::Pointer volume, projections;
    const char * name;
  };
  const unsigned int n = circular->GetNumberOfProjections();
  const Case cases[] = {
    { circular, Grid({ { 30, 26, 22 } }, { { 2., 2.5, 3. } }, { { -29., -31.25, -31.5 } }),
      Grid({ { 60, 50, n } }, { { 2.2, 2.6, 1. } }, { { -66., -64., 0. } }), "circular" },
    { inside, Grid({ { 24, 10, 24 } }, { { 2., 2., 2. } }, { { -23., -9., -23. } }),
      Grid({ { 24, 12, 6 } }, { { 6., 6., 1. } }, { { -69., -33., 0. } }), "source inside" },
  };
  for (const Case & c : cases)
  {
    auto y = Copy<ImageType>(c.projections, false, 21);
    std::vector<unsigned int> all(c.geometry->GetNumberOfProjections());
    for (unsigned int k = 0; k < all.size(); ++k)
      all[k] = k;
    JosephOperator<ImageType> whole(c.volume, y, c.geometry);
    auto wholeBack = Zeros(c.volume);
    whole.Back(y->GetBufferPointer(), wholeBack->GetBufferPointer(), all, false);
    const auto size = c.volume->GetLargestPossibleRegion().GetSize();
    std::vector<ImageType::RegionType> regions;
    const unsigned int cut = static_cast<unsigned int>(size[1] / 3);
    for (unsigned int first = 0; first < size[1]; first += cut)
      regions.emplace_back(ImageType::IndexType{ { 0, first, 0 } },
                           ImageType::SizeType{ { size[0], std::min<unsigned int>(cut, size[1] - first), size[2] } });
    regions.emplace_back(ImageType::IndexType{ { 5, 3, 7 } }, ImageType::SizeType{ { size[0] - 9, size[1] - 5, size[2] - 10 } });
    for (const auto & region : regions)
    {
      std::ostringstream what;
      what << c.name << ", slab from " << region.GetIndex() << " of " << region.GetSize();
      auto slab = SlabOf(c.volume, region);
      Expect(Check(slab, c.projections, c.geometry, 23), what.str());
      JosephOperator<ImageType> part(slab, y, c.geometry);
      auto partBack = Zeros(slab);
      part.Back(y->GetBufferPointer(), partBack->GetBufferPointer(), all, false);
      const double difference = RelativeDifference(partBack, SlabOf(wholeBack, region));
      std::cout << what.str() << ": slab's gather vs the whole volume's there " << difference << std::endl;
      EXPECT_LT(difference, 1e-6) << what.str();
    }
  }
}
