#ifndef cbctCudaSortingStripeRemovalImageFilter_hxx
#define cbctCudaSortingStripeRemovalImageFilter_hxx

#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaStripeRemovalBands.h"
#include "cbctInputChecks.h"

#include <algorithm>
#include <sstream>

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

  // Bands of rows whose sorted values and angles (8 bytes a pixel) fit 512 MiB.
  const std::size_t perRow = projections * columns * 8u;
  const std::size_t bandRows = std::max<std::size_t>(1, std::min<std::size_t>(rows, (std::size_t{ 512 } << 20) / perRow));
  CudaDeviceBuffer<float> sortedValues(bandRows * projections * columns);
  CudaDeviceBuffer<int> sortedAngles(bandRows * projections * columns);
  CudaDeviceBuffer<int> firstBad(1);
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
    CudaSortedMedianLaunch median;
    median.band = sort.band;
    median.sortedValues = sortedValues.Data();
    median.sortedAngles = sortedAngles.Data();
    median.size = size;
    CudaCheck(LaunchSortedMedian(median, nullptr), "LaunchSortedMedian");
    int bad = INT_MAX;
    CudaCheck(cudaMemcpy(&bad, firstBad.Data(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy (row check)");
    ThrowIfNonFiniteRow(this->GetNameOfClass(), bad, region.GetIndex(1) + static_cast<long long>(first));
  }
}

} // namespace cbct

#endif
