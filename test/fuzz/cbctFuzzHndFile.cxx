// libFuzzer target: the Varian OBI reader (cbct::HndImageIO) through itk::ImageFileReader, as every
// app and the scan importer open .hnd and .hnc files (the reader given its ImageIO, so that ITK's own
// readers, some of which abort on damaged files of their formats, are not tried first): the header
// fields, SizeX x SizeY against the file, then the pixels (Varian's compressed stream for HND, raw
// uint16 for HNC). The input's first byte chooses the kind (even: .hnd, odd: .hnc); the rest is the
// file. Any input must be refused with an itk::ExceptionObject or read; nothing may crash, leak or
// allocate more than the file can fill. Seeds: corpus/cbctFuzzHndFile, written by cbctVarianFuzzSeeds.
#include "cbctFuzzInput.h"
#include "cbctHndImageIO.h"

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
  if (size == 0)
    return 0;
  const std::string path = cbct::fuzz::WriteInput(data + 1, size - 1, data[0] % 2 == 0 ? "projection.hnd" : "projection.hnc");
  try
  {
    auto io = cbct::HndImageIO::New();
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
