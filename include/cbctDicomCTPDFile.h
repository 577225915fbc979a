#ifndef cbctDicomCTPDFile_h
#define cbctDicomCTPDFile_h

#include "ConeBeamCTExport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cbct
{

class DicomDataSet;

/** \class DicomCTPDFile
 * \brief One projection of the DICOM-CT-PD format (the AAPM/Mayo Clinic open format for CT projection
 * data: Chen et al., Med. Phys. 42(12), 2015; the tags as the TCIA "LDCT-and-Projection-data"
 * collection's paper lists them, Moen et al., Med. Phys. 48(2), 2021, table IV): its header's fields,
 * each checked, and its pixels turned into the detector image (u, v).
 *
 * \par Tags (VR in the format's dictionary; any VR DicomDataSet::Numbers() reads is accepted)
 *  - (7029,1010) NumberofDetectorRows, (7029,1011) NumberofDetectorColumns (US): >= 1.
 *  - (7029,1002) DetectorElementTransverseSpacing, (7029,1006) DetectorElementAxialSpacing (FL, mm,
 *    at the detector; for a cylinder the arc length): in (0, 100] mm.
 *  - (7029,100B) DetectorShape (CS): CYLINDRICAL or FLAT (SPHERICAL: RTK's geometry has no sphere).
 *  - (7031,1001) DetectorFocalCenterAngularPosition phi0 (FL, rad), (7031,1002)
 *    DetectorFocalCenterAxialPosition z0 (FL, mm), (7031,1003) DetectorFocalCenterRadialDistance rho0
 *    (FL, mm): the detector's focal centre, the point the detector's arc is centred on, in the format's
 *    cylindrical coordinates (see DicomCTPDScan for the frame). phi0 finite (|phi0| <= 10^6), |z0| <=
 *    10^5 mm, 0 < rho0 <= 10^4 mm.
 *  - (7031,1031) ConstantRadialDistance d0 (FL, mm): from the focal centre to the detector's element
 *    (7031,1033); rho0 < d0 <= 10^4 mm (the detector lies beyond the isocentre).
 *  - (7031,1033) DetectorCentralElement (FL, 2 values: column, row, from 1, fractions allowed): the
 *    element on the line from the focal centre through the isocentre; on the detector ([0.5, N + 0.5]).
 *  - (7033,100B) SourceAngularPositionShift dphi (rad), (7033,100C) SourceAxialPositionShift dz (mm),
 *    (7033,100D) SourceRadialDistanceShift drho (mm) (FL): the focal spot at (rho0 + drho, phi0 + dphi,
 *    z0 + dz) (the flying focal spot); absent means 0. |dphi| <= 0.1 rad, |drho| <= rho0 / 10,
 *    |dz| <= 100 mm (a focal spot moves by fractions of a mm).
 *  - (7033,100E) FlyingFocalSpotMode (CS: FFSNONE, FFSZ, FFSXY, FFSXYZ), (7033,1013)
 *    NumberofSourceAngularSteps (US: projections per turn), (7033,1061) NumberofSpectra and (7033,1063)
 *    SpectrumIndex (US), (7037,1009) TypeofProjectionData (CS: AXIAL, HELICAL): kept and logged.
 *  - (7037,100A) TypeofProjectionGeometry (CS): FANBEAM (a third-generation scanner) when present.
 *  - (7039,1009) LogFlag (CS): YES when present (the values are line integrals); NO is refused (the
 *    format carries no air scan to take the logarithm with). Absent (the format's first version): the
 *    values are line integrals, as that version defines them.
 *  - (7033,1065) PhotonStatistics (FL, one per detector column): the incident photons per column
 *    (noise-equivalent quanta from air scans, scaled by the tube current), for statistical weights and
 *    noise insertion; they do not enter the line integrals. When present: NumberofDetectorColumns
 *    finite values >= 0.
 *  - (7041,1001) WaterAttenuationCoefficient (FL; the first version's (0018,0061) HUCalibrationFactor,
 *    DS): mu_water in mm^-1, HU = 1000 (mu - mu_water) / mu_water; when present in (0, 1).
 *  - (0028,1053) RescaleSlope (DS, finite, not 0), (0028,1052) RescaleIntercept (DS, finite): the
 *    line integral of a stored value p is p * RescaleSlope + RescaleIntercept.
 *  - (0020,0013) InstanceNumber (IS): the projection's number in the scan, when present.
 *
 * \par Pixels
 * (0028,0100) BitsAllocated 16, (0028,0103) PixelRepresentation 0 (unsigned) or 1 (signed),
 * (0028,0101) BitsStored <= 16 and (0028,0102) HighBit = BitsStored - 1 when present, (0028,0002)
 * SamplesPerPixel 1 and (0028,0008) NumberOfFrames 1 when present, and Pixel Data (7FE0,0010) of
 * exactly 2 x rows x columns bytes. The image's (0028,0010) Rows and (0028,0011) Columns must be the
 * detector's counts, in either order: Rows = NumberofDetectorColumns and Columns = NumberofDetectorRows
 * (the Mayo data's layout: one detector column after another, its rows the fastest) or Rows =
 * NumberofDetectorRows and Columns = NumberofDetectorColumns (one detector row after another). When the
 * detector is square the two cannot be told apart and the Mayo layout is taken.
 *
 * The detector image is then (u, v) = (column - 1, NumberofDetectorRows - row) for the format's column
 * and row from 1: u along increasing columns, v from the last row to the first. The format numbers rows
 * from the one farthest from the patient table (the largest z), so v grows with z, which becomes RTK's
 * rotation axis y (DicomCTPDScan).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT DicomCTPDFile
{
public:
  /** The header of `path`, read up to its Pixel Data and checked; throws an itk::ExceptionObject naming
   * the file, the tag, its value and what was expected. */
  static DicomCTPDFile
  Read(const std::string & path);
  /** The same from a data set already parsed. */
  static DicomCTPDFile
  FromDataSet(const DicomDataSet & dataSet);

  /** Decodes `pixelBytes` (the file's Pixel Data, PixelDataLength() bytes) into `out`, u fastest (see
   * the class's description), as the stored integers. */
  void
  DecodePixels(const unsigned char * pixelBytes, std::int32_t * out) const;
  /** Reads the file's Pixel Data (checking that the file still holds it) into `out` as DecodePixels(),
   * of type unsigned short when !SignedPixels(), short otherwise. */
  void
  ReadPixels(void * out) const;

  std::string file;
  unsigned int detectorRows = 0;
  unsigned int detectorColumns = 0;
  double columnSpacing = 0.;
  double rowSpacing = 0.;
  std::string detectorShape;
  double focalCenterAngle = 0.;  // phi0, rad
  double focalCenterAxial = 0.;  // z0, mm
  double focalCenterRadius = 0.; // rho0, mm
  double constantRadialDistance = 0.; // d0, mm
  double centralColumn = 0.;     // from 1
  double centralRow = 0.;        // from 1
  double sourceAngularShift = 0.; // rad
  double sourceAxialShift = 0.;   // mm
  double sourceRadialShift = 0.;  // mm
  std::string flyingFocalSpotMode;   // "" when absent
  unsigned int angularSteps = 0;     // 0 when absent
  unsigned int numberOfSpectra = 0;  // 0 when absent
  unsigned int spectrumIndex = 0;    // 0 when absent
  std::string projectionDataType;    // "" when absent
  std::string projectionGeometryType;
  std::string logFlag;
  std::vector<float> photonStatistics; // empty when absent
  double waterAttenuation = 0.;        // mm^-1; 0 when absent
  double rescaleSlope = 1.;
  double rescaleIntercept = 0.;
  bool hasInstanceNumber = false;
  long instanceNumber = 0;
  bool signedPixels = false;
  unsigned int bitsStored = 16;
  bool detectorRowsFastest = true; // the Mayo layout
  std::uint64_t pixelOffset = 0;
  std::uint64_t pixelLength = 0;

  /** The ImageIO's component type of the stored values. */
  bool
  SignedPixels() const
  {
    return signedPixels;
  }
};

} // namespace cbct

#endif
