#ifndef cbctMPISlabWriter_h
#define cbctMPISlabWriter_h

#include "ConeBeamCTMPIExport.h"

#include <itkImage.h>

#include <mpi.h>

#include <string>

namespace cbct
{

/** \class MPISlabWriter
 * \brief Writes a volume that the ranks of a communicator hold as slabs along y into one file,
 * never whole in one rank's memory.
 *
 * Rank 0 writes through ITK's streaming writer, z-chunk by z-chunk (about ChunkBytes each): for
 * each chunk it broadcasts the z-range, copies its own part and receives the others' parts straight
 * into place (one MPI_Recv per rank, with a strided datatype). Formats whose ImageIO streams its
 * writing (MetaImage .mha/.mhd, NRRD) keep rank 0 at its slab plus one chunk; for the others ITK asks
 * for the whole volume at once, and rank 0 holds it while writing. The file is written beside its
 * place and renamed into place once complete and inspected (cbct::AtomicOutput,
 * cbct::ImageFileContents), so a failed or killed job never leaves a partial file under the
 * output's name.
 *
 * Collective over `communicator`; every rank passes its slab: an image whose largest possible region
 * is the whole volume and whose buffered region is its slab (the slabs, in rank order, cover y
 * exactly once). An error on rank 0 (e.g. an unwritable directory) reaches every rank, which all
 * throw itk::ExceptionObject.
 * \ingroup ConeBeamCT
 */
class ConeBeamCTMPI_EXPORT MPISlabWriter
{
public:
  using ImageType = itk::Image<float, 3>;

  static constexpr std::size_t ChunkBytes = std::size_t(256) << 20;

  static void
  Write(const ImageType * slab, const std::string & filename, MPI_Comm communicator);
};

} // namespace cbct

#endif
