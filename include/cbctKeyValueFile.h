#ifndef cbctKeyValueFile_h
#define cbctKeyValueFile_h

#include "ConeBeamCTExport.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cbct
{

/** \class KeyValueFile
 * \brief An INI-like text file of `[Section]` headers and `Key=Value` lines, as scanners write their
 * scan descriptions (Nikon's .xtekct, Bruker SkyScan's .log), read with checks.
 *
 * Section and key names are compared without regard to case or to white space at either end (SkyScan
 * writes "Number Of Files" and "Number of Files" in different versions); values are trimmed. Lines
 * starting with ';' or '#' and lines without '=' are skipped (SkyScan logs carry free text). A key
 * given twice in one section with different values is refused when it is asked for: no value is
 * chosen silently. The file must be text (no NUL byte) of at most MaximumBytes.
 *
 * Every error is an itk::ExceptionObject naming the file, the section and the key, e.g.
 * "scan.xtekct: [XTekCT] SrcToDetector is missing" or
 * "scan.log: [Acquisition] Number of Rows is 'abc'; expected an integer from 1 to 100000".
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT KeyValueFile
{
public:
  /** Larger files are refused before being read: scan descriptions are a few kilobytes. */
  static constexpr std::size_t MaximumBytes = 4u << 20;

  /** Reads and parses `path`; throws when it cannot be read, is too large or is not text. */
  static KeyValueFile
  Read(const std::string & path);
  /** Parses `text`, naming it `name` in messages. */
  static KeyValueFile
  Parse(const std::string & text, const std::string & name);

  const std::string &
  Name() const
  {
    return m_Name;
  }
  bool
  HasSection(const std::string & section) const;
  bool
  Has(const std::string & section, const std::string & key) const
  {
    return Find(section, key).has_value();
  }

  /** The value of `key` in `section`, if given (and given once, or always the same); an empty value
   * counts as not given unless `emptyIsAValue`. */
  std::optional<std::string>
  Find(const std::string & section, const std::string & key, bool emptyIsAValue = false) const;
  /** The value of a required key: throws "[section] key is missing" when absent or empty. */
  std::string
  String(const std::string & section, const std::string & key) const;
  /** A required number: a finite decimal number, nothing after it. */
  double
  Number(const std::string & section, const std::string & key) const;
  /** An optional number: `fallback` when the key is absent or empty, else as Number(). */
  double
  Number(const std::string & section, const std::string & key, double fallback) const;
  std::optional<double>
  OptionalNumber(const std::string & section, const std::string & key) const;
  /** A required integer in [minimum, maximum]. */
  long long
  Integer(const std::string & section, const std::string & key, long long minimum, long long maximum) const;

  /** Throws "NAME: [section] key is VALUE; expected EXPECTED" (for checks made by the caller). */
  [[noreturn]] void
  ThrowBadValue(const std::string & section, const std::string & key, const std::string & value, const std::string & expected) const;

  /** Parses a whole trimmed string as a finite decimal number ("C" locale); false when it is not one. */
  static bool
  ParseNumber(const std::string & text, double & value);
  /** Parses a whole trimmed string as a decimal integer; false when it is not one or overflows. */
  static bool
  ParseInteger(const std::string & text, long long & value);

private:
  struct Entry
  {
    std::string section; // normalised (lower case, trimmed)
    std::string key;     // normalised
    std::string value;   // trimmed
    std::size_t line = 0;
  };

  std::string
  Where(const std::string & section, const std::string & key) const;

  std::string m_Name;
  std::vector<std::string> m_Sections; // normalised
  std::vector<Entry> m_Entries;
};

} // namespace cbct

#endif
