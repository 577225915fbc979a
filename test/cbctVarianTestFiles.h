#ifndef cbctVarianTestFiles_h
#define cbctVarianTestFiles_h

// Varian projection files with known contents, written from the formats' definitions, for the
// readers' tests, the scan importer's tests and the fuzzers' seeds. Header-only; nothing here uses
// the library's readers, so a mistake in one is not repeated in the other.
//
// XIM (TrueBeam, ProBeam, Halcyon, Edge), little-endian throughout:
//   char[8] format identifier ("VMS.XI" + two NULs), int32 format version, width, height,
//   bits per pixel, bytes per pixel, compression flag (0 or 1);
//   uncompressed: int32 pixel buffer size (bytes), then width*height pixels of bytes-per-pixel bytes;
//   compressed:   int32 lookup-table size (bytes), the table (2 bits per pixel after the first
//                 width+1, lowest bits first: 0 = 1-byte, 1 = 2-byte, 2 = 4-byte difference),
//                 int32 compressed buffer size (bytes), the buffer (the first row and the first pixel
//                 of the second row as int32, then the signed differences), int32 uncompressed size;
//   int32 histogram bin count, the bins (int32);
//   int32 property count, then per property: int32 name length, the name, int32 type, the value:
//   0 int32, 1 double, 2 string (int32 length in bytes, the characters), 4 double array (int32
//   length in bytes, the doubles), 5 int32 array (int32 length in bytes, the values).
// A compressed pixel p[i] is d[i] + p[i-1] + p[i-width] - p[i-width-1] (32-bit arithmetic that wraps).
//
// HND (Varian OBI): a 1024-byte header (the fields of HndFields(), then zeros), the lookup table
// (2 bits for each of the width*(height-1) pixels after the first row, the last code unused), then
// the compressed buffer as in XIM; pixels uint32. HNC: the same fields in a 512-byte header, then
// width*height uint16 pixels, uncompressed.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cbct::test
{

using Bytes = std::vector<unsigned char>;

inline void
AppendBytes(Bytes & out, const void * data, std::size_t size)
{
  const auto * p = static_cast<const unsigned char *>(data);
  out.insert(out.end(), p, p + size);
}
/** Appends `value` little-endian (the machines these tests run on are little-endian; checked). */
template <typename T>
inline void
AppendValue(Bytes & out, T value)
{
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  if (first != 1)
    throw std::runtime_error("cbctVarianTestFiles.h writes little-endian files from a little-endian machine only");
  AppendBytes(out, &value, sizeof(T));
}
template <typename T>
inline void
PutValue(Bytes & out, std::size_t at, T value)
{
  if (at + sizeof(T) > out.size())
    throw std::out_of_range("PutValue past the end of the file");
  std::memcpy(out.data() + at, &value, sizeof(T));
}
inline void
WriteBytes(const std::string & path, const Bytes & bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("could not write " + path);
}

// ------------------------------------------------------------------------------------------------
// Varian's difference compression (shared by XIM and HND)

/** The lookup table and the buffer of a compressed image: the first width+1 pixels as int32, then
 * for each following pixel the difference d = p[i] - (p[i-1] + p[i-w] - p[i-w-1]) (wrapping 32-bit
 * arithmetic) in the fewest bytes that hold it (1, 2 or 4, signed); `lookupTableBytes` entries in
 * the table (its spare codes are 0). Throws unless width >= 1, height >= 2 and the pixel count is
 * width*height. */
struct VarianCompressed
{
  Bytes lookupTable;
  Bytes buffer;
  /** Differences stored with 1, 2 and 4 bytes (so that a test can say it covered each). */
  std::size_t oneByte = 0, twoBytes = 0, fourBytes = 0;
};

inline VarianCompressed
VarianCompress(const std::vector<std::int32_t> & pixels, std::uint32_t width, std::uint32_t height, std::size_t lookupTableBytes)
{
  if (width < 1 || height < 2 || pixels.size() != std::size_t(width) * height)
    throw std::invalid_argument("VarianCompress: width >= 1, height >= 2 and width*height pixels");
  const std::size_t n = pixels.size();
  const std::size_t differences = n - width - 1;
  if (lookupTableBytes * 4 < differences)
    throw std::invalid_argument("VarianCompress: lookup table too small");
  VarianCompressed out;
  out.lookupTable.assign(lookupTableBytes, 0);
  for (std::size_t i = 0; i <= width; ++i)
    AppendValue<std::int32_t>(out.buffer, pixels[i]);
  for (std::size_t i = width + 1; i < n; ++i)
  {
    const std::uint32_t predicted = std::uint32_t(pixels[i - 1]) + std::uint32_t(pixels[i - width]) - std::uint32_t(pixels[i - width - 1]);
    const auto d = static_cast<std::int32_t>(std::uint32_t(pixels[i]) - predicted);
    const std::size_t k = i - width - 1; // index in the table
    unsigned code = 0;
    if (d >= -128 && d <= 127)
    {
      AppendValue<std::int8_t>(out.buffer, static_cast<std::int8_t>(d));
      ++out.oneByte;
    }
    else if (d >= -32768 && d <= 32767)
    {
      AppendValue<std::int16_t>(out.buffer, static_cast<std::int16_t>(d));
      code = 1;
      ++out.twoBytes;
    }
    else
    {
      AppendValue<std::int32_t>(out.buffer, d);
      code = 2;
      ++out.fourBytes;
    }
    out.lookupTable[k / 4] |= static_cast<unsigned char>(code << (2 * (k % 4)));
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// XIM

/** One property of a XIM file; make them with the static functions. */
struct XimProperty
{
  enum Type : std::int32_t
  {
    Integer = 0,
    Double = 1,
    String = 2,
    DoubleArray = 4,
    IntegerArray = 5
  };
  std::string name;
  std::int32_t type = Integer;
  std::int32_t integer = 0;
  double real = 0.;
  std::string text;
  std::vector<double> reals;
  std::vector<std::int32_t> integers;

  static XimProperty
  Int(const std::string & name, std::int32_t value)
  {
    XimProperty p;
    p.name = name;
    p.type = Integer;
    p.integer = value;
    return p;
  }
  static XimProperty
  Real(const std::string & name, double value)
  {
    XimProperty p;
    p.name = name;
    p.type = Double;
    p.real = value;
    return p;
  }
  static XimProperty
  Text(const std::string & name, const std::string & value)
  {
    XimProperty p;
    p.name = name;
    p.type = String;
    p.text = value;
    return p;
  }
  static XimProperty
  Reals(const std::string & name, const std::vector<double> & value)
  {
    XimProperty p;
    p.name = name;
    p.type = DoubleArray;
    p.reals = value;
    return p;
  }
  static XimProperty
  Integers(const std::string & name, const std::vector<std::int32_t> & value)
  {
    XimProperty p;
    p.name = name;
    p.type = IntegerArray;
    p.integers = value;
    return p;
  }
};

/** What a XIM file holds. `pixels` are row-major, width*height of them; with 2 bytes per pixel
 * (uncompressed only) each is written as its low 16 bits (uint16). */
struct XimContents
{
  std::int32_t width = 0;
  std::int32_t height = 0;
  std::vector<std::int32_t> pixels;
  bool compressed = true;
  std::int32_t bytesPerPixel = 4;
  std::int32_t formatVersion = 1;
  std::vector<std::int32_t> histogram;
  std::vector<XimProperty> properties;
};

/** The properties of a kV projection of a TrueBeam (values made up, names and types Varian's; cm
 * and degrees as in the files). */
inline std::vector<XimProperty>
TypicalXimProperties(double gantryDegrees = 12.5)
{
  return { XimProperty::Real("GantryRtn", gantryDegrees),
           XimProperty::Real("KVSourceRtn", gantryDegrees + 90.),
           XimProperty::Real("KVSourceVrt", 100.),
           XimProperty::Real("KVDetectorVrt", -50.),
           XimProperty::Real("KVDetectorLat", -16.),
           XimProperty::Real("KVDetectorLng", 0.5),
           XimProperty::Real("KVKiloVolts", 125.),
           XimProperty::Real("KVMilliAmperes", 15.),
           XimProperty::Int("KVNormChamber", 123456),
           XimProperty::Real("PixelWidth", 0.0388),
           XimProperty::Real("PixelHeight", 0.0388),
           XimProperty::Text("AcquisitionSystemVersion", "2.7.304.16"),
           XimProperty::Reals("MLCLeafsA", { 1.5, -2.25, 3. }),
           XimProperty::Integers("DataOffset", { 3, 1, 4 }) };
}

/** A XIM file's bytes and where its fields lie (offsets from the start), for damaging tests. */
struct XimFile
{
  Bytes bytes;
  std::size_t widthAt = 12, heightAt = 16, bytesPerPixelAt = 24, compressionAt = 28;
  std::size_t lookupTableSizeAt = 0, lookupTableAt = 0; // compressed only
  std::size_t pixelBufferSizeAt = 0, pixelBufferAt = 0; // compressed or uncompressed buffer
  std::size_t uncompressedSizeAt = 0;                   // compressed only: the size after the buffer
  std::size_t histogramAt = 0, propertiesAt = 0;
  VarianCompressed compression;
};

/** The lookup-table size Varian writes: 2 bits for each pixel after the first row. */
inline std::size_t
VarianLookupTableBytes(std::uint32_t width, std::uint32_t height)
{
  return (std::size_t(width) * (height - 1) + 3) / 4;
}

inline XimFile
MakeXim(const XimContents & c)
{
  if (c.width < 1 || c.height < 1 || c.pixels.size() != std::size_t(c.width) * std::size_t(c.height))
    throw std::invalid_argument("MakeXim: width*height pixels");
  if (c.bytesPerPixel != 2 && c.bytesPerPixel != 4)
    throw std::invalid_argument("MakeXim: 2 or 4 bytes per pixel");
  XimFile f;
  Bytes & b = f.bytes;
  const char id[8] = { 'V', 'M', 'S', '.', 'X', 'I', 0, 0 };
  AppendBytes(b, id, 8);
  AppendValue<std::int32_t>(b, c.formatVersion);
  AppendValue<std::int32_t>(b, c.width);
  AppendValue<std::int32_t>(b, c.height);
  AppendValue<std::int32_t>(b, 8 * c.bytesPerPixel);
  AppendValue<std::int32_t>(b, c.bytesPerPixel);
  AppendValue<std::int32_t>(b, c.compressed ? 1 : 0);
  if (c.compressed)
  {
    f.compression = VarianCompress(c.pixels, c.width, c.height, VarianLookupTableBytes(c.width, c.height));
    f.lookupTableSizeAt = b.size();
    AppendValue<std::int32_t>(b, static_cast<std::int32_t>(f.compression.lookupTable.size()));
    f.lookupTableAt = b.size();
    AppendBytes(b, f.compression.lookupTable.data(), f.compression.lookupTable.size());
    f.pixelBufferSizeAt = b.size();
    AppendValue<std::int32_t>(b, static_cast<std::int32_t>(f.compression.buffer.size()));
    f.pixelBufferAt = b.size();
    AppendBytes(b, f.compression.buffer.data(), f.compression.buffer.size());
    f.uncompressedSizeAt = b.size();
    AppendValue<std::int32_t>(b, c.width * c.height * c.bytesPerPixel);
  }
  else
  {
    f.pixelBufferSizeAt = b.size();
    AppendValue<std::int32_t>(b, c.width * c.height * c.bytesPerPixel);
    f.pixelBufferAt = b.size();
    for (std::int32_t v : c.pixels)
    {
      if (c.bytesPerPixel == 2)
        AppendValue<std::uint16_t>(b, static_cast<std::uint16_t>(v));
      else
        AppendValue<std::int32_t>(b, v);
    }
  }
  f.histogramAt = b.size();
  AppendValue<std::int32_t>(b, static_cast<std::int32_t>(c.histogram.size()));
  for (std::int32_t v : c.histogram)
    AppendValue<std::int32_t>(b, v);
  f.propertiesAt = b.size();
  AppendValue<std::int32_t>(b, static_cast<std::int32_t>(c.properties.size()));
  for (const XimProperty & p : c.properties)
  {
    AppendValue<std::int32_t>(b, static_cast<std::int32_t>(p.name.size()));
    AppendBytes(b, p.name.data(), p.name.size());
    AppendValue<std::int32_t>(b, p.type);
    switch (p.type)
    {
      case XimProperty::Integer:
        AppendValue<std::int32_t>(b, p.integer);
        break;
      case XimProperty::Double:
        AppendValue<double>(b, p.real);
        break;
      case XimProperty::String:
        AppendValue<std::int32_t>(b, static_cast<std::int32_t>(p.text.size()));
        AppendBytes(b, p.text.data(), p.text.size());
        break;
      case XimProperty::DoubleArray:
        AppendValue<std::int32_t>(b, static_cast<std::int32_t>(8 * p.reals.size()));
        for (double v : p.reals)
          AppendValue<double>(b, v);
        break;
      case XimProperty::IntegerArray:
        AppendValue<std::int32_t>(b, static_cast<std::int32_t>(4 * p.integers.size()));
        for (std::int32_t v : p.integers)
          AppendValue<std::int32_t>(b, v);
        break;
      default:
        throw std::invalid_argument("MakeXim: property type " + std::to_string(p.type));
    }
  }
  return f;
}

inline void
WriteXim(const std::string & path, const XimContents & contents)
{
  WriteBytes(path, MakeXim(contents).bytes);
}

// ------------------------------------------------------------------------------------------------
// HND and HNC

/** One field of the HND/HNC header: its name, offset and kind ('s' chars of `size` bytes, 'u'
 * uint32, 'd' double). */
struct HndField
{
  const char * name;
  std::size_t offset;
  char kind;
  std::size_t size;
};

/** The header's fields in file order (488 bytes; the rest of the header is zeros). */
inline const std::vector<HndField> &
HndFields()
{
  static const std::vector<HndField> fields = [] {
    std::vector<HndField> f;
    std::size_t at = 0;
    const auto add = [&](const char * name, char kind, std::size_t size) {
      f.push_back({ name, at, kind, size });
      at += size;
    };
    add("sFileType", 's', 32);
    add("FileLength", 'u', 4);
    add("sChecksumSpec", 's', 4);
    add("nCheckSum", 'u', 4);
    add("sCreationDate", 's', 8);
    add("sCreationTime", 's', 8);
    add("sPatientID", 's', 16);
    add("nPatientSer", 'u', 4);
    add("sSeriesID", 's', 16);
    add("nSeriesSer", 'u', 4);
    add("sSliceID", 's', 16);
    add("nSliceSer", 'u', 4);
    add("SizeX", 'u', 4);
    add("SizeY", 'u', 4);
    add("dSliceZPos", 'd', 8);
    add("sModality", 's', 16);
    add("nWindow", 'u', 4);
    add("nLevel", 'u', 4);
    add("nPixelOffset", 'u', 4);
    add("sImageType", 's', 4);
    for (const char * name :
         { "dGantryRtn",        "dSAD",           "dSFD",           "dCollX1",         "dCollX2",
           "dCollY1",           "dCollY2",        "dCollRtn",       "dFieldX",         "dFieldY",
           "dBladeX1",          "dBladeX2",       "dBladeY1",       "dBladeY2",        "dIDUPosLng",
           "dIDUPosLat",        "dIDUPosVrt",     "dIDUPosRtn",     "dPatientSupportAngle",
           "dTableTopEccentricAngle",             "dCouchVrt",      "dCouchLng",       "dCouchLat",
           "dIDUResolutionX",   "dIDUResolutionY", "dImageResolutionX", "dImageResolutionY",
           "dEnergy",           "dDoseRate",      "dXRayKV",        "dXRayMA",         "dMetersetExposure",
           "dAcqAdjustment",    "dCTProjectionAngle", "dCTNormChamber", "dGatingTimeTag",
           "dGating4DInfoX",    "dGating4DInfoY", "dGating4DInfoZ", "dGating4DInfoTime" })
      add(name, 'd', 8);
    return f;
  }();
  return fields;
}

inline const HndField &
HndFieldNamed(const std::string & name)
{
  for (const HndField & f : HndFields())
    if (name == f.name)
      return f;
  throw std::invalid_argument("no HND header field " + name);
}

/** What an HND or HNC file holds. SizeX and SizeY are written from width and height unless
 * `integers` sets them (a file that lies about its size); sFileType defaults to "VARIAN_HND" /
 * "VARIAN_HNC" (placeholders: the value in Varian's files is not documented, and the readers do not
 * rely on it) and FileLength to the file's size unless set. HND pixels are uint32, HNC pixels are
 * written as their low 16 bits. */
struct HndContents
{
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint32_t> pixels;
  std::map<std::string, double> reals;
  std::map<std::string, std::uint32_t> integers;
  std::map<std::string, std::string> strings;
};

/** OBI header values as a real half-fan OBI projection holds them (names Varian's; the units each
 * field's: dSAD and dIDUPosVrt in cm, dIDUPosLat/Lng and the resolution in mm, angles in degrees;
 * dSFD Varian's mark for unknown, 99999999). */
inline void
SetTypicalHndHeader(HndContents & c, double angleDegrees = 30.)
{
  c.reals["dCTProjectionAngle"] = angleDegrees;
  c.reals["dGantryRtn"] = angleDegrees + 90.;
  c.reals["dSAD"] = 100.;
  c.reals["dSFD"] = 99999999.;
  c.reals["dIDUResolutionX"] = 0.388;
  c.reals["dIDUResolutionY"] = 0.388;
  c.reals["dIDUPosLat"] = 148.;
  c.reals["dIDUPosLng"] = 0.;
  c.reals["dIDUPosVrt"] = -50.;
  c.reals["dXRayKV"] = 125.;
  c.reals["dXRayMA"] = 80.;
  c.reals["dCTNormChamber"] = 24567.5;
  c.integers["nPatientSer"] = 42;
  c.strings["sPatientID"] = "PHANTOM";
}

/** The 1024-byte (HND) or 512-byte (HNC) header. */
inline Bytes
MakeHndHeader(const HndContents & c, std::size_t headerBytes, const std::string & fileType, std::uint64_t fileLength)
{
  Bytes h(headerBytes, 0);
  const auto put = [&](const HndField & f, const void * data, std::size_t size) { std::memcpy(h.data() + f.offset, data, size); };
  std::map<std::string, std::uint32_t> integers = c.integers;
  integers.emplace("SizeX", c.width);
  integers.emplace("SizeY", c.height);
  integers.emplace("FileLength", static_cast<std::uint32_t>(fileLength));
  std::map<std::string, std::string> strings = c.strings;
  strings.emplace("sFileType", fileType);
  for (const auto & [name, value] : integers)
  {
    const HndField & f = HndFieldNamed(name);
    if (f.kind != 'u')
      throw std::invalid_argument(name + " is not an integer field");
    put(f, &value, 4);
  }
  for (const auto & [name, value] : c.reals)
  {
    const HndField & f = HndFieldNamed(name);
    if (f.kind != 'd')
      throw std::invalid_argument(name + " is not a double field");
    put(f, &value, 8);
  }
  for (const auto & [name, value] : strings)
  {
    const HndField & f = HndFieldNamed(name);
    if (f.kind != 's' || value.size() > f.size)
      throw std::invalid_argument(name + " is not a string field of " + std::to_string(value.size()) + " characters or more");
    put(f, value.data(), value.size());
  }
  return h;
}

/** An HND file's bytes and where its parts lie, for damaging tests. */
struct HndFile
{
  Bytes bytes;
  std::size_t lookupTableAt = 1024, pixelBufferAt = 0;
  VarianCompressed compression;
};

inline HndFile
MakeHnd(const HndContents & c)
{
  if (c.pixels.size() != std::size_t(c.width) * c.height)
    throw std::invalid_argument("MakeHnd: width*height pixels");
  HndFile f;
  std::vector<std::int32_t> pixels(c.pixels.begin(), c.pixels.end());
  f.compression = VarianCompress(pixels, c.width, c.height, VarianLookupTableBytes(c.width, c.height));
  const std::uint64_t length = 1024 + f.compression.lookupTable.size() + f.compression.buffer.size();
  f.bytes = MakeHndHeader(c, 1024, "VARIAN_HND", length);
  AppendBytes(f.bytes, f.compression.lookupTable.data(), f.compression.lookupTable.size());
  f.pixelBufferAt = f.bytes.size();
  AppendBytes(f.bytes, f.compression.buffer.data(), f.compression.buffer.size());
  return f;
}

inline void
WriteHnd(const std::string & path, const HndContents & contents)
{
  WriteBytes(path, MakeHnd(contents).bytes);
}

inline Bytes
MakeHnc(const HndContents & c)
{
  if (c.pixels.size() != std::size_t(c.width) * c.height)
    throw std::invalid_argument("MakeHnc: width*height pixels");
  Bytes b = MakeHndHeader(c, 512, "VARIAN_HNC", 512 + 2 * c.pixels.size());
  for (std::uint32_t v : c.pixels)
    AppendValue<std::uint16_t>(b, static_cast<std::uint16_t>(v));
  return b;
}

inline void
WriteHnc(const std::string & path, const HndContents & contents)
{
  WriteBytes(path, MakeHnc(contents));
}

} // namespace cbct::test

#endif
