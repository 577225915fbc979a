#ifndef cbctCudaStripeRemovalBands_h
#define cbctCudaStripeRemovalBands_h

#include "cbctCudaCheck.h"
#include "cbctCudaStripeRemoval.hcu"

#include <itkMacro.h>

#include <climits>
#include <sstream>
#include <string>

namespace cbct
{

/** The rows [firstRow, firstRow + rows) of a stripe removal filter's input and output, as a
 * CudaSinogramBand: the device pointers at pixel (u = first column, that row, first projection) of
 * the output's requested region, pitches from each image's buffered region. */
template <typename TImage>
CudaSinogramBand
CudaSinogramBandOf(const TImage * input, TImage * output, const float * inputData, float * outputData,
                   long long firstRow, int rows)
{
  const auto region = output->GetRequestedRegion();
  auto first = region.GetIndex();
  first[1] += firstRow;
  const auto & in = input->GetBufferedRegion();
  const auto & out = output->GetBufferedRegion();
  CudaSinogramBand band;
  band.input = inputData + input->ComputeOffset(first);
  band.output = outputData + output->ComputeOffset(first);
  band.inputRowPitch = static_cast<long long>(in.GetSize(0));
  band.inputProjectionPitch = static_cast<long long>(in.GetSize(0) * in.GetSize(1));
  band.outputRowPitch = static_cast<long long>(out.GetSize(0));
  band.outputProjectionPitch = static_cast<long long>(out.GetSize(0) * out.GetSize(1));
  band.columns = static_cast<int>(region.GetSize(0));
  band.rows = rows;
  band.projections = static_cast<int>(region.GetSize(2));
  return band;
}

/** Throws when a band's kernels saw a NaN or an infinity (`firstBad`: the band-relative row, or
 * INT_MAX), as the CPU filters do. */
inline void
ThrowIfNonFiniteRow(const char * filter, int firstBad, long long bandFirstRow)
{
  if (firstBad == INT_MAX)
    return;
  std::ostringstream message;
  message << filter << ": detector row " << bandFirstRow + firstBad
          << " holds a NaN or an infinite value; expected finite line integrals (stripe removal sorts and "
             "transforms whole rows)";
  itkGenericExceptionMacro(<< message.str());
}

} // namespace cbct

#endif
