#ifndef cbctTotalVariationDenoising_h
#define cbctTotalVariationDenoising_h

#include <cmath>

namespace cbct
{

/** Chambolle's projection algorithm for the ROF problem, min_u 1/2 |u - f|^2 + lambda TV(u), written
 * once for both backends (CpuReconstructionBackend, CudaReconstructionBackend): from the dual field
 * p = 0, `iterations` times z = div p - f / lambda, p = (p + tau D z) / (1 + tau |D z|); then
 * u = f - lambda div p. tau is 1 / |div|^2 bound, 1 / (4 sum 1/h_d^2) (1/12 for unit spacing),
 * the step of Chambolle's convergence proof. `p` (three volumes) and `z` are work buffers; f and u may
 * be the same vector. */
template <typename TBackend>
void
DenoiseTotalVariation(TBackend & backend, const typename TBackend::Vector & f, typename TBackend::Vector & u, double lambda,
                      unsigned int iterations, std::array<typename TBackend::Vector, 3> & p, typename TBackend::Vector & z)
{
  const auto & tv = backend.TV();
  double sum = 0.;
  for (int d = 0; d < 3; ++d)
    sum += static_cast<double>(tv.Grid().inverseSpacing[d]) * tv.Grid().inverseSpacing[d];
  const float tau = static_cast<float>(1. / (4. * sum));
  float * field[3];
  for (int c = 0; c < 3; ++c)
  {
    backend.Fill(p[c], 0.f);
    field[c] = TBackend::Data(p[c]);
  }
  const float * const constField[3] = { field[0], field[1], field[2] };
  for (unsigned int n = 0; n < iterations; ++n)
  {
    tv.Divergence(constField, TBackend::Data(z), 1.f, TBackend::Data(f), static_cast<float>(-1. / lambda));
    tv.ChambolleStep(TBackend::Data(z), field, tau);
  }
  tv.Divergence(constField, TBackend::Data(u), static_cast<float>(-lambda), TBackend::Data(f), 1.f);
}

} // namespace cbct

#endif
