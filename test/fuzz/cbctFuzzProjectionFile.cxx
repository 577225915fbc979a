// libFuzzer target: the apps' projection loading path for every format the apps read (MetaImage:
// header and data, LOCAL or detached, raw, compressed or ASCII; NRRD, NIfTI, TIFF and PNG):
// cbct::apps::ReadImage() as cbct-fdk calls it for --projections (inspection of the header against
// the data, a PNG decoded whole, ITK's reader, the canonical grid) and the non-finite check with its
// replacement. Any input must be refused with an error naming the option or the file, or read;
// nothing may crash, abort, leak or allocate more than the file can fill. The input's first bytes
// choose the file's extension (ITK picks the NRRD and NIfTI readers by extension), so that one seed
// corpus (corpus/cbctFuzzProjectionFile: a few files of each format) reaches every reader.
#include "cbctAppSupport.h"
#include "cbctFuzzInput.h"

#include <cstring>

#include <itkMetaImageIOFactory.h>

extern "C" int
LLVMFuzzerInitialize(int *, char ***)
{
  itk::MetaImageIOFactory::RegisterOneFactory();
  itk::Object::GlobalWarningDisplayOff(); // ITK's warnings (e.g. negative spacing) would flood the log
  return 0;
}

namespace
{
/** The file name the format of `data` is read under: by its signature (PNG, TIFF, NRRD, NIfTI-1 or
 * NIfTI-2), else a MetaImage. */
std::string
FileNameFor(const std::uint8_t * data, std::size_t size)
{
  const auto startsWith = [&](std::size_t at, const char * magic, std::size_t length) {
    return size >= at + length && std::memcmp(data + at, magic, length) == 0;
  };
  if (startsWith(0, "\x89PNG", 4))
    return "projections.png";
  if (startsWith(0, "II*\0", 4) || startsWith(0, "MM\0*", 4) || startsWith(0, "II+\0", 4) || startsWith(0, "MM\0+", 4))
    return "projections.tif";
  if (startsWith(0, "NRRD", 4))
    return "projections.nrrd";
  if (startsWith(344, "n+1\0", 4) || startsWith(4, "n+2\0", 4))
    return "projections.nii";
  return "projections.mha";
}
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  using ImageType = itk::Image<float, 3>;
  const std::string path = cbct::fuzz::WriteInput(data, size, FileNameFor(data, size));
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
