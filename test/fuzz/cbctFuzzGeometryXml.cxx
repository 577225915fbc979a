// libFuzzer target: the RTK geometry XML reader (cbct::ThreeDCircularProjectionGeometryXMLFileReader).
// Any input must be either refused with an itk::ExceptionObject or read; what is read must write
// and read back to the same matrices, so that a geometry accepted once is accepted again after
// cbct-simulate or Python wrote it. The same to rounding: the file holds angles in degrees (17
// digits), and degrees to radians and back can change the last bit of a matrix entry (found by this
// target: regressions/cbctFuzzGeometryXml/), so entries may differ by 1e-12 of the matrix's largest.
#include "cbctFuzzInput.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileReader.h"
#include "cbctThreeDCircularProjectionGeometryXMLFileWriter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "geometry.xml");
  cbct::ThreeDCircularProjectionGeometry::Pointer geometry;
  try
  {
    auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
    reader->SetFilename(path);
    reader->GenerateOutputInformation();
    geometry = reader->GetGeometry();
  }
  catch (const itk::ExceptionObject &)
  {
    return 0; // refused, with a message: fine
  }
  const std::string copy = path + ".again.xml";
  auto writer = cbct::ThreeDCircularProjectionGeometryXMLFileWriter::New();
  writer->SetFilename(copy);
  writer->SetObject(geometry);
  writer->WriteFile();
  auto reader = cbct::ThreeDCircularProjectionGeometryXMLFileReader::New();
  reader->SetFilename(copy);
  try
  {
    reader->GenerateOutputInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "a geometry read once cannot be read again after writing it: " << e.GetDescription() << std::endl;
    std::abort();
  }
  const auto * again = reader->GetGeometry();
  if (again->GetNumberOfProjections() != geometry->GetNumberOfProjections())
    std::abort();
  for (unsigned int k = 0; k < geometry->GetNumberOfProjections(); ++k)
  {
    double largest = 0.;
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        largest = std::max(largest, std::abs(geometry->GetMatrix(k)(r, c)));
    for (unsigned int r = 0; r < 3; ++r)
      for (unsigned int c = 0; c < 4; ++c)
        if (!(std::abs(again->GetMatrix(k)(r, c) - geometry->GetMatrix(k)(r, c)) <= 1e-12 * largest))
        {
          std::cerr << "matrix " << k << " (" << r << ", " << c << ") changed on writing: " << std::setprecision(17)
                    << geometry->GetMatrix(k)(r, c) << " -> " << again->GetMatrix(k)(r, c) << std::endl;
          std::abort();
        }
  }
  return 0;
}
