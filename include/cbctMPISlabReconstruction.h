#ifndef cbctMPISlabReconstruction_h
#define cbctMPISlabReconstruction_h

#include "ConeBeamCTMPIExport.h"

#include <itkImage.h>

#include <mpi.h>

#include <string>

namespace cbct
{

/** \class MPISlabReconstruction
 * \brief A reconstruction shared by the ranks of an MPI job: each rank updates its slab of the
 * volume (along y, the rotation axis) and the ranks write the volume into one file together.
 *
 * Any ConeBeamCT reconstruction filter works (FDK on the CPU or CUDA): every filter asks only for
 * the projection rows its requested region projects onto, so a rank whose projections come from a
 * streaming reader (itk::ImageFileReader of a MetaImage or NRRD file) reads only its band of rows.
 *
 * \code
 *   cbct::MPIContext mpi(&argc, &argv);
 *   auto reader = itk::ImageFileReader<ImageType>::New();   // projections: streamed
 *   auto fdk = cbct::FDKConeBeamReconstructionFilter<ImageType>::New();
 *   ... // volume grid, geometry, projections from the reader, as in one process
 *   cbct::MPISlabReconstruction::UpdateAndWrite(fdk->GetOutput(), "volume.mha", mpi.Communicator());
 * \endcode
 *
 * The result equals the one-process reconstruction bit for bit (FDK: each voxel and each detector row
 * are computed alike whatever the slab). Collective: a failure on one rank (an exception from its
 * update) is reported to all, and every rank throws "rank R: <message>"; no file is written then.
 * \ingroup ConeBeamCT
 */
class ConeBeamCTMPI_EXPORT MPISlabReconstruction
{
public:
  using ImageType = itk::Image<float, 3>;

  /** This rank's slab of `volume` (SlabSplit::Equal over the communicator's ranks). */
  static itk::ImageRegion<3>
  SlabOf(const itk::ImageRegion<3> & volume, MPI_Comm communicator);

  /** Updates `volume` (a filter's output) over this rank's slab (collective: every rank agrees on
   * success first). */
  static void
  Update(ImageType * volume, MPI_Comm communicator);

  /** Update(), then MPISlabWriter::Write() of the slabs into `filename`. */
  static void
  UpdateAndWrite(ImageType * volume, const std::string & filename, MPI_Comm communicator);
};

} // namespace cbct

#endif
