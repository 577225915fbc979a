#include "cbctRowFFTFilter.h"

#include "cbctInputChecks.h"

#include <itkConfigure.h>
#ifdef ITK_USE_FFTWD
#  include <itkFFTWCommon.h>
#else
#  include <vnl/algo/vnl_fft_1d.h>
#  include <complex>
#endif

#include <cstddef>
#include <utility>

namespace cbct
{

#ifdef ITK_USE_FFTWD
using FFTW = itk::fftw::Proxy<double>;

struct RowFFTFilter::Plans
{
  FFTW::PlanType forward = nullptr;
  FFTW::PlanType backward = nullptr;
};

RowFFTFilter::Workspace::Workspace(const RowFFTFilter & filter)
{
  // fftw_malloc: the alignment the plans were made for (they were planned on such buffers).
  m_Row = static_cast<double *>(fftw_malloc(sizeof(double) * filter.m_Length));
  m_Spectrum = fftw_malloc(sizeof(FFTW::ComplexType) * (filter.m_Length / 2 + 1));
  if (!m_Row || !m_Spectrum)
  {
    fftw_free(m_Row);
    fftw_free(m_Spectrum);
    throw std::bad_alloc();
  }
}

RowFFTFilter::Workspace::~Workspace()
{
  fftw_free(m_Row);
  fftw_free(m_Spectrum);
}

void
RowFFTFilter::Filter(Workspace & workspace) const
{
  auto * spectrum = static_cast<FFTW::ComplexType *>(workspace.m_Spectrum);
  // The new-array execute functions are thread-safe; the plans are only read.
  fftw_execute_dft_r2c(m_Plans->forward, workspace.m_Row, spectrum);
  for (unsigned int f = 0; f <= m_Length / 2; ++f)
  {
    spectrum[f][0] *= m_Response[f];
    spectrum[f][1] *= m_Response[f];
  }
  fftw_execute_dft_c2r(m_Plans->backward, spectrum, workspace.m_Row);
}

RowFFTFilter::~RowFFTFilter()
{
  if (m_Plans->forward)
    FFTW::DestroyPlan(m_Plans->forward);
  if (m_Plans->backward)
    FFTW::DestroyPlan(m_Plans->backward);
}

#else // vnl's FFT: a complex row with a zero imaginary part

struct RowFFTFilter::Plans
{};

namespace
{
struct VnlRow
{
  explicit VnlRow(unsigned int length)
    : fft(length)
    , row(length)
  {}
  vnl_fft_1d<double> fft;
  vnl_vector<std::complex<double>> row;
};
} // namespace

RowFFTFilter::Workspace::Workspace(const RowFFTFilter & filter)
  : m_Row(new double[filter.m_Length])
  , m_Spectrum(new VnlRow(filter.m_Length))
{}

RowFFTFilter::Workspace::~Workspace()
{
  delete[] m_Row;
  delete static_cast<VnlRow *>(m_Spectrum);
}

void
RowFFTFilter::Filter(Workspace & workspace) const
{
  auto & vnl = *static_cast<VnlRow *>(workspace.m_Spectrum);
  for (unsigned int i = 0; i < m_Length; ++i)
    vnl.row[i] = workspace.m_Row[i];
  vnl.fft.fwd_transform(vnl.row);
  for (unsigned int f = 0; f < m_Length; ++f)
    vnl.row[f] *= m_Response[f <= m_Length / 2 ? f : m_Length - f];
  vnl.fft.bwd_transform(vnl.row);
  for (unsigned int i = 0; i < m_Length; ++i)
    workspace.m_Row[i] = vnl.row[i].real();
}

RowFFTFilter::~RowFFTFilter() = default;
#endif

RowFFTFilter::RowFFTFilter(unsigned int length, std::vector<double> response)
  : m_Length(length)
  , m_Response(std::move(response))
  , m_Plans(std::make_unique<Plans>())
{
  if (length < 2)
    ThrowBadParameter("row FFT length", length, "at least 2");
  if (m_Response.size() < length / 2 + 1)
    ThrowBadParameter("row FFT response size", m_Response.size(), "length / 2 + 1 = " + std::to_string(length / 2 + 1));
#ifdef ITK_USE_FFTWD
  // FFTW_ESTIMATE: a plan that does not depend on timing (the same in every process) and leaves
  // the planning buffers alone. Planned on a workspace's aligned buffers, as Filter() runs them.
  Workspace planning(*this);
  m_Plans->forward = FFTW::Plan_dft_r2c_1d(static_cast<int>(length), planning.m_Row,
                                           static_cast<FFTW::ComplexType *>(planning.m_Spectrum), FFTW_ESTIMATE);
  m_Plans->backward = FFTW::Plan_dft_c2r_1d(static_cast<int>(length), static_cast<FFTW::ComplexType *>(planning.m_Spectrum),
                                            planning.m_Row, FFTW_ESTIMATE);
#endif
}

} // namespace cbct
