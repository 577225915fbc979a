#include "cbctHisImageIOFactory.h"

#include "cbctHisImageIO.h"

#include <itkVersion.h>

#include <mutex>

namespace cbct
{

HisImageIOFactory::HisImageIOFactory()
{
  this->RegisterOverride("itkImageIOBase", "cbctHisImageIO", "Elekta XVI HIS Image IO", true,
                         itk::CreateObjectFunction<HisImageIO>::New());
}

const char *
HisImageIOFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
HisImageIOFactory::GetDescription() const
{
  return "Elekta XVI (Heimann/PerkinElmer) HIS ImageIO factory";
}

void
HisImageIOFactory::RegisterOneFactory()
{
  static std::mutex mutex; // scans may be opened from several threads
  const std::lock_guard<std::mutex> lock(mutex);
  for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
  {
    if (dynamic_cast<HisImageIOFactory *>(factory) != nullptr)
      return;
  }
  // At the front of ITK's list: HisImageIO claims .his files by name alone, so it is asked first and
  // a damaged .his file gets its message. Behind ITK's own readers, a .his file that starts like a
  // PNG went to ITK's PNG reader, which lets libpng abort the process (found by cbctFuzzHisFile).
  auto factory = HisImageIOFactory::New();
  itk::ObjectFactoryBase::RegisterFactory(factory, itk::ObjectFactoryBase::InsertionPositionEnum::INSERT_AT_FRONT);
}

} // namespace cbct
