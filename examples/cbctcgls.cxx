// cbct-cgls: conjugate gradient least squares reconstruction with Joseph's projector pair, in the
// spirit of RTK's rtkconjugategradient.
#include "cbctIterativeApp.h"

int
main(int argc, char ** argv)
{
  using namespace cbct::apps;
  return IterativeMain(argc, argv, IterativeMethod::CGLS, "cbct-cgls",
                       "Reconstructs a volume from cone-beam projections with CGLS: conjugate gradients on the normal "
                       "equations A^T A x = A^T p, with Joseph's forward projector (or the ray caster: --fp raycast) and its exact adjoint; --verbose "
                       "prints the residual |p - Ax| of each iteration. Few iterations regularize: CGLS fits noise as "
                       "it goes on. Projections are line integrals; the volume is attenuation per mm.",
                       "CBCT CGLS Reconstruction");
}
