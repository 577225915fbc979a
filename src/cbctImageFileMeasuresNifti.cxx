// NIfTI and Analyze (.nii, .nii.gz, .hdr/.img): the header checked before ITK's NiftiImageIO reads
// it, and the pixel data the files hold.
#include "cbctImageFileMeasuresShared.h"

#include "cbctInputChecks.h"

#include <itksys/SystemTools.hxx>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cbct::detail
{
using namespace file_measures;

namespace
{
/** The header and the data file of a NIfTI or Analyze image: .nii(.gz) holds both; .hdr(.gz) and
 * .img(.gz) are a pair. */
struct NiftiFiles
{
  std::string header, data;
  bool pair = false;
};

NiftiFiles
FindNiftiFiles(const std::string & path)
{
  NiftiFiles f{ path, path, false };
  auto stem = [](const std::string & p, const std::string & suffix) { return p.substr(0, p.size() - suffix.size()); };
  auto existing = [](const std::string & base, const std::vector<std::string> & suffixes) {
    for (const std::string & s : suffixes)
      if (itksys::SystemTools::FileExists(base + s, true))
        return base + s;
    return base + suffixes.front();
  };
  for (const char * suffix : { ".hdr.gz", ".hdr", ".img.gz", ".img" })
    if (EndsWith(path, suffix))
    {
      const std::string base = stem(path, suffix);
      f.header = existing(base, { ".hdr", ".hdr.gz", ".HDR", ".HDR.GZ" });
      f.data = existing(base, { ".img", ".img.gz", ".IMG", ".IMG.GZ" });
      f.pair = true;
      break;
    }
  return f;
}

/** The first 540 bytes of a NIfTI header (fewer when the file is shorter), inflated when it is
 * gzip-compressed. */
std::string
ReadNiftiHeader(const std::string & header)
{
  std::string bytes(540, '\0');
  gzFile file = gzopen(header.c_str(), "rb");
  int got = file ? gzread(file, &bytes[0], static_cast<unsigned>(bytes.size())) : -1;
  if (file)
    gzclose(file);
  bytes.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return bytes;
}

double
FloatAt(const std::string & b, std::size_t at, bool little)
{
  const std::uint32_t raw = Get32(b, at, little);
  float value;
  std::memcpy(&value, &raw, sizeof(value));
  return value;
}

double
DoubleAt(const std::string & b, std::size_t at, bool little)
{
  const std::uint64_t raw = Get64(b, at, little);
  double value;
  std::memcpy(&value, &raw, sizeof(value));
  return value;
}
} // namespace

void
CheckNiftiHeader(const std::string & path)
{
  const NiftiFiles files = FindNiftiFiles(path);
  const std::string bytes = ReadNiftiHeader(files.header);
  // NIfTI-2 by its size field; anything else of 348 bytes or more as NIfTI-1 or Analyze, whatever its
  // size field says (ITK's reader does not insist on it), in the byte order that makes dim[0] 1..7.
  const bool two = bytes.size() >= 540 && (Get32(bytes, 0, true) == 540 || Get32(bytes, 0, false) == 540);
  const bool one = !two && bytes.size() >= 348;
  if (!one && !two)
    return; // MeasureNifti() says what is wrong with the header's size
  bool little = Get32(bytes, 0, true) == 540;
  if (one)
  {
    const auto dim0 = static_cast<std::int16_t>(Get16(bytes, 40, true));
    little = (dim0 >= 1 && dim0 <= 7) || Get32(bytes, 0, true) == 348;
  }
  // Spacing, origin and the voxel-to-world matrices: ITK takes an SVD of the matrix they make, and
  // vnl aborts the process on a non-finite one. Above 1e15 mm, float products may overflow to Inf.
  auto check = [&](const char * field, std::size_t at, int count) {
    for (int i = 0; i < count; ++i)
    {
      const std::size_t where = at + static_cast<std::size_t>(i) * (one ? 4 : 8);
      const double value = one ? FloatAt(bytes, where, little) : DoubleAt(bytes, where, little);
      if (!(std::fabs(value) <= 1e15))
        ThrowBadParameter(std::string(field) + (count > 1 ? "[" + std::to_string(i) + "]" : "") + " in the NIfTI header " + files.header,
                          value, "a finite value of at most 1e15 in magnitude (spacing, origin and orientation)");
    }
  };
  const std::int64_t dimensions = one ? static_cast<std::int16_t>(Get16(bytes, 40, little)) : static_cast<std::int64_t>(Get64(bytes, 16, little));
  check("pixdim", one ? 76 : 104, static_cast<int>(std::clamp<std::int64_t>(dimensions, 0, 7) + 1));
  const bool nifti = two || bytes.compare(344, 3, "n+1") == 0 || bytes.compare(344, 3, "ni1") == 0;
  if (!nifti)
    return; // Analyze 7.5: those bytes hold other fields
  const auto qform = one ? static_cast<std::int16_t>(Get16(bytes, 252, little)) : static_cast<std::int32_t>(Get32(bytes, 344, little));
  const auto sform = one ? static_cast<std::int16_t>(Get16(bytes, 254, little)) : static_cast<std::int32_t>(Get32(bytes, 348, little));
  if (qform > 0)
    check("quatern_b, quatern_c, quatern_d, qoffset_x, qoffset_y, qoffset_z", one ? 256 : 352, 6);
  if (sform > 0)
    check("srow_x, srow_y, srow_z", one ? 280 : 400, 12);
}

Measurement
MeasureNifti(const std::string & path, std::uint64_t expected)
{
  Measurement m;
  const NiftiFiles files = FindNiftiFiles(path);
  const std::string header = files.header, data = files.data;
  const bool pair = files.pair;
  FileSize(header, path);
  const std::string bytes = ReadNiftiHeader(header);
  if (bytes.size() < 348)
    ThrowBadParameter("NIfTI header " + header, std::to_string(bytes.size()) + " bytes long", "348 bytes or more");
  std::uint64_t offset = 0;
  std::uint64_t headerBytes = 348;
  if (Get32(bytes, 0, true) == 348 || Get32(bytes, 0, false) == 348)
  {
    const bool little = Get32(bytes, 0, true) == 348;
    const std::uint32_t raw = Get32(bytes, 108, little);
    float voxOffset;
    std::memcpy(&voxOffset, &raw, sizeof(voxOffset));
    if (!(voxOffset >= 0.f) || voxOffset > 1e15f)
      ThrowBadParameter("vox_offset in " + header, voxOffset, "a byte offset >= 0");
    offset = static_cast<std::uint64_t>(voxOffset);
  }
  else if (Get32(bytes, 0, true) == 540 || Get32(bytes, 0, false) == 540)
  {
    if (bytes.size() < 540)
      ThrowBadParameter("NIfTI-2 header " + header, std::to_string(bytes.size()) + " bytes long", "540 bytes");
    const bool little = Get32(bytes, 0, true) == 540;
    const auto voxOffset = static_cast<std::int64_t>(Get64(bytes, 168, little));
    if (voxOffset < 0)
      ThrowBadParameter("vox_offset in " + header, voxOffset, "a byte offset >= 0");
    offset = static_cast<std::uint64_t>(voxOffset);
    headerBytes = 540;
  }
  else
    ThrowBadParameter("sizeof_hdr of " + header, Get32(bytes, 0, true), "348 (NIfTI-1, Analyze) or 540 (NIfTI-2)");
  if (!pair)
    offset = std::max(offset, headerBytes);
  m.measured = true;
  m.expected = expected;
  m.subject = "pixel data of " + data;
  m.why = "as the header " + header + " says";
  m.shortFile = data;
  if (pair)
    m.dataFiles.push_back(data);
  FileSize(data, header);
  const std::uint64_t content = ContentSize(data, 0, Add(expected, offset));
  m.found = content > offset ? content - offset : 0;
  return m;
}

} // namespace cbct::detail
