#include "cbctSharpnessScore.h"

#include "cbctInputChecks.h"

#include <cmath>
#include <limits>

namespace cbct
{

double
SharpnessScore::Compute(Measure measure, const ImageType * slices, double radius)
{
  CheckPositive("sharpness score field of view radius (mm)", radius);
  const auto region = slices->GetBufferedRegion();
  const auto size = region.GetSize();
  const auto spacing = slices->GetSpacing();
  const auto origin = slices->GetOrigin();
  const auto start = region.GetIndex();
  const long nx = static_cast<long>(size[0]), ny = static_cast<long>(size[1]), nz = static_cast<long>(size[2]);
  const float * data = slices->GetBufferPointer();
  auto at = [&](long x, long y, long z) { return static_cast<double>(data[(z * ny + y) * nx + x]); };
  // Voxel centres within the radius (the direction is the identity: the slices are made that way).
  auto inside = [&](long x, long z) {
    const double wx = origin[0] + (start[0] + x) * spacing[0];
    const double wz = origin[2] + (start[2] + z) * spacing[2];
    return wx * wx + wz * wz <= radius * radius;
  };
  double sum = 0., sumSquares = 0., variation = 0.;
  std::size_t count = 0;
  for (long y = 0; y < ny; ++y)
    for (long z = 0; z < nz; ++z)
      for (long x = 0; x < nx; ++x)
      {
        if (!inside(x, z))
          continue;
        const double f = at(x, y, z);
        if (!std::isfinite(f))
          return std::numeric_limits<double>::quiet_NaN();
        if (measure != Measure::Variance)
        {
          // Central differences; one-sided at the grid's border.
          const double gx = 0.5 * (at(std::min(x + 1, nx - 1), y, z) - at(std::max(x - 1, 0L), y, z));
          const double gz = 0.5 * (at(x, y, std::min(z + 1, nz - 1)) - at(x, y, std::max(z - 1, 0L)));
          sum += gx * gx + gz * gz;
          variation += std::sqrt(gx * gx + gz * gz);
        }
        else
        {
          sum += f;
          sumSquares += f * f;
        }
        ++count;
      }
  if (count == 0)
    ThrowBadParameter("sharpness score field of view radius (mm)", radius,
                      "a radius that holds voxel centres of the slices (none within it)");
  const double n = static_cast<double>(count);
  if (measure == Measure::GradientEnergy)
    return sum / n;
  if (measure == Measure::GradientEnergyPerVariation)
    return variation > 0. ? sum / variation : 0.;
  const double mean = sum / n;
  return std::max(0., sumSquares / n - mean * mean);
}

std::string
SharpnessScore::Name(Measure measure)
{
  return measure == Measure::GradientEnergy ? "gradient" : measure == Measure::Variance ? "variance" : "edges";
}

std::string
SharpnessScore::Description(Measure measure)
{
  return measure == Measure::GradientEnergy ? "gradient energy"
         : measure == Measure::Variance     ? "variance"
                                            : "gradient energy per total variation";
}

SharpnessScore::Measure
SharpnessScore::Parse(const std::string & name)
{
  if (name == "gradient")
    return Measure::GradientEnergy;
  if (name == "variance")
    return Measure::Variance;
  if (name == "edges")
    return Measure::GradientEnergyPerVariation;
  ThrowBadParameter("sharpness score", "'" + name + "'", "edges, gradient or variance");
}

} // namespace cbct
