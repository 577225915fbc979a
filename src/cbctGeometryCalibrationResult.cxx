#include "cbctGeometryCalibrationResult.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace cbct
{

const CalibrationParameter *
GeometryCalibrationResult::Find(const std::string & name) const
{
  for (const auto & p : parameters)
    if (p.name == name)
      return &p;
  return nullptr;
}

CalibrationParameter *
GeometryCalibrationResult::Find(const std::string & name)
{
  for (auto & p : parameters)
    if (p.name == name)
      return &p;
  return nullptr;
}

CalibrationParameter &
GeometryCalibrationResult::Parameter(const std::string & name)
{
  if (CalibrationParameter * found = this->Find(name))
    return *found;
  CalibrationParameter p;
  p.name = name;
  p.unit = name == "offset" ? "pixels" : "degrees";
  parameters.push_back(p);
  return parameters.back();
}

std::vector<std::string>
GeometryCalibrationResult::Describe() const
{
  std::vector<std::string> lines;
  for (const char * name : { "offset", "roll", "tilt" })
  {
    const CalibrationParameter * p = this->Find(name);
    std::ostringstream line;
    line << name;
    if (p == nullptr || !p->fitted)
    {
      line << " not fitted";
      lines.push_back(line.str());
      continue;
    }
    const int digits = p->name == "offset" ? 3 : 4;
    line << std::fixed << std::setprecision(digits) << " " << p->value;
    if (std::isfinite(p->uncertainty))
      line << " +- " << p->uncertainty;
    line << " " << p->unit << " (";
    if (p->name == "offset")
      line << std::setprecision(4) << p->value * pixelSize << " mm along u, " << AxisCorrection::ModelName(correction.model)
           << " offset; ";
    line << p->method << ")";
    lines.push_back(line.str());
  }
  return lines;
}

void
GeometryCalibrationResult::AddTiming(const std::string & stage, double seconds, unsigned int count)
{
  for (CalibrationStageTime & t : timings)
    if (t.stage == stage)
    {
      t.seconds += seconds;
      t.count += count;
      return;
    }
  timings.push_back({ stage, seconds, count });
}

std::vector<std::string>
GeometryCalibrationResult::DescribeTimings() const
{
  std::vector<std::string> lines;
  for (const CalibrationStageTime & t : timings)
  {
    std::ostringstream line;
    line << t.stage << " " << std::fixed << std::setprecision(3) << t.seconds << " s (" << t.count
         << (t.count == 1 ? " time)" : " times)");
    lines.push_back(line.str());
  }
  return lines;
}

} // namespace cbct
