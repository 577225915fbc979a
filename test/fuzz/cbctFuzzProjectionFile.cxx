// libFuzzer target: the apps' projection loading path for a MetaImage file (header and data, LOCAL
// or detached, raw, compressed or ASCII): cbct::apps::ReadImage() as cbct-fdk calls it for
// --projections (inspection of the header against the data, ITK's reader, the canonical grid) and
// the non-finite check with its replacement. Any input must be refused with an error naming the
// option or the file, or read; nothing may crash, leak or allocate more than the file can fill.
#include "cbctAppSupport.h"
#include "cbctFuzzInput.h"

#include <itkMetaImageIOFactory.h>

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  itk::MetaImageIOFactory::RegisterOneFactory();
  itk::Object::GlobalWarningDisplayOff(); // ITK's warnings (e.g. negative spacing) would flood the log
  return 0;
}

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  using ImageType = itk::Image<float, 3>;
  const std::string path = cbct::fuzz::WriteInput(data, size, "projections.mha");
  cbct::apps::InspectedImages().clear(); // the same path holds another file each time
  try
  {
    auto image = cbct::apps::ReadImage<ImageType>("--projections", path, cbct::apps::ImageRole::ProjectionStack);
    cbct::apps::FindNonFinite(image.GetPointer(), { 0. });
  }
  catch (const cbct::apps::Error &)
  {
  }
  catch (const itk::ExceptionObject &)
  {
  }
  return 0;
}
