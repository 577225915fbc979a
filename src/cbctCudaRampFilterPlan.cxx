#include "cbctConfiguration.h"
#if CBCT_USE_CUDA

#  include "cbctCudaFFTRampImageFilter.h"
#  include "cbctCudaRampFilter.hcu"

#  include <algorithm>

namespace cbct
{

CudaRampFilterPlan::~CudaRampFilterPlan()
{
  this->Destroy();
}

void
CudaRampFilterPlan::Destroy()
{
  if (m_Forward)
    cufftDestroy(m_Forward);
  if (m_Inverse)
    cufftDestroy(m_Inverse);
  m_Forward = m_Inverse = 0;
  m_Length = m_Rows = 0;
}

void
CudaRampFilterPlan::Prepare(int length, int rows, const std::vector<double> & response)
{
  if (length != m_Length || rows > m_Rows)
  {
    this->Destroy();
    int n[1] = { length };
    const int bins = length / 2 + 1;
    const std::size_t bytes = static_cast<std::size_t>(rows) * length * sizeof(double);
    CufftCheck(cufftPlanMany(&m_Forward, 1, n, nullptr, 1, length, nullptr, 1, bins, CUFFT_D2Z, rows),
               "cufftPlanMany (D2Z, " + std::to_string(rows) + " rows of " + std::to_string(length) + ")", bytes);
    CufftCheck(cufftPlanMany(&m_Inverse, 1, n, nullptr, 1, bins, nullptr, 1, length, CUFFT_Z2D, rows),
               "cufftPlanMany (Z2D, " + std::to_string(rows) + " rows of " + std::to_string(length) + ")", bytes);
    m_Length = length;
    m_Rows = rows;
    m_Padded.Reserve(static_cast<std::size_t>(rows) * length, "padded projection rows");
    m_Spectra.Reserve(static_cast<std::size_t>(rows) * bins, "projection row spectra");
    // Rows beyond a short last batch are transformed too: keep them defined.
    CudaCheck(cudaMemset(m_Padded.Data(), 0, static_cast<std::size_t>(rows) * length * sizeof(double)), "cudaMemset (padded rows)");
  }
  if (response != m_Response)
  {
    m_DeviceResponse.Upload(response);
    m_Response = response;
  }
}

void
CudaRampFilterPlan::ReserveRows(std::size_t rows)
{
  const std::size_t chunks = (rows + m_Rows - 1) / m_Rows;
  const std::size_t count = std::max<std::size_t>(chunks, 1) * m_Rows * m_Length;
  if (count <= m_Padded.Capacity())
    return;
  m_Padded.Reserve(count, "padded projection rows");
  CudaCheck(cudaMemset(m_Padded.Data(), 0, count * sizeof(double)), "cudaMemset (padded rows)", count * sizeof(double));
}

void
CudaRampFilterPlan::FilterRows(cudaStream_t stream, std::size_t rows)
{
  CufftCheck(cufftSetStream(m_Forward, stream), "cufftSetStream");
  CufftCheck(cufftSetStream(m_Inverse, stream), "cufftSetStream");
  CudaRampMultiplyLaunch multiply;
  multiply.spectra = m_Spectra.Data();
  multiply.response = m_DeviceResponse.Data();
  multiply.bins = m_Length / 2 + 1;
  multiply.rows = m_Rows;
  for (std::size_t first = 0; first < rows; first += static_cast<std::size_t>(m_Rows))
  {
    double * chunk = m_Padded.Data() + first * m_Length;
    CufftCheck(cufftExecD2Z(m_Forward, chunk, m_Spectra.Data()), "cufftExecD2Z");
    CudaCheck(LaunchRampMultiply(multiply, stream), "LaunchRampMultiply");
    CufftCheck(cufftExecZ2D(m_Inverse, m_Spectra.Data(), chunk), "cufftExecZ2D");
  }
}

void
CudaRampFilterPlan::Filter(cudaStream_t stream)
{
  // A plan is for a fixed batch; a shorter batch reuses it (the rows beyond are scratch).
  CufftCheck(cufftSetStream(m_Forward, stream), "cufftSetStream");
  CufftCheck(cufftSetStream(m_Inverse, stream), "cufftSetStream");
  CufftCheck(cufftExecD2Z(m_Forward, m_Padded.Data(), m_Spectra.Data()), "cufftExecD2Z");
  CudaRampMultiplyLaunch multiply;
  multiply.spectra = m_Spectra.Data();
  multiply.response = m_DeviceResponse.Data();
  multiply.bins = m_Length / 2 + 1;
  multiply.rows = m_Rows;
  CudaCheck(LaunchRampMultiply(multiply, stream), "LaunchRampMultiply");
  CufftCheck(cufftExecZ2D(m_Inverse, m_Spectra.Data(), m_Padded.Data()), "cufftExecZ2D");
}

} // namespace cbct

#endif
