#ifndef cbctBreathingPhantomProjectionSource_h
#define cbctBreathingPhantomProjectionSource_h

#include "cbctBreathingPhantom.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkGenerateImageSource.h>

#include <vector>

namespace cbct
{

/** \class BreathingPhantomProjectionSource
 * \brief Exact projections of a breathing scan: projection k is the line integrals of
 * BreathingPhantom::AtPhase(phases[k]) along the rays of projection k of the geometry.
 *
 * The output is laid out as PhantomProjectionSource's (detector size, spacing, origin and direction
 * set as on any itk::GenerateImageSource; one slice per projection of the geometry). Each slice is
 * made by a PhantomProjectionSource holding that projection alone and the phantom moved to that
 * projection's phase, so the values are exactly those of the static source for the moved phantom.
 * Only the requested region is computed (streams along projections and rows).
 *
 * The phases are checked as a phase file's are (PhaseSignal::Check): one value in [0, 1) per
 * projection of the geometry.
 * \ingroup ConeBeamCT
 */
template <typename TOutputImage>
class ITK_TEMPLATE_EXPORT BreathingPhantomProjectionSource : public itk::GenerateImageSource<TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BreathingPhantomProjectionSource);

  using Self = BreathingPhantomProjectionSource;
  using Superclass = itk::GenerateImageSource<TOutputImage>;
  using Pointer = itk::SmartPointer<Self>;
  using GeometryType = ThreeDCircularProjectionGeometry;

  itkNewMacro(Self);
  itkTypeMacro(BreathingPhantomProjectionSource, itk::GenerateImageSource);

  itkSetConstObjectMacro(Geometry, GeometryType);
  itkGetConstObjectMacro(Geometry, GeometryType);
  itkSetConstObjectMacro(BreathingPhantom, BreathingPhantom);
  itkGetConstObjectMacro(BreathingPhantom, BreathingPhantom);

  /** The phase of each projection, in projection order. */
  void
  SetPhases(const std::vector<double> & phases)
  {
    m_Phases = phases;
    this->Modified();
  }
  const std::vector<double> &
  GetPhases() const
  {
    return m_Phases;
  }

protected:
  BreathingPhantomProjectionSource() = default;
  ~BreathingPhantomProjectionSource() override = default;

  void
  GenerateOutputInformation() override;
  void
  VerifyPreconditions() ITKv5_CONST override;
  void
  GenerateData() override;

private:
  GeometryType::ConstPointer                       m_Geometry;
  typename cbct::BreathingPhantom::ConstPointer    m_BreathingPhantom;
  std::vector<double>                              m_Phases;
};

} // namespace cbct

#ifndef ITK_MANUAL_INSTANTIATION
#  include "cbctBreathingPhantomProjectionSource.hxx"
#endif

#endif
