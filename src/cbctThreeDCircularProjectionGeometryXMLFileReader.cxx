#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"

#include "cbctInputChecks.h"

#include <expat.h>
#include <itksys/SystemTools.hxx>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>

namespace cbct
{

namespace
{
// Per-projection parameters of RTK's format, with their defaults (RTK leaves defaults out of files).
const char * const ParameterNames[] = { "SourceToIsocenterDistance", "SourceToDetectorDistance", "GantryAngle",
                                        "ProjectionOffsetX",         "ProjectionOffsetY",        "OutOfPlaneAngle",
                                        "InPlaneAngle",              "SourceOffsetX",            "SourceOffsetY" };
const char * const IgnoredAlways[] = { "CollimationUInf", "CollimationUSup", "CollimationVInf", "CollimationVSup" };

// expat's callbacks are C: an exception must not unwind through the parser. The first exception a
// handler throws is kept here, the parser stopped, and the exception thrown again once expat returns.
struct ParseContext
{
  ThreeDCircularProjectionGeometryXMLFileReader * reader;
  XML_Parser parser;
  std::exception_ptr error;
};

template <typename F>
void
Guarded(void * data, F handler)
{
  auto * context = static_cast<ParseContext *>(data);
  if (context->error)
    return;
  try
  {
    handler(context->reader);
  }
  catch (...)
  {
    context->error = std::current_exception();
    XML_StopParser(context->parser, XML_FALSE);
  }
}

extern "C" void
OnStartElement(void * data, const XML_Char * name, const XML_Char ** atts)
{
  Guarded(data, [&](ThreeDCircularProjectionGeometryXMLFileReader * r) { r->StartElement(name, atts); });
}

extern "C" void
OnEndElement(void * data, const XML_Char * name)
{
  Guarded(data, [&](ThreeDCircularProjectionGeometryXMLFileReader * r) { r->EndElement(name); });
}

extern "C" void
OnCharacterData(void * data, const XML_Char * text, int length)
{
  Guarded(data, [&](ThreeDCircularProjectionGeometryXMLFileReader * r) { r->CharacterDataHandler(text, length); });
}
} // namespace

int
ThreeDCircularProjectionGeometryXMLFileReader::CanReadFile(const char * name)
{
  if (name == nullptr || !itksys::SystemTools::FileExists(name, true))
    return 0;
  std::ifstream file(name);
  return file.good() && itksys::SystemTools::FileLength(name) > 0 ? 1 : 0;
}

void
ThreeDCircularProjectionGeometryXMLFileReader::GenerateOutputInformation()
{
  if (m_Filename.empty())
  {
    ThrowBadParameter("geometry file name", "empty", "the path of an RTK geometry XML file");
  }
  if (!itksys::SystemTools::FileExists(m_Filename, true))
  {
    ThrowBadParameter("geometry file", m_Filename, "an existing, readable RTK geometry XML file");
  }
  if (!this->CanReadFile(m_Filename.c_str()))
  {
    ThrowBadParameter("geometry file", m_Filename + " (empty or unreadable)", "an RTK geometry XML file");
  }
  m_Geometry = ThreeDCircularProjectionGeometry::New();
  this->SetOutputObject(m_Geometry);
  m_Global.clear();
  m_Current.clear();
  m_InProjection = false;
  m_SawRoot = false;
  m_RootClosed = false;
  m_HasMatrix = false;
  try
  {
    this->ParseFile();
  }
  catch (const itk::ExceptionObject & e)
  {
    // expat's messages do not say which file; ours and the geometry's already do.
    std::string what = e.GetDescription();
    if (what.find(m_Filename) == std::string::npos)
      what = "geometry file " + m_Filename + ": " + what;
    itkGenericExceptionMacro(<< what);
  }
  if (!m_SawRoot)
  {
    ThrowBadParameter("root element of " + m_Filename, "missing", "<RTKThreeDCircularGeometry version=\"3\">");
  }
  if (!m_RootClosed)
  {
    ThrowBadParameter("geometry file " + m_Filename, "cut off before </RTKThreeDCircularGeometry>",
                      "a complete XML document");
  }
  if (m_Geometry->GetNumberOfProjections() == 0)
  {
    ThrowBadParameter("number of <Projection> elements in " + m_Filename, 0, "at least one projection");
  }
}

void
ThreeDCircularProjectionGeometryXMLFileReader::ParseFile()
{
  // ITK 5.2's XMLReaderBase::parse() leaks its expat parser and buffer when a file is malformed or a
  // handler throws, and throws C++ exceptions through expat: this parses with expat directly.
  std::ifstream in(m_Filename, std::ios::binary);
  if (!in)
  {
    ThrowBadParameter("geometry file", m_Filename, "an existing, readable RTK geometry XML file");
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
  {
    ThrowBadParameter("size of geometry file " + m_Filename, text.size(), "less than 2 GiB");
  }
  const std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate(nullptr), XML_ParserFree);
  if (!parser)
  {
    throw std::bad_alloc();
  }
  ParseContext context{ this, parser.get(), nullptr };
  XML_SetUserData(parser.get(), &context);
  XML_SetElementHandler(parser.get(), OnStartElement, OnEndElement);
  XML_SetCharacterDataHandler(parser.get(), OnCharacterData);
  const XML_Status status = XML_Parse(parser.get(), text.data(), static_cast<int>(text.size()), XML_TRUE);
  if (context.error)
  {
    std::rethrow_exception(context.error);
  }
  if (status == XML_STATUS_ERROR)
  {
    const XML_Error code = XML_GetErrorCode(parser.get());
    const bool endedEarly = code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN ||
                            code == XML_ERROR_PARTIAL_CHAR || code == XML_ERROR_UNCLOSED_CDATA_SECTION;
    if (endedEarly && m_SawRoot && !m_RootClosed)
    {
      ThrowBadParameter("geometry file " + m_Filename, "cut off before </RTKThreeDCircularGeometry>", "a complete XML document");
    }
    std::ostringstream message;
    message << XML_ErrorString(code) << " at line " << XML_GetCurrentLineNumber(parser.get()) << ", column "
            << XML_GetCurrentColumnNumber(parser.get()) << " of geometry file " << m_Filename;
    itkGenericExceptionMacro(<< message.str());
  }
}

void
ThreeDCircularProjectionGeometryXMLFileReader::StartElement(const char * name, const char ** atts)
{
  m_Text.clear();
  const std::string element(name);
  if (element == "RTKThreeDCircularGeometry")
  {
    m_SawRoot = true;
    std::string version = "(none)";
    for (int i = 0; atts != nullptr && atts[i] != nullptr; i += 2)
    {
      if (std::string(atts[i]) == "version")
        version = atts[i + 1];
    }
    if (version != "3" && version != "2")
    {
      ThrowBadParameter("version attribute of RTKThreeDCircularGeometry in " + m_Filename, version, "3 (or 2)");
    }
  }
  else if (!m_SawRoot)
  {
    ThrowBadParameter("root element of " + m_Filename, "<" + element + ">", "<RTKThreeDCircularGeometry>");
  }
  else if (element == "Projection")
  {
    m_InProjection = true;
    m_Current.clear();
    m_HasMatrix = false;
  }
}

double
ThreeDCircularProjectionGeometryXMLFileReader::ParseNumber(const std::string & element) const
{
  const char * begin = m_Text.c_str();
  char * end = nullptr;
  const double value = std::strtod(begin, &end);
  const std::string rest = Trimmed(std::string(end));
  if (end == begin || !rest.empty())
  {
    ThrowBadParameter("<" + element + "> in " + m_Filename,
                      "'" + Trimmed(m_Text) + "'",
                      "a number");
  }
  return value;
}

void
ThreeDCircularProjectionGeometryXMLFileReader::EndElement(const char * name)
{
  const std::string element(name);
  for (const char * parameter : ParameterNames)
  {
    if (element == parameter)
    {
      (m_InProjection ? m_Current : m_Global)[element] = this->ParseNumber(element);
      return;
    }
  }
  if (element == "RadiusCylindricalDetector")
  {
    // One radius for the whole geometry, as RTK writes it (before the projections, where it checks each).
    if (m_InProjection)
    {
      ThrowBadParameter("<RadiusCylindricalDetector> of projection " + std::to_string(m_Geometry->GetNumberOfProjections()) +
                          " in " + m_Filename,
                        "inside a <Projection>", "one radius for the whole geometry, outside the <Projection> elements");
    }
    const double radius = this->ParseNumber(element);
    try
    {
      m_Geometry->SetRadiusCylindricalDetector(radius);
    }
    catch (const itk::ExceptionObject & e)
    {
      itkGenericExceptionMacro(<< "<RadiusCylindricalDetector> in " << m_Filename << ": " << e.GetDescription());
    }
  }
  else if (element == "Matrix")
  {
    std::istringstream in(m_Text);
    for (unsigned int r = 0; r < 3; ++r)
    {
      for (unsigned int c = 0; c < 4; ++c)
      {
        std::string token;
        in >> token;
        char * end = nullptr;
        m_Matrix(r, c) = std::strtod(token.c_str(), &end);
        if (token.empty() || *end != '\0')
        {
          ThrowBadParameter("<Matrix> of projection " + std::to_string(m_Geometry->GetNumberOfProjections()) +
                              " in " + m_Filename,
                            "'" + Trimmed(m_Text) + "'",
                            "12 numbers (3 rows of 4)");
        }
      }
    }
    m_HasMatrix = true;
  }
  else if (element == "Projection")
  {
    this->AddCurrentProjection();
    m_InProjection = false;
  }
  else if (element == "RTKThreeDCircularGeometry")
    m_RootClosed = true;
  (void)IgnoredAlways;
  m_Text.clear();
}

void
ThreeDCircularProjectionGeometryXMLFileReader::AddCurrentProjection()
{
  auto value = [this](const char * parameter, double fallback) {
    auto found = m_Current.find(parameter);
    if (found != m_Current.end())
      return found->second;
    found = m_Global.find(parameter);
    return found != m_Global.end() ? found->second : fallback;
  };
  const bool hasDistances =
    (m_Current.count("SourceToIsocenterDistance") || m_Global.count("SourceToIsocenterDistance")) &&
    (m_Current.count("SourceToDetectorDistance") || m_Global.count("SourceToDetectorDistance"));
  const unsigned int k = m_Geometry->GetNumberOfProjections();
  if (!hasDistances)
  {
    if (!m_HasMatrix)
    {
      ThrowBadParameter("projection " + std::to_string(k) + " in " + m_Filename,
                        "without SourceToIsocenterDistance/SourceToDetectorDistance or Matrix",
                        "either RTK parameters or a 3x4 <Matrix>");
    }
    m_Geometry->AddProjection(m_Matrix);
    return;
  }
  m_Geometry->AddProjection(value("SourceToIsocenterDistance", 0.),
                            value("SourceToDetectorDistance", 0.),
                            value("GantryAngle", 0.),
                            value("ProjectionOffsetX", 0.),
                            value("ProjectionOffsetY", 0.),
                            value("OutOfPlaneAngle", 0.),
                            value("InPlaneAngle", 0.),
                            value("SourceOffsetX", 0.),
                            value("SourceOffsetY", 0.));
  if (m_HasMatrix)
  {
    // RTK writes the matrix for information; a hand-edited file may have changed one but not the other.
    const auto & computed = m_Geometry->GetMatrix(k);
    double scale = 1., largest = 0.;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
      {
        scale = std::max(scale, std::abs(computed(r, c)));
        largest = std::max(largest, std::abs(computed(r, c) - m_Matrix(r, c)));
      }
    if (!(largest <= 1e-6 * scale))
    {
      ThrowBadParameter("<Matrix> of projection " + std::to_string(k) + " in " + m_Filename,
                        "off by " + std::to_string(largest) + " from its parameters",
                        "the matrix its parameters give (edit both together)");
    }
  }
}

void
ThreeDCircularProjectionGeometryXMLFileReader::CharacterDataHandler(const char * inData, int inLength)
{
  m_Text.append(inData, static_cast<std::size_t>(inLength));
}

} // namespace cbct
