#ifndef cbctDicomCTPDImageIOFactory_h
#define cbctDicomCTPDImageIOFactory_h

#include "ConeBeamCTExport.h"

#include <itkObjectFactoryBase.h>

namespace cbct
{

/** \class DicomCTPDImageIOFactory
 * \brief Makes DicomCTPDImageIO known to ITK's object factory, so that itk::ImageFileReader and every
 * reader that asks the factory for an itk::ImageIOBase can open these files. The library registers
 * it when it loads (see RegisterScannerImageIOFactories()).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DicomCTPDImageIOFactory : public itk::ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(DicomCTPDImageIOFactory);

  using Self = DicomCTPDImageIOFactory;
  using Superclass = itk::ObjectFactoryBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkFactorylessNewMacro(Self);
  itkTypeMacro(DicomCTPDImageIOFactory, itk::ObjectFactoryBase);

  const char *
  GetITKSourceVersion() const override;
  const char *
  GetDescription() const override;

  /** Registers one factory with ITK (another one each call: RegisterScannerImageIOFactories()
   * registers it once). */
  static void
  RegisterOneFactory();

protected:
  DicomCTPDImageIOFactory();
  ~DicomCTPDImageIOFactory() override = default;
};

} // namespace cbct

#endif
