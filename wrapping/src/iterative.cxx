// conebeamct._conebeamct._iterate: SART/OS-SART/SIRT, CGLS and OSEM, the filters cbct-sart, cbct-cgls
// and cbct-osem run (the same results bit for bit on the CPU), on numpy arrays imported without a
// copy, with the GIL released, progress and the per-iteration numbers in `info`.
#include "cbctPythonBindings.h"
#include "cbctPythonSupport.h"

#include "cbctCGLSConeBeamReconstructionFilter.h"
#include "cbctOSEMConeBeamReconstructionFilter.h"
#include "cbctSARTConeBeamReconstructionFilter.h"

#include <itkCommand.h>

#include <chrono>

#if CBCT_USE_CUDA
#  include "cbctCudaCGLSConeBeamReconstructionFilter.h"
#  include "cbctCudaDevice.h"
#  include "cbctCudaOSEMConeBeamReconstructionFilter.h"
#  include "cbctCudaSARTConeBeamReconstructionFilter.h"
#endif

#include <pybind11/stl.h>

namespace cbct::python
{
namespace
{
using IterativeFilter = IterativeReconstructionFilter<ImageType>;

/** The options of one reconstruction, as the Python layer checked them. */
struct IterativeOptions
{
  std::string method; // "sart", "cgls", "osem"
  unsigned int iterations = 3;
  double lambda = 0.3;
  unsigned int perSubset = 1;
  bool positivity = false;
  std::string projector = "joseph";
  std::string backprojector = "adjoint";
  double step = 0.;
  std::string hardware = "cpu";
  std::vector<int> devices;
};

template <typename TCpu, typename TCuda>
typename TCpu::Pointer
NewFilter(const IterativeOptions & o)
{
#if CBCT_USE_CUDA
  if (o.hardware == "cuda")
  {
    auto cuda = TCuda::New();
    cuda->SetDevices(o.devices);
    return cuda.GetPointer();
  }
#endif
  return TCpu::New().GetPointer();
}

#if CBCT_USE_CUDA
using CudaSART = CudaSARTConeBeamReconstructionFilter<ImageType>;
using CudaCGLS = CudaCGLSConeBeamReconstructionFilter<ImageType>;
using CudaOSEM = CudaOSEMConeBeamReconstructionFilter<ImageType>;
#else
using CudaSART = SARTConeBeamReconstructionFilter<ImageType>;
using CudaCGLS = CGLSConeBeamReconstructionFilter<ImageType>;
using CudaOSEM = OSEMConeBeamReconstructionFilter<ImageType>;
#endif

py::tuple
Iterate(const py::handle & projectionsObject,
        const Triple & projectionSpacing,
        const Triple & projectionOrigin,
        const ThreeDCircularProjectionGeometry * geometry,
        const py::handle & initialObject,
        const Triple & volumeSpacing,
        const Triple & volumeOrigin,
        const IterativeOptions & o,
        const py::object & progress)
{
  const unsigned int count = geometry->GetNumberOfProjections();
  ArrayArgument projectionsArray = ReadArray(projectionsObject, "projections", { 0, 0, 0 });
  ArrayArgument initialArray = ReadArray(initialObject, "initial", { 0, 0, 0 });
  for (const ArrayArgument * a : { &projectionsArray, &initialArray })
    if (a->memory != Memory::Host)
      throw py::type_error(a->name + " is on " + a->Where() + "; the iterative methods take host (numpy) arrays and "
                           "run on the device themselves with hardware='cuda' (copy it with .cpu() / .get())");
  if (projectionsArray.shape[0] != static_cast<py::ssize_t>(count))
    throw py::value_error("projections has shape " + ShapeText(projectionsArray.shape, 3) + ", " +
                          std::to_string(projectionsArray.shape[0]) + " projections, but geometry has " +
                          std::to_string(count));
  projectionsArray.CheckFinite();
  initialArray.CheckFinite();
  auto projections = ImageGrid<ImageType>(projectionsArray.shape, projectionSpacing, projectionOrigin);
  projections->GetPixelContainer()->SetImportPointer(projectionsArray.data, projectionsArray.Size(), false);
  auto initial = ImageGrid<ImageType>(initialArray.shape, volumeSpacing, volumeOrigin);
  initial->GetPixelContainer()->SetImportPointer(initialArray.data, initialArray.Size(), false);

  IterativeFilter::Pointer filter;
  const CGLSConeBeamReconstructionFilter<ImageType> * cgls = nullptr;
  if (o.method == "sart")
  {
    auto sart = NewFilter<SARTConeBeamReconstructionFilter<ImageType>, CudaSART>(o);
    sart->SetLambda(o.lambda);
    sart->SetNumberOfProjectionsPerSubset(o.perSubset);
    sart->SetEnforcePositivity(o.positivity);
    filter = sart;
  }
  else if (o.method == "cgls")
  {
    auto c = NewFilter<CGLSConeBeamReconstructionFilter<ImageType>, CudaCGLS>(o);
    cgls = c.GetPointer();
    filter = c;
  }
  else if (o.method == "osem")
  {
    auto osem = NewFilter<OSEMConeBeamReconstructionFilter<ImageType>, CudaOSEM>(o);
    osem->SetNumberOfProjectionsPerSubset(o.perSubset);
    filter = osem;
  }
  else
    throw py::value_error("method is '" + o.method + "'; expected 'sart', 'cgls' or 'osem'");
  filter->SetForwardProjector(o.projector == "raycast" ? ForwardProjectorKind::RayCast : ForwardProjectorKind::Joseph);
  filter->SetBackProjector(o.backprojector == "voxel" ? BackProjectorKind::VoxelBased : BackProjectorKind::Adjoint);
  filter->SetRayCastStep(o.step);
  filter->SetNumberOfIterations(o.iterations);
  filter->SetInput(0, initial);
  filter->SetProjections(projections);
  filter->SetGeometry(geometry);

  std::vector<double> iterationSeconds;
  auto clock = std::chrono::steady_clock::now();
  filter->AddObserver(itk::IterationEvent(), [&](const itk::EventObject &) {
    const auto now = std::chrono::steady_clock::now();
    iterationSeconds.push_back(std::chrono::duration<double>(now - clock).count());
    clock = now;
  });
  RunWithProgress(filter, [&] { filter->Update(); }, progress);

  ImageType::Pointer volume = filter->GetOutput();
  volume->DisconnectPipeline();
  py::dict info;
  info["method"] = o.method;
  info["hardware"] = o.hardware;
  info["iterations"] = filter->GetCurrentIteration();
  info["iteration_s"] = iterationSeconds;
  if (cgls)
  {
    info["initial_residual_norm"] = cgls->GetInitialResidualNorm();
    info["residual_norms"] = cgls->GetResidualNorms();
  }
  return py::make_tuple(ToNumpy<ImageType>(volume), info);
}

} // namespace

void
RegisterIterative(py::module_ & m, const GeometryOf & geometryOf)
{
  m.def(
    "_iterate",
    [geometryOf](const std::string & method, const py::handle & projections, const Triple & projectionSpacing,
                 const Triple & projectionOrigin, const py::handle & geometry, const py::handle & initial,
                 const Triple & volumeSpacing, const Triple & volumeOrigin, unsigned int iterations, double lambda,
                 unsigned int perSubset, bool positivity, const std::string & projector, const std::string & backprojector,
                 double step, const std::string & hardware, const std::vector<int> & devices, const py::object & progress) {
      IterativeOptions o;
      o.method = method;
      o.iterations = iterations;
      o.lambda = lambda;
      o.perSubset = perSubset;
      o.positivity = positivity;
      o.projector = projector;
      o.backprojector = backprojector;
      o.step = step;
      o.hardware = hardware;
      o.devices = devices;
      ChooseHardware(hardware, false);
      return Iterate(projections, projectionSpacing, projectionOrigin, geometryOf(geometry), initial, volumeSpacing,
                     volumeOrigin, o, progress);
    },
    py::arg("method"), py::arg("projections"), py::arg("projection_spacing"), py::arg("projection_origin"),
    py::arg("geometry"), py::arg("initial"), py::arg("volume_spacing"), py::arg("volume_origin"), py::arg("iterations"),
    py::arg("lambda_"), py::arg("per_subset"), py::arg("positivity"), py::arg("projector"), py::arg("backprojector"),
    py::arg("step"), py::arg("hardware"), py::arg("devices"), py::arg("progress"));
}

} // namespace cbct::python
