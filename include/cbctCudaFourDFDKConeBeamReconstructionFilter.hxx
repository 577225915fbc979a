#ifndef cbctCudaFourDFDKConeBeamReconstructionFilter_hxx
#define cbctCudaFourDFDKConeBeamReconstructionFilter_hxx

#include "cbctConstantImageSource.h"
#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctCudaFDKPiecePlan.h"
#include "cbctInputChecks.h"
#include "cbctRampFilterResponse.h"
#include "cbctSlabSplit.h"
#include "cbctTruncationCorrection.hcu"
#include "cbctWorkerErrors.h"

#include <atomic>
#include <exception>

namespace cbct
{

namespace detail
{
/** The 4D FDK's upload: its stream, an event at its start and one after each frame's group. The
 * destructor waits for the copies (the buffer they fill may be freed next) and frees them. */
struct FourDUpload
{
  explicit FourDUpload(unsigned int frames)
    : done(frames, nullptr)
  {
    CudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (4D FDK upload)");
    CudaCheck(cudaEventCreate(&start), "cudaEventCreate (4D FDK upload)");
    for (auto & e : done)
      CudaCheck(cudaEventCreate(&e), "cudaEventCreate (4D FDK upload)");
  }
  ~FourDUpload()
  {
    if (stream)
    {
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    }
    if (start)
      cudaEventDestroy(start);
    for (auto e : done)
      if (e)
        cudaEventDestroy(e);
    cudaGetLastError(); // nothing to report from a release
  }
  FourDUpload(const FourDUpload &) = delete;
  FourDUpload &
  operator=(const FourDUpload &) = delete;

  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  std::vector<cudaEvent_t> done;
};
} // namespace detail

template <typename TImage>
void
CudaFourDFDKConeBeamReconstructionFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * volume = const_cast<TImage *>(this->GetInput(0));
  if (volume && dynamic_cast<const ConstantImageSource<TImage> *>(volume->GetSource().GetPointer()))
  {
    typename TImage::RegionType one = volume->GetLargestPossibleRegion();
    one.SetSize(TImage::RegionType::SizeType::Filled(1));
    volume->SetRequestedRegion(one);
  }
}

