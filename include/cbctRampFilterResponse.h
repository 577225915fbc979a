#ifndef cbctRampFilterResponse_h
#define cbctRampFilterResponse_h

#include "ConeBeamCTExport.h"

#include <string>
#include <vector>

namespace cbct
{

/** Apodisation windows of the ramp filter, applied in frequency with a cut-off. */
enum class RampWindow
{
  RamLak,
  SheppLogan,
  Cosine,
  Hamming,
  Hann
};

/** Parses "ramlak", "shepplogan", "cosine", "hamming", "hann" (any case, '-' and '_' ignored);
 * throws naming the value and the choices otherwise. */
ConeBeamCT_EXPORT RampWindow
ParseRampWindow(const std::string & name);

ConeBeamCT_EXPORT std::string
RampWindowName(RampWindow window);

/** The FFT length for rows of `rowLength` pixels: the smallest 2^a 3^b 5^c >= 2 * rowLength, so
 * that linear convolution does not wrap around. */
ConeBeamCT_EXPORT unsigned int
RampFilterPaddedLength(unsigned int rowLength);

/** The real frequency response (paddedLength/2 + 1 values) of the ramp filter for pixel spacing
 * `spacing` (mm). It is the DFT of the band-limited spatial ramp kernel (Kak & Slaney:
 * h(0) = 1/(4 tau^2), h(n odd) = -1/(n pi tau)^2, h(n even) = 0), times tau for the convolution
 * integral, so a constant row gives no DC bias; then windowed: for the frequency x in [0, 1] of
 * Nyquist, the response is 0 above `cutOff` and multiplied by window(x / cutOff) below.
 * It includes the 1/paddedLength of an unnormalised inverse FFT (vnl's and cuFFT's).
 *
 * `cylinderRadius` > 0: the rows are arcs of a cylindrical detector of that radius centred on the
 * source (equiangular columns, pixel spacing = arc length): each tap n of the spatial kernel is
 * multiplied by (gamma / sin(gamma))^2, gamma = n spacing / radius, the equiangular fan beam's kernel
 * (Kak & Slaney, ch. 3). The padded row must span less than pi radians of the cylinder. */
ConeBeamCT_EXPORT std::vector<double>
RampFilterResponse(unsigned int paddedLength, double spacing, RampWindow window, double cutOff, double cylinderRadius = 0.);

/** The frequency response (paddedLength/2 + 1 values) of the Hann low-pass along v (RTK's --hannY):
 * for the frequency y in [0, 1] of Nyquist, 0.5 + 0.5 cos(pi y / cutOff) up to `cutOff`, 0 above; with
 * the 1/paddedLength of an unnormalised inverse FFT. */
ConeBeamCT_EXPORT std::vector<double>
HannLowPassResponse(unsigned int paddedLength, double cutOff);

/** The same low-pass as a circular convolution kernel of paddedLength taps (tap d for a shift of d
 * pixels, d and paddedLength - d for -d): the inverse DFT of HannLowPassResponse(), so that
 * out[j] = sum over j' of taps[(j - j') mod paddedLength] in[j'] equals the FFT filtering of a column
 * zero-padded to paddedLength. The CUDA kernel convolves with these. */
ConeBeamCT_EXPORT std::vector<double>
HannLowPassKernel(unsigned int paddedLength, double cutOff);

} // namespace cbct

#endif
