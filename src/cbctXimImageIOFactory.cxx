#include "cbctXimImageIOFactory.h"

#include "cbctXimImageIO.h"

#include <itkVersion.h>

namespace cbct
{

XimImageIOFactory::XimImageIOFactory()
{
  this->RegisterOverride("itkImageIOBase", "cbct::XimImageIO", "Varian XIM (TrueBeam, ProBeam, Halcyon, Edge) projection reader", true,
                         itk::CreateObjectFunction<XimImageIO>::New());
}

const char *
XimImageIOFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
XimImageIOFactory::GetDescription() const
{
  return "Varian XIM (TrueBeam, ProBeam, Halcyon, Edge) projection reader";
}

void
XimImageIOFactory::RegisterOneFactory()
{
  itk::ObjectFactoryBase::RegisterFactoryInternal(Self::New());
}

} // namespace cbct
