#ifndef cbctDetectorCoordinates_h
#define cbctDetectorCoordinates_h

#include "cbctInputChecks.h"

#include <itkImageBase.h>
#include <itkMatrix.h>

namespace cbct
{

/** \class DetectorCoordinates
 * \brief The affine map between a projection stack's pixel indices (i, j) and detector mm (u, v).
 *
 * A projection stack is an itk::Image<float,3> whose first two axes are the detector's (origin,
 * spacing and a 2x2 direction in mm) and whose third axis counts projections; the direction may
 * not mix the two. Filters use this to fold the detector layout into each projection matrix so
 * that inner loops work in pixel indices.
 * \ingroup ConeBeamCT
 */
class DetectorCoordinates
{
public:
  /** Reads origin, spacing and direction of `projections`; throws when the direction mixes the
   * detector plane with the projection axis. */
  explicit DetectorCoordinates(const itk::ImageBase<3> * projections)
  {
    const auto & d = projections->GetDirection();
    if (d(0, 2) != 0. || d(1, 2) != 0. || d(2, 0) != 0. || d(2, 1) != 0.)
    {
      ThrowBadParameter("projection image direction", d, "a direction that keeps the projection axis separate (no rotation involving axis 2)");
    }
    for (unsigned int r = 0; r < 2; ++r)
    {
      for (unsigned int c = 0; c < 2; ++c)
        m_IndexToPhysical(r, c) = d(r, c) * projections->GetSpacing()[c];
      m_IndexToPhysical(r, 2) = projections->GetOrigin()[r];
    }
    m_IndexToPhysical(2, 0) = 0.;
    m_IndexToPhysical(2, 1) = 0.;
    m_IndexToPhysical(2, 2) = 1.;
    m_PhysicalToIndex = itk::Matrix<double, 3, 3>(m_IndexToPhysical.GetInverse());
  }

  /** Homogeneous (i, j, 1) -> (u, v, 1). */
  const itk::Matrix<double, 3, 3> &
  IndexToPhysical() const
  {
    return m_IndexToPhysical;
  }
  /** Homogeneous (u, v, 1) -> (i, j, 1). */
  const itk::Matrix<double, 3, 3> &
  PhysicalToIndex() const
  {
    return m_PhysicalToIndex;
  }

  double
  U(double i, double j) const
  {
    return m_IndexToPhysical(0, 0) * i + m_IndexToPhysical(0, 1) * j + m_IndexToPhysical(0, 2);
  }
  double
  V(double i, double j) const
  {
    return m_IndexToPhysical(1, 0) * i + m_IndexToPhysical(1, 1) * j + m_IndexToPhysical(1, 2);
  }

private:
  itk::Matrix<double, 3, 3> m_IndexToPhysical;
  itk::Matrix<double, 3, 3> m_PhysicalToIndex;
};

} // namespace cbct

#endif
