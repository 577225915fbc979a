#ifndef cbctThreeDCircularProjectionGeometryXMLFileReader_h
#define cbctThreeDCircularProjectionGeometryXMLFileReader_h

#include "ConeBeamCTExport.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkXMLFile.h>

#include <map>
#include <string>

namespace cbct
{

/** \class ThreeDCircularProjectionGeometryXMLFileReader
 * \brief Reads RTK's RTKThreeDCircularGeometry XML (versions 2 and 3) into a geometry.
 *
 * A parameter at the top level applies to every projection that does not set it itself, as in
 * RTK. Each `<Projection>`'s `<Matrix>` is checked against the matrix its parameters give. A
 * `<Projection>` with a `<Matrix>` and no source-to-isocenter and source-to-detector distances (the form
 * our writer uses for projections added as bare matrices) becomes a matrix projection.
 *
 * Errors name the file, the element and the value: malformed XML (with its line and column), a
 * wrong root element or version, a value that is not a number, a matrix inconsistent with its
 * parameters, a cylindrical detector. The file is parsed with expat directly (not ITK 5.2's
 * XMLReaderBase::parse(), which leaks on malformed files and throws through expat's C frames);
 * it is fuzzed (test/fuzz).
 *
 * \code
 * auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
 * reader->SetFilename("geometry.xml");
 * reader->GenerateOutputInformation();   // parses; throws itk::ExceptionObject on bad input
 * cbct::ThreeDCircularProjectionGeometry::Pointer geometry = reader->GetGeometry();
 * \endcode
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ThreeDCircularProjectionGeometryXMLFileReader
  : public itk::XMLReader<ThreeDCircularProjectionGeometry>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ThreeDCircularProjectionGeometryXMLFileReader);

  using Self = ThreeDCircularProjectionGeometryXMLFileReader;
  using Superclass = itk::XMLReader<ThreeDCircularProjectionGeometry>;
  using Pointer = itk::SmartPointer<Self>;

  itkNewMacro(Self);
  itkTypeMacro(ThreeDCircularProjectionGeometryXMLFileReader, itk::XMLReader);

  int
  CanReadFile(const char * name) override;

  /** Checks the file, then parses it; throws itk::ExceptionObject on any problem. */
  void
  GenerateOutputInformation() override;

  ThreeDCircularProjectionGeometry *
  GetGeometry()
  {
    return m_Geometry;
  }

  /** expat's handlers (public for the parser's C callbacks; not for callers). */
  void
  StartElement(const char * name, const char ** atts) override;
  void
  EndElement(const char * name) override;
  void
  CharacterDataHandler(const char * inData, int inLength) override;

protected:
  ThreeDCircularProjectionGeometryXMLFileReader() = default;
  ~ThreeDCircularProjectionGeometryXMLFileReader() override = default;

private:
  /** Parses m_Filename with expat, calling the handlers above; throws on malformed XML. */
  void
  ParseFile();

  /** The text of the element being closed as a number; throws naming the element otherwise. */
  double
  ParseNumber(const std::string & element) const;
  void
  AddCurrentProjection();

  ThreeDCircularProjectionGeometry::Pointer m_Geometry;
  std::string m_Text;
  bool m_InProjection = false;
  bool m_SawRoot = false;
  bool m_RootClosed = false;
  std::map<std::string, double> m_Global;
  std::map<std::string, double> m_Current;
  bool m_HasMatrix = false;
  ThreeDCircularProjectionGeometry::MatrixType m_Matrix;
};

} // namespace cbct

#endif
