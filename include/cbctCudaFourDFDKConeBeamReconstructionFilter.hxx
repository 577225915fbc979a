#ifndef cbctCudaFourDFDKConeBeamReconstructionFilter_hxx
#define cbctCudaFourDFDKConeBeamReconstructionFilter_hxx

#include "cbctConstantImageSource.h"
#include "cbctCudaCheck.h"
#include "cbctCudaDeviceBuffer.h"
#include "cbctInputChecks.h"
#include "cbctRampFilterResponse.h"
#include "cbctSlabSplit.h"
#include "cbctTruncationCorrection.hcu"

#include <atomic>
#include <chrono>

namespace cbct
{

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
  using Clock = std::chrono::steady_clock;
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
  auto upload0 = Clock::now();
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
  {
    cudaStream_t stream = nullptr;
    CudaCheck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (4D FDK upload)");
    cudaError_t status = cudaSuccess;
    for (unsigned int f = 0; f < frames && status == cudaSuccess; ++f)
    {
      const auto & list = this->m_Frames[f].projections;
      // Runs of consecutive projections go in one copy.
      for (std::size_t i = 0; i < list.size() && status == cudaSuccess;)
      {
        std::size_t j = i + 1;
        while (j < list.size() && list[j] == list[j - 1] + 1)
          ++j;
        status = cudaMemcpyAsync(grouped.Data() + (groupStart[f] + i) * slice, source + list[i] * slice,
                                 (j - i) * slice * sizeof(float), kind, stream);
        i = j;
      }
    }
    const cudaError_t synced = cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    CudaCheck(status, "cudaMemcpyAsync (4D FDK projections)", groupStart[frames] * slice * sizeof(float));
    CudaCheck(synced, "cudaStreamSynchronize (4D FDK projections)");
  }
  this->m_StageSeconds[3] += std::chrono::duration<double>(Clock::now() - upload0).count();

  // Pieces along y with the detector rows each projects onto (for the whole scan: a superset of
  // any frame's), as many as memory needs.
  std::size_t freeBytes = 0, totalBytes = 0;
  CudaMemoryInfo(freeBytes, totalBytes);
  const std::size_t budget = m_DeviceMemoryBudget > 0 ? m_DeviceMemoryBudget : freeBytes / 10 * 9;
  const std::size_t frameBytes = voxels * sizeof(float);
  unsigned int count = m_MinimumPieces > 0 ? m_MinimumPieces
                                           : (frameBytes > (std::size_t(256) << 20) ? 4u : (frameBytes > (std::size_t(64) << 20) ? 2u : 1u));
  count = static_cast<unsigned int>(std::min<std::size_t>(count, region.GetSize(1)));
  const auto planPieces = [&](unsigned int pieces) {
    std::vector<CudaFDKPiece> list;
    for (const auto & part : SlabSplit::Tapered(region, pieces))
    {
      CudaFDKPiece piece;
      piece.box = detail::ToBox(part);
      const auto needed = backProjection->ComputeProjectionRegion(grid, part, projections);
      const int first = static_cast<int>(stack.GetIndex(1));
      const int end = first + static_cast<int>(stack.GetSize(1));
      const int begin = std::max(static_cast<int>(needed.GetIndex(1)), first);
      const int end1 = std::min(static_cast<int>(needed.GetIndex(1) + needed.GetSize(1)), end);
      piece.firstRow = begin;
      piece.rows = needed.GetNumberOfPixels() == 0 ? 0 : std::max(0, end1 - begin);
      list.push_back(piece);
    }
    return list;
  };

  CudaFDKDevicePipeline pipeline(device);
  std::atomic<bool> abort{ false };
  std::vector<FDKWeightingProjection> parameters;
  std::vector<ConeProjection> matrices;
  CudaFDKTimes sum;
  for (unsigned int f = 0; f < frames; ++f)
  {
    const FourDGating::Frame & frame = this->m_Frames[f];
    parameters.clear();
    matrices.clear();
    for (std::size_t i = 0; i < frame.projections.size(); ++i)
    {
      const unsigned int k = frame.projections[i];
      FDKWeightingProjection p = allParameters[k];
      // FDK's constant with the frame's angular share (FDKWeightProjectionFilter: SID * SDD * share / 2).
      p.scale = static_cast<float>(geometry->GetSourceToIsocenterDistance(k) * geometry->GetSourceToDetectorDistance(k) * 0.5 *
                                   frame.weights[i]);
      parameters.push_back(p);
      matrices.push_back(allMatrices[k]);
    }
    problem.stack = grouped.Data() + groupStart[f] * slice;
    problem.count = static_cast<unsigned int>(frame.projections.size());
    problem.parameters = parameters.data();
    problem.matrices = matrices.data();
    problem.output = outputHost + f * voxels;
    for (;;)
    {
      const std::vector<CudaFDKPiece> pieces = planPieces(count);
      std::size_t maxRows = 1, maxVoxels = 1;
      for (const auto & p : pieces)
      {
        maxRows = std::max<std::size_t>(maxRows, static_cast<std::size_t>(p.rows));
        maxVoxels = std::max(maxVoxels, p.box.Voxels());
      }
      try
      {
        const std::size_t needed = CudaFDKDevicePipeline::BytesFor(problem, maxVoxels, maxRows);
        if (needed > budget + pipeline.GetHeldBytes())
          throw itk::MemoryAllocationError(__FILE__, __LINE__,
                                           "CUDA 4D FDK on device " + std::to_string(device) + " with " + std::to_string(pieces.size()) +
                                             " pieces per frame needs " + FormatBytes(needed) + " besides the " +
                                             FormatBytes(groupStart[frames] * slice * sizeof(float)) + " of projections; " +
                                             FormatBytes(budget) + " are left (" + FormatBytes(freeBytes) + " were free of " +
                                             FormatBytes(totalBytes) + ")",
                                           ITK_LOCATION);
        m_NumberOfPieces = static_cast<unsigned int>(pieces.size());
        sum += pipeline.Run(problem, pieces, abort, [](std::size_t) {});
        break;
      }
      catch (const itk::MemoryAllocationError &)
      {
        if (count >= region.GetSize(1))
          throw;
        count = static_cast<unsigned int>(std::min<std::size_t>(2 * count, region.GetSize(1)));
      }
    }
    this->UpdateProgress(static_cast<float>(f + 1) / frames);
    if (this->GetAbortGenerateData())
      break;
  }
  output->GetCudaDataManager()->MarkHostModified();
  this->m_StageSeconds[3] += sum.upload;
  this->m_StageSeconds[0] += sum.weighting;
  this->m_StageSeconds[1] += sum.filtering;
  this->m_StageSeconds[2] += sum.backprojection;
  this->m_StageSeconds[4] += sum.download;
}

} // namespace cbct

#endif
