// cbct-asdpocs: ASD-POCS (total-variation-regularised OS-SART, Sidky and Pan 2008) with Joseph's projector
// pair, in the spirit of TIGRE's ASD_POCS / OS_ASD_POCS (its parameter names and defaults).
#include "cbctIterativeApp.h"

int
main(int argc, char ** argv)
{
  using namespace cbct::apps;
  return IterativeMain(argc, argv, IterativeMethod::ASDPOCS, "cbct-asdpocs",
                       "Reconstructs a volume from few or limited-angle cone-beam projections with ASD-POCS: each "
                       "iteration is one OS-SART pass over subsets of --nprojpersubset projections (relaxation --lambda, "
                       "reduced by --lambda-red; negative voxels set to 0 unless --no-positivity), then --tviter "
                       "steepest-descent steps on the total variation, the step starting at --alpha times the first "
                       "pass's change and reduced by --alpha-red whenever the TV steps change the volume more than "
                       "--ratio times the pass did. TIGRE's parameters and defaults, but --lambda 0.5 (TIGRE's 1; half the error "
                       "on few views) and 10 iterations. Joseph's forward projector (or the "
                       "ray caster: --fp raycast) and its exact adjoint (or the voxel-based backprojector: --bp voxel). "
                       "Projections are line integrals; the volume is attenuation per mm.",
                       "CBCT ASD-POCS Reconstruction");
}
