// conebeamct._conebeamct's 4D FDK: _fourd_fdk, which conebeamct.fourd_fdk calls.
#include "cbctPythonBindings.h"
#include "cbctPythonFDK.h"
#include "cbctPythonSupport.h"

#include "cbctConfiguration.h"
#include "cbctConstantImageSource.h"
#include "cbctFourDFDKConeBeamReconstructionFilter.h"
#include "cbctRampFilterResponse.h"
#if CBCT_USE_CUDA
#  include "cbctCudaFourDFDKConeBeamReconstructionFilter.h"
#  include "cbctCudaImage.h"
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
struct FourDOptions : FdkFilterOptions // each frame's grid and the filter settings, as _fdk's
{
  std::vector<double> phases;
  unsigned int frames = 10;
  double gatingWindow = 0.;
  FourDGating::WindowShape shape = FourDGating::WindowShape::Rectangular;
};

/** 4D FDK for one image type and filter: returns a (frame, z, y, x) float32 array and the stage times. */
template <class TImage, class TFilter>
py::tuple
Reconstruct(const FloatArray & projectionsArray, const Triple & projectionSpacing, const Triple & projectionOrigin,
            const ThreeDCircularProjectionGeometry * geometry, const FourDOptions & o, const std::string & hardware,
            const py::object & progress)
{
  typename TImage::Pointer projections = FromNumpy<TImage>(projectionsArray, projectionSpacing, projectionOrigin);
  auto grid = FdkGrid<TImage>(o);
  auto fdk = TFilter::New();
  fdk->SetInput(0, grid->GetOutput());
  fdk->SetProjections(projections);
  fdk->SetGeometry(geometry);
  fdk->SetPhases(o.phases);
  fdk->SetNumberOfFrames(o.frames);
  fdk->SetGatingWindow(o.gatingWindow);
  fdk->SetWindowShape(o.shape);
  ApplyFdkFilterOptions(fdk.GetPointer(), o);
  {
    py::gil_scoped_release release;
    fdk->UpdateOutputInformation(); // phases, frames and geometry checked before the work
  }
  const auto start = std::chrono::steady_clock::now();
  RunWithProgress(fdk, [&] { fdk->Update(); }, progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto output = fdk->GetOutput();
  const auto fourD = output->GetLargestPossibleRegion().GetSize();
  py::array_t<float> array({ static_cast<py::ssize_t>(fourD[3]), static_cast<py::ssize_t>(fourD[2]),
                             static_cast<py::ssize_t>(fourD[1]), static_cast<py::ssize_t>(fourD[0]) });
  std::memcpy(array.mutable_data(), output->GetBufferPointer(), static_cast<std::size_t>(array.size()) * sizeof(float));
  py::dict info;
  info["hardware"] = hardware;
  py::list counts;
  for (const auto & frame : fdk->GetFrames())
    counts.append(frame.projections.size());
  info["projections_per_frame"] = counts;
  AddStageTimes(info, fdk.GetPointer());
  info["total_s"] = seconds;
  return py::make_tuple(array, info);
}
} // namespace

void
RegisterFourDFDK(py::module_ & m, const GeometryOf & geometryOf)
{
  m.def(
    "_fourd_fdk",
    [geometryOf](const FloatArray & projections, const Triple & projectionSpacing, const Triple & projectionOrigin,
                 const py::handle & geometryObject, const std::vector<double> & phases, unsigned int frames,
                 double gatingWindow, const std::string & gatingShape, const std::array<unsigned long, 3> & size,
                 const Triple & spacing, const Triple & origin, const std::string & window, double cutOff, bool displaced,
                 const std::string & hardware, double pad, double hannY, const std::string & fov, const py::object & progress) {
      CheckDimensions(projections, "projections", 3, "3 dimensions (projection, v, u)");
      const ThreeDCircularProjectionGeometry * geometry = geometryOf(geometryObject);
      FourDOptions o;
      o.fieldOfView = CheckedFieldOfView(fov);
      o.size = size;
      o.spacing = spacing;
      o.origin = origin;
      o.phases = phases;
      if (frames < 1)
        throw py::value_error("frames is 0; expected an integer number of breathing phases >= 1");
      o.frames = frames;
      if (!std::isfinite(gatingWindow) || gatingWindow < 0. || gatingWindow > 1.)
        throw py::value_error("gating_window is " + py::repr(py::float_(gatingWindow)).cast<std::string>() +
                              "; expected a fraction of the breathing cycle in [0, 1] (0: the shape's default)");
      o.gatingWindow = gatingWindow;
      if (gatingShape != "rectangular" && gatingShape != "triangular")
        throw py::value_error("gating_shape is '" + gatingShape + "'; expected 'rectangular' or 'triangular'");
      o.shape = FourDGating::ParseWindowShape(gatingShape);
      o.window = ParseRampWindow(window);
      o.cutOff = CheckedCutOff(cutOff);
      o.displaced = displaced;
      if (!std::isfinite(pad) || pad < 0.)
        throw py::value_error("pad is " + py::repr(py::float_(pad)).cast<std::string>() +
                              "; expected a fraction of the detector width >= 0");
      o.pad = pad;
      o.hannY = hannY;
      const std::string used = ChooseHardware(hardware, true);
#if CBCT_USE_CUDA
      if (used != "cpu")
      {
        using CudaImageType = CudaImage<float, 3>;
        return Reconstruct<CudaImageType, CudaFourDFDKConeBeamReconstructionFilter<CudaImageType>>(
          projections, projectionSpacing, projectionOrigin, geometry, o, used, progress);
      }
#endif
      return Reconstruct<ImageType, FourDFDKConeBeamReconstructionFilter<ImageType, itk::Image<float, 4>>>(
        projections, projectionSpacing, projectionOrigin, geometry, o, "cpu", progress);
    },
    py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"), py::arg("geometry"),
    py::arg("phases"), py::arg("frames"), py::arg("gating_window"), py::arg("gating_shape"), py::arg("size"),
    py::arg("spacing"), py::arg("origin"), py::arg("window"), py::arg("cutoff"), py::arg("displaced"), py::arg("hardware"),
    py::arg("pad"), py::arg("hann_y"), py::arg("fov"), py::arg("progress"));
}

} // namespace cbct::python
