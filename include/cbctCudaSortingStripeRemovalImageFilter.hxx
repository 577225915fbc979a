#ifndef cbctCudaSortingStripeRemovalImageFilter_hxx
#define cbctCudaSortingStripeRemovalImageFilter_hxx

#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaStripeRemovalBands.h"
#include "cbctInputChecks.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace cbct
{

template <typename TImage>
void
CudaSortingStripeRemovalImageFilter<TImage>::GPUGenerateData()
{
  const TImage * input = this->GetInput();
  TImage * output = this->GetOutput();
  const auto region = output->GetRequestedRegion();
  const std::size_t columns = region.GetSize(0), rows = region.GetSize(1), projections = region.GetSize(2);
  this->BeforeSinograms(projections, columns); // checks the size against the detector
  const int size = static_cast<int>(this->GetSizeUsed());

  int paddedLength = 1;
  while (static_cast<std::size_t>(paddedLength) < projections)
    paddedLength *= 2;
  int device = 0, sharedBytes = 0;
  CudaCheck(cudaGetDevice(&device), "cudaGetDevice");
  CudaCheck(cudaDeviceGetAttribute(&sharedBytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            "cudaDeviceGetAttribute (shared memory per block)");
  const int columnsPerBlock =
    static_cast<int>(std::min<std::size_t>({ 32, columns, static_cast<std::size_t>(sharedBytes) / (paddedLength * 8u) }));
  if (columnsPerBlock < 1)
  {
    int longest = 1; // the longest power-of-two column that fits
    while (longest * 2 * 8 <= sharedBytes)
      longest *= 2;
    std::ostringstream expected;
    expected << "at most " << longest << " projections for the CUDA sort (a column's keys, padded to "
             << paddedLength << ", must fit the " << sharedBytes
             << " bytes of a block's shared memory; the CPU filter takes any number)";
    ThrowBadParameter("CUDA sorting stripe removal: projections", projections, expected.str());
  }

  // Bands of rows whose sorted values and angles (8 bytes a pixel), and with detection the medians
  // and the offsets' scratch (8 more), fit 512 MiB.
  const double snr = this->GetSNR();
  const std::size_t perRow = projections * columns * (snr > 0. ? 16u : 8u);
  const std::size_t bandRows = std::max<std::size_t>(1, std::min<std::size_t>(rows, (std::size_t{ 512 } << 20) / perRow));
  CudaDeviceBuffer<float> sortedValues(bandRows * projections * columns);
  CudaDeviceBuffer<int> sortedAngles(bandRows * projections * columns);
  CudaDeviceBuffer<int> firstBad(1);
  // Detection (SortingStripeRemoval): the offsets' medians over the ranks on the device, the
  // detection itself on the host (SortingStripeRemoval::DetectStripes, so that it is the CPU's).
  const std::size_t drop = (projections * 5) / 100, firstRank = drop, lastRank = projections - drop;
  const int side = std::min(64, std::max(1, size / 2));
  CudaDeviceBuffer<float> scratch(snr > 0. ? bandRows * columns * (lastRank - firstRank) : 1);
  CudaDeviceBuffer<float> offsets(snr > 0. ? bandRows * columns : 1);
  CudaDeviceBuffer<float> smoothed(snr > 0. ? bandRows * projections * columns : 1);
  CudaDeviceBuffer<unsigned char> stripes(snr > 0. ? bandRows * columns : 1);
  std::vector<float> hostOffsets;
  std::vector<unsigned char> hostStripes;
  const auto * in = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  auto * out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  for (std::size_t first = 0; first < rows; first += bandRows)
  {
    const int count = static_cast<int>(std::min(bandRows, rows - first));
    const int none = INT_MAX;
    CudaCheck(cudaMemcpy(firstBad.Data(), &none, sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy (row check)");
    CudaSortColumnsLaunch sort;
    sort.band = CudaSinogramBandOf(input, output, in, out, static_cast<long long>(first), count);
    sort.sortedValues = sortedValues.Data();
    sort.sortedAngles = sortedAngles.Data();
    sort.paddedLength = paddedLength;
    sort.columnsPerBlock = columnsPerBlock;
    sort.firstNonFiniteRow = firstBad.Data();
    CudaCheck(LaunchSortColumns(sort, nullptr), "LaunchSortColumns",
              CudaSortColumnsSharedBytes(paddedLength, columnsPerBlock));
    int bad = INT_MAX;
    CudaCheck(cudaMemcpy(&bad, firstBad.Data(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy (row check)");
    ThrowIfNonFiniteRow(this->GetNameOfClass(), bad, region.GetIndex(1) + static_cast<long long>(first));
    if (snr == 0.)
    {
      CudaSortedMedianLaunch median;
      median.band = sort.band;
      median.sortedValues = sortedValues.Data();
      median.sortedAngles = sortedAngles.Data();
      median.size = size;
      CudaCheck(LaunchSortedMedian(median, nullptr), "LaunchSortedMedian");
      continue;
    }
    const std::size_t bandColumns = static_cast<std::size_t>(count) * columns;
    CudaSortedMedianLaunch median;
    median.band = sort.band;
    median.sortedValues = sortedValues.Data();
    median.sortedAngles = sortedAngles.Data();
    median.size = size;
    median.smoothed = smoothed.Data();
    CudaCheck(LaunchSortedMedian(median, nullptr), "LaunchSortedMedian");
    // Pass 0: against the medians (centred); passes 1 and 2: against the neighbours' lines, the
    // stripes found before left out (SortingStripeRemoval::Filter).
    hostStripes.assign(bandColumns, 0);
    hostOffsets.resize(bandColumns);
    std::vector<float> centred;
    for (int pass = 0; pass < 3; ++pass)
    {
      CudaCheck(cudaMemcpy(stripes.Data(), hostStripes.data(), bandColumns, cudaMemcpyHostToDevice),
                "cudaMemcpy (stripes)", bandColumns);
      CudaStripeOffsetsLaunch offsetsLaunch;
      offsetsLaunch.band = sort.band;
      offsetsLaunch.sortedValues = sortedValues.Data();
      offsetsLaunch.stripes = stripes.Data();
      offsetsLaunch.smoothed = pass == 0 ? smoothed.Data() : nullptr;
      offsetsLaunch.scratch = scratch.Data();
      offsetsLaunch.offsets = offsets.Data();
      offsetsLaunch.side = side;
      offsetsLaunch.firstRank = static_cast<int>(firstRank);
      offsetsLaunch.lastRank = static_cast<int>(lastRank);
      CudaCheck(LaunchStripeOffsets(offsetsLaunch, nullptr), "LaunchStripeOffsets");
      CudaCheck(cudaMemcpy(hostOffsets.data(), offsets.Data(), bandColumns * sizeof(float), cudaMemcpyDeviceToHost),
                "cudaMemcpy (stripe offsets)", bandColumns * sizeof(float));
      if (pass == 0)
      {
        centred = hostOffsets;
        continue;
      }
      std::vector<double> rowOffsets(columns);
      for (int r = 0; r < count; ++r)
      {
        std::copy(hostOffsets.begin() + r * columns, hostOffsets.begin() + (r + 1) * columns, rowOffsets.begin());
        const auto found = SortingStripeRemoval::DetectStripes(rowOffsets.data(), columns, snr);
        std::copy(found.begin(), found.end(), hostStripes.begin() + r * columns);
      }
    }
    for (std::size_t i = 0; i < bandColumns; ++i)
      hostStripes[i] = hostStripes[i] & SortingStripeRemoval::KeepsItsOffset(centred[i], hostOffsets[i]);
    CudaCheck(cudaMemcpy(stripes.Data(), hostStripes.data(), bandColumns, cudaMemcpyHostToDevice),
              "cudaMemcpy (stripes)", bandColumns);
    CudaStripeCorrectionLaunch correction;
    correction.band = sort.band;
    correction.sortedValues = sortedValues.Data();
    correction.sortedAngles = sortedAngles.Data();
    correction.stripes = stripes.Data();
    correction.side = 1; // the nearest unmarked column on each side, as the CPU's correction
    CudaCheck(LaunchStripeCorrection(correction, nullptr), "LaunchStripeCorrection");
  }
}

} // namespace cbct

#endif
