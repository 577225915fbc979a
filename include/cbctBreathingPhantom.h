#ifndef cbctBreathingPhantom_h
#define cbctBreathingPhantom_h

#include "cbctGeometricPhantom.h"

#include <array>
#include <cstdint>
#include <vector>

namespace cbct
{

/** \class BreathingPhantom
 * \brief A GeometricPhantom some of whose ellipsoids move with the respiratory phase: the breathing
 * phantom of the 4D simulations and tests.
 *
 * The static phantom is given once (SetPhantom); the moving ellipsoids (by index, default: all of
 * them) are translated by
 * \f[ d(p) = A \, \sin^{2n}(\pi p) \f]
 * at phase p in [0, 1), with A the amplitude vector in mm (default (0, 10, 0): along y, the
 * cranio-caudal axis, as a lung tumour moves) and n the waveform exponent (default 1). This is
 * Lujan's model of breathing (z(t) = z0 - b cos^{2n}(pi t / tau - phi)) with its phase counted from
 * end-exhale:
 * - phase 0 is end-exhale, the rest position: displacement 0 (the ellipsoids where SetPhantom put them);
 * - phase 0.5 is end-inhale: displacement A;
 * - n = 1 is a pure sinusoid, (1 - cos(2 pi p)) / 2; larger n keep the ellipsoids longer near
 *   exhale (Lujan et al. found n = 2 or 3 for most patients), as real breathing does.
 *
 * AtPhase(p) returns a new GeometricPhantom with the moving ellipsoids translated (densities,
 * semi-axes and angles unchanged), so that any projector or voxelizer of GeometricPhantom gives the
 * exact breathing scan (BreathingPhantomProjectionSource does it per projection).
 *
 * ScanPhases() gives the phase of each projection of a scan during a regular breathing of a given
 * number of cycles; IrregularScanPhases() lets the length of each cycle vary (seeded, reproducible).
 *
 * Every parameter is checked: a non-finite amplitude, an exponent <= 0, an ellipsoid index past the
 * phantom's, a phase outside [0, 1) or NaN, a number of cycles <= 0 throw an itk::ExceptionObject
 * naming the parameter and the value.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT BreathingPhantom : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(BreathingPhantom);

  using Self = BreathingPhantom;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  itkNewMacro(Self);
  itkTypeMacro(BreathingPhantom, itk::Object);

  /** The phantom at end-exhale (phase 0). It is copied: later changes to `phantom` are not seen. */
  void
  SetPhantom(const GeometricPhantom * phantom);
  const GeometricPhantom *
  GetPhantom() const
  {
    return m_Phantom.GetPointer();
  }

  /** Indices (into the phantom's ellipsoids) of those that move; empty (the default) means all. Checked
   * against the phantom when it is used (AtPhase), so the two may be set in any order. Repeated indices
   * are refused. */
  void
  SetMovingEllipsoids(const std::vector<unsigned int> & indices);
  const std::vector<unsigned int> &
  GetMovingEllipsoids() const
  {
    return m_MovingEllipsoids;
  }

  /** Displacement at end-inhale (phase 0.5), mm; default (0, 10, 0). Any finite vector. */
  void
  SetAmplitude(const std::array<double, 3> & amplitudeMm);
  const std::array<double, 3> &
  GetAmplitude() const
  {
    return m_Amplitude;
  }

  /** n of the waveform sin^{2n}(pi p); finite and > 0, default 1. */
  void
  SetWaveformExponent(double n);
  double
  GetWaveformExponent() const
  {
    return m_WaveformExponent;
  }

  /** The waveform's value in [0, 1] at `phase`: sin^{2n}(pi phase); 0 at phase 0, 1 at phase 0.5. */
  double
  Waveform(double phase) const;

  /** Displacement of the moving ellipsoids at `phase` (in [0, 1)), mm. */
  std::array<double, 3>
  Displacement(double phase) const;

  /** A copy of the phantom with the moving ellipsoids translated by Displacement(phase). Throws when
   * no phantom was set or a moving index is past its ellipsoids. */
  GeometricPhantom::Pointer
  AtPhase(double phase) const;

  /** Phase of each of `numberOfProjections` projections of a scan during which the patient breathes
   * `numberOfCycles` regular cycles: phase of projection k = frac(firstPhase + cycles * k / n). */
  static std::vector<double>
  ScanPhases(unsigned int numberOfProjections, double numberOfCycles, double firstPhase = 0.);

  /** The same with cycles of irregular length: cycle i lasts (1 + periodVariation * r_i) times the
   * mean cycle, r_i uniform in [-1, 1) from `seed` (reproducible), the lengths scaled so that the scan
   * still holds `numberOfCycles` cycles; within a cycle the phase grows linearly. `periodVariation`
   * in [0, 1); 0 gives ScanPhases(). */
  static std::vector<double>
  IrregularScanPhases(unsigned int numberOfProjections,
                      double numberOfCycles,
                      double periodVariation,
                      std::uint32_t seed,
                      double firstPhase = 0.);

protected:
  BreathingPhantom();
  ~BreathingPhantom() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  GeometricPhantom::Pointer m_Phantom;
  std::vector<unsigned int> m_MovingEllipsoids;
  std::array<double, 3> m_Amplitude{ { 0., 10., 0. } };
  double m_WaveformExponent = 1.;
};

} // namespace cbct

#endif
