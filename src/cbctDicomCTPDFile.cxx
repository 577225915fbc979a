#include "cbctDicomCTPDFile.h"

#include "cbctCheckedBinaryFile.h"
#include "cbctDicomDataSet.h"
#include "cbctInputChecks.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace cbct
{

namespace
{
constexpr std::uint32_t Tag(std::uint16_t group, std::uint16_t element)
{
  return (std::uint32_t(group) << 16) | element;
}

std::string
Value(double value)
{
  std::ostringstream text;
  text << std::setprecision(10) << value;
  return text.str();
}

/** Reads the fields of one data set, each failure naming the tag. */
class Fields
{
public:
  explicit Fields(const DicomDataSet & set)
    : m_Set(set)
  {}

  std::string
  What(std::uint32_t tag, const std::string & keyword) const
  {
    return DicomDataSet::Describe(tag, keyword) + " of DICOM-CT-PD file " + m_Set.Name();
  }
  template <typename T>
  [[noreturn]] void
  Fail(std::uint32_t tag, const std::string & keyword, const T & value, const std::string & expected) const
  {
    ThrowBadParameter(this->What(tag, keyword), value, expected);
  }
  /** A number in [low, high] (finite). */
  double
  Within(std::uint32_t tag, const std::string & keyword, double low, double high, const std::string & expected) const
  {
    const double value = m_Set.Number(tag, keyword);
    if (!std::isfinite(value) || value < low || value > high)
      this->Fail(tag, keyword, Value(value), expected);
    return value;
  }
  double
  Optional(std::uint32_t tag, const std::string & keyword, double low, double high, const std::string & expected) const
  {
    return m_Set.Has(tag) ? this->Within(tag, keyword, low, high, expected) : 0.;
  }
  unsigned int
  Count(std::uint32_t tag, const std::string & keyword) const
  {
    const unsigned int value = m_Set.UnsignedShort(tag, keyword);
    if (value < 1)
      this->Fail(tag, keyword, value, "at least 1");
    return value;
  }
  std::string
  Text(std::uint32_t tag, const std::string & keyword) const
  {
    return m_Set.Has(tag) ? m_Set.Text(tag, keyword) : std::string();
  }
  const DicomDataSet &
  Set() const
  {
    return m_Set;
  }

private:
  const DicomDataSet & m_Set;
};

} // namespace

DicomCTPDFile
DicomCTPDFile::Read(const std::string & path)
{
  return FromDataSet(DicomDataSet::ParseHeader(path));
}

DicomCTPDFile
DicomCTPDFile::FromDataSet(const DicomDataSet & set)
{
  const Fields f(set);
  DicomCTPDFile h;
  h.file = set.Name();

  // The detector.
  h.detectorRows = f.Count(Tag(0x7029, 0x1010), "NumberofDetectorRows");
  h.detectorColumns = f.Count(Tag(0x7029, 0x1011), "NumberofDetectorColumns");
  const std::string spacing = "the element's width at the detector in mm, in (0, 100]";
  h.columnSpacing = f.Within(Tag(0x7029, 0x1002), "DetectorElementTransverseSpacing", 1e-9, 100., spacing);
  h.rowSpacing = f.Within(Tag(0x7029, 0x1006), "DetectorElementAxialSpacing", 1e-9, 100., spacing);
  h.detectorShape = set.Text(Tag(0x7029, 0x100B), "DetectorShape");
  if (h.detectorShape != "CYLINDRICAL" && h.detectorShape != "FLAT")
    f.Fail(Tag(0x7029, 0x100B), "DetectorShape", "\"" + h.detectorShape + "\"",
           "CYLINDRICAL or FLAT (RTK's geometry has no spherical detector)");

  // Where the detector's focal centre is, and the detector around it.
  h.focalCenterAngle = f.Within(Tag(0x7031, 0x1001), "DetectorFocalCenterAngularPosition", -1e6, 1e6,
                                "the focal centre's azimuth in radians (finite, at most 10^6 in magnitude)");
  h.focalCenterAxial = f.Within(Tag(0x7031, 0x1002), "DetectorFocalCenterAxialPosition", -1e5, 1e5,
                                "the focal centre's position along the axis in mm (finite, at most 10^5 in magnitude)");
  h.focalCenterRadius = f.Within(Tag(0x7031, 0x1003), "DetectorFocalCenterRadialDistance", 1e-9, 1e4,
                                 "the focal centre's distance from the isocentre in mm, in (0, 10000]");
  h.constantRadialDistance = f.Within(Tag(0x7031, 0x1031), "ConstantRadialDistance", 1e-9, 1e4,
                                      "the distance from the focal centre to the detector in mm, in (0, 10000]");
  if (!(h.constantRadialDistance > h.focalCenterRadius))
    f.Fail(Tag(0x7031, 0x1031), "ConstantRadialDistance", Value(h.constantRadialDistance) + " mm",
           "more than (7031,1003) DetectorFocalCenterRadialDistance, " + Value(h.focalCenterRadius) +
             " mm: the detector lies beyond the isocentre");
  const std::vector<double> central = set.Numbers(Tag(0x7031, 0x1033), "DetectorCentralElement", 2);
  const double counts[2] = { static_cast<double>(h.detectorColumns), static_cast<double>(h.detectorRows) };
  for (unsigned int d = 0; d < 2; ++d)
    if (!std::isfinite(central[d]) || central[d] < 0.5 || central[d] > counts[d] + 0.5)
      f.Fail(Tag(0x7031, 0x1033), "DetectorCentralElement", "(" + Value(central[0]) + ", " + Value(central[1]) + ")",
             "(column, row) from 1 on the detector of " + Value(counts[0]) + " columns and " + Value(counts[1]) +
               " rows (each in [0.5, count + 0.5])");
  h.centralColumn = central[0];
  h.centralRow = central[1];

  // The focal spot's offsets from the focal centre (the flying focal spot).
  h.sourceAngularShift = f.Optional(Tag(0x7033, 0x100B), "SourceAngularPositionShift", -0.1, 0.1,
                                    "a flying focal spot's shift of azimuth in radians, within +-0.1");
  h.sourceAxialShift = f.Optional(Tag(0x7033, 0x100C), "SourceAxialPositionShift", -100., 100.,
                                  "a flying focal spot's shift along the axis in mm, within +-100");
  h.sourceRadialShift = f.Optional(Tag(0x7033, 0x100D), "SourceRadialDistanceShift", -0.1 * h.focalCenterRadius,
                                   0.1 * h.focalCenterRadius,
                                   "a flying focal spot's radial shift in mm, within a tenth of (7031,1003), +-" +
                                     Value(0.1 * h.focalCenterRadius));
  h.flyingFocalSpotMode = f.Text(Tag(0x7033, 0x100E), "FlyingFocalSpotMode");
  if (set.Has(Tag(0x7033, 0x1013)))
    h.angularSteps = f.Count(Tag(0x7033, 0x1013), "NumberofSourceAngularSteps");
  if (set.Has(Tag(0x7033, 0x1061)))
    h.numberOfSpectra = f.Count(Tag(0x7033, 0x1061), "NumberofSpectra");
  if (set.Has(Tag(0x7033, 0x1063)))
    h.spectrumIndex = set.UnsignedShort(Tag(0x7033, 0x1063), "SpectrumIndex");
  h.projectionDataType = f.Text(Tag(0x7037, 0x1009), "TypeofProjectionData");
  h.projectionGeometryType = f.Text(Tag(0x7037, 0x100A), "TypeofProjectionGeometry");
  if (!h.projectionGeometryType.empty() && h.projectionGeometryType != "FANBEAM")
    f.Fail(Tag(0x7037, 0x100A), "TypeofProjectionGeometry", "\"" + h.projectionGeometryType + "\"",
           "FANBEAM (a third-generation CT scanner's geometry)");
  h.logFlag = f.Text(Tag(0x7039, 0x1009), "LogFlag");
  if (!h.logFlag.empty() && h.logFlag != "YES")
    f.Fail(Tag(0x7039, 0x1009), "LogFlag", "\"" + h.logFlag + "\"",
           "YES (line integrals; the format carries no air scan to take the logarithm of intensities with)");

  if (set.Has(Tag(0x7033, 0x1065)))
  {
    const std::vector<double> photons = set.Numbers(Tag(0x7033, 0x1065), "PhotonStatistics", h.detectorColumns);
    h.photonStatistics.reserve(photons.size());
    for (std::size_t c = 0; c < photons.size(); ++c)
    {
      if (!std::isfinite(photons[c]) || photons[c] < 0.)
        f.Fail(Tag(0x7033, 0x1065), "PhotonStatistics", "column " + std::to_string(c + 1) + "'s " + Value(photons[c]),
               "a finite number of photons >= 0 per column");
      h.photonStatistics.push_back(static_cast<float>(photons[c]));
    }
  }
  const std::string water = "mu_water in mm^-1, in (0, 1)";
  if (set.Has(Tag(0x7041, 0x1001)))
    h.waterAttenuation = f.Within(Tag(0x7041, 0x1001), "WaterAttenuationCoefficient", 1e-12, 1. - 1e-12, water);
  else if (set.Has(Tag(0x0018, 0x0061)))
    h.waterAttenuation = f.Within(Tag(0x0018, 0x0061), "HUCalibrationFactor", 1e-12, 1. - 1e-12, water);

  h.rescaleSlope = f.Within(Tag(0x0028, 0x1053), "RescaleSlope", -1e30, 1e30, "a finite number, not 0");
  if (h.rescaleSlope == 0.)
    f.Fail(Tag(0x0028, 0x1053), "RescaleSlope", 0, "a finite number, not 0");
  h.rescaleIntercept = f.Within(Tag(0x0028, 0x1052), "RescaleIntercept", -1e30, 1e30, "a finite number");
  if (set.Has(Tag(0x0020, 0x0013)))
  {
    h.hasInstanceNumber = true;
    h.instanceNumber = std::lround(f.Within(Tag(0x0020, 0x0013), "InstanceNumber", -2147483648., 2147483647.,
                                            "an integer"));
  }

  // The pixels: their encoding, the image's size against the detector's, and Pixel Data's length.
  if (f.Set().UnsignedShort(Tag(0x0028, 0x0100), "BitsAllocated") != 16)
    f.Fail(Tag(0x0028, 0x0100), "BitsAllocated", set.UnsignedShort(Tag(0x0028, 0x0100), "BitsAllocated"),
           "16 (DICOM-CT-PD stores 16-bit values)");
  const unsigned int representation = set.UnsignedShort(Tag(0x0028, 0x0103), "PixelRepresentation");
  if (representation > 1)
    f.Fail(Tag(0x0028, 0x0103), "PixelRepresentation", representation, "0 (unsigned) or 1 (signed)");
  h.signedPixels = representation == 1;
  if (set.Has(Tag(0x0028, 0x0101)))
  {
    h.bitsStored = set.UnsignedShort(Tag(0x0028, 0x0101), "BitsStored");
    if (h.bitsStored < 1 || h.bitsStored > 16)
      f.Fail(Tag(0x0028, 0x0101), "BitsStored", h.bitsStored, "1 to 16 (of the 16 bits allocated)");
    if (set.Has(Tag(0x0028, 0x0102)) && set.UnsignedShort(Tag(0x0028, 0x0102), "HighBit") != h.bitsStored - 1)
      f.Fail(Tag(0x0028, 0x0102), "HighBit", set.UnsignedShort(Tag(0x0028, 0x0102), "HighBit"),
             "BitsStored - 1 = " + std::to_string(h.bitsStored - 1) + " (the values in the low bits)");
  }
  if (set.Has(Tag(0x0028, 0x0002)) && set.UnsignedShort(Tag(0x0028, 0x0002), "SamplesPerPixel") != 1)
    f.Fail(Tag(0x0028, 0x0002), "SamplesPerPixel", set.UnsignedShort(Tag(0x0028, 0x0002), "SamplesPerPixel"),
           "1 (one value per detector element)");
  if (set.Has(Tag(0x0028, 0x0008)))
  {
    const double frames = set.Number(Tag(0x0028, 0x0008), "NumberOfFrames");
    if (frames != 1.)
      f.Fail(Tag(0x0028, 0x0008), "NumberOfFrames", Value(frames), "1 (one projection per file, as DICOM-CT-PD stores them)");
  }
  const unsigned int imageRows = set.UnsignedShort(Tag(0x0028, 0x0010), "Rows");
  const unsigned int imageColumns = set.UnsignedShort(Tag(0x0028, 0x0011), "Columns");
  if (imageRows == h.detectorColumns && imageColumns == h.detectorRows)
    h.detectorRowsFastest = true;
  else if (imageRows == h.detectorRows && imageColumns == h.detectorColumns)
    h.detectorRowsFastest = false;
  else
    ThrowBadParameter("the image size (0028,0010) Rows x (0028,0011) Columns of DICOM-CT-PD file " + h.file,
                      std::to_string(imageRows) + " x " + std::to_string(imageColumns),
                      "the detector's (7029,1011) NumberofDetectorColumns x (7029,1010) NumberofDetectorRows, " +
                        std::to_string(h.detectorColumns) + " x " + std::to_string(h.detectorRows) + ", in either order");
  if (!set.HasPixelData())
    ThrowBadParameter("(7FE0,0010) Pixel Data of DICOM-CT-PD file " + h.file, "missing", "the projection's values");
  const std::uint64_t bytes = std::uint64_t(2) * h.detectorRows * h.detectorColumns;
  if (set.PixelDataLength() != bytes)
    ThrowBadParameter("(7FE0,0010) Pixel Data of DICOM-CT-PD file " + h.file,
                      std::to_string(set.PixelDataLength()) + " bytes long",
                      std::to_string(bytes) + " bytes (" + std::to_string(h.detectorColumns) + " columns x " +
                        std::to_string(h.detectorRows) + " rows of 2 bytes)");
  h.pixelOffset = set.PixelDataOffset();
  h.pixelLength = set.PixelDataLength();
  return h;
}

void
DicomCTPDFile::DecodePixels(const unsigned char * pixelBytes, std::int32_t * out) const
{
  const std::size_t columns = detectorColumns, rows = detectorRows;
  const unsigned int shift = 16 - bitsStored;
  for (std::size_t row = 0; row < rows; ++row) // the format's row - 1
  {
    std::int32_t * line = out + (rows - 1 - row) * columns; // v = rows - row
    for (std::size_t column = 0; column < columns; ++column)
    {
      const std::size_t index = detectorRowsFastest ? column * rows + row : row * columns + column;
      const unsigned char * p = pixelBytes + 2 * index;
      // The stored bits are the low BitsStored ones (HighBit = BitsStored - 1): shifted to the top and
      // back, which sign-extends signed values.
      const auto bits = static_cast<std::uint16_t>((p[0] | (p[1] << 8)) << shift);
      line[column] = signedPixels ? static_cast<std::int32_t>(static_cast<std::int16_t>(bits)) >> shift
                                  : static_cast<std::int32_t>(bits >> shift);
    }
  }
}

void
DicomCTPDFile::ReadPixels(void * out) const
{
  detail::CheckedBinaryFile f(file, "DICOM-CT-PD file");
  f.Seek(std::min<std::uint64_t>(pixelOffset, f.Size()));
  std::vector<unsigned char> bytes(static_cast<std::size_t>(pixelLength));
  f.Read(bytes.data(), pixelLength, "Pixel Data (7FE0,0010)");
  const std::size_t count = static_cast<std::size_t>(detectorRows) * detectorColumns;
  std::vector<std::int32_t> values(count);
  this->DecodePixels(bytes.data(), values.data());
  if (signedPixels)
    for (std::size_t i = 0; i < count; ++i)
      static_cast<std::int16_t *>(out)[i] = static_cast<std::int16_t>(values[i]);
  else
    for (std::size_t i = 0; i < count; ++i)
      static_cast<std::uint16_t *>(out)[i] = static_cast<std::uint16_t>(values[i]);
}

} // namespace cbct
