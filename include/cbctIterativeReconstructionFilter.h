#ifndef cbctIterativeReconstructionFilter_h
#define cbctIterativeReconstructionFilter_h

#include "cbctWholeImageProjectionFilter.h"

#include <algorithm>

namespace cbct
{

/** \class IterativeReconstructionFilter
 * \brief Base of SART, CGLS and OSEM (and their CUDA twins): input 0 the initial volume, input 1 the
 * projections (SetProjections()), a number of iterations (at least 1, checked), and the iteration
 * under way or last done (GetCurrentIteration(), for observers of itk::IterationEvent).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT IterativeReconstructionFilter : public WholeImageProjectionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(IterativeReconstructionFilter);
  using Self = IterativeReconstructionFilter;
  using Superclass = WholeImageProjectionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkTypeMacro(IterativeReconstructionFilter, WholeImageProjectionFilter);

  itkSetMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(NumberOfIterations, unsigned int);
  itkGetConstMacro(CurrentIteration, unsigned int);

  void
  SetProjections(const TImage * projections)
  {
    this->SetNthInput(1, const_cast<TImage *>(projections));
  }

protected:
  IterativeReconstructionFilter()
    : Superclass(1)
  {}
  ~IterativeReconstructionFilter() override = default;

  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    if (m_NumberOfIterations < 1)
      ThrowBadParameter("number of iterations", m_NumberOfIterations, "at least 1");
  }

  /** After a loop `for (m_CurrentIteration = 1; ...; ++m_CurrentIteration)`, whether it ran to the end
   * or was aborted: the number of iterations done. */
  void
  FinishIterations()
  {
    m_CurrentIteration = std::min(m_CurrentIteration, m_NumberOfIterations + 1) - 1;
  }

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "NumberOfIterations: " << m_NumberOfIterations << std::endl;
    os << indent << "CurrentIteration: " << m_CurrentIteration << std::endl;
  }

  // Set by GenerateData() (also the CUDA twins').
  unsigned int m_CurrentIteration = 0;

private:
  unsigned int m_NumberOfIterations = 3;
};

} // namespace cbct

#endif
