#ifndef cbctHisImageIOFactory_h
#define cbctHisImageIOFactory_h

#include "ConeBeamCTExport.h"

#include <itkObjectFactoryBase.h>

namespace cbct
{

/** \class HisImageIOFactory
 * \brief Registers HisImageIO (Elekta XVI's Heimann HIS files) with ITK's object factory, so that
 * every itk::ImageFileReader opens .his files.
 *
 * RegisterOneFactory() registers it once per process (a second call does nothing), at the front
 * of ITK's list: HisImageIO claims only names ending in .his, and is asked before ITK's readers, some
 * of which (PNG) abort the process on a damaged file whose first bytes look like theirs.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT HisImageIOFactory : public itk::ObjectFactoryBase
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(HisImageIOFactory);

  using Self = HisImageIOFactory;
  using Superclass = itk::ObjectFactoryBase;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;

  const char *
  GetITKSourceVersion() const override;
  const char *
  GetDescription() const override;

  itkFactorylessNewMacro(Self);
  itkTypeMacro(HisImageIOFactory, itk::ObjectFactoryBase);

  /** Registers the factory unless one is registered already. */
  static void
  RegisterOneFactory();

protected:
  HisImageIOFactory();
  ~HisImageIOFactory() override = default;
};

} // namespace cbct

#endif
