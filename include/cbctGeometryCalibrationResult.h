#ifndef cbctGeometryCalibrationResult_h
#define cbctGeometryCalibrationResult_h

#include "ConeBeamCTExport.h"
#include "cbctAxisCorrection.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <limits>
#include <string>
#include <vector>

namespace cbct
{

/** One parameter of a geometry calibration: the correction found (added to the nominal geometry) and
 * its uncertainty, in the unit people read it in (detector pixels for the offset, degrees for roll
 * and tilt). */
struct ConeBeamCT_EXPORT CalibrationParameter
{
  std::string name;  ///< "offset", "roll" or "tilt"
  std::string unit;  ///< "pixels" or "degrees"
  bool fitted = false;
  double value = 0.; ///< the correction; 0 for a parameter not fitted
  /** One standard deviation (same unit): from the spread of independent estimates (groups of view
   * pairs, slices at several heights) where there are several, else from the score curve's fit;
   * NaN where none could be given. */
  double uncertainty = std::numeric_limits<double>::quiet_NaN();
  std::string method; ///< what fitted it, e.g. "opposite views" or "sharpness"
};

/** A score against one parameter, the others held at their fitted values: what a report plots. */
struct ConeBeamCT_EXPORT CalibrationScoreCurve
{
  std::string parameter; ///< "offset", "roll" or "tilt"
  std::string unit;      ///< of `values`: "pixels" or "degrees" (corrections, as CalibrationParameter)
  std::string method;    ///< "opposite views" or "sharpness"
  std::string score;     ///< what was scored, e.g. "gradient energy of FDK slices"
  bool higherIsBetter = true;
  double fitted = 0.;    ///< the value chosen
  std::vector<double> values;
  std::vector<double> scores;
};

/** \class GeometryCalibrationResult
 * \brief What a geometry calibration found: the AxisCorrection, the corrected geometry, each
 * parameter with its uncertainty, the score curves and a log of what was done.
 *
 * Made by OppositeViewAxisCalibration, SharpnessCalibration and GeometryCalibration (which chains
 * them); a calibration that cannot fit a parameter throws instead of returning a result, so a result
 * always holds a geometry fitted from the data.
 * \ingroup ConeBeamCT
 */
/** Where a calibration's time went: one stage (e.g. "opposite views: registration"), its seconds and how
 * many times it ran. */
struct ConeBeamCT_EXPORT CalibrationStageTime
{
  std::string stage;
  double seconds = 0.;
  unsigned int count = 0;
};

class ConeBeamCT_EXPORT GeometryCalibrationResult
{
public:
  AxisCorrection correction;
  /** The nominal geometry with `correction` applied. */
  ThreeDCircularProjectionGeometry::Pointer geometry;
  std::vector<CalibrationParameter> parameters;
  std::vector<CalibrationScoreCurve> curves;
  std::vector<std::string> log;      ///< what was done, in order
  std::vector<std::string> warnings; ///< what the caller should be told even without --verbose
  std::string method;                ///< e.g. "opposite views, then sharpness"
  double pixelSize = 1.;             ///< detector pixel along u (mm): converts the offset
  std::vector<CalibrationStageTime> timings; ///< where the time went, in order (--verbose, cbct-bench)

  /** Adds `seconds` and `count` to the stage named `stage` (appended when new). */
  void
  AddTiming(const std::string & stage, double seconds, unsigned int count = 1);
  /** One line per stage: "opposite views: registration 1.234 s (97 times)". */
  std::vector<std::string>
  DescribeTimings() const;

  /** The parameter named `name`, or null. */
  const CalibrationParameter *
  Find(const std::string & name) const;
  CalibrationParameter *
  Find(const std::string & name);
  /** The named parameter, added (not fitted) when missing. */
  CalibrationParameter &
  Parameter(const std::string & name);

  /** One line per parameter: "offset 13.02 +- 0.03 pixels (0.260 mm along u; opposite views, then
   * sharpness)", "roll ...", and "tilt not fitted". */
  std::vector<std::string>
  Describe() const;
};

} // namespace cbct

#endif
