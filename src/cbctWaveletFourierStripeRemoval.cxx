#include "cbctWaveletFourierStripeRemoval.h"

#include "cbctInputChecks.h"
#include "cbctSortingStripeRemoval.h"

#include <algorithm>
#include <cmath>

namespace cbct
{

WaveletFourierStripeRemoval::WaveletFourierStripeRemoval(const Parameters & parameters, std::size_t projections,
                                                         std::size_t columns)
  : m_Parameters(parameters)
  , m_Wavelet(parameters.wavelet, "wavelet-Fourier stripe removal: wavelet")
  , m_Projections(projections)
{
  if (!std::isfinite(parameters.sigma) || !(parameters.sigma > 0.))
    ThrowBadParameter("wavelet-Fourier stripe removal: sigma", parameters.sigma, "a finite value > 0");
  if (parameters.level > 30)
    ThrowBadParameter("wavelet-Fourier stripe removal: level", parameters.level,
                      "1 .. 30, or 0 for ceil(log2(max(projections, columns)))");
  if (projections < 1 || columns < 1)
    ThrowBadParameter("wavelet-Fourier stripe removal: sinogram size",
                      std::to_string(projections) + " x " + std::to_string(columns), "at least 1 x 1");
  if (parameters.detailOnly && parameters.medianSize > columns)
    ThrowBadParameter("wavelet-Fourier stripe removal: median size", parameters.medianSize,
                      "0 (automatic) .. " + std::to_string(columns) + ", the detector's width in pixels");
  if (parameters.detailOnly)
    m_MedianSize = parameters.medianSize ? parameters.medianSize : SortingStripeRemoval::AutomaticSize(columns);
  m_Level = parameters.level ? parameters.level : AutomaticLevel(projections, columns);
  const std::size_t padded = parameters.pad ? projections + projections / 8 : projections;
  m_Shift = (padded - projections) / 2;
  m_Rows.assign(1, padded);
  m_Columns.assign(1, columns);
  for (unsigned int n = 1; n <= m_Level; ++n)
  {
    m_Rows.push_back(m_Wavelet.CoefficientCount(m_Rows.back()));
    m_Columns.push_back(m_Wavelet.CoefficientCount(m_Columns.back()));
    if (m_Rows.back() < 2) // one coefficient along the angle: its mean, damped to 0
    {
      m_Damping.emplace_back();
      continue;
    }
    std::vector<double> response = Damping(m_Rows.back(), parameters.sigma);
    for (double & r : response)
      r /= static_cast<double>(m_Rows.back());
    m_Damping.push_back(std::make_unique<RowFFTFilter>(static_cast<unsigned int>(m_Rows.back()), std::move(response)));
  }
}

WaveletFourierStripeRemoval::~WaveletFourierStripeRemoval() = default;

unsigned int
WaveletFourierStripeRemoval::AutomaticLevel(std::size_t projections, std::size_t columns)
{
  const std::size_t size = std::max(projections, columns);
  unsigned int level = 0;
  while ((std::size_t{ 1 } << level) < size)
    ++level;
  return std::max(level, 1u);
}

unsigned int
WaveletFourierStripeRemoval::DetailPairs(unsigned int medianSize)
{
  return medianSize ? std::min(63u, std::max(3u, medianSize / 2) | 1u) : 0u; // 63: the GPU's work array
}

float
WaveletFourierStripeRemoval::DetailReference(const float * line, std::size_t columns, std::size_t u, unsigned int pairs,
                                             float * work)
{
  const long long U = static_cast<long long>(columns);
  auto at = [&](long long i) {
    if (i < 0)
      i = -1 - i;
    else if (i >= U)
      i = 2 * U - 1 - i;
    return line[std::min(std::max(i, 0LL), U - 1)];
  };
  for (unsigned int j = 1; j <= pairs; ++j)
    work[j - 1] = (at(static_cast<long long>(u) - j) + at(static_cast<long long>(u) + j)) * 0.5f;
  // The median of an odd count: the value of rank pairs / 2, by insertion (pairs is small).
  for (unsigned int i = 1; i < pairs; ++i)
    for (unsigned int j = i; j > 0 && work[j] < work[j - 1]; --j)
      std::swap(work[j], work[j - 1]);
  return work[pairs / 2];
}

std::vector<double>
WaveletFourierStripeRemoval::Damping(std::size_t rows, double sigma)
{
  std::vector<double> damping(rows / 2 + 1);
  for (std::size_t f = 0; f < damping.size(); ++f)
  {
    const double x = static_cast<double>(f);
    damping[f] = -std::expm1(-x * x / (2. * sigma * sigma));
  }
  return damping;
}

void
WaveletFourierStripeRemoval::Filter(const float * in, std::ptrdiff_t inStride, float * out,
                                    std::ptrdiff_t outStride) const
{
  // Coefficient arrays are row-major [row (angle)][column (detector)].
  const unsigned int L = m_Level;
  // The sinogram, or with a median size its detail: each value less its neighbours' reference
  // (DetailReference()).
  const std::size_t U = m_Columns[0];
  std::vector<double> approximation(m_Rows[0] * U, 0.);
  const unsigned int pairs = DetailPairs(m_MedianSize);
  std::vector<float> work(std::max(1u, pairs));
  for (std::size_t k = 0; k < m_Projections; ++k)
  {
    const float * line = in + static_cast<std::ptrdiff_t>(k) * inStride;
    for (std::size_t u = 0; u < U; ++u)
      approximation[(k + m_Shift) * U + u] =
        pairs ? static_cast<double>(line[u]) - static_cast<double>(DetailReference(line, U, u, pairs, work.data()))
              : static_cast<double>(line[u]);
  }
  const std::vector<double> detail = m_MedianSize ? approximation : std::vector<double>();

  std::vector<std::vector<double>> horizontal(L), vertical(L), diagonal(L);
  std::vector<double> lowU, highU;
  for (unsigned int n = 0; n < L; ++n)
  {
    const std::size_t rows = m_Rows[n], cols = m_Columns[n], nextRows = m_Rows[n + 1], nextCols = m_Columns[n + 1];
    // Across the detector, row by row.
    lowU.assign(rows * nextCols, 0.);
    highU.assign(rows * nextCols, 0.);
    for (std::size_t k = 0; k < rows; ++k)
      m_Wavelet.Analyze(approximation.data() + k * cols, cols, 1, lowU.data() + k * nextCols, highU.data() + k * nextCols, 1);
    // Along the angle, column by column: low-low is the next approximation, high(angle)-low(detector)
    // the horizontal details, low(angle)-high(detector) the vertical ones (the stripes), high-high
    // the diagonal ones.
    std::vector<double> next(nextRows * nextCols);
    horizontal[n].resize(nextRows * nextCols);
    vertical[n].resize(nextRows * nextCols);
    diagonal[n].resize(nextRows * nextCols);
    const auto stride = static_cast<std::ptrdiff_t>(nextCols);
    for (std::size_t u = 0; u < nextCols; ++u)
    {
      m_Wavelet.Analyze(lowU.data() + u, rows, stride, next.data() + u, horizontal[n].data() + u, stride);
      m_Wavelet.Analyze(highU.data() + u, rows, stride, vertical[n].data() + u, diagonal[n].data() + u, stride);
    }
    approximation.swap(next);
  }

  // The damping of the vertical details along the angle.
  for (unsigned int n = 0; n < L; ++n)
  {
    if (!m_Damping[n])
    {
      std::fill(vertical[n].begin(), vertical[n].end(), 0.);
      continue;
    }
    const RowFFTFilter & damping = *m_Damping[n];
    RowFFTFilter::Workspace workspace(damping);
    const std::size_t rows = m_Rows[n + 1], cols = m_Columns[n + 1];
    for (std::size_t u = 0; u < cols; ++u)
    {
      for (std::size_t k = 0; k < rows; ++k)
        workspace.Row()[k] = vertical[n][k * cols + u];
      damping.Filter(workspace);
      for (std::size_t k = 0; k < rows; ++k)
        vertical[n][k * cols + u] = workspace.Row()[k];
    }
  }

  // Reconstruction, deepest level first; each level is cropped to the size the level above had.
  for (unsigned int n = L; n-- > 0;)
  {
    const std::size_t rows = m_Rows[n], cols = m_Columns[n], coarseRows = m_Rows[n + 1], coarseCols = m_Columns[n + 1];
    lowU.assign(rows * coarseCols, 0.);
    highU.assign(rows * coarseCols, 0.);
    const auto stride = static_cast<std::ptrdiff_t>(coarseCols);
    for (std::size_t u = 0; u < coarseCols; ++u)
    {
      m_Wavelet.Synthesize(approximation.data() + u, horizontal[n].data() + u, coarseRows, stride, lowU.data() + u, rows, stride);
      m_Wavelet.Synthesize(vertical[n].data() + u, diagonal[n].data() + u, coarseRows, stride, highU.data() + u, rows, stride);
    }
    std::vector<double> finer(rows * cols);
    for (std::size_t k = 0; k < rows; ++k)
      m_Wavelet.Synthesize(lowU.data() + k * coarseCols, highU.data() + k * coarseCols, coarseCols, 1, finer.data() + k * cols, cols, 1);
    approximation.swap(finer);
  }

  // The output: the filtered sinogram, or the input less what the filter took of its detail.
  for (std::size_t k = 0; k < m_Projections; ++k)
    for (std::size_t u = 0; u < U; ++u)
    {
      const std::size_t at = (k + m_Shift) * U + u;
      const std::ptrdiff_t o = static_cast<std::ptrdiff_t>(k) * outStride + static_cast<std::ptrdiff_t>(u);
      if (m_MedianSize)
        out[o] = static_cast<float>(in[static_cast<std::ptrdiff_t>(k) * inStride + static_cast<std::ptrdiff_t>(u)] -
                                    (detail[at] - approximation[at]));
      else
        out[o] = static_cast<float>(approximation[at]);
    }
}

} // namespace cbct
