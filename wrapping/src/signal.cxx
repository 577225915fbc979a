// conebeamct._conebeamct's breathing signal: _breathing_signal, which
// conebeamct.breathing_signal calls.
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"

#include "cbctBreathingSignal.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

namespace py = pybind11;

namespace cbct::python
{

void
RegisterBreathingSignal(py::module_ & m)
{
  m.def(
    "_breathing_signal",
    [](const FloatArray & projections, const Triple & projectionSpacing, const Triple & projectionOrigin, double sigma,
       const std::string & edges, const std::string & method, unsigned int slowHarmonics, unsigned int maximumStep,
       const std::string & phaseZero, double period, double minimumRegularity) {
      CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
      BreathingSignal::Options o;
      o.sigma = sigma;
      if (edges != "below" && edges != "above" && edges != "both")
        throw py::value_error("edges is '" + edges + "'; expected 'below', 'above' or 'both'");
      o.edgeDirection = edges == "below"   ? BreathingSignal::EdgeDirection::DenserBelow
                        : edges == "above" ? BreathingSignal::EdgeDirection::DenserAbove
                                           : BreathingSignal::EdgeDirection::Both;
      if (method != "principal" && method != "edge")
        throw py::value_error("method is '" + method + "'; expected 'principal' or 'edge'");
      o.method = method == "edge" ? BreathingSignal::Method::FollowEdge : BreathingSignal::Method::PrincipalMotion;
      o.slowHarmonics = slowHarmonics;
      o.maximumStep = maximumStep;
      if (phaseZero != "minima" && phaseZero != "maxima")
        throw py::value_error("phase_zero is '" + phaseZero + "'; expected 'minima' or 'maxima'");
      o.phaseZero = phaseZero == "maxima" ? BreathingSignal::PhaseZero::Maxima : BreathingSignal::PhaseZero::Minima;
      o.period = period;
      o.minimumRegularity = minimumRegularity;
      try
      {
        BreathingSignal::CheckOptions(o);
      }
      catch (const itk::ExceptionObject & e)
      {
        std::string message = e.GetDescription();
        const std::string prefix = "ITK ERROR: ";
        if (message.rfind(prefix, 0) == 0)
          message = message.substr(prefix.size());
        throw py::value_error(message);
      }
      ImageType::Pointer image = FromNumpy<ImageType>(projections, projectionSpacing, projectionOrigin);
      BreathingSignal::Result result;
      {
        py::gil_scoped_release release;
        result = BreathingSignal::FromProjections(image, o);
      }
      const auto size = result.shroud->GetLargestPossibleRegion().GetSize();
      py::array_t<float> shroud({ static_cast<py::ssize_t>(size[1]), static_cast<py::ssize_t>(size[0]) });
      std::memcpy(shroud.mutable_data(), result.shroud->GetBufferPointer(), sizeof(float) * size[0] * size[1]);
      py::array_t<double> phases(static_cast<py::ssize_t>(result.phases.size()));
      std::memcpy(phases.mutable_data(), result.phases.data(), sizeof(double) * result.phases.size());
      py::array_t<double> signal(static_cast<py::ssize_t>(result.signal.size()));
      std::memcpy(signal.mutable_data(), result.signal.data(), sizeof(double) * result.signal.size());
      return py::make_tuple(phases, signal, shroud);
    },
    py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"), py::arg("sigma"),
    py::arg("edges"), py::arg("method"), py::arg("slow_harmonics"), py::arg("max_step"), py::arg("phase_zero"),
    py::arg("period"), py::arg("min_regularity"));
}

} // namespace cbct::python
