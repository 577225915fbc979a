// conebeamct._conebeamct's geometry calibration: _calibrate, which conebeamct.calibrate calls
// (cbct::GeometryCalibration: opposite views, sharpness or auto).
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"

#include "cbctGeometryCalibration.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace cbct::python
{

void
RegisterCalibration(py::module_ & m, const GeometryOf & geometryOf, const MakeGeometry & makeGeometry)
{
  m.def(
    "_calibrate",
    [geometryOf, makeGeometry](const FloatArray & projections, const Triple & projectionSpacing,
                               const Triple & projectionOrigin, const py::handle & geometry,
                               const std::vector<std::string> & fit, const std::string & method,
                               const std::string & offsetAs, double searchRange, double tiltRange,
                               const std::string & score, const std::string & hardware, bool curves) {
      CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
      const ThreeDCircularProjectionGeometry * nominal = geometryOf(geometry);
      auto calibration = GeometryCalibration::New();
      bool offset = false, roll = false, tilt = false;
      for (const std::string & name : fit)
      {
        if (name == "offset")
          offset = true;
        else if (name == "roll")
          roll = true;
        else if (name == "tilt")
          tilt = true;
        else
          throw py::value_error("fit holds '" + name + "'; expected 'offset', 'roll' or 'tilt'");
      }
      if (!offset && !roll && !tilt)
        throw py::value_error("fit is empty; expected some of 'offset', 'roll' and 'tilt'");
      if (method != "auto" && method != "opposite" && method != "sharpness" && method != "beads")
        throw py::value_error("method is '" + method + "'; expected 'auto', 'opposite', 'sharpness' or 'beads'");
      if (offsetAs != "stage" && offsetAs != "detector")
        throw py::value_error("offset_as is '" + offsetAs + "'; expected 'stage' or 'detector'");
      if (score != "edges" && score != "gradient" && score != "variance")
        throw py::value_error("score is '" + score + "'; expected 'edges', 'gradient' or 'variance'");
      if (!std::isfinite(searchRange) || searchRange < 0.)
        throw py::value_error("search_range is " + std::to_string(searchRange) +
                              "; expected a half-width in detector pixels >= 0 (0: a quarter of the detector)");
      if (!std::isfinite(tiltRange) || !(tiltRange > 0.) || tiltRange > 45.)
        throw py::value_error("tilt_range is " + std::to_string(tiltRange) + "; expected degrees in (0, 45]");
      using Hardware = CalibrationSliceReconstructor::Hardware;
      Hardware chosen = Hardware::Cpu;
      if (hardware == "cuda" || (hardware == "auto" && CalibrationSliceReconstructor::CudaAvailable()))
        chosen = Hardware::Cuda;
      else if (hardware != "cpu" && hardware != "auto")
        throw py::value_error("hardware is '" + hardware + "'; expected 'cpu', 'cuda' or 'auto'");
      std::string why;
      if (chosen == Hardware::Cuda && !CalibrationSliceReconstructor::CudaAvailable(&why))
        throw py::value_error("hardware is 'cuda', but " + why);
      calibration->SetFitOffset(offset);
      calibration->SetFitRoll(roll);
      calibration->SetFitTilt(tilt);
      calibration->SetMethod(GeometryCalibration::ParseMethod(method));
      calibration->SetOffsetModel(offsetAs == "stage" ? AxisCorrection::OffsetModel::Stage
                                                      : AxisCorrection::OffsetModel::Detector);
      calibration->SetSearchRange(searchRange);
      calibration->SetTiltRange(tiltRange);
      calibration->SetMeasure(SharpnessScore::Parse(score));
      calibration->SetHardware(chosen);
      calibration->SetComputeCurves(curves);
      ImageType::Pointer image = FromNumpy<ImageType>(projections, projectionSpacing, projectionOrigin);
      calibration->SetProjections(image);
      calibration->SetGeometry(nominal);
      GeometryCalibrationResult result;
      {
        py::gil_scoped_release release;
        result = calibration->Compute();
      }
      py::dict parameters;
      for (const auto & p : result.parameters)
      {
        py::dict entry;
        entry["fitted"] = p.fitted;
        entry["value"] = p.value;
        entry["uncertainty"] = p.uncertainty;
        entry["unit"] = p.unit;
        entry["method"] = p.method;
        parameters[py::str(p.name)] = entry;
      }
      py::list curveList;
      for (const auto & c : result.curves)
      {
        py::dict entry;
        entry["parameter"] = c.parameter;
        entry["unit"] = c.unit;
        entry["method"] = c.method;
        entry["score"] = c.score;
        entry["higher_is_better"] = c.higherIsBetter;
        entry["fitted"] = c.fitted;
        entry["values"] = py::array_t<double>(static_cast<py::ssize_t>(c.values.size()), c.values.data());
        entry["scores"] = py::array_t<double>(static_cast<py::ssize_t>(c.scores.size()), c.scores.data());
        curveList.append(entry);
      }
      py::dict info;
      info["method"] = result.method;
      info["parameters"] = parameters;
      info["curves"] = curveList;
      info["log"] = result.log;
      info["warnings"] = result.warnings;
      info["offset_mm"] = result.correction.offset;
      info["offset_as"] = AxisCorrection::ModelName(result.correction.model);
      info["hardware"] = chosen == Hardware::Cuda ? "cuda" : "cpu";
      return py::make_tuple(makeGeometry(result.geometry), info);
    },
    py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"), py::arg("geometry"),
    py::arg("fit"), py::arg("method"), py::arg("offset_as"), py::arg("search_range"), py::arg("tilt_range"),
    py::arg("score"), py::arg("hardware"), py::arg("curves"));
}

} // namespace cbct::python
