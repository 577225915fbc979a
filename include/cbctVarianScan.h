#ifndef cbctVarianScan_h
#define cbctVarianScan_h

#include "ConeBeamCTExport.h"
#include "cbctScannerScan.h"

#include <itkImage.h>
#include <itkMetaDataDictionary.h>

#include <map>
#include <string>
#include <vector>

namespace cbct
{

/** \class VarianScan
 * \brief A Varian kV cone-beam scan: TrueBeam/ProBeam (Scan.xml + XIM) or OBI (ProjectionInfo.xml
 * + HND), its geometry in RTK's convention and its air-scan normalisation.
 *
 * \par Layouts recognised
 * \verbatim
 *   TrueBeam/ProBeam scan folder          OBI scan folder             one file
 *   <scan>/Scan.xml                       <scan>/ProjectionInfo.xml   <any>/Proj_00000.xim (.hnd, .hnc)
 *   <scan>/Acquisitions/<id>/Proj_*.xim   <scan>/[Scan0/]Proj_*.hnd (or .hnc: HND's header, 16-bit pixels)
 *   <scan>/Calibrations/AIR-<fan>-<filter>-<kV>KV[...]/Current/Filter[Bowtie][_CW|_CC...].xim
 * \endverbatim
 * A folder of Proj_*.xim / Proj_*.hnd / Proj_*.hnc files (e.g. `Acquisitions/<id>`) is read too; Scan.xml and
 * Calibrations/ are then looked for up to three folders above it. Projection files are in the order
 * of the number in their names. An XIM without pixels (a frame the acquisition dropped; RTK's reader
 * marks it with angle 6000) is left out, logged.
 *
 * \par Geometry (every field read from each projection's header, through ITK's ImageIO factory)
 * TrueBeam/ProBeam, per XIM (distances in cm in the file):
 *   - SourceToIsocenterDistance = 10 * KVSourceVrt (mm); if the XIM lacks it, Scan.xml's SAD (mm).
 *   - SourceToDetectorDistance  = 10 * (KVSourceVrt + |KVDetectorVrt|) (mm): KVDetectorVrt is the
 *     panel's vertical position below the isocenter (negative in Varian's files; its magnitude is
 *     used so that a file writing the distance itself reads the same); if the XIM lacks it,
 *     Scan.xml's SID (Varian's source-to-imager distance, mm).
 *   - GantryAngle = 180 - KVSourceRtn (degrees): RTK's conversion for XIM (rtkVarianProBeamGeometryReader);
 *     Varian's kV source angle and RTK's gantry angle turn in opposite senses, so a scan whose
 *     KVSourceRtn increases (Varian's clockwise) has decreasing RTK angles.
 *   - ProjectionOffsetX = 10 * KVDetectorLat (mm): the half-fan lateral shift, same sign as RTK.
 *   - ProjectionOffsetY = 10 * KVDetectorLng (mm); 0 when absent.
 *   - Detector spacing = 10 * PixelWidth, 10 * PixelHeight (mm); the grid is centred on (0, 0).
 * OBI, per HND (RTK's rtkVarianObiGeometryReader where ProjectionInfo.xml has the calibrated values;
 * the HND header's units, field by field, with their sources, in FromHndHeader()):
 *   - SourceToIsocenterDistance = CalibratedSAD (ProjectionInfo.xml, mm), else 10 * dSAD (HND, cm: 100
 *     on an OBI).
 *   - SourceToDetectorDistance  = CalibratedSID (ProjectionInfo.xml, mm), else the source-to-isocenter
 *     distance + 10 * |dIDUPosVrt| (HND, cm: the imager's vertical position below the isocenter, as
 *     XIM's KVDetectorVrt), else 10 * dSFD (HND, cm: the source-to-imager distance, which OBI headers
 *     often leave unknown).
 *   - GantryAngle = dCTProjectionAngle (degrees, used as is, as RTK does): the direction of rotation
 *     is the order of the angles (logged).
 *   - ProjectionOffsetX = CalibratedDetectorOffsetX (mm, 0 when absent) + the lateral shift when
 *     FanType is HalfFan: DetectorPosLat (ProjectionInfo.xml, mm), else dIDUPosLat (HND, mm: 148 in
 *     an OBI half fan), sign kept as RTK keeps DetectorPosLat's; with no FanType the HND's dIDUPosLat
 *     is always added.
 *   - ProjectionOffsetY = CalibratedDetectorOffsetY (mm), else dIDUPosLng (HND, mm).
 *   - Detector spacing = dIDUResolutionX, dIDUResolutionY (mm).
 * A header field holding Varian's mark for unknown (99999999) is treated as absent; one that is needed
 * and absent is refused, naming the file, the field and its value. The distances must be those of a
 * Varian kV imaging arm (source 500 to 2000 mm from the isocenter, panel at most 1500 mm beyond it):
 * any other is a field read in another unit or a placeholder, and is refused naming the fields used.
 *
 * \par Line integrals
 * Each reading R of projection k is divided by that projection's norm-chamber reading N_k
 * (KVNormChamber / dCTNormChamber: the tube output during the frame), and likewise the air scan A by
 * its own N_air, so that p = -log((R / N_k) / (A / N_air)) = -log(R * N_air / (A * N_k)). The air
 * scan is the calibration's flood image through the same filter (the bowtie's attenuation cancels):
 * the folder Calibrations/AIR-* whose name matches the projections' kV (KVKiloVolts / dXRayKV), fan
 * (Full/Half: Scan.xml's Fan or ProjectionInfo.xml's FanType, else |lateral shift| > 1 cm) and
 * filter (Scan.xml's Bowtie element, not empty and not "None" -> FilterBowtie*, else Filter*), the
 * file Filter[Bowtie]*.xim (or .hnd / .hnc, the projections' format), preferring one under Current/.
 * Where several frames are found at several angles (TrueBeam 2.7 keeps FilterBowtie_CW_* / _CC_* per
 * direction of rotation), those of the scan's direction are used (a scan whose KVSourceRtn increases
 * is taken as clockwise, _CW), each normalised by its own KVNormChamber and interpolated linearly in
 * KVSourceRtn (modulo 360) to each projection's angle.
 * Readings below one count (a dead pixel reads 0) are taken as one count, in the projections and in
 * the air image: the line integral stays finite (at most log of the air's counts), never NaN; the
 * number clamped is logged. A missing air scan is a MissingAirScanError naming what was looked for
 * (from Open(), or with Options::readingsOnly from ToLineIntegrals(): the readings as stored need no
 * air scan), unless Options::airScanFallback is set: then (logged) p = log(I0 / (R * Nmean / N_k)) with Nmean the mean
 * norm-chamber reading of the scan and I0 = Options::fallbackI0, or when that is 0 the largest
 * R * Nmean / N_k of the whole stack (the brightest reading taken as unattenuated; with constant N_k
 * and I0 = 139000 this is RTK's VarianObiRawImageFilter).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT VarianScan : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(VarianScan);

  using Self = VarianScan;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(VarianScan, ScannerScan);

  using AirImageType = itk::Image<float, 2>;
  /** Leaf elements of a Varian XML file (Scan.xml, ProjectionInfo.xml) by local name (namespace
   * prefix dropped), first occurrence; text trimmed. */
  using XmlSettings = std::map<std::string, std::string>;

