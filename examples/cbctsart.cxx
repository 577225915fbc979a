// cbct-sart: SART, OS-SART and SIRT reconstruction with Joseph's projector pair (or the voxel-based
// backprojector: --bp voxel), in the spirit of RTK's rtksart.
#include "cbctIterativeApp.h"

int
main(int argc, char ** argv)
{
  using namespace cbct::apps;
  return IterativeMain(argc, argv, IterativeMethod::SART, "cbct-sart",
                       "Reconstructs a volume from cone-beam projections with SART: each subset of --nprojpersubset "
                       "projections updates x += lambda A_s^T [(p_s - A_s x) / A_s 1] / A_s^T 1 (1 per subset: SART, "
                       "more: OS-SART, 0 = all: SIRT), negative voxels set to 0 after each update (--no-positivity keeps them), "
                       "10 iterations by default, with Joseph's forward projector (or the ray caster: --fp raycast) and its exact adjoint "
                       "(or the voxel-based backprojector, as RTK and TIGRE: --bp voxel). "
                       "Projections are line integrals; the volume is attenuation per mm.",
                       "CBCT SART Reconstruction");
}
