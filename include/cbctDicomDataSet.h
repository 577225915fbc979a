#ifndef cbctDicomDataSet_h
#define cbctDicomDataSet_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cbct
{

/** \class DicomDataSet
 * \brief The top-level elements of a DICOM Part 10 file's data set, parsed from its bytes with every
 * length checked against them: what DicomCTPDFile reads the DICOM-CT-PD tags from.
 *
 * \par Why not GDCM
 * Debian's GDCM 3.0.21 (the one Debian's ITK 5.2 uses, through itk::GDCMImageIO too) is built with
 * its assertions on: a file cut short (a download or a copy interrupted) inside its meta header or an
 * element's value stops the whole process with SIGABRT ("gdcmVR16ExplicitDataElement.txx:46: Assertion
 * `0 && "Should not happen"' failed"), and an element claiming 2 GB makes it allocate them before
 * finding the file shorter. A reader must refuse such a file with a message, so the data set is parsed
 * here (PS3.5 sections 7 and 10, PS3.10 section 7): this parser holds no value beyond the bytes it was
 * given, and its messages name the element and the byte where the file ends. GDCM writes the test
 * files (an independent implementation of the encoding).
 *
 * \par What is read
 * - The preamble (128 bytes) and "DICM", then the File Meta Information (group 0002, explicit VR
 *   little endian), whose Transfer Syntax UID (0002,0010) must be Implicit VR Little Endian
 *   (1.2.840.10008.1.2) or Explicit VR Little Endian (1.2.840.10008.1.2.1); other syntaxes (big endian,
 *   deflated, compressed pixel data) are refused by name.
 * - Then the data set's elements in that syntax. Each element's tag, VR (explicit syntax; "" when
 *   implicit), value offset and length are kept; sequences (SQ, and any element of undefined length) are
 *   walked item by item to their end and kept as one element without their nested elements, at most
 *   MaximumNesting deep. Reading stops at Pixel Data (7FE0,0010) of the top level, whose value need not
 *   lie in the bytes given (ParseHeader: only the header is read) but must lie in the file (fileSize).
 *   Pixel Data of undefined length (encapsulated, compressed) is refused.
 * - A top-level tag twice, a length past the end of the bytes (or the file), an item or delimiter where
 *   an element belongs (or the converse) are refused.
 * Every failure throws an itk::ExceptionObject whose message starts with `name` (the file's path).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DicomDataSet
{
public:
  /** A top-level element: tag (group << 16 | element), VR (in an implicit syntax: the dictionary's for
   * the standard and DICOM-CT-PD tags the reader decodes, "" for others), where its value
   * starts in the bytes parsed, and its length (for a sequence of undefined length, the bytes up to its
   * delimiter; `undefinedLength` then true). */
  struct Element
  {
    std::uint32_t tag = 0;
    std::string vr;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    bool undefinedLength = false;
  };

  static constexpr unsigned int MaximumNesting = 16;
  static constexpr std::uint32_t PixelDataTag = 0x7FE00010u;

  /** Parses `size` bytes of a file of `fileSize` bytes (the whole file, or its start when the header is
   * all that is wanted). `complete` tells whether the bytes reached Pixel Data or the end of the file:
   * false when more bytes are needed (the caller reads more and parses again); with size == fileSize a
   * data set that ends early throws. */
  static DicomDataSet
  Parse(const unsigned char * bytes, std::uint64_t size, std::uint64_t fileSize, const std::string & name, bool & complete);

  /** Reads the file `path` up to its Pixel Data (16 KiB at first, more while the header is longer) and
   * parses it; the bytes read are kept for the values. */
  static DicomDataSet
  ParseHeader(const std::string & path);

  /** Whether `path` is a file starting with a DICOM Part 10 preamble ("DICM" at byte 128). Never throws. */
  static bool
  HasPart10Preamble(const std::string & path);

  /** Whether the top-level data set holds `tag`. */
  bool
  Has(std::uint32_t tag) const;
  /** The element `tag`; throws naming `name` and `keyword` when it is missing. */
  const Element &
  Get(std::uint32_t tag, const std::string & keyword) const;

  /** The value of `tag` as text: its bytes up to the first NUL, trailing and leading spaces removed;
   * throws when it holds characters that do not print. */
  std::string
  Text(std::uint32_t tag, const std::string & keyword) const;
  /** A US value (VR US, or any VR of 2 bytes in an implicit syntax); throws unless one value of 2 bytes. */
  std::uint16_t
  UnsignedShort(std::uint32_t tag, const std::string & keyword) const;
  /** Numbers: FL or OF (float32), FD or OD (float64), DS or IS (decimal text separated by '\'), or the
   * raw bytes of UN, OB or an implicit syntax taken as float32 (the format's VR); throws unless
   * `count` values (0: any number, at least one). */
  std::vector<double>
  Numbers(std::uint32_t tag, const std::string & keyword, std::size_t count) const;
  /** One number (Numbers(tag, keyword, 1)). */
  double
  Number(std::uint32_t tag, const std::string & keyword) const;

  /** The Transfer Syntax UID of the file's meta information. */
  const std::string &
  TransferSyntax() const
  {
    return m_TransferSyntax;
  }
  bool
  ExplicitVR() const
  {
    return m_Explicit;
  }
  const std::string &
  Name() const
  {
    return m_Name;
  }
  /** Pixel Data's offset in the file and length (both 0 when the data set has none). */
  std::uint64_t
  PixelDataOffset() const
  {
    return m_PixelOffset;
  }
  std::uint64_t
  PixelDataLength() const
  {
    return m_PixelLength;
  }
  bool
  HasPixelData() const
  {
    return m_HasPixelData;
  }
  /** "(7031,1001) DetectorFocalCenterAngularPosition" for messages. */
  static std::string
  Describe(std::uint32_t tag, const std::string & keyword);

private:
  const unsigned char *
  ValueBytes(const Element & element) const;

  std::string m_Name;
  std::vector<unsigned char> m_Bytes; // a copy of the bytes parsed, up to Pixel Data's value
  std::map<std::uint32_t, Element> m_Elements;
  std::string m_TransferSyntax;
  bool m_Explicit = true;
  bool m_HasPixelData = false;
  std::uint64_t m_PixelOffset = 0;
  std::uint64_t m_PixelLength = 0;

public:
  DicomDataSet() = default;
  DicomDataSet(const DicomDataSet &) = delete;
  DicomDataSet &
  operator=(const DicomDataSet &) = delete;
  DicomDataSet(DicomDataSet &&) = default;
  DicomDataSet &
  operator=(DicomDataSet &&) = default;
};

} // namespace cbct

#endif
