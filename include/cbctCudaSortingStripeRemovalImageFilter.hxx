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

namespace detail
{
/** A CUDA event pair that adds its interval to a total when timing (and does nothing otherwise). */
class CudaStageTimer
{
public:
  explicit CudaStageTimer(bool on)
    : m_On(on)
  {
    if (m_On)
    {
      CudaCheck(cudaEventCreate(&m_Start), "cudaEventCreate");
      CudaCheck(cudaEventCreate(&m_Stop), "cudaEventCreate");
    }
  }
  ~CudaStageTimer()
  {
    if (m_On)
    {
      cudaEventDestroy(m_Start);
      cudaEventDestroy(m_Stop);
    }
  }
  CudaStageTimer(const CudaStageTimer &) = delete;
  CudaStageTimer &
  operator=(const CudaStageTimer &) = delete;
  void
  Start()
  {
    if (m_On)
      CudaCheck(cudaEventRecord(m_Start, nullptr), "cudaEventRecord");
  }
  /** Adds the interval since Start() to `milliseconds` (waits for it). */
  void
  Stop(double & milliseconds)
  {
    if (!m_On)
      return;
    CudaCheck(cudaEventRecord(m_Stop, nullptr), "cudaEventRecord");
    CudaCheck(cudaEventSynchronize(m_Stop), "cudaEventSynchronize");
    float ms = 0.f;
    CudaCheck(cudaEventElapsedTime(&ms, m_Start, m_Stop), "cudaEventElapsedTime");
    milliseconds += ms;
  }

private:
  bool m_On;
  cudaEvent_t m_Start{};
  cudaEvent_t m_Stop{};
};

/** Device arrays of SortingStripeRemoval::Measures for `rows` rows of `columns`. */
struct CudaMeasuresBuffers
{
  CudaDeviceBuffer<double> centred, between, spread, level, correction;
  void
  Reserve(std::size_t count)
  {
    centred.Reserve(count, "stripe detection measures");
    between.Reserve(count, "stripe detection measures");
    spread.Reserve(count, "stripe detection measures");
    level.Reserve(count, "stripe detection measures");
    correction.Reserve(count, "stripe detection measures");
  }
  CudaStripeMeasures
  Get()
  {
    CudaStripeMeasures m;
    m.centred = centred.Data();
    m.between = between.Data();
    m.spread = spread.Data();
    m.level = level.Data();
    m.correction = correction.Data();
    return m;
  }
};
} // namespace detail

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
  m_StageMilliseconds = StageMilliseconds{};

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
  const double snr = this->GetSNR();
  const auto * in = static_cast<const float *>(input->GetCudaDataManager()->DeviceBufferForRead());
  auto * out = static_cast<float *>(output->GetCudaDataManager()->DeviceBufferForWrite());
  detail::CudaStageTimer timer(m_TimeStages);
  const TImage * replacement = snr > 0. ? this->GetReplacement() : nullptr;
  const float * replacementData = nullptr;
  if (replacement)
  {
    if (!replacement->GetBufferedRegion().IsInside(region))
      itkExceptionMacro(<< "the replacement's buffered region " << replacement->GetBufferedRegion()
                        << " does not hold the output's rows " << region);
    replacementData = static_cast<const float *>(replacement->GetCudaDataManager()->DeviceBufferForRead());
  }

  // Detector rows counted from the detector's first (the input's largest region).
  const auto & largest = input->GetLargestPossibleRegion();
  const itk::IndexValueType origin = largest.GetIndex(1);
  const int detectorRows = static_cast<int>(largest.GetSize(1));
  // The band of output rows [first, first + count) and, with the detection, the rows it needs
  // (SortingStripeRemovalImageFilter::GenerateData()): their bands' (correction offsets), those
  // rows' bands' (second offsets) and theirs (first offsets, and the sort).
  struct Rows
  {
    itk::IndexValueType first;
    itk::SizeValueType count;
  };
  auto bandRows = [&](Rows r) -> Rows {
    if (snr == 0.)
      return r;
    const auto span = this->BandRows(r.first, r.count);
    return { span.first, span.second };
  };
  // Bands of output rows whose sorted rows (8 bytes a pixel) fit 512 MiB: at most that many rows,
  // less the rows the detection adds (three bands' reach each way), and at least one.
  const std::size_t perRow = projections * columns * 8u;
  const std::size_t fit = std::max<std::size_t>(1, (std::size_t{ 512 } << 20) / perRow);
  const std::size_t reach = snr > 0. ? 3 * std::min<std::size_t>(std::max(1u, this->GetDetectionRows()), detectorRows) : 0;
  const std::size_t outBand = std::max<std::size_t>(1, std::min(rows, fit > reach ? fit - reach : 1));
  const Rows widest = bandRows(bandRows(bandRows({ region.GetIndex(1), std::min(outBand, rows) })));
  const std::size_t sortedRows = std::max<std::size_t>(widest.count, outBand + reach + 1);
  CudaDeviceBuffer<float> sortedValues(sortedRows * projections * columns);
  CudaDeviceBuffer<int> sortedAngles(sortedRows * projections * columns);
  CudaDeviceBuffer<int> firstBad(1);
  detail::CudaMeasuresBuffers first, second, correction, pooled, pooledCorrection;
  CudaDeviceBuffer<unsigned char> stripes;
  CudaDeviceBuffer<double> scratch;
  int paddedColumns = 1;
  while (static_cast<std::size_t>(paddedColumns) < columns)
    paddedColumns *= 2;
  const int drop = static_cast<int>((projections * 5) / 100), firstRank = drop,
            lastRank = static_cast<int>(projections) - drop;
  int paddedRanks = 1;
  while (paddedRanks < lastRank - firstRank)
    paddedRanks *= 2;
  const int warpsPerBlock =
    std::max(1, std::min(8, static_cast<int>(static_cast<std::size_t>(sharedBytes) / (static_cast<std::size_t>(paddedRanks) * 4u))));
  if (snr > 0.)
  {
    const std::size_t measures = sortedRows * columns;
    first.Reserve(measures);
    second.Reserve(measures);
    correction.Reserve(measures);
    pooled.Reserve(measures);
    pooledCorrection.Reserve(measures);
    stripes.Reserve(measures, "stripe detection marks");
    scratch.Reserve(sortedRows * 2 * static_cast<std::size_t>(paddedColumns), "stripe detection scratch");
  }
  auto stage = [](Rows r) {
    CudaStripeRows s;
    s.first = static_cast<int>(r.first);
    s.count = static_cast<int>(r.count);
    return s;
  };
  auto relative = [&](Rows r) { return Rows{ r.first - origin, r.count }; };

  for (std::size_t done = 0; done < rows; done += outBand)
  {
    const Rows outRows{ region.GetIndex(1) + static_cast<itk::IndexValueType>(done), std::min(outBand, rows - done) };
    const Rows correctionRows = bandRows(outRows), secondRows = bandRows(correctionRows),
               firstRows = bandRows(secondRows);
    const int none = INT_MAX;
    CudaCheck(cudaMemcpy(firstBad.Data(), &none, sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy (row check)");
    timer.Start();
    CudaSortColumnsLaunch sort;
    sort.band = CudaSinogramBandOf(input, output, in, out, static_cast<long long>(firstRows.first - region.GetIndex(1)),
                                   static_cast<int>(firstRows.count));
    sort.sortedValues = sortedValues.Data();
    sort.sortedAngles = sortedAngles.Data();
    sort.paddedLength = paddedLength;
    sort.columnsPerBlock = columnsPerBlock;
    sort.firstNonFiniteRow = firstBad.Data();
    CudaCheck(LaunchSortColumns(sort, nullptr), "LaunchSortColumns",
              CudaSortColumnsSharedBytes(paddedLength, columnsPerBlock));
    timer.Stop(m_StageMilliseconds.sort);
    if (snr == 0.)
    {
      CudaSortedMedianLaunch median;
      median.band = sort.band;
      median.sortedValues = sortedValues.Data();
      median.sortedAngles = sortedAngles.Data();
      median.size = size;
      timer.Start();
      CudaCheck(LaunchSortedMedian(median, nullptr), "LaunchSortedMedian");
      timer.Stop(m_StageMilliseconds.correction);
    }
    else
    {
      // Rows counted from the detector's first row.
      const Rows f = relative(firstRows), s = relative(secondRows), c = relative(correctionRows), o = relative(outRows);
      CudaStripeMeasuresLaunch measures;
      measures.sortedValues = sortedValues.Data();
      measures.sortedFirst = static_cast<int>(f.first);
      measures.columns = static_cast<int>(columns);
      measures.projections = static_cast<int>(projections);
      measures.size = size;
      measures.side = std::min(64, std::max(1, size / 2));
      measures.firstRank = firstRank;
      measures.lastRank = lastRank;
      measures.paddedLength = paddedRanks;
      measures.warpsPerBlock = warpsPerBlock;
      CudaStripePoolLaunch pool;
      pool.columns = static_cast<int>(columns);
      pool.detectorRows = detectorRows;
      pool.bandRows = static_cast<int>(std::max(1u, this->GetDetectionRows()));
      CudaStripeDetectionLaunch detection;
      detection.columns = static_cast<int>(columns);
      detection.paddedColumns = paddedColumns;
      detection.snr = snr;
      detection.scratch = scratch.Data();
      detection.stripes = stripes.Data();
      detection.pooled = pooled.Get();
      timer.Start();
      // First offsets of every sorted row; the stripes of the second rows on their bands' means.
      measures.rows = stage(f);
      measures.stage = 0;
      measures.out = first.Get();
      CudaCheck(LaunchStripeMeasures(measures, nullptr), "LaunchStripeMeasures (first)");
      pool.rows = stage(s);
      pool.in = first.Get();
      pool.inFirst = static_cast<int>(f.first);
      pool.out = pooled.Get();
      CudaCheck(LaunchStripePool(pool, nullptr), "LaunchStripePool (first)");
      detection.rows = stage(s);
      detection.keep = false;
      CudaCheck(LaunchStripeDetection(detection, nullptr), "LaunchStripeDetection (first)");
      // Second offsets; the final stripes of the correction rows.
      measures.rows = stage(s);
      measures.stage = 1;
      measures.in = first.Get();
      measures.inFirst = static_cast<int>(f.first);
      measures.out = second.Get();
      measures.stripes = stripes.Data();
      CudaCheck(LaunchStripeMeasures(measures, nullptr), "LaunchStripeMeasures (second)");
      pool.rows = stage(c);
      pool.in = second.Get();
      pool.inFirst = static_cast<int>(s.first);
      CudaCheck(LaunchStripePool(pool, nullptr), "LaunchStripePool (second)");
      detection.rows = stage(c);
      detection.keep = true;
      CudaCheck(LaunchStripeDetection(detection, nullptr), "LaunchStripeDetection (final)");
      // Correction offsets with those; the output rows' final stripes and mean offsets.
      measures.rows = stage(c);
      measures.stage = 2;
      measures.in = second.Get();
      measures.inFirst = static_cast<int>(s.first);
      measures.out = correction.Get();
      CudaCheck(LaunchStripeMeasures(measures, nullptr), "LaunchStripeMeasures (correction)");
      pool.rows = stage(o);
      CudaCheck(LaunchStripePool(pool, nullptr), "LaunchStripePool (second, output rows)");
      detection.rows = stage(o);
      CudaCheck(LaunchStripeDetection(detection, nullptr), "LaunchStripeDetection (output rows)");
      pool.in = correction.Get();
      pool.inFirst = static_cast<int>(c.first);
      pool.out = pooledCorrection.Get();
      CudaCheck(LaunchStripePool(pool, nullptr), "LaunchStripePool (correction)");
      timer.Stop(m_StageMilliseconds.detection);
      timer.Start();
      CudaStripeCorrectionLaunch correct;
      correct.band = CudaSinogramBandOf(input, output, in, out, static_cast<long long>(done), static_cast<int>(outRows.count));
      correct.sortedValues = sortedValues.Data();
      correct.sortedAngles = sortedAngles.Data();
      correct.sortedFirst = static_cast<int>(f.first);
      correct.rows = stage(o);
      correct.stripes = stripes.Data();
      correct.pooled = pooledCorrection.Get();
      if (replacement)
      {
        auto at = region.GetIndex();
        at[1] = outRows.first;
        const auto & buffer = replacement->GetBufferedRegion();
        correct.replacement = replacementData + replacement->ComputeOffset(at);
        correct.replacementRowPitch = static_cast<long long>(buffer.GetSize(0));
        correct.replacementProjectionPitch = static_cast<long long>(buffer.GetSize(0) * buffer.GetSize(1));
      }
      CudaCheck(LaunchStripeCorrection(correct, nullptr), "LaunchStripeCorrection");
      timer.Stop(m_StageMilliseconds.correction);
    }
    int bad = INT_MAX;
    CudaCheck(cudaMemcpy(&bad, firstBad.Data(), sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy (row check)");
    ThrowIfNonFiniteRow(this->GetNameOfClass(), bad, firstRows.first);
  }
}

} // namespace cbct

#endif
