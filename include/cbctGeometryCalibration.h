#ifndef cbctGeometryCalibration_h
#define cbctGeometryCalibration_h

#include "ConeBeamCTExport.h"
#include "cbctAxisCalibration.h"
#include "cbctAxisCorrection.h"
#include "cbctCalibrationSliceReconstructor.h"
#include "cbctSharpnessScore.h"

#include <itkImage.h>
#include <itkObject.h>
#include <itkObjectFactory.h>

#include <functional>
#include <string>

namespace cbct
{

/** \class GeometryCalibration
 * \brief A scan's geometry found from its own projections: picks and chains the calibration methods.
 *
 * \dot
 * digraph calibration {
 *   node [shape=box];
 *   scan [label="Projections + nominal geometry"];
 *   opposite [label="OppositeViewAxisCalibration\n(full scans: offset, roll)"];
 *   sharpness [label="SharpnessCalibration\n(any scan: offset, roll, tilt)"];
 *   out [label="GeometryCalibrationResult\n(corrected geometry)"];
 *   scan -> opposite -> sharpness -> out; scan -> sharpness [style=dashed];
 * }
 * \enddot
 *
 * Methods:
 *  - Auto (default): opposite views (conjugate rays) first, on any scan of 180 degrees or more (full,
 *    short and half-fan scans all measure some rays from both sides): they give the offset and the roll.
 *    Then the sharpness of FDK slices refines the offset about their result (it scores the
 *    reconstruction itself) and fits the tilt when asked; the roll stays the opposite views', which
 *    measure it over the detector's whole height. When the opposite views fail (the log says why), the
 *    sharpness method alone, with its wide search.
 *  - OppositeViews: OppositeViewAxisCalibration alone (full scans; no tilt).
 *  - Sharpness: SharpnessCalibration alone, from the nominal geometry.
 *  - Beads: a bead phantom's projections; not in this build yet (an error says so).
 *
 * Compute() never returns a geometry it could not fit: each method throws itk::ExceptionObject naming
 * what the data lack (see the methods' classes).
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT GeometryCalibration : public AxisCalibration
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(GeometryCalibration);

  using Self = GeometryCalibration;
  using Superclass = AxisCalibration;
  using Pointer = itk::SmartPointer<Self>;
  using Hardware = CalibrationSliceReconstructor::Hardware;

  itkNewMacro(Self);
  itkTypeMacro(GeometryCalibration, AxisCalibration);

  enum class Method
  {
    Auto,
    OppositeViews,
    Sharpness,
    Beads
  };
  /** "auto", "opposite", "sharpness", "beads" (the apps' --method). */
  static std::string
  MethodName(Method method);
  /** Parses MethodName()'s spelling; throws naming the choices. */
  static Method
  ParseMethod(const std::string & name);

  /** What to fit (default: offset and roll; FitRoll is AxisCalibration's). */
  itkSetMacro(FitOffset, bool);
  itkGetConstMacro(FitOffset, bool);
  itkSetMacro(FitTilt, bool);
  itkGetConstMacro(FitTilt, bool);

  void
  SetMethod(Method method)
  {
    m_Method = method;
    this->Modified();
  }
  Method
  GetMethod() const
  {
    return m_Method;
  }

  void
  SetOffsetModel(AxisCorrection::OffsetModel model)
  {
    m_OffsetModel = model;
    this->Modified();
  }
  AxisCorrection::OffsetModel
  GetOffsetModel() const
  {
    return m_OffsetModel;
  }

  /** Half-width of the tilt's search in degrees (default 3; the offset's is AxisCalibration's SearchRange). */
  itkSetMacro(TiltRange, double);
  itkGetConstMacro(TiltRange, double);

  void
  SetMeasure(SharpnessScore::Measure measure)
  {
    m_Measure = measure;
    this->Modified();
  }
  SharpnessScore::Measure
  GetMeasure() const
  {
    return m_Measure;
  }

  /** The sharpness method's FDK: CPU (default) or CUDA. */
  void
  SetHardware(Hardware hardware)
  {
    m_Hardware = hardware;
    this->Modified();
  }
  Hardware
  GetHardware() const
  {
    return m_Hardware;
  }

  GeometryCalibrationResult
  Compute() override;

protected:
  GeometryCalibration() = default;
  ~GeometryCalibration() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

private:
  bool m_FitOffset = true;
  bool m_FitTilt = false;
  Method m_Method = Method::Auto;
  AxisCorrection::OffsetModel m_OffsetModel = AxisCorrection::OffsetModel::Stage;
  double m_TiltRange = 3.;
  SharpnessScore::Measure m_Measure = SharpnessScore::Measure::GradientEnergyPerVariation;
  Hardware m_Hardware = Hardware::Cpu;
};

} // namespace cbct

#endif