  struct Options
  {
    /** Without an air scan, normalise with I0 instead of failing (logged). */
    bool airScanFallback = false;
    /** Only the readings as stored will be read (ScanImporter::ReadRaw): the air scan is looked for and
     * logged but not required; ToLineIntegrals() then refuses without one (MissingAirScanError). */
    bool readingsOnly = false;
    /** The fallback's I0 (counts at the mean norm-chamber reading); 0: the stack's brightest reading. */
    double fallbackI0 = 0.;
  };

  /** One projection's vendor fields, converted (distances mm, angles degrees). */
  struct ProjectionRecord
  {
    std::string file;
    bool hasImage = true;
    double sourceToIsocenterDistance = 0.;
    double sourceToDetectorDistance = 0.;
    double gantryAngleDegrees = 0.; // RTK's
    double projectionOffsetX = 0.;
    double projectionOffsetY = 0.;
    double vendorAngleDegrees = 0.; // KVSourceRtn or dCTProjectionAngle, for the air scan and the direction
    double normChamber = 0.;
    double kiloVolts = 0.; // 0 when the header has none
    double spacingU = 0.;  // mm
    double spacingV = 0.;
    unsigned int columns = 0;
    unsigned int rows = 0;
  };

  /** A path this class reads: a folder holding Scan.xml + Acquisitions/, ProjectionInfo.xml, or
   * Proj_*.xim / Proj_*.hnd / Proj_*.hnc files, or one .xim / .hnd / .hnc file. Names only. */
  static bool
  Recognizes(const std::string & path);

