// Endurance: 1000 FDK reconstructions in one process, each with a pipeline built from scratch (as an
// app, a Python loop or a service does), on the CPU. Resident memory is read after 10, 100 and 1000
// and must stay flat; the last volume must equal the first bit for bit.
//
// The margin: resident memory may grow by at most 4 MiB from the 100th to the 1000th run. The first
// runs are left out because glibc's allocator grows its per-thread arenas to a steady state then.
// A leak of one projection stack per run (36 x 48 x 48 floats, 324 KiB) would add 285 MiB over
// those 900 runs, one volume (24^3 floats, 54 KiB) 47 MiB, and any leak of 4.6 KiB or more per run
// (half of one 48 x 48 projection) exceeds the margin; the growth measured here is printed.
#include "cbctEndurance.h"
#include "cbctFDKConeBeamReconstructionFilter.h"
#include "cbctTestHelpers.h"

#include <gtest/gtest.h>

using namespace cbct;
using namespace cbct::test;

namespace
{
constexpr std::uint64_t MarginBytes = 4u << 20;

ImageType::Pointer
ReconstructOnce(const ThreeDCircularProjectionGeometry * geometry, const ImageType * projections)
{
  auto zero = ZeroVolume(24, 4.);
  auto fdk = FDKConeBeamReconstructionFilter<ImageType>::New();
  fdk->SetInput(0, zero->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->Update();
  ImageType::Pointer volume = fdk->GetOutput();
  volume->DisconnectPipeline();
  return volume;
}
} // namespace

TEST(Endurance, ThousandFdkReconstructionsKeepResidentMemoryFlat)
{
  auto geometry = CircularGeometry(36);
  auto projections = ProjectPhantom(geometry, SheppLogan(), 48, 4.);
  const ImageType::Pointer first = ReconstructOnce(geometry, projections);
  // Under AddressSanitizer freed memory sits in its quarantine; LeakSanitizer checks leaks at exit.
  const unsigned int runs = UnderAddressSanitizer() ? 50 : 1000;
  std::vector<std::uint64_t> resident;
  ImageType::Pointer last;
  Repeat(
    runs, { 10, 100, 1000 }, [&](unsigned int) { last = ReconstructOnce(geometry, projections); },
    [&](unsigned int i) {
      resident.push_back(ResidentBytes());
      std::cout << "after " << i << " reconstructions: resident memory " << resident.back() / 1024 << " KiB" << std::endl;
      ::testing::Test::RecordProperty("resident_kib_after_" + std::to_string(i), static_cast<int>(resident.back() / 1024));
    });
  EXPECT_EQ(RelativeDifference(last, first), 0.) << "the 1000th volume differs from the first";
  if (UnderAddressSanitizer())
    GTEST_SKIP() << "under AddressSanitizer: " << runs << " runs for LeakSanitizer, no resident-memory assertion";
  ASSERT_EQ(resident.size(), 3u);
  ASSERT_GT(resident[0], 0u) << "/proc/self/statm could not be read";
  const std::int64_t growth = static_cast<std::int64_t>(resident[2]) - static_cast<std::int64_t>(resident[1]);
  std::cout << "growth from the 100th to the 1000th reconstruction: " << growth / 1024 << " KiB (margin "
            << MarginBytes / 1024 << " KiB)" << std::endl;
  EXPECT_LE(growth, static_cast<std::int64_t>(MarginBytes));
}
