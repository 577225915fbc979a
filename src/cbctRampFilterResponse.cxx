#include "cbctRampFilterResponse.h"

#include "cbctInputChecks.h"

#include <vnl/algo/vnl_fft_1d.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>

namespace cbct
{

namespace
{
constexpr double Pi = 3.14159265358979323846;

bool
IsSmooth235(unsigned int n)
{
  for (unsigned int f : { 2u, 3u, 5u })
    while (n % f == 0)
      n /= f;
  return n == 1;
}
} // namespace

RampWindow
ParseRampWindow(const std::string & name)
{
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ')
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key == "ramlak" || key == "ramp")
    return RampWindow::RamLak;
  if (key == "shepplogan")
    return RampWindow::SheppLogan;
  if (key == "cosine")
    return RampWindow::Cosine;
  if (key == "hamming")
    return RampWindow::Hamming;
  if (key == "hann" || key == "hanning")
    return RampWindow::Hann;
  ThrowBadParameter("ramp filter window", "'" + name + "'", "one of ramlak, shepplogan, cosine, hamming, hann");
}

std::string
RampWindowName(RampWindow window)
{
  switch (window)
  {
    case RampWindow::RamLak:
      return "ramlak";
    case RampWindow::SheppLogan:
      return "shepplogan";
    case RampWindow::Cosine:
      return "cosine";
    case RampWindow::Hamming:
      return "hamming";
    case RampWindow::Hann:
      return "hann";
  }
  return "unknown";
}

unsigned int
RampFilterPaddedLength(unsigned int rowLength)
{
  unsigned int n = std::max(2u * rowLength, 2u);
  while (!IsSmooth235(n))
    ++n;
  return n;
}

std::vector<double>
RampFilterResponse(unsigned int paddedLength, double spacing, RampWindow window, double cutOff, double cylinderRadius)
{
  CheckPositive("ramp filter pixel spacing (mm)", spacing);
  if (!(cutOff > 0. && cutOff <= 1.))
    ThrowBadParameter("ramp filter cut-off", cutOff, "a fraction of the Nyquist frequency in (0, 1]");
  if (paddedLength < 2 || !IsSmooth235(paddedLength))
    ThrowBadParameter("ramp filter FFT length", paddedLength, "an even 2^a 3^b 5^c length (see RampFilterPaddedLength)");

  if (!std::isfinite(cylinderRadius) || cylinderRadius < 0.)
    ThrowBadParameter("ramp filter cylinder radius (mm)", cylinderRadius, "a radius > 0, or 0 for a flat panel");
  if (cylinderRadius > 0. && !(0.5 * paddedLength * spacing / cylinderRadius < Pi))
    ThrowBadParameter("ramp filter's padded row on a cylinder of radius " + std::to_string(cylinderRadius) + " mm",
                      std::to_string(paddedLength) + " pixels of " + std::to_string(spacing) + " mm",
                      "less than half a turn of the cylinder (a narrower detector or a larger radius)");
  // Spatial kernel on the cyclic grid n = -L/2 .. L/2-1, already multiplied by tau.
  vnl_vector<std::complex<double>> kernel(paddedLength, 0.);
  kernel[0] = 1. / (4. * spacing);
  for (unsigned int n = 1; n <= paddedLength / 2; ++n)
  {
    if (n % 2 == 1)
    {
      const double gamma = cylinderRadius > 0. ? n * spacing / cylinderRadius : 0.;
      const double equiangular = gamma > 0. ? (gamma / std::sin(gamma)) * (gamma / std::sin(gamma)) : 1.;
      const double value = -equiangular / (Pi * Pi * n * n * spacing);
      kernel[n] = value;
      kernel[paddedLength - n] = value;
    }
  }
  vnl_fft_1d<double> fft(paddedLength);
  fft.fwd_transform(kernel); // the kernel is real and even: its transform is real

  std::vector<double> response(paddedLength / 2 + 1);
  for (unsigned int k = 0; k < response.size(); ++k)
  {
    const double x = 2. * k / paddedLength; // fraction of Nyquist
    double w = 0.;
    if (x <= cutOff)
    {
      const double t = x / cutOff;
      switch (window)
      {
        case RampWindow::RamLak:
          w = 1.;
          break;
        case RampWindow::SheppLogan:
          w = t == 0. ? 1. : std::sin(0.5 * Pi * t) / (0.5 * Pi * t);
          break;
        case RampWindow::Cosine:
          w = std::cos(0.5 * Pi * t);
          break;
        case RampWindow::Hamming:
          w = 0.54 + 0.46 * std::cos(Pi * t);
          break;
        case RampWindow::Hann:
          w = 0.5 + 0.5 * std::cos(Pi * t);
          break;
      }
    }
    // 1/L: the inverse FFTs we use (vnl's, cuFFT's) are unnormalised.
    response[k] = kernel[k].real() * w / paddedLength;
  }
  return response;
}

std::vector<double>
HannLowPassResponse(unsigned int paddedLength, double cutOff)
{
  if (!(cutOff > 0. && cutOff <= 1.))
    ThrowBadParameter("Hann cut-off along v", cutOff, "a fraction of the Nyquist frequency in (0, 1]");
  if (paddedLength < 2 || !IsSmooth235(paddedLength))
    ThrowBadParameter("FFT length along v", paddedLength, "an even 2^a 3^b 5^c length (see RampFilterPaddedLength)");
  std::vector<double> response(paddedLength / 2 + 1, 0.);
  for (unsigned int k = 0; k < response.size(); ++k)
  {
    const double y = 2. * k / paddedLength; // fraction of Nyquist
    if (y <= cutOff)
      response[k] = (0.5 + 0.5 * std::cos(Pi * y / cutOff)) / paddedLength;
  }
  return response;
}

std::vector<double>
HannLowPassKernel(unsigned int paddedLength, double cutOff)
{
  const std::vector<double> response = HannLowPassResponse(paddedLength, cutOff);
  vnl_vector<std::complex<double>> spectrum(paddedLength, 0.);
  for (unsigned int k = 0; k < paddedLength; ++k)
    spectrum[k] = response[k <= paddedLength / 2 ? k : paddedLength - k];
  vnl_fft_1d<double> fft(paddedLength);
  fft.bwd_transform(spectrum); // sum_k W[k] e^{+2 pi i k d / L}: real, the response being real and even
  std::vector<double> taps(paddedLength);
  for (unsigned int d = 0; d < paddedLength; ++d)
    taps[d] = spectrum[d].real();
  return taps;
}

} // namespace cbct
