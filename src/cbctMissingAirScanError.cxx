#include "cbctMissingAirScanError.h"

namespace cbct
{

// Out of line: the class's type information lives in the library, so that the apps and the Python
// module catch the type the library throws.
MissingAirScanError::~MissingAirScanError() = default;

} // namespace cbct
