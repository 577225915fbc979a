#ifndef cbctJosephBackProjectionImageFilter_h
#define cbctJosephBackProjectionImageFilter_h

#include "cbctJosephOperator.h"
#include "cbctWholeImageProjectionFilter.h"

namespace cbct
{

/** \class JosephBackProjectionImageFilter
 * \brief A volume (input 0) plus the transpose of Joseph's forward projection applied to
 * projections (input 1): the exact adjoint of JosephForwardProjectionImageFilter, for iterative
 * reconstruction (FDK keeps its voxel-driven backprojector). Both images are processed whole; the
 * CPU threads each accumulate into their own copy of the volume (memory: one volume per thread).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephBackProjectionImageFilter : public WholeImageProjectionFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephBackProjectionImageFilter);
  using Self = JosephBackProjectionImageFilter;
  using Superclass = WholeImageProjectionFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephBackProjectionImageFilter, WholeImageProjectionFilter);

  void
  SetProjections(const TImage * projections)
  {
    this->SetNthInput(1, const_cast<TImage *>(projections));
  }

protected:
  JosephBackProjectionImageFilter()
    : Superclass(1)
  {}
  ~JosephBackProjectionImageFilter() override = default;

  void
  GenerateData() override
  {
    TImage * output = this->AllocateOutputFromInput0();
    const TImage * projections = this->GetInput(1);
    JosephOperator<TImage>(this->GetInput(0), projections, this->GetGeometry())
      .Back(projections->GetBufferPointer(), output->GetBufferPointer(), this->AllProjections(), true);
  }
};

} // namespace cbct

#endif
