#include "cbctDicomCTPDImageIOFactory.h"

#include "cbctDicomCTPDImageIO.h"

#include <itkVersion.h>

namespace cbct
{

DicomCTPDImageIOFactory::DicomCTPDImageIOFactory()
{
  this->RegisterOverride("itkImageIOBase", "cbct::DicomCTPDImageIO", "DICOM-CT-PD (AAPM/Mayo CT projection data) reader", true,
                         itk::CreateObjectFunction<DicomCTPDImageIO>::New());
}

const char *
DicomCTPDImageIOFactory::GetITKSourceVersion() const
{
  return ITK_SOURCE_VERSION;
}

const char *
DicomCTPDImageIOFactory::GetDescription() const
{
  return "DICOM-CT-PD (AAPM/Mayo CT projection data) reader";
}

void
DicomCTPDImageIOFactory::RegisterOneFactory()
{
  itk::ObjectFactoryBase::RegisterFactoryInternal(Self::New());
}

} // namespace cbct
