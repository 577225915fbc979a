// libFuzzer target: the Varian XIM reader (cbct::XimImageIO) through itk::ImageFileReader, as every
// app and the scan importer open .xim files (the reader given its ImageIO, so that ITK's own readers,
// some of which abort on damaged files of their formats, are not tried first): the identifier, the
// header, the lookup-table and buffer sizes against the file and against width x height, the
// histogram, every property (name, type, value, array lengths), the pixel size, then the pixels
// (Varian's compressed stream decoded, or the raw buffer). Any input must be refused with an
// itk::ExceptionObject or read; nothing may crash, leak or allocate more than the file can fill.
// Seeds: corpus/cbctFuzzXimFile, written by cbctVarianFuzzSeeds.
#include "cbctFuzzInput.h"
#include "cbctXimImageIO.h"

#include <itkImage.h>
#include <itkImageFileReader.h>

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  itk::Object::GlobalWarningDisplayOff();
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "projection.xim");
  try
  {
    auto io = cbct::XimImageIO::New();
    io->CanReadFile(path.c_str());
    auto reader = itk::ImageFileReader<itk::Image<float, 3>>::New();
    reader->SetImageIO(io);
    reader->SetFileName(path);
    reader->Update();
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
