#ifndef cbctJosephBackProjectionImageFilter_h
#define cbctJosephBackProjectionImageFilter_h

#include "cbctBackProjectionImageFilter.h"
#include "cbctJosephOperator.h"

namespace cbct
{

/** \class JosephBackProjectionImageFilter
 * \brief A volume (input 0) plus the transpose of Joseph's forward projection applied to
 * projections (input 1): the exact adjoint of JosephForwardProjectionImageFilter, for iterative
 * reconstruction (FDK keeps its voxel-driven backprojector). BackProjectionImageFilter that always
 * uses Joseph's pair, whatever SetForwardProjector() says. Both images are processed whole; the CPU
 * threads each accumulate into their own copy of the volume (memory: one volume per thread).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephBackProjectionImageFilter : public BackProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephBackProjectionImageFilter);
  using Self = JosephBackProjectionImageFilter;
  using Superclass = BackProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephBackProjectionImageFilter, BackProjectionImageFilter);

protected:
  JosephBackProjectionImageFilter() = default;
  ~JosephBackProjectionImageFilter() override = default;

  std::unique_ptr<ProjectorOperator>
  MakeProjector(const TImage * volume, const TImage * projections) const override
  {
    return std::unique_ptr<ProjectorOperator>(new JosephOperator<TImage>(volume, projections, this->GetGeometry()));
  }
};

} // namespace cbct

#endif
