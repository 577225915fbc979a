// The split arithmetic of several devices, MPI ranks and pieces: slabs along y cover the volume
// exactly once, and the detector rows a slab claims are all it needs (its reconstruction from
// projections zeroed outside those rows equals the whole volume's, bit for bit).
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctFDKGeometryCases.h"
#include "cbctSlabSplit.h"

#include <gtest/gtest.h>
#include <itkImageRegionConstIterator.h>
#include <itkImageRegionIterator.h>

#include <cstring>

using namespace cbct;
using namespace cbct::test;

namespace
{
using RegionType = SlabSplit::RegionType;

/** Every row of `region` in exactly one slab, slabs contiguous, in order, non-empty, spanning x and z. */
void
ExpectCoversOnce(const RegionType & region, const std::vector<RegionType> & slabs, const std::string & what)
{
  ASSERT_FALSE(slabs.empty()) << what;
  itk::IndexValueType next = region.GetIndex(1);
  for (const auto & slab : slabs)
  {
    EXPECT_EQ(slab.GetIndex(1), next) << what;
    EXPECT_GT(slab.GetSize(1), 0u) << what;
    for (unsigned int d : { 0u, 2u })
    {
      EXPECT_EQ(slab.GetIndex(d), region.GetIndex(d)) << what;
      EXPECT_EQ(slab.GetSize(d), region.GetSize(d)) << what;
    }
    next += static_cast<itk::IndexValueType>(slab.GetSize(1));
  }
  EXPECT_EQ(next, region.GetIndex(1) + static_cast<itk::IndexValueType>(region.GetSize(1))) << what;
}
} // namespace

TEST(SlabSplit, EqualAndTaperedSlabsCoverTheVolumeExactlyOnce)
{
  for (const std::size_t rows : { 1u, 2u, 7u, 128u, 1000u, 2048u })
    for (const std::size_t parts : { 1u, 2u, 3u, 4u, 7u, 16u, 5000u })
    {
      RegionType region(RegionType::IndexType{ { -4, -37, 3 } }, RegionType::SizeType{ { 9, rows, 5 } });
      const std::string what = std::to_string(rows) + " rows in " + std::to_string(parts);
      const auto equal = SlabSplit::Equal(region, parts);
      ExpectCoversOnce(region, equal, "equal: " + what);
      EXPECT_EQ(equal.size(), std::min(rows, parts)) << what;
      std::size_t thinnest = rows, thickest = 0;
      for (const auto & s : equal)
      {
        thinnest = std::min(thinnest, s.GetSize(1));
        thickest = std::max(thickest, s.GetSize(1));
      }
      EXPECT_LE(thickest - thinnest, 1u) << what;

      const auto tapered = SlabSplit::Tapered(region, parts);
      ExpectCoversOnce(region, tapered, "tapered: " + what);
      EXPECT_EQ(tapered.size(), std::min(rows, parts)) << what;
      if (tapered.size() > 1 && rows >= 4 * parts)
      {
        // The last slab is about half as thick as each of the others.
        const double last = static_cast<double>(tapered.back().GetSize(1));
        for (std::size_t p = 0; p + 1 < tapered.size(); ++p)
          EXPECT_NEAR(last / tapered[p].GetSize(1), 0.5, 0.2) << what << ", slab " << p;
      }
    }
}

TEST(SlabSplit, RowsClaimedByEachSlabAreAllItNeeds)
{
  // A geometry with offsets, a tilt and per-projection variation (the claimed rows differ per slab
  // and are not symmetric), 60 views: each slab of three equal shares and of four tapered pieces,
  // reconstructed from projections zeroed outside the rows it claims, equals the whole volume there.
  auto geometry = FullScan([](RtkParameters & p, double a) {
    p.sourceOffsetY = 12.;
    p.projectionOffsetY = -9. + 3. * Sin(a);
    p.outOfPlane = 1.5;
    p.sid = 1000. + 8. * Sin(2. * a);
  }, 60);
  auto projections = ProjectSheppLogan<ImageType>(geometry);
  auto zero = ZeroVolume(64, 2.);
  auto reconstruct = [&](const ImageType * stack, const RegionType & region) {
    auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
    fdk->SetInput(0, zero->GetOutput());
    fdk->SetProjections(stack);
    fdk->SetGeometry(geometry);
    fdk->GetOutput()->SetRequestedRegion(region);
    fdk->GetOutput()->Update();
    ImageType::Pointer volume = fdk->GetOutput();
    volume->DisconnectPipeline();
    return volume;
  };
  zero->UpdateOutputInformation();
  const RegionType whole = zero->GetOutput()->GetLargestPossibleRegion();
  const auto reference = reconstruct(projections, whole);

  auto backProjection = FDKBackProjectionImageFilter<ImageType>::New();
  backProjection->SetGeometry(geometry);
  std::vector<RegionType> slabs = SlabSplit::Equal(whole, 3);
  for (const auto & s : SlabSplit::Tapered(whole, 4))
    slabs.push_back(s);
  std::size_t zeroed = 0;
  for (const auto & slab : slabs)
  {
    const auto rows = backProjection->ComputeProjectionRegion(reference, slab, projections);
    auto masked = ImageType::New();
    masked->CopyInformation(projections);
    masked->SetRegions(projections->GetLargestPossibleRegion());
    masked->Allocate();
    masked->FillBuffer(0.f);
    RegionType keep = projections->GetLargestPossibleRegion();
    keep.SetIndex(1, rows.GetIndex(1));
    keep.SetSize(1, rows.GetSize(1));
    itk::ImageRegionConstIterator<ImageType> from(projections, keep);
    itk::ImageRegionIterator<ImageType> to(masked, keep);
    for (; !from.IsAtEnd(); ++from, ++to)
      to.Set(from.Get());
    zeroed += projections->GetLargestPossibleRegion().GetSize(1) - rows.GetSize(1);
    const auto part = reconstruct(masked, slab);
    itk::ImageRegionConstIterator<ImageType> a(part, slab), b(reference, slab);
    std::size_t differing = 0;
    for (; !a.IsAtEnd(); ++a, ++b)
    {
      const float x = a.Get(), y = b.Get();
      differing += std::memcmp(&x, &y, sizeof(float)) != 0;
    }
    EXPECT_EQ(differing, 0u) << "slab from row " << slab.GetIndex(1) << " of " << slab.GetSize(1) << " rows, detector rows "
                             << rows.GetIndex(1) << " + " << rows.GetSize(1);
  }
  EXPECT_GT(zeroed, slabs.size() * 20) << "the slabs claimed nearly every row: the test would not notice a missing one";
}
