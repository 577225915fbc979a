#ifndef cbctJosephForwardProjectionImageFilter_h
#define cbctJosephForwardProjectionImageFilter_h

#include "cbctForwardProjectionImageFilter.h"
#include "cbctJosephOperator.h"

namespace cbct
{

/** \class JosephForwardProjectionImageFilter
 * \brief Projections (input 0) plus the Joseph forward projection of a volume (input 1).
 *
 * ForwardProjectionImageFilter that always uses Joseph's method (bilinear in each slice across the
 * ray's dominant axis, see JosephProjector), whatever SetForwardProjector() says, for every projection
 * of the geometry, on the CPU's threads. Its exact adjoint is JosephBackProjectionImageFilter. Both
 * images are processed whole.
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT JosephForwardProjectionImageFilter : public ForwardProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(JosephForwardProjectionImageFilter);
  using Self = JosephForwardProjectionImageFilter;
  using Superclass = ForwardProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(JosephForwardProjectionImageFilter, ForwardProjectionImageFilter);

protected:
  JosephForwardProjectionImageFilter() = default;
  ~JosephForwardProjectionImageFilter() override = default;

  std::unique_ptr<ProjectorOperator>
  MakeProjector(const TImage * volume, const TImage * projections) const override
  {
    return std::unique_ptr<ProjectorOperator>(new JosephOperator<TImage>(volume, projections, this->GetGeometry()));
  }
};

} // namespace cbct

#endif
