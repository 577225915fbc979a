#include "cbctGeometryCalibration.h"

#include "cbctCalibrationSupport.h"
#include "cbctDisplacedDetectorCoverage.h"
#include "cbctInputChecks.h"
#include "cbctOppositeViewAxisCalibration.h"
#include "cbctSharpnessCalibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cbct
{

std::string
GeometryCalibration::MethodName(Method method)
{
  switch (method)
  {
    case Method::Auto:
      return "auto";
    case Method::OppositeViews:
      return "opposite";
    case Method::Sharpness:
      return "sharpness";
    case Method::Beads:
      return "beads";
  }
  return "auto";
}

GeometryCalibration::Method
GeometryCalibration::ParseMethod(const std::string & name)
{
  for (Method m : { Method::Auto, Method::OppositeViews, Method::Sharpness, Method::Beads })
    if (MethodName(m) == name)
      return m;
  ThrowBadParameter("calibration method", "'" + name + "'", "auto, opposite, sharpness or beads");
}

GeometryCalibrationResult
GeometryCalibration::Compute()
{
  auto log = [&](const std::string & line) {
    if (m_Log)
      m_Log(line);
  };
  if (!m_FitOffset && !m_FitRoll && !m_FitTilt)
    itkExceptionMacro(<< "geometry calibration: nothing to fit: choose among offset, roll and tilt");
  if (m_Method == Method::Beads)
    // The bead-phantom calibration plugs in here.
    itkExceptionMacro(<< "geometry calibration: the bead-phantom method (beads) is not part of this build yet; use "
                         "opposite, sharpness or auto on the scan's own projections");

  auto sharpness = [&](const AxisCorrection & start, double searchRange, bool fitRoll) {
    auto s = SharpnessCalibration::New();
    s->SetProjections(m_Projections);
    s->SetGeometry(m_Geometry);
    s->SetFitOffset(m_FitOffset);
    s->SetFitRoll(fitRoll);
    s->SetFitTilt(m_FitTilt);
    s->SetStart(start);
    s->SetSearchRange(searchRange);
    s->SetTiltRange(m_TiltRange);
    s->SetMeasure(m_Measure);
    s->SetHardware(m_Hardware);
    // The finest slices: 512 columns on the CPU (a 2048-column detector binned by 4: the parabola still
    // places the axis to a few hundredths of the binned pixel), 1024 on a GPU.
    s->SetMaximumColumns(m_Hardware == Hardware::Cuda ? 1024 : 512);
    s->SetComputeCurves(m_ComputeCurves);
    s->SetLog(m_Log);
    return s->Compute();
  };
  auto opposite = [&]() {
    if (!m_FitOffset)
      itkExceptionMacro(<< "geometry calibration: opposite views fit the offset (and the roll with it); add the offset "
                           "to the fit or use the sharpness method");
    auto o = OppositeViewAxisCalibration::New();
    o->SetProjections(m_Projections);
    o->SetGeometry(m_Geometry);
    o->SetFitRoll(m_FitRoll);
    o->SetOffsetModel(m_OffsetModel);
    o->SetSearchRange(m_SearchRange);
    o->SetComputeCurves(m_ComputeCurves);
    o->SetLog(m_Log);
    return o->Compute();
  };
  AxisCorrection nominal;
  nominal.model = m_OffsetModel;

  if (m_Method == Method::OppositeViews)
  {
    if (m_FitTilt)
      itkExceptionMacro(<< "geometry calibration: opposite views do not fit the tilt (they barely see it); use the "
                           "sharpness method or auto");
    return opposite();
  }
  if (m_Method == Method::Sharpness)
    return sharpness(nominal, m_SearchRange, m_FitRoll);

  // Auto: opposite views where they apply, refined by sharpness.
  detail::CheckCalibrationInputs(m_Projections, m_Geometry, "geometry calibration");
  GeometryCalibrationResult first;
  bool haveFirst = false;
  std::string why;
  if (!m_FitOffset)
    why = "the offset is not fitted";
  else if (m_Geometry->GetAngularRange() < 3.14159265358979323846)
    why = "the scan covers less than 180 degrees";
  else
  {
    try
    {
      first = opposite();
      haveFirst = true;
    }
    catch (const itk::ExceptionObject & e)
    {
      why = e.GetDescription();
    }
  }
  if (!haveFirst)
  {
    log("auto: sharpness alone (opposite views not used: " + why + ")");
    GeometryCalibrationResult result = sharpness(nominal, m_SearchRange, m_FitRoll);
    result.log.insert(result.log.begin(), "auto: sharpness alone (opposite views not used: " + why + ")");
    return result;
  }
  // A half fan keeps the opposite views' result: the sharpness of slices does not find its axis.
  {
    const DisplacedDetectorCoverage coverage(m_Geometry, m_Projections, std::numeric_limits<double>::infinity());
    if (std::min(coverage.Negative(), coverage.Positive()) < 0.5 * std::max(coverage.Negative(), coverage.Positive()))
    {
      if (m_FitTilt)
        itkExceptionMacro(<< "geometry calibration: a half-fan scan's tilt cannot be fitted (only the sharpness of "
                             "slices fits the tilt, and it does not serve a half fan); leave the tilt out");
      log("auto: a half fan: the opposite views' result, without the sharpness refinement");
      first.method = "opposite views (a half fan: no sharpness refinement)";
      return first;
    }
  }
  // The sharpness of FDK slices refines the offset about the opposite views' result (a few of their
  // spreads, at least three pixels) and fits the tilt when asked; the roll stays the opposite views'
  // (the conjugate rays measure it across the detector's whole height, where a slice's sharpness sees
  // it only through the small shift of its own axis).
  const CalibrationParameter * offset = first.Find("offset");
  const double spread = offset && std::isfinite(offset->uncertainty) ? offset->uncertainty : 0.;
  const double range = std::max(3., 6. * spread);
  log("auto: sharpness refines the opposite views' offset over +-" + detail::Fixed(range, 2) + " pixels");
  // The refinement is kept only where it agrees with the conjugate rays, which measure the axis directly:
  // within half a pixel or five of their spreads. On small, strongly magnified scans the slices' sharpness
  // was measured to peak 2 to 3 pixels off (its edge of the field of view moves with the candidate axis)
  // while the opposite views were within 0.01 pixel; a refinement that fails or strays is then dropped
  // with a warning, and the opposite views' result stands.
  const double agreement = std::max(0.5, 5. * spread);
  // outcome: "failed" or "disagreed"; why: what happened.
  auto keepFirst = [&](const std::string & outcome, const std::string & why) {
    log("auto: the sharpness refinement " + outcome + " (" + why + "): the opposite views' result is kept");
    first.warnings.push_back("the sharpness refinement " + outcome + " (" + why +
                             "); the opposite views' result is kept");
    first.method = "opposite views (the sharpness refinement " + outcome + ")";
    return first;
  };
  GeometryCalibrationResult result;
  try
  {
    result = sharpness(first.correction, range, false);
  }
  catch (const itk::ExceptionObject & e)
  {
    return keepFirst("failed", e.GetDescription());
  }
  if (offset != nullptr)
    if (const CalibrationParameter * refined = result.Find("offset"))
      if (!(std::abs(refined->value - offset->value) <= agreement))
        return keepFirst("disagreed", detail::Fixed(refined->value, 3) + " pixels against " +
                                        detail::Fixed(offset->value, 3) + " +- " + detail::Fixed(spread, 3) +
                                        ", more than " + detail::Fixed(agreement, 2) + " apart");
  result.method = "opposite views, then sharpness";
  if (CalibrationParameter * p = result.Find("offset"))
    p->method = "opposite views, then sharpness";
  if (const CalibrationParameter * roll = first.Find("roll"))
    result.Parameter("roll") = *roll;
  result.log.insert(result.log.begin(), first.log.begin(), first.log.end());
  result.timings.insert(result.timings.begin(), first.timings.begin(), first.timings.end());
  result.curves.insert(result.curves.begin(), first.curves.begin(), first.curves.end());
  for (const std::string & warning : first.warnings)
    if (std::find(result.warnings.begin(), result.warnings.end(), warning) == result.warnings.end())
      result.warnings.push_back(warning);
  return result;
}

void
GeometryCalibration::PrintSelf(std::ostream & os, itk::Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Method: " << MethodName(m_Method) << std::endl;
  os << indent << "Fit: offset " << m_FitOffset << ", roll " << m_FitRoll << ", tilt " << m_FitTilt << std::endl;
  os << indent << "OffsetModel: " << AxisCorrection::ModelName(m_OffsetModel) << std::endl;
}

} // namespace cbct
