#ifndef cbctDBaseTable_h
#define cbctDBaseTable_h

#include "ConeBeamCTExport.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cbct
{

/** \class DBaseTable
 * \brief A dBase III table (.DBF), read whole: Elekta XVI 4.5 keeps its scans' geometry in two of
 * them (IMAGE.DBF, FRAME.DBF).
 *
 * \par Layout (little endian), from the dBase III definition
 * \verbatim
 *  0        1  version (low three bits 3: dBase III, III+ with memo 0x83, IV, 5)
 *  1        3  date of last update (YY MM DD)
 *  4        4  number of records
 *  8        2  header size: bytes before the first record
 *  10       2  record size
 *  12      20  reserved
 *  32     32n  one field descriptor each: name (11 bytes, NUL padded), type (C, N, F, D, L, M),
 *              4 reserved, length (1 byte), decimal count (1 byte), 14 reserved
 *  ...      1  0x0D ends the descriptors
 *  header size  the records: a deletion flag (' ' kept, '*' deleted), then each field's text in
 *               order, fixed length, no separator; 0x1A may end the file
 * \endverbatim
 *
 * \par Checks
 * Every size is checked against the file before it is trusted: the descriptors and their 0x0D end
 * inside the header, the header inside the file, at least one field, a record size of 1 + the sum
 * of the field lengths, and header + records x record size within the file. A deletion flag other
 * than ' ' or '*' is refused. Each failure is one itk::ExceptionObject naming the file and what is
 * wrong. Deleted records are skipped; values are the fields' text with the blanks around it removed.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DBaseTable
{
public:
  struct Field
  {
    std::string name;
    char type = 'C';
    unsigned int length = 0;
    unsigned int decimals = 0;
    std::size_t offset = 0; // within a record, after the deletion flag
  };

  /** Reads and checks the table at `path`. */
  static DBaseTable
  Read(const std::string & path);

  const std::string &
  FileName() const
  {
    return m_FileName;
  }
  const std::vector<Field> &
  Fields() const
  {
    return m_Fields;
  }
  /** The records that are not marked deleted. */
  std::size_t
  NumberOfRecords() const
  {
    return m_Records.size();
  }
  /** Whether the table has a field of this name (case does not matter, as in dBase). */
  bool
  HasField(const std::string & name) const;
  /** The text of field `name` in record `record`, blanks around it removed; throws naming the file
   * when there is no such field or record. */
  std::string
  GetString(std::size_t record, const std::string & name) const;
  /** The same as a number; throws naming the file, record and field when the text is not one. */
  double
  GetNumber(std::size_t record, const std::string & name) const;

private:
  std::size_t
  FieldIndex(const std::string & name) const;

  std::string m_FileName;
  std::vector<Field> m_Fields;
  std::string m_Data;                 // every record's bytes, as in the file
  std::vector<std::size_t> m_Records; // where each record that is not deleted starts in m_Data
};

} // namespace cbct

#endif
