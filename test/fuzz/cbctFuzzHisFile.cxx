// libFuzzer target: the Elekta HIS reader (cbct::HisImageIO) through ITK's object factory, as every
// app and the scan importer open .his files: header checks (magic, header size, ULX..BRX, frames,
// sizes against the file), then the pixels of one frame (2D) or several (3D). Any input must be
// refused with an itk::ExceptionObject or read; nothing may crash, leak or allocate more than the
// file can fill.
#include "cbctFuzzInput.h"
#include "cbctHisImageIOFactory.h"

#include <itkImage.h>
#include <itkImageFileReader.h>

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  cbct::HisImageIOFactory::RegisterOneFactory();
  itk::Object::GlobalWarningDisplayOff();
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  const std::string path = cbct::fuzz::WriteInput(data, size, "projection.his");
  try
  {
    auto reader = itk::ImageFileReader<itk::Image<float, 3>>::New();
    reader->SetFileName(path);
    reader->Update();
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
