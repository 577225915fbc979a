#ifndef cbctElektaXVIScan_h
#define cbctElektaXVIScan_h

#include "cbctScannerScan.h"

#include <string>
#include <vector>

namespace cbct
{

/** \class ElektaXVIScan
 * \brief An Elekta XVI (Synergy, Versa HD, Infinity) cone-beam scan: one HIS file per projection
 * in a folder img_<DICOM UID>, with its geometry in _Frames.xml beside them (XVI 5) or in the
 * database tables IMAGE.DBF and FRAME.DBF (XVI 4.5).
 *
 * \par Layout
 * \verbatim
 *  <database root>/IMAGE.DBF, FRAME.DBF                 XVI 4.5: every scan's geometry
 *  <database root>/patient_<ID>/IMAGES/img_<UID>/       the scan folder: Open() takes this path
 *      00001.<UID>.his, 00002.<UID>.his, ...            one projection each (HisImageIO)
 *      _Frames.xml                                      XVI 5: per frame Seq, GantryAngle,
 *                                                       Exposed, Inactive, UCentre, VCentre
 *      Reconstruction/                                  XVI's own reconstructions (not read)
 * \endverbatim
 * The DBF tables are looked for in the scan folder and up to three folders above it (the database
 * root is three above in XVI's layout). Open() also takes the path of a _Frames.xml file.
 *
 * \par Geometry (RTK's ElektaSynergyGeometryReader and ElektaXVI5GeometryXMLFileReader)
 * Per projection AddProjection(SID, SDD, angle, -UCentre, -VCentre):
 * - SID = 1000 mm and SDD = 1536 mm: XVI's kV geometry; neither file gives them.
 * - angle = _Frames.xml's GantryAngle (XVI 5) or FRAME.DBF's PROJ_ANG (XVI 4.5), in degrees, used
 *   as RTK's gantry angle without any change but a wrap into [0, 360) (XVI writes -180..180; RTK
 *   adds 360 to negative angles, which is the same projection).
 * - UCentre, VCentre (XVI 5) or U_CENTRE, V_CENTRE (XVI 4.5): the flex map, where the detector's
 *   centre was at that angle, in mm at the detector. RTK's ProjectionOffsetX/Y is the opposite
 *   (the shift of the image's (0, 0) from the principal ray's foot), hence the minus signs; a
 *   half-fan (M or L field of view) scan has UCentre near 115 or 190 mm.
 * XVI 5: a frame whose Inactive is True or whose Exposed is False is left out with its file, and
 * logged. Frames are matched to files by Seq and the number a file name starts with (00001 <->
 * Seq 1); when the file names carry no number, by order, and the counts must agree. XVI 4.5: the
 * records of FRAME.DBF whose IMA_DBID is the DBID of the IMAGE.DBF record whose DICOM_UID is the
 * folder's UID, in record order, paired with the HIS files in name order; the counts must agree.
 *
 * \par Detector grid
 * HIS carries no pixel size: the XVI panel is 409.6 mm wide, so the spacing is 409.6 mm / the
 * number of pixels (0.4 mm for 1024, 0.8 mm for 512), the origin centred on (0, 0). Every
 * projection file's header is read and checked (one frame, the first file's size).
 *
 * \par Line integrals
 * XVI stores r = 65536 - I (air reads near 0). RTK's lookup table for raw XVI frames
 * (ElektaSynergyLookupTableImageFilter) is p = ln(65536) - ln(65536 - r) for r in 1..65534, with
 * r = 0 and r = 65535 read as r = 1 (p = ln(65536/65535)). This is that table written as
 * p = ln(I0 - Id) - ln(I - Id), I = Intensity(r) = 65536 - r (r <= 0, r >= 65535 or not finite:
 * 65535), with I0 = 65536 and Id = 0 unless the scan folder holds a flood field (flood*.his:
 * I0 = Intensity(flood) per pixel) or a dark field (dark*.his: Id = Intensity(dark)), read in the
 * same stored convention (several frames are averaged). XVI keeps its own flood images outside
 * the scan folder (`Reconstruction/<UID>.INI` names them, FloodImageOpenFile) and writes frames already
 * corrected: a flood or dark file is applied only when the frames' HIS_Correction does not say
 * gain (2) or offset (1) correction was done. (I - Id) and (I0 - Id) below 1 are taken as 1 (one
 * count): every value is finite. Each step and the number of clamped pixels are logged.
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT ElektaXVIScan : public ScannerScan
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(ElektaXVIScan);

  using Self = ElektaXVIScan;
  using Superclass = ScannerScan;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  itkTypeMacro(ElektaXVIScan, ScannerScan);

  /** XVI's kV source-to-isocenter and source-to-detector distances (mm). */
  static constexpr double SourceToIsocenterDistance = 1000.;
  static constexpr double SourceToDetectorDistance = 1536.;
  /** The scale of RTK's XVI lookup table: I = 65536 - r, I0 = 65536. */
  static constexpr double ReadingScale = 65536.;

  /** A folder with .his files and _Frames.xml, or a folder img_* with .his files and IMAGE.DBF and
   * FRAME.DBF in it or up to three folders above, or a file named _Frames.xml. Names only. */
  static bool
  Recognizes(const std::string & path);
  /** Reads the geometry files and the HIS headers (no pixels); throws itk::ExceptionObject naming
   * the file and what is wrong. */
  static Pointer
  Open(const std::string & path);

  /** Intensity of a stored XVI reading r: 65536 - r, and 65535 for r <= 0, r >= 65535 or a
   * non-finite r (RTK's table reads 0 and 65535 as 1). */
  static double
  IntensityFromReading(double reading);
  /** ln(I0 - Id) - ln(I - Id), both differences taken as at least 1. */
  static double
  LineIntegral(double intensity, double airIntensity, double darkIntensity);

  void
  ToLineIntegrals(ProjectionsType * readings) const override;

  /** The flood and dark field files found in the scan folder (empty when none). */
  const std::string &
  FloodFile() const
  {
    return m_FloodFile;
  }
  const std::string &
  DarkFile() const
  {
    return m_DarkFile;
  }

protected:
  ElektaXVIScan() = default;
  ~ElektaXVIScan() override = default;
  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  itkNewMacro(Self);

  struct Frame
  {
    long seq = -1;
    double angle = 0.;
    double uCentre = 0.;
    double vCentre = 0.;
    bool exposed = true;
    bool inactive = false;
    std::string file;
  };

  void
  ReadFramesXml(const std::string & xml);
  void
  ReadDatabase(const std::string & folder, const std::string & imageDbf, const std::string & frameDbf);
  void
  MatchFramesToFiles(std::vector<Frame> & frames, const std::vector<std::string> & files, bool bySequence);
  void
  AddFrames(const std::vector<Frame> & frames, const std::string & source);
  void
  ReadDetectorGrid();

  std::string m_Folder;
  unsigned int m_Width = 0;
  unsigned int m_Height = 0;
  int m_Correction = 0;
  std::string m_FloodFile;
  std::string m_DarkFile;
};

} // namespace cbct

#endif
