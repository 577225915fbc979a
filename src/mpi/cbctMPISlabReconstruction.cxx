#include "cbctMPISlabReconstruction.h"

#include "cbctMPIContext.h"
#include "cbctMPISlabWriter.h"
#include "cbctSlabSplit.h"

#include <itkMacro.h>

#include <vector>

namespace cbct
{

itk::ImageRegion<3>
MPISlabReconstruction::SlabOf(const itk::ImageRegion<3> & volume, MPI_Comm communicator)
{
  int rank = 0, size = 1;
  MPI_Comm_rank(communicator, &rank);
  MPI_Comm_size(communicator, &size);
  if (static_cast<std::size_t>(size) > volume.GetSize(1))
    itkGenericExceptionMacro(<< "MPI job of " << size << " ranks for a volume of " << volume.GetSize(1)
                             << " rows along y; expected at most one rank per row");
  return SlabSplit::Equal(volume, static_cast<std::size_t>(size))[static_cast<std::size_t>(rank)];
}

void
MPISlabReconstruction::Update(ImageType * volume, MPI_Comm communicator)
{
  std::string message;
  try
  {
    volume->UpdateOutputInformation();
    volume->SetRequestedRegion(SlabOf(volume->GetLargestPossibleRegion(), communicator));
    volume->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    message = e.GetDescription();
  }
  catch (const std::exception & e)
  {
    message = e.what();
  }
  std::string failure;
  if (!MPIContext::AgreeOnSuccess(communicator, message.empty(), message, failure))
    itkGenericExceptionMacro(<< failure);
}

void
MPISlabReconstruction::UpdateAndWrite(ImageType * volume, const std::string & filename, MPI_Comm communicator)
{
  Update(volume, communicator);
  MPISlabWriter::Write(volume, filename, communicator);
}

} // namespace cbct
