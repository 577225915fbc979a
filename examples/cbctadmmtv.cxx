// cbct-admmtv: ADMM with total-variation regularisation and Joseph's projector pair, in the spirit of RTK's
// rtkadmmtotalvariation (its parameter names; alpha and beta by default from the problem's scales; positivity
// and a start from FDK by default).
#include "cbctIterativeApp.h"

int
main(int argc, char ** argv)
{
  using namespace cbct::apps;
  return IterativeMain(argc, argv, IterativeMethod::ADMMTV, "cbct-admmtv",
                       "Reconstructs a volume from few or limited-angle cone-beam projections with ADMM and total "
                       "variation: minimises |Ax - p|^2 + alpha TV(x), each iteration solving (A^T A + beta D^T D) x = "
                       "A^T p + beta D^T (g + d) by --CGiter conjugate gradient steps (D the gradient), then soft-"
                       "thresholding g = D x - d by alpha / (2 beta) and updating d; by default over volumes x >= 0 (a "
                       "second split z = x, z >= 0; --no-positivity leaves it out) and from FDK of the projections "
                       "(--init). RTK's parameters (--alpha, --beta, --CGiter); unless given, alpha and beta are chosen "
                       "from the problem's scales (voxel and pixel sizes, magnification, views, the projections' "
                       "values), 20 iterations of 2 CG steps by default. Joseph's forward projector (or the ray "
                       "caster: --fp raycast) and its exact adjoint. Projections are line integrals; the volume is "
                       "attenuation per mm.",
                       "CBCT ADMM-TV Reconstruction");
}
