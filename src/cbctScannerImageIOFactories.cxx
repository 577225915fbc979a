#include "cbctScannerImageIOFactories.h"

#include "cbctDicomCTPDImageIOFactory.h"
#include "cbctHisImageIOFactory.h"
#include "cbctHndImageIOFactory.h"
#include "cbctXimImageIOFactory.h"

#include <cstring>
#include <mutex>

namespace cbct
{

namespace
{
/** Registers a factory of type TFactory unless one is registered already. */
template <typename TFactory>
void
RegisterOnce()
{
  const char * name = TFactory::New()->GetNameOfClass();
  for (itk::ObjectFactoryBase * factory : itk::ObjectFactoryBase::GetRegisteredFactories())
    if (std::strcmp(factory->GetNameOfClass(), name) == 0)
      return;
  TFactory::RegisterOneFactory();
}
} // namespace

void
RegisterScannerImageIOFactories()
{
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  // One line per factory.
  RegisterOnce<XimImageIOFactory>();
  RegisterOnce<HndImageIOFactory>();
  RegisterOnce<HisImageIOFactory>();
  RegisterOnce<DicomCTPDImageIOFactory>();
}

namespace
{
/** Registers the readers when the library loads. */
[[maybe_unused]] const bool registeredAtLoad = (RegisterScannerImageIOFactories(), true);
} // namespace

} // namespace cbct
