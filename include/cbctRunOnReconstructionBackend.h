#ifndef cbctRunOnReconstructionBackend_h
#define cbctRunOnReconstructionBackend_h

#include "cbctTotalVariationOperators.h" // MakeTVGrid

#include <utility>

namespace cbct
{

/** What the total-variation filters' GenerateData() share, on either backend (CpuReconstructionBackend
 * or CudaReconstructionBackend, whose Run() call this): allocates `output` (its requested region), sets
 * a TBackend up on its grid with the projector pair makeOperator(output) for `count` projections,
 * uploads x = the initial volume and the measured projections, then runs
 * method(backend, x, measured, current, currentEveryIteration); current() downloads x into the output. */
template <typename TBackend, typename TImage, typename TMakeOperator, typename TMethod>
void
RunOnReconstructionBackend(const TImage * initial, const TImage * projections, TImage * output, unsigned int count,
                           TMakeOperator && makeOperator, TMethod && method, bool currentEveryIteration)
{
  output->SetBufferedRegion(output->GetRequestedRegion());
  output->Allocate();
  TBackend backend(makeOperator(static_cast<const TImage *>(output)), MakeTVGrid(output), count);
  typename TBackend::Vector x(backend.Voxels()), measured(backend.Pixels());
  backend.Upload(initial->GetBufferPointer(), x, backend.Voxels());
  backend.Upload(projections->GetBufferPointer(), measured, backend.Pixels());
  method(backend, x, measured, [&] { backend.Download(x, output->GetBufferPointer(), backend.Voxels()); },
         currentEveryIteration);
}

} // namespace cbct

#endif
