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
  auto factory = HisImageIOFactory::New();
  itk::ObjectFactoryBase::RegisterFactoryInternal(factory);
}

} // namespace cbct
