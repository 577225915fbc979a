#ifndef cbctIterativeReconstructionFilter_h
#define cbctIterativeReconstructionFilter_h

#include "cbctSlabReducingOperator.h"
#include "cbctSlabReduction.h"
#include "cbctWholeImageProjectionFilter.h"

#include <algorithm>

namespace cbct
{

/** \class IterativeReconstructionFilter
 * \brief Base of SART, CGLS and OSEM (and their CUDA twins): input 0 the initial volume, input 1 the
 * projections (SetProjections()), a number of iterations (at least 1, checked), and the iteration
 * under way or last done (GetCurrentIteration(), for observers of itk::IterationEvent).
 *
 * With SetSlabReduction() the reconstruction is shared by several participants (GPUs, MPI ranks),
 * each with one slab along y of the volume: input 0 and the output are then this participant's slab
 * (their largest possible region is the slab, in the whole volume's index space), the projections
 * whole; forward projections and volume inner products are summed over the participants.
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

  /** The sums shared with the other participants holding slabs of the volume (see above); not
   * owned; null (the default): the filter has the whole volume. Joseph's projector only (CheckSlabSharing()). */
  void
  SetSlabReduction(SlabReduction * reduction)
  {
    if (reduction != m_SlabReduction)
    {
      m_SlabReduction = reduction;
      this->Modified();
    }
  }
  SlabReduction *
  GetSlabReduction() const
  {
    return m_SlabReduction;
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
    this->CheckSlabSharing(m_SlabReduction != nullptr);
  }

  /** When the reconstruction is `shared` among slabs (an MPI job's ranks, several GPUs), refuses a
   * projector whose slabs' projections do not add up to the whole volume's. */
  void
  CheckSlabSharing(bool shared) const
  {
    if (!shared || this->GetForwardProjector() == ForwardProjectorKind::Joseph)
      return;
    ThrowBadParameter("forward projector of a reconstruction shared among GPUs or MPI ranks",
                      ToString(this->GetForwardProjector()),
                      this->GetForwardProjector() == ForwardProjectorKind::RayCast
                        ? "joseph (the ray caster's samples depend on where the ray enters the volume, so the slabs' "
                          "projections do not add up to the whole volume's)"
                        : "joseph, or one process and one GPU (the emission projector lays each view's slices out over the volume "
                          "it holds, so the slabs' projections do not add up to the whole volume's)");
  }

  /** MakeOperator(), summed over the participants' slabs through `reduction` (if any). */
  std::unique_ptr<ProjectorOperator>
  MakeSharedOperator(const TImage * volume, const TImage * projections, SlabReduction * reduction) const
  {
    std::unique_ptr<ProjectorOperator> A = this->MakeOperator(volume, projections);
    if (reduction)
      A.reset(new SlabReducingOperator(std::move(A), reduction));
    return A;
  }

  /** An inner product of volume vectors over the whole volume: this slab's part summed over the
   * participants of `reduction` (if any). */
  static double
  SumOverSlabs(SlabReduction * reduction, double value)
  {
    return reduction ? reduction->Sum(value) : value;
  }

  /** Whether every participant is ready to start (`ready` here, e.g. its input checks passed): when
   * one is not, none iterates (the failing one reports why). */
  static bool
  AllParticipantsReady(SlabReduction * reduction, bool ready)
  {
    return reduction ? reduction->Sum(ready ? 0. : 1.) == 0. : ready;
  }

  /** Whether to stop before the next iteration (AbortGenerateDataOn()); agreed by every participant
   * of `reduction`, so that they stay in step. */
  bool
  StopIterating(SlabReduction * reduction)
  {
    const bool abort = this->GetAbortGenerateData();
    return reduction ? reduction->Sum(abort ? 1. : 0.) > 0. : abort;
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
  SlabReduction * m_SlabReduction = nullptr;
};

} // namespace cbct

#endif
