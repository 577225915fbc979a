#ifndef cbctCudaFDKConeBeamReconstructionFilter_hxx
#define cbctCudaFDKConeBeamReconstructionFilter_hxx

#include "cbctConstantImageSource.h"
#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKBackProjection.hcu"
#include "cbctCudaFDKWeighting.hcu"
#include "cbctCudaProjectionTexture.h"
#include "cbctCudaRampFilter.hcu"

#include <algorithm>
#include <chrono>
#include <vector>

namespace cbct
{

namespace detail
{
/** Streams and events owned for one update; destroyed whatever happens. */
class CudaStreamSet
{
public:
  CudaStreamSet()
  {
    CudaCheck(cudaStreamCreateWithFlags(&filter, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (filter)");
    CudaCheck(cudaStreamCreateWithFlags(&backProjection, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (backprojection)");
    CudaCheck(cudaStreamCreateWithFlags(&download, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (download)");
  }
  ~CudaStreamSet()
  {
    cudaStreamSynchronize(filter);
    cudaStreamSynchronize(backProjection);
    cudaStreamSynchronize(download);
    for (cudaEvent_t e : events)
      cudaEventDestroy(e);
    cudaStreamDestroy(filter);
    cudaStreamDestroy(backProjection);
    cudaStreamDestroy(download);
  }
  CudaStreamSet(const CudaStreamSet &) = delete;
  CudaStreamSet &
  operator=(const CudaStreamSet &) = delete;

  /** A new event recorded on `stream` (kept until destruction). */
  cudaEvent_t
  Record(cudaStream_t stream, bool timing = true)
  {
    cudaEvent_t e = nullptr;
    CudaCheck(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
    events.push_back(e);
    CudaCheck(cudaEventRecord(e, stream), "cudaEventRecord");
    return e;
  }

  cudaStream_t filter = nullptr;
  cudaStream_t backProjection = nullptr;
  cudaStream_t download = nullptr;
  std::vector<cudaEvent_t> events;
};

inline double
Seconds(cudaEvent_t start, cudaEvent_t end)
{
  float ms = 0.f;
  CudaCheck(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
  return 1e-3 * ms;
}
} // namespace detail

template <typename TImage>
CudaFDKConeBeamReconstructionFilter<TImage>::CudaFDKConeBeamReconstructionFilter()
{
  this->SetStages(CudaFDKWeightProjectionFilter<TImage>::New(), CudaFFTRampImageFilter<TImage>::New(),
                  CudaFDKBackProjectionImageFilter<TImage>::New());
}

template <typename TImage>
std::size_t
CudaFDKConeBeamReconstructionFilter<TImage>::BytesFor(std::size_t pieceVoxels, std::size_t rows, std::size_t columns,
                                                      std::size_t paddedColumns, std::size_t length) const
{
  const std::size_t batch = CudaBackProjectionBatch;
  const std::size_t volume = 2 * pieceVoxels * sizeof(float);                     // two pieces in flight
  const std::size_t raw = batch * rows * columns * sizeof(float);                 // one uploaded batch
  const std::size_t padded = batch * rows * length * sizeof(double);              // FFT rows (double)
  const std::size_t spectra = batch * rows * (length / 2 + 1) * sizeof(cufftDoubleComplex);
  const std::size_t filtered = batch * rows * paddedColumns * sizeof(float);      // cropped, for the texture
  const std::size_t textures = 2 * batch * rows * paddedColumns * sizeof(float);  // double-buffered
  const std::size_t cufftWork = padded + spectra;                                 // cuFFT's own scratch, at most
  return volume + raw + padded + spectra + filtered + textures + cufftWork + (std::size_t(64) << 20);
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::GenerateData()
{
  this->AllocateOutputs();
  const auto & region = this->GetOutput()->GetRequestedRegion();
  const std::size_t volumeBytes = region.GetNumberOfPixels() * sizeof(float);
  const unsigned int rowsOfVolume = static_cast<unsigned int>(region.GetSize(1));
  unsigned int pieces = m_MinimumPieces > 0 ? m_MinimumPieces : (volumeBytes > (std::size_t(64) << 20) ? 4u : 1u);
  pieces = std::min(pieces, rowsOfVolume);
  for (;;)
  {
    try
    {
      this->Reconstruct(pieces);
      return;
    }
    catch (const itk::MemoryAllocationError & error)
    {
      if (pieces >= rowsOfVolume)
        throw; // one volume row per piece and still too large: the message says what was asked and what is free
      itkDebugMacro(<< "out of device memory with " << pieces << " pieces: " << error.GetDescription());
      pieces = std::min(2 * pieces, rowsOfVolume);
    }
  }
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::Reconstruct(unsigned int pieces)
{
  TImage * output = this->GetOutput();
  const TImage * volume = this->GetInput(0);
  const TImage * projections = this->GetInput(1);
  const auto region = output->GetRequestedRegion();
  const auto & stack = projections->GetBufferedRegion();
  auto * weight = this->GetWeightFilter();
  auto * ramp = this->GetRampFilter();
  auto * backProjection = this->GetBackProjectionFilter();
  const unsigned int count = static_cast<unsigned int>(stack.GetSize(2));
  const unsigned int firstProjection =
    static_cast<unsigned int>(stack.GetIndex(2) - projections->GetLargestPossibleRegion().GetIndex(2));
  const std::size_t columns = stack.GetSize(0);

  // Columns after displaced-detector padding, FFT length and response: the CPU stages' own rules.
  const auto padded = weight->ComputeOutputColumns(projections);
  const int paddedFirst = static_cast<int>(padded.first);
  const std::size_t paddedColumns = static_cast<std::size_t>(padded.second - padded.first + 1);
  const unsigned int length = RampFilterPaddedLength(static_cast<unsigned int>(paddedColumns));
  const auto response = RampFilterResponse(length, projections->GetSpacing()[0], ramp->GetWindow(), ramp->GetCutOff());

  // Pieces along y, each with the detector rows it projects onto.
  const std::size_t ny = region.GetSize(1);
  const std::size_t step = (ny + pieces - 1) / pieces;
  std::vector<typename TImage::RegionType> pieceRegions;
  std::vector<std::pair<int, int>> pieceRows; // first row, number of rows
  std::size_t maxRows = 1, maxVoxels = 1;
  for (std::size_t y0 = 0; y0 < ny; y0 += step)
  {
    auto piece = region;
    piece.SetIndex(1, region.GetIndex(1) + static_cast<itk::IndexValueType>(y0));
    piece.SetSize(1, std::min(step, ny - y0));
    auto rows = backProjection->ComputeProjectionRegion(output, piece, projections);
    int first = static_cast<int>(rows.GetIndex(1)), n = static_cast<int>(rows.GetSize(1));
    // Keep to the rows in memory (the requested region asked for all these).
    const int bufferedFirst = static_cast<int>(stack.GetIndex(1));
    const int bufferedEnd = bufferedFirst + static_cast<int>(stack.GetSize(1));
    const int end = std::min(first + n, bufferedEnd);
    first = std::max(first, bufferedFirst);
    n = rows.GetNumberOfPixels() == 0 ? 0 : std::max(0, end - first);
    pieceRegions.push_back(piece);
    pieceRows.emplace_back(first, n);
    maxRows = std::max<std::size_t>(maxRows, static_cast<std::size_t>(n));
    maxVoxels = std::max<std::size_t>(maxVoxels, piece.GetNumberOfPixels());
  }
  m_NumberOfPieces = static_cast<unsigned int>(pieceRegions.size());

  // Memory budget: fail early (and so fall back to more pieces) rather than half-way.
  std::size_t freeBytes = 0, totalBytes = 0;
  CudaMemoryInfo(freeBytes, totalBytes);
  const std::size_t budget = m_DeviceMemoryBudget > 0 ? m_DeviceMemoryBudget : freeBytes / 10 * 9;
  const std::size_t needed = this->BytesFor(maxVoxels, maxRows, columns, paddedColumns, length);
  if (needed > budget)
  {
    throw itk::MemoryAllocationError(__FILE__, __LINE__,
                                     "CUDA FDK with " + std::to_string(m_NumberOfPieces) + " pieces needs " +
                                       FormatBytes(needed) + " of device memory; the budget is " + FormatBytes(budget) +
                                       " (" + FormatBytes(freeBytes) + " free of " + FormatBytes(totalBytes) + ")",
                                     ITK_LOCATION);
  }

  // Device buffers.
  const std::size_t batch = CudaBackProjectionBatch;
  CudaDeviceBuffer<float> pieceVolumes[2];
  pieceVolumes[0].Reserve(maxVoxels, "volume piece");
  pieceVolumes[1].Reserve(maxVoxels, "volume piece");
  CudaDeviceBuffer<float> raw(batch * maxRows * columns);
  CudaDeviceBuffer<float> filtered(batch * maxRows * paddedColumns);
  CudaRampFilterPlan plan;
  plan.Prepare(static_cast<int>(length), static_cast<int>(batch * maxRows), response);
  CudaProjectionTexture textures[2];
  textures[0].Reserve(static_cast<int>(paddedColumns), static_cast<int>(maxRows), static_cast<int>(batch));
  textures[1].Reserve(static_cast<int>(paddedColumns), static_cast<int>(maxRows), static_cast<int>(batch));
  CudaDeviceBuffer<FDKWeightingProjection> parameters;
  parameters.Upload(weight->ComputeProjectionParameters(projections, firstProjection, count));
  const FDKWeightingScan scan = weight->ComputeScanParameters(projections);
  const auto matrices = backProjection->ComputeProjectionMatrices(output, projections, firstProjection, count);

  // Where the projections are: normally in host memory; on the device if a CUDA filter made them.
  auto * stackManager = projections->GetCudaDataManager();
  const bool stackOnHost = stackManager->IsHostCurrent();
  // Page-locked host buffers: full-speed transfers that overlap the kernels (once per buffer).
  if (stackOnHost)
    stackManager->PinHostBuffer();
  output->GetCudaDataManager()->PinHostBuffer();
  const float * stackData = stackOnHost ? static_cast<const float *>(stackManager->GetHostBuffer())
                                        : static_cast<const float *>(stackManager->DeviceBufferForRead());
  const cudaMemcpyKind uploadKind = stackOnHost ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice;

  // The initial volume: a constant is filled in place, anything else is copied in.
  const auto * constant = dynamic_cast<const ConstantImageSource<TImage> *>(volume->GetSource().GetPointer());
  auto * volumeManager = volume->GetCudaDataManager();
  const bool volumeOnDevice = !constant && !volumeManager->IsHostCurrent();
  const float * volumeData =
    constant ? nullptr
             : (volumeOnDevice ? static_cast<const float *>(volumeManager->DeviceBufferForRead())
                               : static_cast<const float *>(volumeManager->GetHostBuffer()));
  auto * outputData = static_cast<float *>(output->GetCudaDataManager()->GetHostBuffer());

  detail::CudaStreamSet streams;
  std::vector<cudaEvent_t> textureFree(2, nullptr);
  // Events on the filter stream in order: upload start, upload end (= weighting start), weighting
  // end (= filtering start), filtering end; on the backprojection stream: start and end.
  struct Timing
  {
    cudaEvent_t uploadStart, uploaded, weighted, filtered, bpStart, bpEnd;
  };
  std::vector<Timing> timings;
  double downloadSeconds = 0.;
  unsigned int batchNumber = 0;

  std::vector<cudaEvent_t> pieceDone(pieceRegions.size(), nullptr);
  // Downloads piece p on its own stream once its backprojection is done, while later pieces compute.
  auto download = [&](std::size_t p) {
    const auto start = std::chrono::steady_clock::now();
    CudaCheck(cudaStreamWaitEvent(streams.download, pieceDone[p], 0), "cudaStreamWaitEvent (piece done)");
    detail::CopyVolumeRegion(pieceVolumes[p % 2].Data(), pieceRegions[p], outputData, region, pieceRegions[p],
                             cudaMemcpyDeviceToHost, streams.download);
    CudaCheck(cudaStreamSynchronize(streams.download), "cudaStreamSynchronize (download)");
    downloadSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    this->UpdateProgress(static_cast<float>(p + 1) / pieceRegions.size());
  };

  for (std::size_t p = 0; p < pieceRegions.size(); ++p)
  {
    const auto & piece = pieceRegions[p];
    float * pieceData = pieceVolumes[p % 2].Data();
    if (constant)
      CudaCheck(LaunchFill(pieceData, piece.GetNumberOfPixels(), static_cast<float>(constant->GetConstant()),
                           streams.backProjection),
                "LaunchFill (initial volume)");
    else
      detail::CopyVolumeRegion(volumeData, volume->GetBufferedRegion(), pieceData, piece, piece,
                               volumeOnDevice ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, streams.backProjection);

    const int firstRow = pieceRows[p].first, rows = pieceRows[p].second;
    for (unsigned int k0 = 0; rows > 0 && k0 < count; k0 += static_cast<unsigned int>(batch), ++batchNumber)
    {
      const int n = static_cast<int>(std::min<std::size_t>(batch, count - k0));
      const int t = static_cast<int>(batchNumber % 2);
      Timing timing{};
      // Filter stream: wait until the backprojector is done with this texture, then refill it.
      if (textureFree[t])
        CudaCheck(cudaStreamWaitEvent(streams.filter, textureFree[t], 0), "cudaStreamWaitEvent (texture free)");
      timing.uploadStart = streams.Record(streams.filter);
      const float * source =
        stackData + ((static_cast<std::size_t>(k0) * stack.GetSize(1)) + (firstRow - stack.GetIndex(1))) * columns;
      CudaCheck(cudaMemcpy2DAsync(raw.Data(), columns * rows * sizeof(float), source,
                                  columns * stack.GetSize(1) * sizeof(float), columns * rows * sizeof(float), n,
                                  uploadKind, streams.filter),
                "cudaMemcpy2DAsync (upload projections)", columns * rows * n * sizeof(float));
      timing.uploaded = streams.Record(streams.filter);

      CudaWeightingLaunch w;
      w.input = raw.Data();
      w.outputDouble = plan.PaddedRows();
      w.inputColumns = static_cast<int>(columns);
      w.inputProjectionStride = static_cast<long long>(columns) * rows;
      w.inputFirstColumn = static_cast<int>(stack.GetIndex(0));
      w.outputColumns = static_cast<int>(paddedColumns);
      w.outputPitch = static_cast<int>(length);
      w.outputProjectionStride = static_cast<long long>(length) * rows;
      w.outputFirstColumn = paddedFirst;
      w.rows = rows;
      w.firstRow = firstRow;
      w.projections = n;
      w.parameters = parameters.Data() + k0;
      w.scan = scan;
      CudaCheck(LaunchFDKWeighting(w, streams.filter), "LaunchFDKWeighting");
      timing.weighted = streams.Record(streams.filter);
      plan.Filter(streams.filter);
      CudaCropRowsLaunch crop;
      crop.input = plan.PaddedRows();
      crop.inputPitch = static_cast<int>(length);
      crop.output = filtered.Data();
      crop.outputPitch = static_cast<int>(paddedColumns);
      crop.columns = static_cast<int>(paddedColumns);
      crop.rows = static_cast<long long>(n) * rows;
      CudaCheck(LaunchCropRows(crop, streams.filter), "LaunchCropRows");
      textures[t].CopyFromDevice(filtered.Data(), paddedColumns * sizeof(float), static_cast<int>(paddedColumns), rows,
                                 rows, n, streams.filter);
      timing.filtered = streams.Record(streams.filter);

      // Backprojection stream: wait for the texture, backproject, release the texture.
      CudaCheck(cudaStreamWaitEvent(streams.backProjection, timing.filtered, 0), "cudaStreamWaitEvent (texture ready)");
      timing.bpStart = streams.Record(streams.backProjection);
      CudaBackProjectionLaunch b;
      b.volume = pieceData;
      for (unsigned int d = 0; d < 3; ++d)
      {
        b.size[d] = static_cast<int>(piece.GetSize(d));
        b.first[d] = static_cast<int>(piece.GetIndex(d));
      }
      b.projections = textures[t].Texture();
      b.columnOffset = static_cast<float>(paddedFirst);
      b.rowOffset = static_cast<float>(firstRow);
      b.count = n;
      std::copy(matrices.begin() + k0, matrices.begin() + k0 + n, b.matrices);
      CudaCheck(LaunchFDKBackProjection(b, streams.backProjection), "LaunchFDKBackProjection");
      timing.bpEnd = streams.Record(streams.backProjection);
      textureFree[t] = timing.bpEnd;
      timings.push_back(timing);
    }
    pieceDone[p] = streams.Record(streams.backProjection, false);
    if (p > 0)
      download(p - 1); // overlaps with piece p, already queued
  }
  download(pieceRegions.size() - 1);
  output->GetCudaDataManager()->MarkHostModified(); // the result is in host memory

  double upload = 0., weighting = 0., filtering = 0., bp = 0.;
  for (const Timing & t : timings)
  {
    upload += detail::Seconds(t.uploadStart, t.uploaded);
    weighting += detail::Seconds(t.uploaded, t.weighted);
    filtering += detail::Seconds(t.weighted, t.filtered);
    bp += detail::Seconds(t.bpStart, t.bpEnd);
  }
  this->m_StageSeconds[3] += upload;
  this->m_StageSeconds[0] += weighting;
  this->m_StageSeconds[1] += filtering;
  this->m_StageSeconds[2] += bp;
  this->m_StageSeconds[4] += downloadSeconds;
}

} // namespace cbct

#endif
