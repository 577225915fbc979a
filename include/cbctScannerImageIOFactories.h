#ifndef cbctScannerImageIOFactories_h
#define cbctScannerImageIOFactories_h

#include "ConeBeamCTExport.h"

namespace cbct
{

/** Registers the vendor projection readers (Varian XIM, HND/HNC, ...) with ITK's object factory,
 * each once: a factory already registered (by an earlier call, or by anyone else) is not registered
 * again, so calling this any number of times is harmless. The ConeBeamCT library calls it when it
 * loads, so a plain itk::ImageFileReader in any program linked with ConeBeamCT opens these files.
 * Call it yourself after itk::ObjectFactoryBase::UnRegisterAllFactories(), and in a program that
 * uses nothing else of ConeBeamCT: a linker that drops unused libraries (--as-needed, the default of
 * Debian's and Ubuntu's toolchains) does not load the library there at all. */
ConeBeamCT_EXPORT void
RegisterScannerImageIOFactories();

} // namespace cbct

#endif
