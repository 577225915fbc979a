#ifndef cbctAxisCalibration_h
#define cbctAxisCalibration_h

#include "ConeBeamCTExport.h"
#include "cbctGeometryCalibrationResult.h"
#include "cbctThreeDCircularProjectionGeometry.h"

#include <itkImage.h>
#include <itkObject.h>
#include <itkObjectFactory.h>

#include <functional>
#include <string>

namespace cbct
{

/** \class AxisCalibration
 * \brief What every calibration of the rotation axis from a scan's own projections shares: the
 * projections and the nominal geometry it reads, whether the roll is fitted, the width of the offset's
 * search, whether the score curves are swept for reports, and where its log goes.
 *
 * OppositeViewAxisCalibration, SharpnessCalibration and GeometryCalibration (which picks and chains
 * them) derive from it; each adds its own settings and Compute().
 * \ingroup ConeBeamCT
 */
class ConeBeamCT_EXPORT AxisCalibration : public itk::Object
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(AxisCalibration);

  using Self = AxisCalibration;
  using Superclass = itk::Object;
  using Pointer = itk::SmartPointer<Self>;
  using ConstPointer = itk::SmartPointer<const Self>;
  using ImageType = itk::Image<float, 3>;
  using GeometryType = ThreeDCircularProjectionGeometry;
  using LogFunction = std::function<void(const std::string &)>;

  itkTypeMacro(AxisCalibration, itk::Object);

  /** Line integrals, u along columns, v along rows, one projection per geometry projection. */
  itkSetConstObjectMacro(Projections, ImageType);
  itkGetConstObjectMacro(Projections, ImageType);
  /** The nominal geometry (RTK parameters, cone beam). */
  itkSetConstObjectMacro(Geometry, GeometryType);
  itkGetConstObjectMacro(Geometry, GeometryType);

  /** Fit the detector's roll as well as the offset (default on). */
  itkSetMacro(FitRoll, bool);
  itkGetConstMacro(FitRoll, bool);
  itkBooleanMacro(FitRoll);

  /** Half-width of the offset's search in detector pixels (0, the default: a quarter of the detector's
   * width; about the start where a method starts from one). */
  itkSetMacro(SearchRange, double);
  itkGetConstMacro(SearchRange, double);

  /** Also sweep each fitted parameter about its value for the report's curves (default on). */
  itkSetMacro(ComputeCurves, bool);
  itkGetConstMacro(ComputeCurves, bool);
  itkBooleanMacro(ComputeCurves);

  /** Where each step of the log goes as it happens (e.g. --verbose); the result keeps it too. */
  void
  SetLog(LogFunction log)
  {
    m_Log = std::move(log);
  }
  const LogFunction &
  GetLog() const
  {
    return m_Log;
  }

  /** Runs the calibration. Throws itk::ExceptionObject when the data cannot give the fit; never returns
   * a geometry it could not fit. */
  virtual GeometryCalibrationResult
  Compute() = 0;

protected:
  AxisCalibration() = default;
  ~AxisCalibration() override = default;

  void
  PrintSelf(std::ostream & os, itk::Indent indent) const override;

  /** A log that appends each line to `result`'s log and passes it on to SetLog()'s. */
  LogFunction
  LogInto(GeometryCalibrationResult & result) const;

  ImageType::ConstPointer m_Projections;
  GeometryType::ConstPointer m_Geometry;
  bool m_FitRoll = true;
  double m_SearchRange = 0.;
  bool m_ComputeCurves = true;
  LogFunction m_Log;
};

} // namespace cbct

#endif
