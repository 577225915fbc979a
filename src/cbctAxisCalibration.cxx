#include "cbctAxisCalibration.h"

namespace cbct
{

AxisCalibration::LogFunction
AxisCalibration::LogInto(GeometryCalibrationResult & result) const
{
  return [&result, log = m_Log](const std::string & line) {
    result.log.push_back(line);
    if (log)
      log(line);
  };
}

void
AxisCalibration::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Projections: " << (m_Projections ? "set" : "none") << std::endl;
  os << indent << "Geometry: " << (m_Geometry ? std::to_string(m_Geometry->GetNumberOfProjections()) + " projections"
                                              : std::string("none"))
     << std::endl;
  os << indent << "FitRoll: " << m_FitRoll << std::endl;
  os << indent << "SearchRange: " << m_SearchRange << " pixels" << std::endl;
  os << indent << "ComputeCurves: " << m_ComputeCurves << std::endl;
}

} // namespace cbct