  /** Opens the scan: every projection's header, the XML settings and the air scan's header (no
   * pixels). Throws itk::ExceptionObject naming the file and the key or file missing. */
  static Pointer
  Open(const std::string & path);
  static Pointer
  Open(const std::string & path, const Options & options);

  void
  ToLineIntegrals(ProjectionsType * readings) const override;

  /** The air-scan files used (empty with the fallback). */
  const std::vector<std::string> &
  AirScanFiles() const
  {
    return m_AirFiles;
  }

  // The conversions, one header at a time (public for tests and tools).

  /** A Varian XML file's leaf elements; throws naming the file when it cannot be read or parsed. */
  static XmlSettings
  ReadXmlSettings(const std::string & file);
  /** A TrueBeam/ProBeam projection from its XIM properties; `scanXml` may be empty. */
  static ProjectionRecord
  FromXimProperties(const itk::MetaDataDictionary & properties, const std::string & file, const XmlSettings & scanXml);
  /** An OBI projection from its HND header fields and ProjectionInfo.xml (may be empty). */
  static ProjectionRecord
  FromHndHeader(const itk::MetaDataDictionary & header, const std::string & file, const XmlSettings & projectionInfo);

  /** A number from a header dictionary, whatever its numeric type (double, float, int, unsigned,
   * long, ...) or a string holding one; throws "`file`: no `key` ..." when absent. */
  static double
  Number(const itk::MetaDataDictionary & dictionary, const std::string & key, const std::string & file);
  /** The same, `fallback` when absent. */
  static double
  NumberOr(const itk::MetaDataDictionary & dictionary, const std::string & key, double fallback);

  /** One air frame: its counts, its norm-chamber reading and its angle (KVSourceRtn, degrees). */
  struct AirFrame
  {
    AirImageType::ConstPointer image;
    double normChamber = 0.;
    double angleDegrees = 0.;
    std::string file;
  };
  /** p = -log(R N_air / (A N_k)) in place, the air frames interpolated in angle to `angles`;
   * returns how many readings (projection or air) were clamped to one count. */
  static std::size_t
  NormaliseWithAir(ProjectionsType * readings,
                   const std::vector<double> & normChambers,
                   const std::vector<double> & angles,
                   const std::vector<AirFrame> & air);
  /** The fallback: p = log(I0 / (R Nmean / N_k)); `i0` <= 0: the stack's largest R Nmean / N_k.
   * Returns the I0 used. */
  static double
  NormaliseWithoutAir(ProjectionsType * readings, const std::vector<double> & normChambers, double i0);

protected:
  VarianScan() = default;
  ~VarianScan() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  void
  OpenTrueBeam(const std::string & path, const Options & options);
  void
  OpenObi(const std::string & path, const Options & options);
  /** Stores geometry, files and grid (SetGeometry, ...) from the records (empty frames left out); logs each step. */
  void
  UseRecords(const std::vector<ProjectionRecord> & records, bool xim);
  /** Finds the air scan under `root`/Calibrations matching the scan; logs the choice. */
  void
  FindAirScan(const std::string & root, const XmlSettings & settings, bool xim, const Options & options);

  std::array<unsigned int, 2> m_Size{ { 0, 0 } };
  std::vector<double> m_NormChambers;
  std::vector<double> m_VendorAngles;
  double m_KiloVolts = 0.;
  bool m_Clockwise = true;
  std::vector<std::string> m_AirFiles;
  std::string m_AirScanSought; // what FindAirScan() looked for, for the error of ToLineIntegrals()
  std::vector<double> m_AirNormChambers;
  std::vector<double> m_AirAngles;
  Options m_Options;
};

} // namespace cbct

#endif
