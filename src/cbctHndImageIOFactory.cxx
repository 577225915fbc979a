#include "cbctHndImageIOFactory.h"

#include "cbctHndImageIO.h"

#include <itkVersion.h>

namespace cbct
{

HndImageIOFactory::HndImageIOFactory()
{
  this->RegisterOverride("itkImageIOBase", "cbct::HndImageIO", "Varian OBI HND and HNC projection reader", true,
                         itk::CreateObjectFunction<HndImageIO>::New());
}

const char *
HndImageIOFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
HndImageIOFactory::GetDescription() const
{
  return "Varian OBI HND and HNC projection reader";
}

void
HndImageIOFactory::RegisterOneFactory()
{
  itk::ObjectFactoryBase::RegisterFactoryInternal(Self::New());
}

} // namespace cbct
