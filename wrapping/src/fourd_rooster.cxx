// conebeamct._conebeamct's 4D ROOSTER: _fourd_rooster, which conebeamct.fourd_rooster calls.
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"

#include "cbctConfiguration.h"
#include "cbctFourDROOSTERConeBeamReconstructionFilter.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFourDROOSTERConeBeamReconstructionFilter.h"
#endif

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>

namespace py = pybind11;

namespace cbct::python
{
namespace
{
using SeriesType = itk::Image<float, 4>;

struct RoosterOptions
{
  std::vector<double> phases;
  unsigned int iterations = 5;
  unsigned int cgIterations = 4;
  unsigned int tvIterations = 10;
  double gammaSpace = 0.;
  double gammaTime = 0.;
  bool positivity = true;
  ForwardProjectorKind projector = ForwardProjectorKind::Joseph;
  double step = 0.;
};

/** A 4D image on a copy of a (frame, z, y, x) array. */
SeriesType::Pointer
SeriesFromNumpy(const FloatArray & array, const Triple & spacing, const Triple & origin)
{
  auto series = SeriesType::New();
  SeriesType::SizeType size;
  SeriesType::SpacingType s;
  SeriesType::PointType o;
  for (unsigned int d = 0; d < 3; ++d)
  {
    size[d] = static_cast<SeriesType::SizeValueType>(array.shape(3 - d));
    s[d] = spacing[d];
    o[d] = origin[d];
  }
  size[3] = static_cast<SeriesType::SizeValueType>(array.shape(0));
  s[3] = 1.;
  o[3] = 0.;
  series->SetRegions(size);
  series->SetSpacing(s);
  series->SetOrigin(o);
  series->Allocate();
  std::memcpy(series->GetBufferPointer(), array.data(), static_cast<std::size_t>(array.size()) * sizeof(float));
  return series;
}

template <class TFilter>
py::tuple
Reconstruct(const FloatArray & projectionsArray, const Triple & projectionSpacing, const Triple & projectionOrigin,
            const ThreeDCircularProjectionGeometry * geometry, const FloatArray & initialArray, const Triple & spacing,
            const Triple & origin, const py::object & maskObject, const RoosterOptions & o, const std::string & hardware,
            const py::object & progress)
{
  ImageType::Pointer projections = FromNumpy<ImageType>(projectionsArray, projectionSpacing, projectionOrigin);
  SeriesType::Pointer initial = SeriesFromNumpy(initialArray, spacing, origin);
  ImageType::Pointer mask;
  FloatArray maskArray;
  if (!maskObject.is_none())
  {
    maskArray = maskObject.cast<FloatArray>();
    mask = FromNumpy<ImageType>(maskArray, spacing, origin);
  }
  auto rooster = TFilter::New();
  rooster->SetInput(initial);
  rooster->SetProjections(projections);
  rooster->SetGeometry(geometry);
  rooster->SetPhases(o.phases);
  if (mask)
    rooster->SetMotionMask(mask);
  rooster->SetNumberOfIterations(o.iterations);
  rooster->SetNumberOfCGIterations(o.cgIterations);
  rooster->SetNumberOfTVIterations(o.tvIterations);
  rooster->SetGammaSpace(o.gammaSpace);
  rooster->SetGammaTime(o.gammaTime);
  rooster->SetPositivity(o.positivity);
  rooster->SetForwardProjector(o.projector);
  rooster->SetRayCastStep(o.step);
  {
    py::gil_scoped_release release;
    rooster->UpdateOutputInformation(); // phases, parameters, the mask's grid checked before the work
  }
  const auto start = std::chrono::steady_clock::now();
  RunWithProgress(rooster, [&] { rooster->Update(); }, progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  SeriesType * output = rooster->GetOutput();
  const auto size = output->GetLargestPossibleRegion().GetSize();
  py::array_t<float> array({ static_cast<py::ssize_t>(size[3]), static_cast<py::ssize_t>(size[2]), static_cast<py::ssize_t>(size[1]),
                             static_cast<py::ssize_t>(size[0]) });
  std::memcpy(array.mutable_data(), output->GetBufferPointer(), static_cast<std::size_t>(array.size()) * sizeof(float));
  py::dict info;
  info["hardware"] = hardware;
  info["residual_norms"] = rooster->GetResidualNorms();
  py::list seeing;
  for (const auto & weights : TFilter::FrameWeights(o.phases, static_cast<unsigned int>(size[3])))
    seeing.append(std::count_if(weights.begin(), weights.end(), [](float w) { return w != 0.f; }));
  info["projections_per_frame"] = seeing;
  info["iterations"] = rooster->GetCurrentIteration();
  info["total_s"] = seconds;
  return py::make_tuple(array, info);
}
} // namespace

void
RegisterFourDROOSTER(py::module_ & m, const GeometryOf & geometryOf)
{
  m.def(
    "_fourd_rooster",
    [geometryOf](const FloatArray & projections, const Triple & projectionSpacing, const Triple & projectionOrigin,
                 const py::handle & geometryObject, const std::vector<double> & phases, const FloatArray & initial,
                 const Triple & spacing, const Triple & origin, const py::object & mask, unsigned int iterations,
                 unsigned int cgIterations, unsigned int tvIterations, double gammaSpace, double gammaTime, bool positivity,
                 const std::string & projector, double step, const std::string & hardware, const py::object & progress) {
      CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
      CheckDimensions(initial, "initial", 4, "4 dimensions (frame, z, y, x)");
      if (!mask.is_none())
        CheckDimensions(mask.cast<FloatArray>(), "motion_mask", 3, "3 dimensions (z, y, x)");
      const ThreeDCircularProjectionGeometry * geometry = geometryOf(geometryObject);
      RoosterOptions o;
      o.phases = phases;
      o.iterations = iterations;
      o.cgIterations = cgIterations;
      o.tvIterations = tvIterations;
      o.gammaSpace = gammaSpace;
      o.gammaTime = gammaTime;
      o.positivity = positivity;
      if (projector != "joseph" && projector != "raycast")
        throw py::value_error("projector is '" + projector + "'; expected 'joseph' or 'raycast'");
      o.projector = projector == "raycast" ? ForwardProjectorKind::RayCast : ForwardProjectorKind::Joseph;
      o.step = step;
      const std::string used = ChooseHardware(hardware, false);
#if CBCT_USE_CUDA
      if (used != "cpu")
        return Reconstruct<CudaFourDROOSTERConeBeamReconstructionFilter<SeriesType>>(
          projections, projectionSpacing, projectionOrigin, geometry, initial, spacing, origin, mask, o, used, progress);
#endif
      return Reconstruct<FourDROOSTERConeBeamReconstructionFilter<SeriesType>>(
        projections, projectionSpacing, projectionOrigin, geometry, initial, spacing, origin, mask, o, "cpu", progress);
    },
    py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"), py::arg("geometry"),
    py::arg("phases"), py::arg("initial"), py::arg("spacing"), py::arg("origin"), py::arg("motion_mask"),
    py::arg("iterations"), py::arg("cg_iterations"), py::arg("tv_iterations"), py::arg("gamma_space"),
    py::arg("gamma_time"), py::arg("positivity"), py::arg("projector"), py::arg("step"), py::arg("hardware"),
    py::arg("progress"));
}

} // namespace cbct::python
