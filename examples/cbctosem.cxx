// cbct-osem: OSEM and MLEM reconstruction with Joseph's projector pair (or the voxel-based
// backprojector: --bp voxel), or of emission data (SPECT) with the emission projector and its
// attenuation and collimator models (--attenuation, --psf), in the spirit of RTK's rtkosem.
#include "cbctIterativeApp.h"

int
main(int argc, char ** argv)
{
  using namespace cbct::apps;
  return IterativeMain(argc, argv, IterativeMethod::OSEM, "cbct-osem",
                       "Reconstructs a volume from cone-beam projections with OSEM: each subset of --nprojpersubset "
                       "projections updates x <- x A_s^T (p_s / A_s x) / A_s^T 1 (0 = all projections: MLEM), with "
                       "Joseph's forward projector (or the ray caster: --fp raycast) and its exact adjoint (or the voxel-based "
                       "backprojector, as RTK and TIGRE: --bp voxel). Projections must be non-negative; the "
                       "initial volume (--input) positive everywhere, by default 1. Projections are line integrals; "
                       "the volume is attenuation per mm. Emission (SPECT, parallel beam: geometry with "
                       "SourceToDetectorDistance 0): --attenuation MU and --psf SIGMA0,SLOPE model the attenuation and "
                       "the collimator blur with the emission projector (--fp emission), each subset's sensitivity "
                       "through the same model; projections are counts, the volume activity per mm^3.",
                       "CBCT OSEM Reconstruction");
}
