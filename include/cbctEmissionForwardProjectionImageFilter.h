#ifndef cbctEmissionForwardProjectionImageFilter_h
#define cbctEmissionForwardProjectionImageFilter_h

#include "cbctForwardProjectionImageFilter.h"

namespace cbct
{

/** \class EmissionForwardProjectionImageFilter
 * \brief Projections (input 0) plus the emission projection of an activity volume (input 1,
 * SetActivity()): attenuated by the map of SetAttenuationMap() (mu per mm, any grid, optional) and
 * blurred by the collimator response of SetCollimatorBlur() (optional), for parallel-hole (SPECT,
 * SourceToDetectorDistance 0) or cone-beam geometries. Each view composites the slices parallel to its
 * detector back to front: B = G(B) exp(-mu dt) + activity (cbctEmission.hcu, EmissionLattice for the
 * model and its limits). Projections are attenuated line integrals of the activity (activity x mm;
 * counts when the activity is in counts per mm^3 per unit of detector sensitivity).
 *
 * ForwardProjectionImageFilter with the emission projector chosen; its exact adjoint is
 * EmissionBackProjectionImageFilter with the same map and blur, and OSEMConeBeamReconstructionFilter
 * reconstructs with the same model through SetForwardProjector(ForwardProjectorKind::Emission).
 * \ingroup ConeBeamCT
 */
template <typename TImage>
class ITK_TEMPLATE_EXPORT EmissionForwardProjectionImageFilter : public ForwardProjectionImageFilter<TImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(EmissionForwardProjectionImageFilter);
  using Self = EmissionForwardProjectionImageFilter;
  using Superclass = ForwardProjectionImageFilter<TImage>;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  itkTypeMacro(EmissionForwardProjectionImageFilter, ForwardProjectionImageFilter);

  /** The activity volume to project (input 1; SetVolume() is the same). */
  void
  SetActivity(const TImage * activity)
  {
    this->SetVolume(activity);
  }

protected:
  EmissionForwardProjectionImageFilter() { this->SetForwardProjector(ForwardProjectorKind::Emission); }
  ~EmissionForwardProjectionImageFilter() override = default;
};

} // namespace cbct

#endif
