#ifndef cbctCheckedBinaryFile_h
#define cbctCheckedBinaryFile_h

// A binary file read field by field, every read checked against the file's size (private to the
// library: the vendor ImageIOs' headers). Values are little-endian in the file, whatever the host.
#include "cbctInputChecks.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace cbct::detail
{

/** \brief A file opened for reading whose every read names the file, the field and the offset when
 * the file is too short for it: "XIM file p.xim is cut short: it ends at byte 1000, inside its lookup
 * table (196352 bytes from byte 36)". `kind` ("XIM file") starts every message. */
class CheckedBinaryFile
{
public:
  CheckedBinaryFile(const std::string & path, const std::string & kind)
    : m_Path(path)
    , m_Kind(kind)
  {
    m_File = std::fopen(path.c_str(), "rb");
    struct stat status;
    if (m_File == nullptr || fstat(fileno(m_File), &status) != 0 || !S_ISREG(status.st_mode))
      this->Fail("cannot be opened for reading", "a readable regular file");
    m_Size = static_cast<std::uint64_t>(status.st_size);
  }
  ~CheckedBinaryFile()
  {
    if (m_File != nullptr)
      std::fclose(m_File);
  }
  CheckedBinaryFile(const CheckedBinaryFile &) = delete;
  CheckedBinaryFile &
  operator=(const CheckedBinaryFile &) = delete;

  std::uint64_t
  Size() const
  {
    return m_Size;
  }
  std::uint64_t
  Position() const
  {
    return m_Position;
  }
  std::uint64_t
  Remaining() const
  {
    return m_Size - m_Position;
  }
  const std::string &
  Path() const
  {
    return m_Path;
  }

  /** Throws "KIND PATH: WHAT is VALUE; expected EXPECTED". */
  template <typename TValue>
  [[noreturn]] void
  Fail(const std::string & what, const TValue & value, const std::string & expected) const
  {
    ThrowBadParameter(what + " of " + m_Kind + " " + m_Path, value, expected);
  }
  [[noreturn]] void
  Fail(const std::string & what, const std::string & expected) const
  {
    ThrowBadParameter(m_Kind + " " + m_Path, what, expected);
  }

  /** Throws unless `bytes` from the current position lie inside the file. */
  void
  Require(std::uint64_t bytes, const std::string & what) const
  {
    if (bytes > this->Remaining())
    {
      std::string message = m_Kind + " " + m_Path + " is cut short: it ends at byte " + std::to_string(m_Size) + ", inside its " + what +
                            " (" + std::to_string(bytes) + " bytes from byte " + std::to_string(m_Position) + ")";
      itkGenericExceptionMacro(<< message);
    }
  }
  void
  Read(void * out, std::uint64_t bytes, const std::string & what)
  {
    this->Require(bytes, what);
    if (bytes > 0 && std::fread(out, 1, bytes, m_File) != bytes)
      this->Fail("unreadable at byte " + std::to_string(m_Position) + " (" + what + ")", "a readable file");
    m_Position += bytes;
  }
  void
  Skip(std::uint64_t bytes, const std::string & what)
  {
    this->Require(bytes, what);
    this->Seek(m_Position + bytes);
  }
  void
  Seek(std::uint64_t position)
  {
    if (position > m_Size || fseeko(m_File, static_cast<off_t>(position), SEEK_SET) != 0)
      this->Fail("unreadable at byte " + std::to_string(position), "a readable file");
    m_Position = position;
  }

  /** A little-endian value of the file. */
  template <typename T>
  T
  Value(const std::string & what)
  {
    unsigned char bytes[sizeof(T)];
    this->Read(bytes, sizeof(T), what);
    return FromLittleEndian<T>(bytes);
  }
  std::int32_t
  Int32(const std::string & what)
  {
    return this->Value<std::int32_t>(what);
  }
  /** A size field: an int32 that must be >= 0. */
  std::uint64_t
  Size32(const std::string & what)
  {
    const std::int32_t value = this->Int32(what);
    if (value < 0)
      this->Fail(what, value, "a size >= 0");
    return static_cast<std::uint64_t>(value);
  }

  template <typename T>
  static T
  FromLittleEndian(const unsigned char * bytes)
  {
    std::uint64_t bits = 0;
    for (std::size_t b = 0; b < sizeof(T); ++b)
      bits |= std::uint64_t(bytes[b]) << (8 * b);
    T value;
    if constexpr (sizeof(T) == 1)
    {
      const auto narrow = static_cast<std::uint8_t>(bits);
      std::memcpy(&value, &narrow, 1);
    }
    else if constexpr (sizeof(T) == 2)
    {
      const auto narrow = static_cast<std::uint16_t>(bits);
      std::memcpy(&value, &narrow, 2);
    }
    else if constexpr (sizeof(T) == 4)
    {
      const auto narrow = static_cast<std::uint32_t>(bits);
      std::memcpy(&value, &narrow, 4);
    }
    else
    {
      static_assert(sizeof(T) == 8, "1, 2, 4 or 8 bytes");
      std::memcpy(&value, &bits, 8);
    }
    return value;
  }

private:
  std::string m_Path;
  std::string m_Kind;
  std::FILE * m_File = nullptr;
  std::uint64_t m_Size = 0;
  std::uint64_t m_Position = 0;
};

/** A buffer of `bytes` bytes for one read of compressed pixel data, reused by the thread's next
 * read when it is 64 MiB or less: a projection import reads hundreds of files of the same size, and
 * fresh memory for each costs more in page faults than decoding it. The contents are not kept. */
inline unsigned char *
ScratchBuffer(std::uint64_t bytes, std::vector<unsigned char> & local)
{
  constexpr std::uint64_t reusable = std::uint64_t(64) << 20;
  static thread_local std::vector<unsigned char> scratch;
  std::vector<unsigned char> & buffer = bytes <= reusable ? scratch : local;
  if (buffer.size() < bytes)
    buffer.resize(bytes);
  return buffer.data();
}

/** Text of a fixed-size or counted character field: up to the first NUL, non-printable characters
 * dropped (the fields are NUL-padded). */
inline std::string
FieldText(const char * chars, std::size_t size)
{
  std::string text;
  for (std::size_t i = 0; i < size && chars[i] != '\0'; ++i)
    if (static_cast<unsigned char>(chars[i]) >= 0x20 && static_cast<unsigned char>(chars[i]) < 0x7f)
      text.push_back(chars[i]);
  return text;
}

} // namespace cbct::detail

#endif
