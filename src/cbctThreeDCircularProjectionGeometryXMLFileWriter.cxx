#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include "cbctAtomicOutput.h"
#include "cbctInputChecks.h"

#include <functional>
#include <iomanip>
#include <limits>

namespace cbct
{

namespace
{
constexpr double ToDegrees = 180. / 3.14159265358979323846;
using Parameters = ThreeDCircularProjectionGeometry::Parameters;

struct Field
{
  const char * name;
  std::function<double(const Parameters &)> get;
  bool alwaysWritten; // RTK always writes the two distances
};

const std::vector<Field> &
Fields()
{
  static const std::vector<Field> fields = {
    { "SourceToIsocenterDistance", [](const Parameters & p) { return p.sourceToIsocenterDistance; }, true },
    { "SourceToDetectorDistance", [](const Parameters & p) { return p.sourceToDetectorDistance; }, true },
    { "GantryAngle", [](const Parameters & p) { return p.gantryAngle * ToDegrees; }, false },
    { "ProjectionOffsetX", [](const Parameters & p) { return p.projectionOffsetX; }, false },
    { "ProjectionOffsetY", [](const Parameters & p) { return p.projectionOffsetY; }, false },
    { "OutOfPlaneAngle", [](const Parameters & p) { return p.outOfPlaneAngle * ToDegrees; }, false },
    { "InPlaneAngle", [](const Parameters & p) { return p.inPlaneAngle * ToDegrees; }, false },
    { "SourceOffsetX", [](const Parameters & p) { return p.sourceOffsetX; }, false },
    { "SourceOffsetY", [](const Parameters & p) { return p.sourceOffsetY; }, false },
  };
  return fields;
}
} // namespace

int
ThreeDCircularProjectionGeometryXMLFileWriter::CanWriteFile(const char * name)
{
  // Whether a file can be made in its directory, without touching the file itself.
  if (name == nullptr || *name == '\0')
    return 0;
  try
  {
    AtomicOutput probe(name);
    return 1;
  }
  catch (const itk::ExceptionObject &)
  {
    return 0;
  }
}

int
ThreeDCircularProjectionGeometryXMLFileWriter::WriteFile()
{
  if (m_InputObject == nullptr)
  {
    ThrowBadParameter("geometry to write", "none", "a geometry set with SetObject()");
  }
  // Written beside the file and renamed into place when complete: a failed or killed run leaves the
  // previous file as it was.
  AtomicOutput output(m_Filename);
  std::ofstream out(output.TemporaryPath().c_str());
  if (!out)
  {
    ThrowBadParameter("geometry output file", m_Filename, "a writable path");
  }
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  const ThreeDCircularProjectionGeometry & g = *m_InputObject;
  const unsigned int n = g.GetNumberOfProjections();
  bool allParametric = true;
  for (unsigned int k = 0; k < n; ++k)
    allParametric = allParametric && g.HasParameters(k);

  // Per field: written at the top (same for all), left out (default for all), or per projection.
  enum class Where { Top, Omitted, PerProjection };
  std::vector<Where> where;
  for (const Field & f : Fields())
  {
    bool same = allParametric && n > 0;
    for (unsigned int k = 1; same && k < n; ++k)
      same = f.get(g.GetParameters(k)) == f.get(g.GetParameters(0));
    if (!same)
      where.push_back(Where::PerProjection);
    else if (!f.alwaysWritten && f.get(g.GetParameters(0)) == 0.)
      where.push_back(Where::Omitted);
    else
      where.push_back(Where::Top);
  }

  out << "<?xml version=\"1.0\"?>\n<!DOCTYPE RTKGEOMETRY>\n<RTKThreeDCircularGeometry version=\"3\">\n";
  for (std::size_t i = 0; i < Fields().size(); ++i)
  {
    if (where[i] == Where::Top)
      out << "  <" << Fields()[i].name << ">" << Fields()[i].get(g.GetParameters(0)) << "</" << Fields()[i].name
          << ">\n";
  }
  // RTK writes the radius once, after the parameters common to every projection (none: a flat panel).
  if (g.IsCylindrical())
    out << "  <RadiusCylindricalDetector>" << g.GetRadiusCylindricalDetector() << "</RadiusCylindricalDetector>\n";
  for (unsigned int k = 0; k < n; ++k)
  {
    out << "  <Projection>\n";
    if (g.HasParameters(k))
    {
      for (std::size_t i = 0; i < Fields().size(); ++i)
      {
        if (where[i] == Where::PerProjection)
          out << "    <" << Fields()[i].name << ">" << Fields()[i].get(g.GetParameters(k)) << "</"
              << Fields()[i].name << ">\n";
      }
    }
    out << "    <Matrix>\n";
    const auto & m = g.GetMatrix(k);
    for (unsigned int r = 0; r < 3; ++r)
    {
      out << "     ";
      for (unsigned int c = 0; c < 4; ++c)
        out << " " << std::setw(24) << m(r, c);
      out << "\n";
    }
    out << "    </Matrix>\n  </Projection>\n";
  }
  out << "</RTKThreeDCircularGeometry>\n";
  out.close();
  if (!out)
  {
    ThrowBadParameter("geometry output file", m_Filename, "a path with room to write");
  }
  output.SetProtectedFiles(m_ProtectedFiles);
  output.Commit();
  return 1;
}

} // namespace cbct
