#ifndef cbctMissingAirScanError_h
#define cbctMissingAirScanError_h

#include "ConeBeamCTExport.h"

#include <itkMacro.h>

namespace cbct
{

/** \class MissingAirScanError
 * \brief A scan's readings cannot become line integrals because its air (flood) scan was not found.
 *
 * Thrown by a vendor's reader (VarianScan) when line integrals are asked for, or will be, and no air
 * scan matches the projections; the message names what was looked for. The readings as stored need
 * no air scan: a scan opened for them alone (ScanImporter::Options::readingsOnly) is not refused.
 *
 * A distinct type so that each front end can say how its user asks for the other normalisation (a
 * constant I0: ScanImporter::Options::airScanFallback), in its own words: an app names its option, the
 * Python binding its argument. The library's message says only what is missing.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT MissingAirScanError : public itk::ExceptionObject
{
public:
  using itk::ExceptionObject::ExceptionObject;
  MissingAirScanError(const MissingAirScanError &) noexcept = default;
  MissingAirScanError &
  operator=(const MissingAirScanError &) noexcept = default;
  ~MissingAirScanError() override;

  const char *
  GetNameOfClass() const override
  {
    return "MissingAirScanError";
  }
};

} // namespace cbct

#endif
