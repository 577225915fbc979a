#include "cbctMPISlabWriter.h"

#include "cbctAtomicOutput.h"
#include "cbctImageFileContents.h"

#include <itkImageFileWriter.h>
#include <itkImageSource.h>
#include <itkMacro.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace cbct
{

namespace
{
using ImageType = MPISlabWriter::ImageType;

/** What rank 0 broadcasts before each chunk: its z-range, or the end of the writing. */
struct Request
{
  long long z0 = 0, z1 = 0;
  int kind = 0; // 0: a chunk, 1: done, 2: rank 0 failed
};

MPI_Datatype
RequestType()
{
  MPI_Datatype type;
  MPI_Type_contiguous(sizeof(Request), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  return type;
}

/** Each rank's rows: [first, first + count) along y. */
struct Rows
{
  long long first = 0, count = 0;
};

/** The pixel source ITK's writer streams from, on rank 0: each requested region is assembled from
 * rank 0's slab and the parts the other ranks send. */
class SlabAssemblySource : public itk::ImageSource<ImageType>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(SlabAssemblySource);
  using Self = SlabAssemblySource;
  using Superclass = itk::ImageSource<ImageType>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(SlabAssemblySource, itk::ImageSource);

  void
  Set(const ImageType * slab, const std::vector<Rows> & rows, MPI_Comm communicator, MPI_Datatype requestType)
  {
    m_Slab = slab;
    m_Rows = rows;
    m_Communicator = communicator;
    m_RequestType = requestType;
  }

protected:
  SlabAssemblySource() = default;

  void
  GenerateOutputInformation() override
  {
    ImageType * output = this->GetOutput();
    output->SetLargestPossibleRegion(m_Slab->GetLargestPossibleRegion());
    output->SetSpacing(m_Slab->GetSpacing());
    output->SetOrigin(m_Slab->GetOrigin());
    output->SetDirection(m_Slab->GetDirection());
    output->SetMetaDataDictionary(m_Slab->GetMetaDataDictionary()); // the header's entries (an app's provenance)
  }

  void
  GenerateData() override
  {
    ImageType * output = this->GetOutput();
    const auto region = output->GetRequestedRegion();
    output->SetBufferedRegion(region);
    output->Allocate();
    const auto & whole = m_Slab->GetLargestPossibleRegion();
    if (region.GetIndex(0) != whole.GetIndex(0) || region.GetSize(0) != whole.GetSize(0) ||
        region.GetIndex(1) != whole.GetIndex(1) || region.GetSize(1) != whole.GetSize(1))
      itkExceptionMacro(<< "the writer asked for region " << region << "; expected whole x-y planes of " << whole);
    const std::size_t nx = whole.GetSize(0), ny = whole.GetSize(1);
    const std::size_t plane = nx * ny;
    const long long zFirst = region.GetIndex(2), zEnd = zFirst + static_cast<long long>(region.GetSize(2));
    // Chunks of at most ChunkBytes, whatever the writer asked for.
    const long long step = std::max<long long>(1, static_cast<long long>(MPISlabWriter::ChunkBytes / (plane * sizeof(float))));
    for (long long z0 = zFirst; z0 < zEnd; z0 += step)
    {
      Request request;
      request.z0 = z0;
      request.z1 = std::min(zEnd, z0 + step);
      MPI_Bcast(&request, 1, m_RequestType, 0, m_Communicator);
      const long long nz = request.z1 - request.z0;
      float * chunk = output->GetBufferPointer() + static_cast<std::size_t>(z0 - zFirst) * plane;
      for (std::size_t r = 0; r < m_Rows.size(); ++r)
      {
        const std::size_t block = nx * static_cast<std::size_t>(m_Rows[r].count);
        float * destination = chunk + static_cast<std::size_t>(m_Rows[r].first - whole.GetIndex(1)) * nx;
        if (block == 0)
          continue;
        if (r == 0)
        {
          // Rank 0's own rows, from its slab.
          const auto & mine = m_Slab->GetBufferedRegion();
          for (long long z = request.z0; z < request.z1; ++z)
          {
            const float * source =
              m_Slab->GetBufferPointer() + static_cast<std::size_t>(z - mine.GetIndex(2)) * nx * mine.GetSize(1);
            std::memcpy(destination + static_cast<std::size_t>(z - request.z0) * plane, source, block * sizeof(float));
          }
          continue;
        }
        // nz runs of the rank's rows, a plane apart: received straight into place.
        MPI_Datatype runs;
        MPI_Type_vector(static_cast<int>(nz), static_cast<int>(block), static_cast<int>(plane), MPI_FLOAT, &runs);
        MPI_Type_commit(&runs);
        MPI_Recv(destination, 1, runs, static_cast<int>(r), 0, m_Communicator, MPI_STATUS_IGNORE);
        MPI_Type_free(&runs);
      }
      this->UpdateProgress(static_cast<float>(request.z1 - zFirst) / static_cast<float>(zEnd - zFirst));
    }
  }

private:
  const ImageType * m_Slab = nullptr;
  std::vector<Rows> m_Rows;
  MPI_Comm m_Communicator = MPI_COMM_NULL;
  MPI_Datatype m_RequestType = MPI_DATATYPE_NULL;
};

} // namespace

void
MPISlabWriter::Write(const ImageType * slab, const std::string & filename, MPI_Comm communicator)
{
  int rank = 0, size = 1;
  MPI_Comm_rank(communicator, &rank);
  MPI_Comm_size(communicator, &size);
  MPI_Datatype requestType = RequestType();
  const auto & mine = slab->GetBufferedRegion();
  const auto & whole = slab->GetLargestPossibleRegion();

  // Every rank's rows, and a check that they tile the volume's y in rank order.
  Rows own;
  own.first = mine.GetIndex(1);
  own.count = static_cast<long long>(mine.GetSize(1));
  std::vector<Rows> rows(static_cast<std::size_t>(size));
  MPI_Allgather(&own, 2, MPI_LONG_LONG, rows.data(), 2, MPI_LONG_LONG, communicator);
  long long next = whole.GetIndex(1);
  bool tiled = mine.GetIndex(0) == whole.GetIndex(0) && mine.GetSize(0) == whole.GetSize(0) &&
               mine.GetIndex(2) == whole.GetIndex(2) && mine.GetSize(2) == whole.GetSize(2);
  for (const Rows & r : rows)
  {
    tiled = tiled && r.first == next;
    next += r.count;
  }
  tiled = tiled && next == whole.GetIndex(1) + static_cast<long long>(whole.GetSize(1));
  int allTiled = 0, mineTiled = tiled ? 1 : 0;
  MPI_Allreduce(&mineTiled, &allTiled, 1, MPI_INT, MPI_MIN, communicator);
  if (!allTiled)
  {
    MPI_Type_free(&requestType);
    itkGenericExceptionMacro(<< "MPISlabWriter: the ranks' slabs (this rank: " << mine
                             << ") do not cover the volume's rows exactly once in rank order");
  }

  if (rank != 0)
  {
    // Serve rank 0's requests: this rank's rows of each z-chunk, contiguous in its slab.
    const std::size_t block = whole.GetSize(0) * mine.GetSize(1);
    for (;;)
    {
      Request request;
      MPI_Bcast(&request, 1, requestType, 0, communicator);
      if (request.kind != 0)
      {
        MPI_Type_free(&requestType);
        if (request.kind == 2)
          itkGenericExceptionMacro(<< "rank 0 could not write " << filename);
        return;
      }
      if (block == 0)
        continue;
      const float * source = slab->GetBufferPointer() + static_cast<std::size_t>(request.z0 - mine.GetIndex(2)) * block;
      MPI_Send(source, static_cast<int>(block * static_cast<std::size_t>(request.z1 - request.z0)), MPI_FLOAT, 0, 0,
               communicator);
    }
  }

  // Written beside its place and renamed in once complete (cbct::AtomicOutput): a failed or killed
  // job never leaves a partial file under the output's name.
  std::string failure;
  try
  {
    AtomicOutput output(filename);
    auto source = SlabAssemblySource::New();
    source->Set(slab, rows, communicator, requestType);
    auto writer = itk::ImageFileWriter<ImageType>::New();
    writer->SetInput(source->GetOutput());
    writer->SetFileName(output.TemporaryPath());
    const double bytes = static_cast<double>(whole.GetNumberOfPixels()) * sizeof(float);
    writer->SetNumberOfStreamDivisions(static_cast<unsigned int>(std::max(1., std::ceil(bytes / ChunkBytes))));
    writer->Update();
    ImageFileContents::Inspect(output.TemporaryPath()).CheckComplete();
    output.Commit();
  }
  catch (const itk::ExceptionObject & e)
  {
    failure = e.GetDescription();
  }
  catch (const std::exception & e)
  {
    failure = e.what();
  }
  Request end;
  end.kind = failure.empty() ? 1 : 2;
  MPI_Bcast(&end, 1, requestType, 0, communicator);
  MPI_Type_free(&requestType);
  if (!failure.empty())
  {
    itkGenericExceptionMacro(<< "writing " << filename << ": " << failure);
  }
}

} // namespace cbct
