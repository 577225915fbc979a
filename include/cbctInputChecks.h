#ifndef cbctInputChecks_h
#define cbctInputChecks_h

#include <itkMacro.h>

#include <cmath>
#include <sstream>
#include <string>

namespace cbct
{

/** Throws an itk::ExceptionObject whose message names the parameter, the value given and what was
 * expected, e.g. "SourceToDetectorDistance of projection 3 is -5; expected a finite value > 0".
 * Every check of user input in ConeBeamCT goes through here so the messages read the same. */
template <typename TValue>
[[noreturn]] void
ThrowBadParameter(const std::string & parameter, const TValue & value, const std::string & expected)
{
  std::ostringstream message;
  message << parameter << " is " << value << "; expected " << expected;
  itkGenericExceptionMacro(<< message.str());
}

/** Rejects NaN and infinities. */
inline void
CheckFinite(const std::string & parameter, double value)
{
  if (!std::isfinite(value))
  {
    ThrowBadParameter(parameter, value, "a finite number");
  }
}

/** Rejects non-finite values and values <= 0. */
inline void
CheckPositive(const std::string & parameter, double value)
{
  if (!std::isfinite(value) || !(value > 0.))
  {
    ThrowBadParameter(parameter, value, "a finite value > 0");
  }
}

/** `text` without leading and trailing white space (for quoting file contents in messages). */
inline std::string
Trimmed(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

} // namespace cbct

#endif