template <typename TImage>
void
CudaFourDFDKConeBeamReconstructionFilter<TImage>::GenerateData()
{
  this->AllocateOutputs();
  OutputImageType * output = this->GetOutput();
  const TImage * volume = this->GetInput(0);
  const TImage * projections = this->GetInput(1);
  auto * weight = this->GetWeightFilter();
  auto * ramp = this->GetRampFilter();
  auto * backProjection = this->GetBackProjectionFilter();
  const GeometryType * geometry = this->m_Geometry;
  const unsigned int n = geometry->GetNumberOfProjections();
  const unsigned int frames = this->m_NumberOfFrames;
  const auto & stack = projections->GetBufferedRegion();
  if (stack != projections->GetLargestPossibleRegion())
    ThrowBadParameter("CUDA 4D FDK projections' buffered region", stack, "the whole stack");
  int device = 0;
  CudaCheck(cudaGetDevice(&device), "cudaGetDevice");

  // What every frame shares: the CPU stages' rules for padding, FFT length, response and options,
  // the whole scan's weighting parameters and matrices (picked per frame below).
  CudaFDKProblem problem;
  const auto padded = weight->ComputeOutputColumns(projections);
  problem.paddedFirst = static_cast<int>(padded.first);
  problem.paddedColumns = static_cast<std::size_t>(padded.second - padded.first + 1);
  problem.length = static_cast<int>(RampFilterPaddedLength(static_cast<unsigned int>(problem.paddedColumns)));
  const auto response = RampFilterResponse(static_cast<unsigned int>(problem.length), projections->GetSpacing()[0],
                                           ramp->GetWindow(), ramp->GetCutOff());
  problem.response = &response;
  problem.scan = weight->ComputeScanParameters(projections);
  problem.truncationExtent =
    TruncationCorrectionExtent(static_cast<int>(problem.paddedColumns), problem.length, ramp->GetTruncationCorrection());
  std::vector<double> taps;
  if (ramp->GetHannCutFrequencyY() > 0.)
  {
    taps = HannLowPassKernel(RampFilterPaddedLength(static_cast<unsigned int>(stack.GetSize(1))), ramp->GetHannCutFrequencyY());
    problem.smoothingTaps = &taps;
  }
  const auto allParameters = weight->ComputeProjectionParameters(projections, 0, n);
  const auto grid = this->FrameGrid();
  const auto allMatrices = backProjection->ComputeProjectionMatrices(grid, projections, 0, n);
  problem.columns = stack.GetSize(0);
  problem.stackRows = stack.GetSize(1);
  problem.stackFirstColumn = static_cast<int>(stack.GetIndex(0));
  problem.stackFirstRow = static_cast<int>(stack.GetIndex(1));
  problem.stackDevice = device;
  // The field of view of the whole scan (every frame keeps the same voxels), on the weighted
  // projections' detector, as the CPU filter's frames see it.
  problem.fieldOfView = this->GetFieldOfView();
  std::vector<ConeProjection> fieldOfViewMatrices;
  if (problem.fieldOfView != FieldOfViewMode::Off)
  {
    fieldOfViewMatrices = FieldOfViewMask::MatricesFor(grid, projections, geometry);
    problem.fieldOfViewMatrices = fieldOfViewMatrices.data();
    problem.fieldOfViewCount = static_cast<unsigned int>(fieldOfViewMatrices.size());
    problem.fieldOfViewAxis = FieldOfViewMask::AxisFor(fieldOfViewMatrices);
    problem.fieldOfViewDetector = FieldOfViewMask::DetectorOf(projections);
    problem.fieldOfViewDetector.uMin = padded.first - 0.5;
    problem.fieldOfViewDetector.uMax = padded.second + 0.5;
  }

  // The initial volume: a constant is filled on the device, anything else read from host memory.
  const auto * constant = dynamic_cast<const ConstantImageSource<TImage> *>(volume->GetSource().GetPointer());
  problem.constantInitial = constant != nullptr;
  if (constant)
    problem.constantValue = static_cast<float>(constant->GetConstant());
  else
  {
    volume->GetCudaDataManager()->SynchronizeHost();
    problem.initial = static_cast<const float *>(volume->GetCudaDataManager()->GetHostBuffer());
    problem.initialBox = detail::ToBox(volume->GetBufferedRegion());
  }
  const auto region = grid->GetLargestPossibleRegion();
  problem.outputBox = detail::ToBox(region);
  const std::size_t voxels = region.GetNumberOfPixels();
  output->GetCudaDataManager()->PinHostBuffer();
  float * outputHost = static_cast<float *>(output->GetCudaDataManager()->GetHostBuffer());

  // The projections, once, grouped by frame: frame f's are `groupStart[f]` onward.
  const std::size_t slice = stack.GetSize(0) * stack.GetSize(1);
  std::vector<std::size_t> groupStart(frames + 1, 0);
  for (unsigned int f = 0; f < frames; ++f)
    groupStart[f + 1] = groupStart[f] + this->m_Frames[f].projections.size();
  auto * stackManager = projections->GetCudaDataManager();
  const float * source = nullptr;
  cudaMemcpyKind kind = cudaMemcpyHostToDevice;
  if (!stackManager->IsHostCurrent())
  {
    source = static_cast<const float *>(stackManager->DeviceBufferForRead());
    kind = cudaMemcpyDeviceToDevice;
  }
  else
  {
    stackManager->PinHostBuffer();
    source = static_cast<const float *>(stackManager->GetHostBuffer());
  }
  CudaDeviceBuffer<float> grouped;
  grouped.Reserve(groupStart[frames] * slice, "4D FDK projections grouped by frame");
  // Frame by frame on a stream of its own, each frame's group marked by an event: frame f waits only
  // for its own projections, the later groups arrive while it computes. (Declared after `grouped`,
  // so that it waits for the copies before the buffer is freed, also when an error unwinds.)
  detail::FourDUpload upload(frames);
  CudaCheck(cudaEventRecord(upload.start, upload.stream), "cudaEventRecord (4D FDK upload)");
  for (unsigned int f = 0; f < frames; ++f)
  {
    const auto & list = this->m_Frames[f].projections;
    // Runs of consecutive projections go in one copy.
    for (std::size_t i = 0; i < list.size();)
    {
      std::size_t j = i + 1;
      while (j < list.size() && list[j] == list[j - 1] + 1)
        ++j;
      CudaCheck(cudaMemcpyAsync(grouped.Data() + (groupStart[f] + i) * slice, source + list[i] * slice,
                                (j - i) * slice * sizeof(float), kind, upload.stream),
                "cudaMemcpyAsync (4D FDK projections of frame " + std::to_string(f) + ")", (j - i) * slice * sizeof(float));
      i = j;
    }
    CudaCheck(cudaEventRecord(upload.done[f], upload.stream), "cudaEventRecord (4D FDK upload)");
  }

  // Frames run on `workers` pipelines at once, each in its own host thread (frames w, w + workers,
  // ...): while one frame's last piece goes to the host, another frame computes, so the 512 MB
  // download of a frame is hidden without cutting it into pieces (whose shared detector rows would be
  // filtered again). A frame is computed by one pipeline alone, the same way whichever: the result
  // does not depend on the number of workers.
  const unsigned int workers = std::max(1u, std::min(m_ConcurrentFrames, frames));
  std::size_t freeBytes = 0, totalBytes = 0;
  CudaMemoryInfo(freeBytes, totalBytes);
  const std::size_t budget = (m_DeviceMemoryBudget > 0 ? m_DeviceMemoryBudget : freeBytes / 10 * 9) / workers;
  // Pieces along y with the detector rows each projects onto (for the whole scan: a superset of any
  // frame's): one per frame unless asked (MinimumPieces) or memory needs more.
  const unsigned int firstCount = static_cast<unsigned int>(std::min<std::size_t>(std::max(1u, m_MinimumPieces), region.GetSize(1)));
  const auto planPieces = [&](unsigned int parts) {
    return detail::PlanCudaFDKPieces(backProjection, grid.GetPointer(), region, projections, parts);
  };

  std::atomic<bool> abort{ false };
  std::atomic<unsigned int> framesDone{ 0 }, piecesUsed{ 0 };
  std::vector<CudaFDKTimes> times(workers);
  const auto work = [&](unsigned int w, const std::function<void()> & notify) {
    CudaCheck(cudaSetDevice(device), "cudaSetDevice (" + std::to_string(device) + ")");
    CudaFDKDevicePipeline pipeline(device);
    CudaFDKPiecePlan plan(planPieces, firstCount, static_cast<unsigned int>(region.GetSize(1)));
    CudaFDKProblem mine = problem;
    std::vector<FDKWeightingProjection> parameters;
    std::vector<ConeProjection> matrices;
    for (unsigned int f = w; f < frames && !abort; f += workers)
    {
      const FourDGating::Frame & frame = this->m_Frames[f];
      parameters.clear();
      matrices.clear();
      for (std::size_t i = 0; i < frame.projections.size(); ++i)
      {
        const unsigned int k = frame.projections[i];
        FDKWeightingProjection p = allParameters[k];
        // FDK's constant with the frame's angular weight (FDKWeightProjectionFilter: SID * SDD * weight / 2).
        p.scale = static_cast<float>(geometry->GetSourceToIsocenterDistance(k) * geometry->GetSourceToDetectorDistance(k) * 0.5 *
                                     frame.weights[i]);
        parameters.push_back(p);
        matrices.push_back(allMatrices[k]);
      }
      mine.stack = grouped.Data() + groupStart[f] * slice;
      mine.count = static_cast<unsigned int>(frame.projections.size());
      mine.parameters = parameters.data();
      mine.matrices = matrices.data();
      mine.output = outputHost + f * voxels;
      // This frame's projections on the device (the later frames' keep coming meanwhile).
      CudaCheck(cudaEventSynchronize(upload.done[f]), "cudaEventSynchronize (4D FDK projections of frame " + std::to_string(f) + ")");
      times[w] += plan.Run(
        pipeline, mine, budget,
        [&](std::size_t pieces, std::size_t needed) {
          return "CUDA 4D FDK on device " + std::to_string(device) + " with " + std::to_string(pieces) + " pieces per frame and " +
                 std::to_string(workers) + " frames at once needs " + FormatBytes(needed) + " per frame besides the " +
                 FormatBytes(groupStart[frames] * slice * sizeof(float)) + " of projections; " + FormatBytes(budget) +
                 " per frame are left (" + FormatBytes(freeBytes) + " were free of " + FormatBytes(totalBytes) + ")";
        },
        abort, [](std::size_t) {},
        [&](std::size_t pieces) { piecesUsed = std::max<unsigned int>(piecesUsed, static_cast<unsigned int>(pieces)); });
      ++framesDone;
      notify();
    }
  };
  // One thread per pipeline (the calling thread for one); progress and abort from this thread (ITK's
  // observers run here).
  WorkerErrors errors; // the first failure of any frame, rethrown below
  RunCudaFDKWorkers(
    workers, work,
    [&]() {
      this->UpdateProgress(static_cast<float>(framesDone) / frames);
      if (this->GetAbortGenerateData())
        abort = true;
    },
    abort, errors);
  errors.RethrowFirst();
  m_NumberOfPieces = piecesUsed;
  this->UpdateProgress(1.f);
  CudaFDKTimes sum;
  for (const auto & t : times)
    sum += t;
  output->GetCudaDataManager()->MarkHostModified();
  // The upload's own span (GPU time, overlapped with the first frames' work).
  float uploadMs = 0.f;
  CudaCheck(cudaEventSynchronize(upload.done[frames - 1]), "cudaEventSynchronize (4D FDK upload)");
  CudaCheck(cudaEventElapsedTime(&uploadMs, upload.start, upload.done[frames - 1]), "cudaEventElapsedTime (4D FDK upload)");
  this->m_StageSeconds[3] += 1e-3 * uploadMs;
  this->AddStageTimes(sum);
}

} // namespace cbct

#endif
