#ifndef cbctThreeDCircularProjectionGeometryXMLFileWriter_h
#define cbctThreeDCircularProjectionGeometryXMLFileWriter_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkXMLFile.h>

#include <string>
#include <vector>

namespace cbct
{

/** \class ThreeDCircularProjectionGeometryXMLFileWriter
 * \brief Writes a geometry as RTK's RTKThreeDCircularGeometry XML, version 3.
 *
 * As RTK does: a parameter equal to its default for every projection is left out, one equal for
 * every projection is written once at the top, others per projection; each projection's matrix is
 * written for information. Numbers carry 17 significant digits so a file round-trips exactly.
 * Projections added as bare matrices are written as a `<Projection>` holding only its `<Matrix>`
 * (RTK cannot read those; our reader can), and then no parameter is written at the top level.
 *
 * The file is written beside its final place and renamed into place when complete (AtomicOutput):
 * a failure or a killed run leaves a previous file as it was. Files named with SetProtectedFiles()
 * (a run's inputs) are never replaced.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ThreeDCircularProjectionGeometryXMLFileWriter
  : public itk::XMLWriterBase<ThreeDCircularProjectionGeometry>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ThreeDCircularProjectionGeometryXMLFileWriter);

  using Self = ThreeDCircularProjectionGeometryXMLFileWriter;
  using Superclass = itk::XMLWriterBase<ThreeDCircularProjectionGeometry>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(ThreeDCircularProjectionGeometryXMLFileWriter, itk::XMLWriterBase);

  int
  CanWriteFile(const char * name) override;

  /** Writes the file; throws itk::ExceptionObject when it cannot be written or there is no geometry. */
  int
  WriteFile() override;

  /** Files WriteFile() refuses to replace (e.g. the run's inputs); compared as files, not names. */
  void
  SetProtectedFiles(const std::vector<std::string> & files)
  {
    m_ProtectedFiles = files;
  }

protected:
  ThreeDCircularProjectionGeometryXMLFileWriter() = default;
  ~ThreeDCircularProjectionGeometryXMLFileWriter() override = default;

private:
  std::vector<std::string> m_ProtectedFiles;
};

} // namespace cbct

#endif
