#ifndef cbctCudaFDKConeBeamReconstructionFilter_hxx
#define cbctCudaFDKConeBeamReconstructionFilter_hxx

#include "cbctConstantImageSource.h"
#include "cbctCudaCheck.h"
#include "cbctCudaDevice.h"
#include "cbctCudaFDKPiecePlan.h"
#include "cbctCylindricalFDK.h"
#include "cbctHelicalFDK.h"
#include "cbctInputChecks.h"
#include "cbctRampFilterResponse.h"
#include "cbctSlabSplit.h"
#include "cbctTruncationCorrection.hcu"
#include "cbctWorkerErrors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>

namespace cbct
{

namespace detail
{
/** `region` as a VoxelBox. */
inline VoxelBox
ToBox(const itk::ImageRegion<3> & region)
{
  VoxelBox box;
  for (unsigned int d = 0; d < 3; ++d)
  {
    box.index[d] = region.GetIndex(d);
    box.size[d] = region.GetSize(d);
  }
  return box;
}

/** `count` pieces of `region` of `volume` (SlabSplit::Tapered), each with the rows of the buffered
 * projections it projects onto (the 3D and the 4D CUDA FDK's plan). */
template <typename TBackProjection, typename TImage>
std::vector<CudaFDKPiece>
PlanCudaFDKPieces(const TBackProjection * backProjection, const TImage * volume, const typename TImage::RegionType & region,
                  const TImage * projections, unsigned int count)
{
  const auto & stack = projections->GetBufferedRegion();
  std::vector<CudaFDKPiece> pieces;
  for (const auto & part : SlabSplit::Tapered(region, count))
  {
    CudaFDKPiece piece;
    piece.box = ToBox(part);
    const auto needed = backProjection->ComputeProjectionRegion(volume, part, projections);
    // Keep to the rows in memory (the requested region asked for all of these).
    const int bufferedFirst = static_cast<int>(stack.GetIndex(1));
    const int bufferedEnd = bufferedFirst + static_cast<int>(stack.GetSize(1));
    const int begin = std::max(static_cast<int>(needed.GetIndex(1)), bufferedFirst);
    const int end = std::min(static_cast<int>(needed.GetIndex(1) + needed.GetSize(1)), bufferedEnd);
    piece.firstRow = begin;
    piece.rows = needed.GetNumberOfPixels() == 0 ? 0 : std::max(0, end - begin);
    pieces.push_back(piece);
  }
  return pieces;
}

} // namespace detail

template <typename TImage>
CudaFDKConeBeamReconstructionFilter<TImage>::CudaFDKConeBeamReconstructionFilter()
{
  this->SetStages(CudaFDKWeightProjectionFilter<TImage>::New(), CudaFFTRampImageFilter<TImage>::New(),
                  CudaFDKBackProjectionImageFilter<TImage>::New());
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::SetDevices(const std::vector<int> & devices)
{
  if (devices == m_Devices)
    return;
  CheckCudaDevices(devices);
  m_Devices = devices;
  this->Modified();
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::ReleaseDeviceMemory()
{
  m_Pipelines.clear();
}

template <typename TImage>
std::size_t
CudaFDKConeBeamReconstructionFilter<TImage>::GetHeldDeviceMemory() const
{
  std::size_t bytes = 0;
  for (const auto & p : m_Pipelines)
    bytes += p ? p->GetHeldBytes() : 0;
  return bytes;
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::SetCountProjections(const CountImageType * readings,
                                                                 const std::vector<double> & logFlatPerProjection,
                                                                 const LineIntegralConversion & conversion)
{
  if (!readings)
    ThrowBadParameter("CUDA FDK 16-bit readings", "none", "an image of detector readings");
  const std::size_t projections = readings->GetLargestPossibleRegion().GetSize(2);
  if (logFlatPerProjection.size() != projections)
    ThrowBadParameter("CUDA FDK log flat fields", std::to_string(logFlatPerProjection.size()) + " values",
                      "one per projection of the readings (" + std::to_string(projections) + ")");
  for (double v : logFlatPerProjection)
    if (!std::isfinite(v))
      ThrowBadParameter("CUDA FDK log flat field", v, "a finite ln(I0 - Idark)");
  if (!(conversion.minimum > 0.) || !std::isfinite(conversion.dark) || !std::isfinite(conversion.minimum))
    ThrowBadParameter("CUDA FDK intensity conversion minimum", conversion.minimum, "a finite minimum signal > 0");
  m_Counts = readings;
  m_LogFlat = logFlatPerProjection;
  m_Conversion = conversion;
  if (!m_CountsGrid)
    m_CountsGrid = TImage::New(); // its grid is the readings', set in GenerateOutputInformation()
  this->SetProjections(m_CountsGrid);
  this->Modified();
}

template <typename TImage>
itk::ModifiedTimeType
CudaFDKConeBeamReconstructionFilter<TImage>::GetMTime() const
{
  itk::ModifiedTimeType t = Superclass::GetMTime();
  if (m_Counts && this->GetInput(1) == m_CountsGrid.GetPointer())
    t = std::max(t, m_Counts->GetMTime());
  return t;
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::GenerateOutputInformation()
{
  if (m_Counts && this->GetInput(1) == m_CountsGrid.GetPointer())
  {
    m_CountsGrid->CopyInformation(m_Counts);
    m_CountsGrid->SetBufferedRegion(m_Counts->GetBufferedRegion());
  }
  Superclass::GenerateOutputInformation();
}

template <typename TImage>
std::vector<CudaFDKPiece>
CudaFDKConeBeamReconstructionFilter<TImage>::PlanPieces(const typename TImage::RegionType & share, unsigned int count)
{
  return detail::PlanCudaFDKPieces(this->GetBackProjectionFilter(), this->GetOutput(), share, this->GetInput(1), count);
}

template <typename TImage>
CudaFDKTimes
CudaFDKConeBeamReconstructionFilter<TImage>::ReconstructShare(CudaFDKDevicePipeline & pipeline, const CudaFDKProblem & problem,
                                                              const typename TImage::RegionType & share,
                                                              const std::atomic<bool> & abort,
                                                              const CudaFDKDevicePipeline::PieceCallback & pieceDone,
                                                              std::atomic<unsigned int> & piecesUsed)
{
  const int device = pipeline.GetDevice();
  CudaCheck(cudaSetDevice(device), "cudaSetDevice (" + std::to_string(device) + ")");
  const std::size_t rowsOfShare = share.GetSize(1);
  // One piece unless asked or out of memory: each piece uploads and filters again the detector rows
  // it shares with its neighbours, and that filtering competes with the backprojection for the
  // multiprocessors, which costs more than the download it hides (H100: S 65.5 ms with one piece
  // against 73-77 ms with four, R 0.632 against 0.690 s; benchmarks/README.md).
  std::size_t freeBytes = 0, totalBytes = 0;
  CudaMemoryInfo(freeBytes, totalBytes);
  freeBytes += pipeline.GetHeldBytes(); // what the last update kept is ours to reuse
  const std::size_t budget = m_DeviceMemoryBudget > 0 ? m_DeviceMemoryBudget : freeBytes / 10 * 9;
  CudaFDKPiecePlan plan([&](unsigned int count) { return this->PlanPieces(share, count); },
                        m_MinimumPieces > 0 ? m_MinimumPieces : 1u, static_cast<unsigned int>(rowsOfShare));
  return plan.Run(
    pipeline, problem, budget,
    [&](std::size_t pieces, std::size_t needed) {
      return "CUDA FDK on device " + std::to_string(device) + " with " + std::to_string(pieces) + " pieces needs " +
             FormatBytes(needed) + " of device memory; the budget is " + FormatBytes(budget) + " (" + FormatBytes(freeBytes) +
             " free of " + FormatBytes(totalBytes) + ")";
    },
    abort, pieceDone, [&](std::size_t pieces) { piecesUsed = static_cast<unsigned int>(pieces); });
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::GenerateInputRequestedRegion()
{
  Superclass::GenerateInputRequestedRegion();
  auto * volume = const_cast<TImage *>(this->GetInput(0));
  if (dynamic_cast<const ConstantImageSource<TImage> *>(volume->GetSource().GetPointer()))
  {
    // GenerateData fills the constant on the device: a 2048^3 volume must not be filled (32 GB)
    // on the host as well.
    typename TImage::RegionType one = this->GetOutput()->GetRequestedRegion();
    one.SetSize(TImage::RegionType::SizeType::Filled(1));
    volume->SetRequestedRegion(one);
  }
}

template <typename TImage>
void
CudaFDKConeBeamReconstructionFilter<TImage>::GenerateData()
{
  const auto generateStart = std::chrono::steady_clock::now();
  if (this->GetProjectionsPerBatch() > 0 &&
      this->GetProjectionsPerBatch() < this->GetInput(1)->GetLargestPossibleRegion().GetSize(2))
    ThrowBadParameter("CUDA FDK projections per batch", this->GetProjectionsPerBatch(),
                      "0: the CUDA filter takes the rows of every projection at once and streams them to the "
                      "device in batches itself");
  this->AllocateOutputs();
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

  std::vector<int> devices = m_Devices;
  if (devices.empty())
  {
    int current = 0;
    CudaCheck(cudaGetDevice(&current), "cudaGetDevice");
    devices.push_back(current);
  }
  const std::size_t shares = std::min<std::size_t>(devices.size(), region.GetSize(1));

  // What every device reads: the CPU stages' own rules for padding, FFT length and response, the
  // per-projection weighting parameters and the backprojection matrices.
  CudaFDKProblem problem;
  const auto padded = weight->ComputeOutputColumns(projections);
  problem.paddedFirst = static_cast<int>(padded.first);
  problem.paddedColumns = static_cast<std::size_t>(padded.second - padded.first + 1);
  problem.length = static_cast<int>(RampFilterPaddedLength(static_cast<unsigned int>(problem.paddedColumns)));
  const auto response = RampFilterResponse(static_cast<unsigned int>(problem.length), projections->GetSpacing()[0],
                                           ramp->GetWindow(), ramp->GetCutOff(), ramp->GetCylinderRadius());
  problem.response = &response;
  problem.scan = weight->ComputeScanParameters(projections);
  // A flat panel's weights and matrices, or a cylinder's (its own weighting and backprojection kernels).
  const ThreeDCircularProjectionGeometry * geometry = this->GetGeometry();
  std::vector<FDKWeightingProjection> parameters;
  std::vector<ConeProjection> matrices;
  std::vector<CylindricalWeightingProjection> cylindricalParameters;
  std::vector<CylindricalProjection> cylindricalMatrices;
  if (geometry->IsCylindrical())
  {
    cylindricalParameters = weight->ComputeCylindricalParameters(projections, firstProjection, count);
    problem.cylindricalParameters = cylindricalParameters.data();
    cylindricalMatrices = CylindricalVoxelToPixel(output, projections, geometry, firstProjection, count);
    problem.cylindricalMatrices = cylindricalMatrices.data();
    problem.cylindricalGrid = CylindricalGrid(geometry, projections);
  }
  else
  {
    parameters = weight->ComputeProjectionParameters(projections, firstProjection, count);
    problem.parameters = parameters.data();
    matrices = backProjection->ComputeProjectionMatrices(output, projections, firstProjection, count);
    problem.matrices = matrices.data();
  }
  // A helical orbit: helical FDK's backprojection, with each view's matrix and place on the helix.
  std::vector<CudaHelicalView> helicalViews;
  if (IsHelicalGeometry(geometry))
  {
    const HelicalFDKSetup setup = HelicalFDKSetup::Of(geometry, projections);
    helicalViews.resize(count);
    for (unsigned int c = 0; c < count; ++c)
    {
      CudaHelicalView & v = helicalViews[c];
      if (geometry->IsCylindrical())
      {
        const CylindricalProjection centred = TexelCentredCylindrical(cylindricalMatrices[c]);
        std::copy(centred.matrix, centred.matrix + 12, v.matrix);
        std::copy(centred.pixelOffset, centred.pixelOffset + 2, v.pixelOffset);
      }
      else
      {
        const ConeProjection centred = TexelCentred(matrices[c]);
        std::copy(centred.matrix, centred.matrix + 12, v.matrix);
      }
      v.view = setup.Views()[firstProjection + c];
    }
    problem.helicalViews = helicalViews.data();
    problem.helicalScan = setup.Scan();
    // The volume's voxels to world mm, and the farthest a voxel projecting onto the detector can be
    // from the source's height: the detector's farthest row seen from the volume's farthest voxel.
    const auto & direction = output->GetDirection();
    double radius = 0.;
    const auto & largest = output->GetLargestPossibleRegion();
    for (unsigned int r = 0; r < 3; ++r)
    {
      for (unsigned int c = 0; c < 3; ++c)
        problem.voxelToWorld[4 * r + c] = static_cast<float>(direction(r, c) * output->GetSpacing()[c]);
      problem.voxelToWorld[4 * r + 3] = static_cast<float>(output->GetOrigin()[r]);
    }
    for (unsigned int corner = 0; corner < 8; ++corner)
    {
      typename TImage::IndexType index;
      for (unsigned int d = 0; d < 3; ++d)
        index[d] = largest.GetIndex(d) + ((corner >> d) & 1u ? static_cast<itk::IndexValueType>(largest.GetSize(d)) - 1 : 0);
      typename TImage::PointType point;
      output->TransformIndexToPhysicalPoint(index, point);
      radius = std::max(radius, std::sqrt(point[0] * point[0] + point[2] * point[2]));
    }
    const HelicalScan & s = setup.Scan();
    const double row = std::abs(s.rowCentre) + s.rowHalfHeight;
    problem.helicalReach = static_cast<float>(row * (s.sourceRadius + radius) / s.sdd + 2. * output->GetSpacing()[1]);
  }
  // The field of view: every projection of the scan on the weighted projections' detector (the
  // columns widened for a displaced detector), as the CPU backprojector sees it.
  std::vector<ConeProjection> fieldOfViewMatrices;
  problem.fieldOfView = backProjection->GetFieldOfView();
  if (problem.fieldOfView != FieldOfViewMode::Off && (geometry->IsCylindrical() || IsHelicalGeometry(geometry)))
    ThrowBadParameter("field of view", IsHelicalGeometry(geometry) ? "a helical orbit" : "a cylindrical detector",
                      "a circular orbit and a flat panel (the field of view of helices and cylinders is not drawn yet)");
  if (problem.fieldOfView != FieldOfViewMode::Off)
  {
    const ThreeDCircularProjectionGeometry * scan =
      backProjection->GetFieldOfViewGeometry() ? backProjection->GetFieldOfViewGeometry() : this->GetGeometry();
    fieldOfViewMatrices = FieldOfViewMask::MatricesFor(output, projections, scan);
    problem.fieldOfViewMatrices = fieldOfViewMatrices.data();
    problem.fieldOfViewCount = static_cast<unsigned int>(fieldOfViewMatrices.size());
    problem.fieldOfViewAxis = FieldOfViewMask::AxisFor(fieldOfViewMatrices);
    problem.fieldOfViewDetector = FieldOfViewMask::DetectorOf(projections);
    problem.fieldOfViewDetector.uMin = padded.first - 0.5;
    problem.fieldOfViewDetector.uMax = padded.second + 0.5;
  }
  problem.columns = stack.GetSize(0);
  problem.stackRows = stack.GetSize(1);
  problem.stackFirstColumn = static_cast<int>(stack.GetIndex(0));
  problem.stackFirstRow = static_cast<int>(stack.GetIndex(1));
  problem.count = count;
  // The ramp filter's options, with the CPU filter's own rules for their sizes.
  problem.truncationExtent =
    TruncationCorrectionExtent(static_cast<int>(problem.paddedColumns), problem.length, ramp->GetTruncationCorrection());
  std::vector<double> taps;
  if (ramp->GetHannCutFrequencyY() > 0.)
  {
    taps = HannLowPassKernel(
      RampFilterPaddedLength(static_cast<unsigned int>(projections->GetLargestPossibleRegion().GetSize(1))),
      ramp->GetHannCutFrequencyY());
    problem.smoothingTaps = &taps;
  }

  // Projections (line integrals or 16-bit readings): read in place on the device that holds them if
  // it is the only one, else from page-locked host memory (downloaded first if the device copy is
  // the current one).
  const bool fromCounts = m_Counts && projections == m_CountsGrid.GetPointer();
  if (fromCounts && m_Counts->GetBufferedRegion() != stack)
    ThrowBadParameter("CUDA FDK 16-bit readings' buffered region", m_Counts->GetBufferedRegion(),
                      "the region they had when the filter was updated (update the readings first)");
  auto * stackManager = fromCounts ? const_cast<CountImageType *>(m_Counts.GetPointer())->GetCudaDataManager()
                                   : projections->GetCudaDataManager();
  const void * stackData = nullptr;
  if (!stackManager->IsHostCurrent() && shares == 1)
  {
    int current = 0;
    CudaCheck(cudaGetDevice(&current), "cudaGetDevice");
    if (current == devices[0])
    {
      stackData = stackManager->DeviceBufferForRead();
      problem.stackDevice = current;
    }
  }
  if (!stackData)
  {
    stackManager->SynchronizeHost();
    stackManager->PinHostBuffer();
    stackData = stackManager->GetHostBuffer();
  }
  if (fromCounts)
  {
    problem.counts = static_cast<const unsigned short *>(stackData);
    problem.logFlat = m_LogFlat.data() + firstProjection;
    problem.conversion = m_Conversion;
  }
  else
    problem.stack = static_cast<const float *>(stackData);

  // The initial volume: a constant is filled on the device, anything else comes from host memory.
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
  output->GetCudaDataManager()->PinHostBuffer();
  problem.output = static_cast<float *>(output->GetCudaDataManager()->GetHostBuffer());
  problem.outputBox = detail::ToBox(region);

  // A pipeline per share, kept from the last update when its device is the same (its buffers are
  // reused); the others' memory is given back first.
  m_Pipelines.resize(shares);
  for (std::size_t d = 0; d < shares; ++d)
    if (!m_Pipelines[d] || m_Pipelines[d]->GetDevice() != devices[d])
      m_Pipelines[d] = std::make_unique<CudaFDKDevicePipeline>(devices[d]);

  // One share of rows per device, one thread each; progress counted in voxels downloaded.
  const std::vector<typename TImage::RegionType> shareRegions = SlabSplit::Equal(region, shares);
  std::atomic<bool> abort{ false };
  std::atomic<unsigned int> piecesDone{ 0 };
  std::vector<CudaFDKTimes> times(shares);
  std::unique_ptr<std::atomic<unsigned int>[]> piecesUsed(new std::atomic<unsigned int>[shares]);
  for (std::size_t d = 0; d < shares; ++d)
    piecesUsed[d] = 0;
  auto progress = [&]() {
    unsigned int total = 0;
    for (std::size_t d = 0; d < shares; ++d)
      total += piecesUsed[d];
    this->UpdateProgress(total > 0 ? std::min(1.f, static_cast<float>(piecesDone) / total) : 0.f);
    if (this->GetAbortGenerateData())
      abort = true;
  };
  const auto runsStart = std::chrono::steady_clock::now();
  // One thread per device (the calling thread for one), each piece reported as ITK progress.
  WorkerErrors errors; // the first failure of any device, rethrown below
  RunCudaFDKWorkers(
    static_cast<unsigned int>(shares),
    [&](unsigned int d, const std::function<void()> & notify) {
      times[d] = this->ReconstructShare(*m_Pipelines[d], problem, shareRegions[d], abort,
                                        [&](std::size_t) {
                                          ++piecesDone;
                                          notify();
                                        },
                                        piecesUsed[d]);
    },
    progress, abort, errors);
  const auto runsEnd = std::chrono::steady_clock::now();
  if (!m_KeepDeviceMemory)
    m_Pipelines.clear(); // nothing left on the devices after the update
  errors.RethrowFirst();
  output->GetCudaDataManager()->MarkHostModified(); // the result is in host memory

  m_NumberOfPieces = 0;
  CudaFDKTimes sum;
  for (std::size_t d = 0; d < shares; ++d)
  {
    sum += times[d];
    m_NumberOfPieces += piecesUsed[d];
  }
  this->AddStageTimes(sum);
  m_DeviceTimes = sum;
  m_HostSetupSeconds = std::chrono::duration<double>(runsStart - generateStart).count();
  m_HostFinishSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - runsEnd).count();
}

} // namespace cbct

#endif
